"""The Pareto front (NSGA-II, designer/optimize/pareto.py) against a brute grid's non-dominated set of the same
space, each requirement checked again at every design of the front by `explore metric`'s own evaluation, the
same front from worker processes, cancel, and bad inputs named."""

from __future__ import annotations

import numpy as np
import pytest

from designer.explore.joints import explore_arm
from designer.explore.metrics import Ratings, drive_ratings, evaluate, explored_drive_values
from designer.jobs import CancelToken, Cancelled, run
from designer.optimize.pareto import Objective, non_dominated, pareto, pareto_job
from designer.optimize.problem import OptimizeError, Problem, Variable, parse_requirement
from designer.project.io import load_project
from tests.support import robot_path

pytestmark = pytest.mark.slow

BOX = (0.04, 0.15)
FREQ = 48.0


def _metric(model, name, payload=0.0):
    """The metric as `explore metric` takes it: the drive data's ratings, the payload, every joint at zero."""
    arm = explore_arm(model)
    values = explored_drive_values(model)
    r = Ratings.of(arm.n, values["torque"], values["speed"], None, payload=payload, **drive_ratings(model))
    return float(evaluate(arm, [np.zeros(arm.n)], name, r)[0])


def _problem():
    model = load_project(robot_path("tube_arm"))
    return model, Problem(model, (Variable("D2", *BOX), Variable("D3", *BOX)), "mass",
                          (parse_requirement(f"frequency>={FREQ}"),), payload=5.0)


def test_non_dominated_by_hand():
    f = np.array([[1, 5], [2, 2], [3, 3], [5, 1], [2, 2], [1, 6]], float)
    # (3, 3) is dominated by (2, 2); (1, 6) by (1, 5); the equal rows (2, 2) both stay
    assert non_dominated(f).tolist() == [0, 1, 3, 4]


def test_the_front_against_a_brute_grid_and_every_requirement_holds():
    # mass against the tip's sag for a 5 kg payload, the lowest frequency at least 48 Hz: heavier tubes sag
    # less, so the two conflict; the grid's non-dominated set is computed on `explore metric`'s evaluation,
    # apart from the optimizer's code
    model, problem = _problem()
    g = 20
    axis = np.linspace(*BOX, g)
    points = []
    for D2 in axis:
        for D3 in axis:
            m = model.with_parameters({"D2": D2, "D3": D3})
            if _metric(m, "frequency", 5.0) >= FREQ:
                points.append((explore_arm(m).total_mass(), _metric(m, "deflection", 5.0)))
    grid = np.array(points)
    grid = grid[non_dominated(grid)]
    assert len(grid) >= 5
    front = pareto(problem, ["mass", "deflection"], population=20, generations=15, seed=1)
    assert front.names == ("mass", "deflection") and front.objectives.shape == (len(front.designs), 2)
    assert front.evaluations <= 300 < g * g
    assert len(front.designs) >= 10
    # the front is non-dominated within itself
    assert len(non_dominated(front.objectives)) == len(front.designs)
    # every grid non-dominated point is dominated or matched (within 2 % of each objective's range) by the front
    # (the grid has the box's edges exactly, where the front's light end lies: NSGA-II comes near them only)
    span = grid.max(axis=0) - grid.min(axis=0)
    for p in grid:
        assert np.any(np.all(front.objectives <= p + 0.02 * span, axis=1)), p
    # and the front covers as much of the objective space as the grid's set, within 1 % (pymoo's hypervolume)
    from pymoo.indicators.hv import HV
    ref = grid.max(axis=0) + 0.1 * span
    assert HV(ref_point=ref)(front.objectives) >= 0.99 * HV(ref_point=ref)(grid)
    # each design of the front, checked independently
    for d, f in zip(front.designs, front.objectives):
        m = model.with_parameters(d.values)
        assert BOX[0] <= d.values["D2"] <= BOX[1] and BOX[0] <= d.values["D3"] <= BOX[1]
        assert _metric(m, "frequency", 5.0) >= FREQ * (1 - 1e-9)
        assert explore_arm(m).total_mass() == pytest.approx(f[0], rel=1e-12)
        assert _metric(m, "deflection", 5.0) == pytest.approx(f[1], rel=1e-9)
    # the pick: an objective's best is the front's extreme; `ideal` lies between
    assert front.pick("mass") == int(np.argmin(front.objectives[:, 0]))
    assert front.pick("deflection") == int(np.argmin(front.objectives[:, 1]))
    k = front.pick()
    assert front.objectives[:, 0].min() < front.objectives[k, 0] < front.objectives[:, 0].max()


def test_workers_give_the_same_front_and_a_maximized_objective():
    _, problem = _problem()
    objectives = [Objective("mass"), Objective("frequency", maximize=True)]
    here = pareto(problem, objectives, population=8, generations=3, seed=3)
    there = pareto(problem, objectives, population=8, generations=3, seed=3, workers=2)
    assert here.evaluations == there.evaluations == 24
    np.testing.assert_allclose(there.objectives, here.objectives, rtol=1e-12)
    assert "on 2 local processes" in there.method
    # a Dask cluster (the one `explore sweep --scheduler` takes) gives it too
    distributed = pytest.importorskip("dask.distributed")
    from designer.explore.distribute import Compute
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        dask = pareto(problem, objectives, population=8, generations=3, seed=3,
                      compute=Compute("dask", scheduler=cluster.scheduler_address))
    np.testing.assert_allclose(dask.objectives, here.objectives, rtol=1e-12)
    assert "Dask scheduler" in dask.method
    # maximized frequency: more mass buys frequency along the front
    order = np.argsort(here.objectives[:, 0])
    assert np.all(np.diff(here.objectives[order, 1]) >= 0)


def test_cancel_stops_the_job():
    _, problem = _problem()
    token = CancelToken()
    seen = []

    def progress(step):
        seen.append(step)
        if len(seen) == 2:      # the first generation done
            token.cancel()
    with pytest.raises(Cancelled):
        run(pareto_job(problem, ["mass", "deflection"], population=8, generations=50, workers=2, token=token),
            progress, token)
    assert len(seen) == 2


@pytest.mark.parametrize("objectives, message", [
    (["mass"], "two or more objectives"),
    (["mass", "mass"], "given twice"),
    (["mass", "nonsense"], "unknown quantity 'nonsense'"),
])
def test_bad_objectives_are_named(objectives, message):
    _, problem = _problem()
    with pytest.raises(OptimizeError, match=message):
        pareto(problem, objectives, population=8, generations=1)


def test_no_feasible_design_gives_an_empty_front_and_the_closest():
    model, problem = _problem()
    impossible = Problem(model, problem.variables, "mass", (parse_requirement("frequency>=1e6"),), payload=5.0)
    front = pareto(impossible, ["mass", "deflection"], population=8, generations=2)
    assert front.designs == [] and front.objectives.shape == (0, 2)
    assert front.closest is not None and not front.closest.feasible
    with pytest.raises(OptimizeError, match="empty"):
        front.pick()


def _argv(tmp_path, *extra):
    return ["optimize", str(robot_path("tube_arm")), "--vary", "D2", *map(str, BOX), "--vary", "D3", *map(str, BOX),
            "--minimize", "mass", "--maximize", "frequency", "--require", "deflection<=3", "--payload", "5",
            "--population", "12", "--generations", "4", "--out", str(tmp_path / "best.json"), *extra]


def test_the_command_prints_and_writes_the_front_and_the_picked_design(tmp_path, capsys):
    import csv
    import json
    from designer.cli import main
    assert main(_argv(tmp_path, "--out-front", str(tmp_path / "front.json"), "--format", "json",
                      "--pick", "mass")) == 0
    out = json.loads(capsys.readouterr().out)
    assert [o["sense"] for o in out["objectives"]] == ["min", "max"]
    rows = out["front"]
    assert len(rows) >= 2 and out["how"]["evaluations"] == 48
    written = json.loads((tmp_path / "front.json").read_text())
    assert written["front"] == rows
    # --pick mass: the lightest of the front, written as a project whose own mass and sag say so
    lightest = min(range(len(rows)), key=lambda i: rows[i]["objectives"]["mass"])
    assert out["picked"] == lightest
    best = load_project(tmp_path / "best.json")
    assert explore_arm(best).total_mass() == pytest.approx(rows[lightest]["objectives"]["mass"], rel=1e-12)
    assert _metric(best, "deflection", 5.0) <= 3.0
    for row in rows:
        assert row["requirements"][0]["margin"] >= 0
    # the CSV: the same designs, one row each
    assert main(_argv(tmp_path, "--out-front", str(tmp_path / "front.csv"))) == 0
    text = capsys.readouterr().out
    assert "Pareto front" in text and "max frequency" in text and "* " in text
    with open(tmp_path / "front.csv", newline="") as fh:
        table = list(csv.reader(fh))
    assert table[0] == ["mass", "frequency", "D2", "D3", "deflection<=3"]
    assert [float(r[0]) for r in table[1:]] == pytest.approx([r["objectives"]["mass"] for r in rows], rel=1e-12)


def test_workers_for_one_objective_are_refused(tmp_path, capsys):
    from designer.cli import main
    argv = _argv(tmp_path, "--workers", "2")
    argv.remove("--maximize")
    argv.remove("frequency")
    assert main(argv) != 0
    assert "give two or more objectives" in capsys.readouterr().err
    assert not (tmp_path / "best.json").exists()


@pytest.mark.parametrize("extra, message", [
    (("--pick", "cost"), "--pick cost: ideal or one of the objectives"),
    (("--out-front", "front.txt"), "name a .csv or .json file"),
])
def test_bad_front_options_are_named_before_any_work(tmp_path, capsys, extra, message):
    from designer.cli import main
    assert main(_argv(tmp_path, *extra)) != 0
    err = capsys.readouterr().err
    assert message in err and not (tmp_path / "best.json").exists()


def test_a_material_choice_on_the_front():
    # the forearm's material as a discrete choice: a CFRP tube is lighter and stiffer than an aluminium one of
    # the same size (docs/design-story.md's sweep), so every design of the mass-sag front picks CFRP; the
    # aluminium forearm of the same sizes is heavier and sags more
    from designer.optimize.problem import Choice, design_model
    model, problem = _problem()
    problem = Problem(model, problem.variables, "mass", problem.requirements,
                      (Choice("3.material", ("aluminium 6061-T6", "CFRP")),), payload=5.0)
    seen = []
    front = pareto(problem, ["mass", "deflection"], population=16, generations=10, seed=2,
                   progress=lambda step: seen.append(step))
    assert front.designs and all(d.picks == ("CFRP",) for d in front.designs)
    assert "generation 10" in seen[-1].detail
    for d, f in zip(front.designs[::5], front.objectives[::5]):
        alu = design_model(problem, d.values, ("aluminium 6061-T6",))
        assert explore_arm(alu).total_mass() > f[0] and _metric(alu, "deflection", 5.0) > f[1]
