"""A closed chain's identification (control/excitation.py): the base regressor Y_b (the
columns of W^T Y_tree of the independent parameters) times the base parameters is the torque the
closed-chain dynamics give, and ``regressor --base --trajectory`` reports cond(Y_b) over the actuated
joints' trajectory, its columns named by their links."""

from __future__ import annotations

import json

import numpy as np
import pytest

from designer.cli import main
from designer.numeric.closed import ClosedDynamics
from designer.identification.regressor import Regressor, base_grouping
from designer.project import load_project
from tests.support import robot_path


@pytest.mark.parametrize("name", ["palletizer_parallelogram", "four_bar"])
def test_the_base_regressor_times_the_base_parameters_is_the_torque(name):
    model = load_project(robot_path(name))
    cd = ClosedDynamics(model)
    bp = base_grouping(cd)
    reg = Regressor(cd)
    columns = [reg.names.index(n) for n, _ in bp.base]
    rng = np.random.default_rng(8)
    for _ in range(4):
        q, qd, qdd = rng.uniform(-0.3, 0.3, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n)
        Yb = reg.actuated(q, qd, qdd)[:, columns]
        assert Yb @ bp.values == pytest.approx(cd.tau(q, qd, qdd), rel=1e-7, abs=1e-7)


def test_regressor_base_trajectory_of_a_closed_chain(tmp_path, capsys):
    model = load_project(robot_path("palletizer_parallelogram"))
    rng = np.random.default_rng(5)
    Q, QD, QDD = rng.uniform(-0.5, 0.5, (3, 10, 4))
    path = tmp_path / "traj.csv"
    header = [f"{p}{j}" for p in ("q", "qd", "qdd") for j in (1, 2, 4, 6)]
    path.write_text(",".join(header) + "\n" + "\n".join(
        ",".join(repr(float(v)) for v in [*Q[k], *QD[k], *QDD[k]]) for k in range(10)) + "\n")
    assert main(["regressor", str(robot_path("palletizer_parallelogram")), "--base", "--trajectory", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    cd = ClosedDynamics(model)
    reg = Regressor(cd)
    columns = [reg.names.index(b["name"]) for b in data["base"]]
    s = np.linalg.svd(np.vstack([reg.actuated(Q[k], QD[k], QDD[k])[:, columns] for k in range(10)]), compute_uv=False)
    assert data["condition"]["samples"] == 10
    assert data["condition"]["condition"] == pytest.approx(s[0] / s[-1], rel=1e-9)
    # the columns are named by the links: a file numbering the actuated joints 1..4 is one line, exit 2
    path.write_text(path.read_text().replace("q6", "q3"))
    assert main(["regressor", str(robot_path("palletizer_parallelogram")), "--base", "--trajectory", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "q6" in err
    # as for a serial arm, the standard parameters with the condition number of the base regressor on the trajectory
    path.write_text(path.read_text().replace("q3", "q6"))
    assert main(["regressor", str(robot_path("palletizer_parallelogram")), "--trajectory", str(path)]) == 0
    standard = json.loads(capsys.readouterr().out)
    assert "base" not in standard and len(standard["standard"]) == 10 * model.n
    assert standard["condition"] == data["condition"]


def test_regressor_base_excite_of_a_closed_chain(tmp_path, capsys):
    """regressor --base --excite: a Fourier series of the actuated joints within their limits whose every
    sample closes the loops; its rates are the derivatives of its positions (differenced here), and the
    file it writes, read back by --trajectory, gives the condition number it reported."""
    project = str(robot_path("palletizer_parallelogram"))
    out = tmp_path / "excite.csv"
    assert main(["regressor", project, "--base", "--excite", "--excite-out", str(out), "--period", "4",
                 "--harmonics", "3"]) == 0
    cond = json.loads(capsys.readouterr().out)["condition"]
    rows = np.loadtxt(out, delimiter=",", skiprows=1)
    assert out.read_text().splitlines()[0].startswith("t,q1,q2,q4,q6,qd1,qd2,qd4,qd6,qdd1")
    t, Q, QD, QDD = rows[:, 0], rows[:, 1:5], rows[:, 5:9], rows[:, 9:13]
    assert len(t) == cond["samples"] == 200 and np.isfinite(cond["condition"]) and cond["condition"] >= 1
    model = load_project(robot_path("palletizer_parallelogram"))
    cd = ClosedDynamics(model)
    limits = np.asarray(cd.tree.arm.limits)[list(cd.act)]
    assert np.all(Q >= limits[:, 0] - 1e-12) and np.all(Q <= limits[:, 1] + 1e-12)
    cd.positions(Q)                 # raises where a loop cannot close (each state continuing from the last)
    dt = t[1] - t[0]
    assert (Q[2:] - Q[:-2]) / (2 * dt) == pytest.approx(QD[1:-1], abs=2e-2 * np.abs(QD).max())
    assert (QD[2:] - QD[:-2]) / (2 * dt) == pytest.approx(QDD[1:-1], abs=2e-2 * np.abs(QDD).max())
    assert main(["regressor", project, "--base", "--trajectory", str(out)]) == 0
    back = json.loads(capsys.readouterr().out)["condition"]
    assert back["condition"] == pytest.approx(cond["condition"], rel=1e-6)
    assert main(["regressor", project, "--excite", "--period", "4", "--harmonics", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["condition"] == cond   # the same draws rated on the same Y_b


def test_excitation_draws_that_cannot_close_are_left_out():
    """The four-bar's excitation closes at every sample; draws the rating refuses (a loop that cannot
    close) are passed over, and none left is a ValueError saying so, not a traceback."""
    from designer.control.excitation import excitation
    from designer.control.excitation import fourier_excitation
    from designer.kinematics.closure import ClosureError
    model = load_project(robot_path("four_bar"))
    cd = ClosedDynamics(model)
    bp = base_grouping(cd)
    ex = excitation(model, bp, period=4, harmonics=2, draws=5)
    cd.positions(ex.q.T)
    seen = []

    def refuse(q, qd, qdd):
        seen.append(1)
        if len(seen) < 3:
            raise ClosureError("cannot close")
        return float(len(seen))
    arm = type("A", (), {"n": 1, "limits": np.array([[-1.0, 1.0]]), "revolute": np.array([True])})()
    assert fourier_excitation(arm, 4, 2, draws=4, condition=refuse).condition == 3.0
    seen.clear()
    with pytest.raises(ValueError, match="none of the 2 random trajectories"):
        fourier_excitation(arm, 4, 2, draws=2, condition=refuse)
