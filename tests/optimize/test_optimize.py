"""The optimizer on problems with known answers: one variable against bisection on the project's own metric,
two variables against a brute grid of the same space, an affine case solved by hand on a closed chain, and
every requirement checked again at the written design by `explore metric`."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from designer.cli import main
from designer.explore.joints import explore_arm
from designer.explore.metrics import Ratings, drive_ratings, evaluate, explored_drive_values
from designer.optimize.problem import Choice, OptimizeError, Problem, Variable, optimize, parse_requirement
from designer.project.io import load_project
from tests.support import robot_path

pytestmark = pytest.mark.slow


def _metric(model, name, payload=0.0, q=None):
    """The metric as `explore metric` takes it: the drive data's ratings, the payload, every joint at zero."""
    arm = explore_arm(model)
    values = explored_drive_values(model)
    r = Ratings.of(arm.n, values["torque"], values["speed"], None, payload=payload, **drive_ratings(model))
    return float(evaluate(arm, [np.zeros(arm.n) if q is None else q], name, r)[0])


def _mass(model):
    return explore_arm(model).total_mass()


def test_one_variable_against_bisection():
    # the tube arm's upper arm diameter: mass grows with it and the links' sag shrinks, so the lightest design
    # meeting the sag bound sits where the sag equals the bound; bisection finds it on the metric itself
    model = load_project(robot_path("tube_arm"))
    bound = 0.5
    sag = lambda D2: _metric(model.with_parameters({"D2": D2}), "deflection_links", 5.0)  # noqa: E731
    lo, hi = 0.05, 0.15
    assert sag(lo) > bound > sag(hi)
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if sag(mid) > bound else (lo, mid)
    D2 = hi
    result = optimize(Problem(model, (Variable("D2", 0.05, 0.15),), "mass",
                              (parse_requirement(f"deflection_links<={bound}"),), payload=5.0), starts=2)
    assert result.best is not None and result.best.feasible
    assert result.best.values["D2"] == pytest.approx(D2, rel=1e-4)
    assert result.best.objective == pytest.approx(_mass(model.with_parameters({"D2": D2})), rel=1e-6)
    assert result.evaluations > 0 and result.iterations > 0


def test_two_variables_against_a_brute_grid_and_every_requirement_holds(tmp_path, capsys):
    model = load_project(robot_path("tube_arm"))
    reqs = ("deflection_links<=0.5", "frequency>=48")
    g = 22
    grid = np.linspace(0.04, 0.15, g)
    best_grid = np.inf
    for D2 in grid:
        for D3 in grid:
            m = model.with_parameters({"D2": D2, "D3": D3})
            if _metric(m, "deflection_links", 5.0) <= 0.5 and _metric(m, "frequency", 5.0) >= 48:
                best_grid = min(best_grid, _mass(m))
    assert np.isfinite(best_grid)
    out = tmp_path / "best.json"
    argv = ["optimize", str(robot_path("tube_arm")), "--vary", "D2", "0.04", "0.15", "--vary", "D3", "0.04", "0.15",
            "--minimize", "mass", "--payload", "5", "--starts", "2", "--out", str(out), "--format", "json"]
    for r in reqs:
        argv += ["--require", r]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["objective"]["value"] <= best_grid + 1e-9      # as light as the grid's best, or lighter
    assert 10 * summary["how"]["evaluations"] <= g * g              # at least ten times fewer evaluations
    # the written project, checked independently: its own mass and `explore metric` on the file
    best = load_project(out)
    assert _mass(best) == pytest.approx(summary["objective"]["value"], rel=1e-12)
    assert main(["explore", str(out), "metric", "--metric", "deflection_links", "--metric", "frequency",
                 "--payload", "5", "--format", "json"]) == 0
    values = {row["metric"]: row["value"] for row in json.loads(capsys.readouterr().out)["metrics"]}
    assert values["deflection_links"] <= 0.5 * (1 + 1e-6)
    assert values["frequency"] >= 48
    for row in summary["requirements"]:
        assert row["margin"] >= -1e-6 * abs(row["bound"])


def test_a_closed_chain_with_an_affine_optimum():
    # the palletizer (a closed chain): its joint torques are affine in a link's mass, so the largest m3 meeting a
    # bound on gravity[4] at a pose is solved from two evaluations by hand
    model = load_project(robot_path("palletizer_parallelogram"))
    q = np.array([0.0, 0.4, 0.3, 0.0])
    g = lambda m3: _metric(model.with_parameters({"m3": m3}), "gravity[4]", q=q)  # noqa: E731
    ga, gb = g(10.0), g(80.0)
    assert abs(gb - ga) > 1.0
    bound = ga + 0.37 * (gb - ga)
    expect = 10.0 + 0.37 * 70.0
    req = parse_requirement(f"gravity[4]{'<=' if gb > ga else '>='}{bound!r}")
    result = optimize(Problem(model, (Variable("m3", 10.0, 80.0),), "mass", (req,), maximize=True, q=tuple(q)),
                      starts=2)
    assert result.best is not None
    assert result.best.values["m3"] == pytest.approx(expect, rel=1e-5)


def test_a_material_choice_is_enumerated():
    model = load_project(robot_path("tube_arm"))
    from designer.model.parts import MATERIALS
    options = tuple(sorted(MATERIALS))[:3]
    result = optimize(Problem(model, (), "mass", (), choices=(Choice("3.material", options),)))
    masses = {}
    for name in options:
        links = list(model.links)
        links[2] = replace(links[2], part=replace(links[2].part, material=MATERIALS[name]))
        masses[name] = _mass(replace(model, links=tuple(links)))
    assert result.best.picks == (min(masses, key=masses.get),)
    assert result.combinations == len(options)


@pytest.mark.parametrize("problem, message", [
    (dict(variables=(Variable("nope", 0, 1),), objective="mass"), "--vary nope: not a parameter"),
    (dict(variables=(Variable("D2", 0.2, 0.1),), objective="mass"), "--vary D2: give LO < HI"),
    (dict(variables=(Variable("D2", 0.05, 0.1),), objective="peak_torque"), "give --cycle"),
    (dict(variables=(Variable("D2", 0.05, 0.1),), objective="massive"), "unknown quantity 'massive'"),
    (dict(variables=(), objective="mass"), "nothing to vary"),
])
def test_bad_problems_are_named(problem, message):
    model = load_project(robot_path("tube_arm"))
    with pytest.raises(OptimizeError, match=message):
        optimize(Problem(model, **problem))


def test_bad_requirement_texts():
    for text in ("frequency<5", "frequency<=", "<=3", "frequency<=inf", "frequency>=abc"):
        with pytest.raises(OptimizeError, match="requirement"):
            parse_requirement(text)
    r = parse_requirement(" deflection <= 0.7 ")
    assert (r.quantity, r.upper, r.bound) == ("deflection", True, 0.7)


def test_a_drive_choice_among_catalog_items(tmp_path, capsys):
    # the tube arm's elbow without its own stiffness: the chosen gearbox's figure sets the lowest frequency, so
    # the lightest pair is not the one that meets the bound; each option checked through a written project
    doc = json.loads(robot_path("tube_arm").read_text())
    del doc["links"][1]["drive"]["stiffness"]
    project = tmp_path / "arm.json"
    project.write_text(json.dumps(doc))
    options = ["NPS015-MF-10+SGMP-03B", "NPT025-MF-10+SGMSH-10A", "TP050-MF-10+SGMSH-40A"]
    from designer.catalog import load_catalog
    cat = load_catalog()
    checked = {}
    for option in options:
        g, m = option.split("+")
        d = dict(doc, version=4)
        d["links"] = [dict(link) for link in doc["links"]]
        d["links"][1]["drive"] = dict(doc["links"][1]["drive"], gearbox=g, motor=m)
        for k in ("gear_ratio", "motor_inertia", "rated_torque", "peak_torque", "rated_speed"):
            d["links"][1]["drive"].pop(k, None)
        path = tmp_path / f"{g}.json"
        path.write_text(json.dumps(d))
        model = load_project(path)
        checked[option] = (_mass(model) + (cat.gearboxes[g].mass or 0) + (cat.motors[m].mass or 0),
                           _metric(model, "frequency", 5.0))
    freqs = sorted(f for _, f in checked.values())
    bound = 0.5 * (freqs[0] + freqs[1])           # the least stiff gearbox fails it
    expect = min((o for o in options if checked[o][1] >= bound), key=lambda o: checked[o][0])
    out = tmp_path / "best.json"
    assert main(["optimize", str(project), "--choose", "2.drive", ",".join(options), "--minimize", "mass",
                 "--require", f"frequency>={bound!r}", "--payload", "5", "--out", str(out), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["choices"] == {"2.drive": expect}
    assert summary["objective"]["value"] == pytest.approx(checked[expect][0], rel=1e-12)
    written = load_project(out)
    assert (written.links[1].drive.gearbox, written.links[1].drive.motor) == tuple(expect.split("+"))
    assert _metric(written, "frequency", 5.0) == pytest.approx(checked[expect][1], rel=1e-12)


def test_the_heaviest_forearm_within_a_peak_torque_along_a_cycle():
    # along a fixed cycle the shoulder's peak torque grows with the forearm's mass m2; the heaviest m2 meeting a
    # bound is found by bisection on Duarte's closed-form equations, written out in the sizing test
    from designer.explore.sizing import quintic
    from tests.optimize.test_sizing import P, duarte
    model = load_project(robot_path("planar_two_link"))
    cycle = quintic([-0.3, 0.2], [1.2, 1.4], 0.8, steps=401)

    def peak(m2):
        P["m2"] = m2
        try:
            return float(np.abs(duarte(cycle.q, cycle.qd, cycle.qdd)[0][:, 0]).max())
        finally:
            P["m2"] = 1.0
    bound = 0.5 * (peak(0.5) + peak(4.0))
    lo, hi = 0.5, 4.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if peak(mid) <= bound else (lo, mid)
    result = optimize(Problem(model, (Variable("m2", 0.5, 4.0),), "mass",
                              (parse_requirement(f"peak_torque[1]<={bound!r}"),), maximize=True, cycle=cycle), starts=2)
    assert result.best is not None
    assert result.best.values["m2"] == pytest.approx(lo, rel=1e-5)
    assert result.best.quantities[0] == pytest.approx(peak(result.best.values["m2"]), rel=1e-9)


@pytest.mark.parametrize("robot, names, at", [
    ("tube_arm", ("D2", "t3", "L2"), {"D2": 0.1, "t3": 0.004, "L2": 0.55}),   # parts: section and material
    ("palletizer_parallelogram", ("m3", "m_motor"), {"m3": 30.0, "m_motor": 20.0}),   # a closed chain's masses
])
def test_the_exact_mass_gradient_against_finite_differences(robot, names, at):
    from designer.optimize.gradients import mass_gradient
    model = load_project(robot_path(robot))
    exact = mass_gradient(model, names)(at)
    for k, name in enumerate(names):
        h = 1e-6 * max(1.0, abs(at[name]))
        up = _mass(model.with_parameters({**at, name: at[name] + h}))
        down = _mass(model.with_parameters({**at, name: at[name] - h}))
        assert exact[k] == pytest.approx((up - down) / (2 * h), rel=1e-6, abs=1e-9)
    assert np.any(exact != 0)


def test_an_elastic_closed_chain_against_bisection(tmp_path):
    # the palletizer with a gearbox spring at each motor: the lowest frequency falls as the load grows, so the
    # heaviest load keeping it above a bound sits where the frequency equals the bound
    doc = json.loads(robot_path("palletizer_parallelogram").read_text())
    for link in doc["links"]:
        if link.get("actuated", True):
            link["drive"] = {"stiffness": 2e5, "gear_ratio": 100, "motor_inertia": 1e-4}
    path = tmp_path / "elastic_palletizer.json"
    path.write_text(json.dumps(doc))
    model = load_project(path)
    q = np.array([0.0, 0.4, 0.3, 0.0])
    freq = lambda m: _metric(model.with_parameters({"m_load": m}), "frequency", q=q)  # noqa: E731
    lo, hi = 10.0, 400.0
    assert freq(lo) > freq(hi)
    bound = 0.5 * (freq(lo) + freq(hi))
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if freq(mid) >= bound else (lo, mid)
    result = optimize(Problem(model, (Variable("m_load", 10.0, 400.0),), "mass",
                              (parse_requirement(f"frequency>={bound!r}"),), maximize=True, q=tuple(q)), starts=2)
    assert result.best is not None
    assert result.best.values["m_load"] == pytest.approx(lo, rel=1e-4)


def test_a_bound_of_zero():
    # Duarte's two-link arm at q = (0.3, 0.2): gravity[2] = g m2 d2 cos(q1 + q2) >= 0 holds for d2 >= 0, and
    # gravity[1] grows with d2, so its minimum under the requirement is at d2 = 0 (by hand)
    model = load_project(robot_path("planar_two_link"))
    result = optimize(Problem(model, (Variable("d2", -0.2, 0.4),), "gravity[1]", (parse_requirement("gravity[2]>=0"),),
                              q=(0.3, 0.2)), starts=2)
    assert result.best is not None and result.best.feasible
    assert result.best.values["d2"] == pytest.approx(0.0, abs=1e-5)
    assert result.best.quantities[0] >= 0


def test_later_starts_joining_an_earlier_optimum_stop_there(monkeypatch):
    # the tube arm's two diameters under a sag and a frequency bound: every start ends at one optimum, so the later
    # starts are stopped on joining it; the result is the one every start run to its end finds, in fewer evaluations
    import designer.optimize.problem as problem_module
    model = load_project(robot_path("tube_arm"))
    problem = Problem(model, (Variable("D2", 0.04, 0.15), Variable("D3", 0.04, 0.15)), "mass",
                      (parse_requirement("deflection_links<=0.5"), parse_requirement("frequency>=48")), payload=5.0)
    joined = optimize(problem, starts=3)
    monkeypatch.setattr(problem_module, "JOIN", 0.0)     # no start ever joins: each runs to its end
    full = optimize(problem, starts=3)
    assert not any("joining" in line for line in full.log)
    assert any("joining" in line for line in joined.log)
    assert joined.best is not None and full.best is not None and joined.best.feasible
    assert joined.best.objective == pytest.approx(full.best.objective, rel=1e-6)
    assert joined.evaluations < full.evaluations
