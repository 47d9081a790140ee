"""A closed chain's identification (control/closed_identification.py): the base regressor Y_b (the
columns of W^T Y_tree of the independent parameters) times the base parameters is the torque the
closed-chain dynamics give, and ``regressor --base --trajectory`` reports cond(Y_b) over the actuated
joints' trajectory, its columns named by their links."""

from __future__ import annotations

import json

import numpy as np
import pytest

from designer.cli import main
from designer.numeric.closed import ClosedDynamics
from designer.numeric.closed_regressor import ClosedRegressor, closed_base_parameters
from designer.project import load_project
from tests.support import robot_path


@pytest.mark.parametrize("name", ["palletizer_parallelogram", "four_bar"])
def test_the_base_regressor_times_the_base_parameters_is_the_torque(name):
    model = load_project(robot_path(name))
    cd = ClosedDynamics(model)
    bp = closed_base_parameters(cd)
    reg = ClosedRegressor(cd)
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
    reg = ClosedRegressor(cd)
    columns = [reg.names.index(b["name"]) for b in data["base"]]
    s = np.linalg.svd(np.vstack([reg.actuated(Q[k], QD[k], QDD[k])[:, columns] for k in range(10)]), compute_uv=False)
    assert data["condition"]["samples"] == 10
    assert data["condition"]["condition"] == pytest.approx(s[0] / s[-1], rel=1e-9)
    # the columns are named by the links: a file numbering the actuated joints 1..4 is one line, exit 2
    path.write_text(path.read_text().replace("q6", "q3"))
    assert main(["regressor", str(robot_path("palletizer_parallelogram")), "--base", "--trajectory", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "q6" in err
    assert main(["regressor", str(robot_path("palletizer_parallelogram")), "--trajectory", str(path)]) == 2
    assert "needs --base" in capsys.readouterr().err
