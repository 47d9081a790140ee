"""Explore metrics of closed chains: M_a, G_a and the tool Jacobian J W in the metrics' terms."""

from __future__ import annotations

import numpy as np
import pytest

from designer.cli import main
from designer.explore.joints import explore_arm
from designer.explore.metrics import compute
from designer.project import load_project
from tests.support import robot_path


def test_tool_jacobian_is_the_derivative_of_the_tool_position():
    """J W against central differences of the tool point over closed poses (the closure redone at each)."""
    arm = explore_arm(load_project(robot_path("acma_sr400")))
    cd = arm.cd
    rng = np.random.default_rng(3)
    q = rng.uniform(-0.4, 0.4, (3, arm.n))
    b = arm.batch(q)

    def tool(qa):
        T = cd.tree.frames(cd.positions(qa))
        return (T[arm.tool_link + 1] @ arm.tool)[:3, 3]
    for k, qa in enumerate(q):
        J = np.array([(tool(qa + e) - tool(qa - e)) / 2e-6 for e in np.eye(arm.n) * 1e-6]).T
        assert np.abs(b.tool_jacobian[k, :3] - J).max() < 1e-7
        assert np.allclose(b.M[k], cd.M(qa), rtol=1e-12, atol=1e-12)
    assert arm.tool_link == 5   # link 6, the wrist: the deepest leaf, not the coupler


def test_coupling_and_gravity_metrics_of_a_closed_chain():
    arm = explore_arm(load_project(robot_path("palletizer_parallelogram")))
    q = np.array([[0.0, 0.2, -0.1, 0.0]])
    M = arm.cd.M(q[0])
    coupling = compute(arm, q, "coupling")[0]
    assert np.isclose(coupling[1, 2], M[1, 2] / np.sqrt(M[1, 1] * M[2, 2]))
    assert np.allclose(compute(arm, q, "gravity")[0], np.abs(arm.cd.G(q[0])))


def test_compare_a_serial_and_a_closed_design(capsys):
    assert main(["explore", str(robot_path("palletizer_serial")), "compare", "--with",
                 str(robot_path("palletizer_parallelogram")), "--samples", "64", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "coupling" in out and "gravity" in out and "total_mass" in out
    # Lee's split of a closed chain too: the parallelogram moves the forearm with the crank alone, so
    # the shoulder-elbow coupling has no rotational part (tra_share = 1). The designs name their joints
    # differently (1..4 and 1, 2, 4, 6): the rows number them 1..4, each design's k-th actuated joint
    import json
    rows = {r["metric"]: r for r in json.loads(out)["rows"] if r["where"] == "pose"}
    assert rows["tra_share[2,3]"]["B"] == pytest.approx(1.0, abs=1e-12)
    assert rows["tra_share[2,3]"]["A"] < 0.99     # the serial forearm turns with the shoulder


def test_map_of_a_closed_chain_at_samples_and_on_a_grid(capsys):
    import json
    project = str(robot_path("palletizer_parallelogram"))
    # the actuated joints by their link numbers (1, 2, 4, 6), as eval names them
    assert main(["explore", project, "map", "--metric", "coupling[2,4]", "--samples", "16", "--format", "json",
                 "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    arm = explore_arm(load_project(robot_path("palletizer_parallelogram")))
    first = data["samples"][0]
    qa = np.array([first[f"q{k}"] for k in (1, 2, 4, 6)])
    M = arm.cd.M(qa)
    assert np.isclose(first["coupling[2,4]"], M[1, 2] / np.sqrt(M[1, 1] * M[2, 2]))
    assert np.allclose([first["x"], first["y"], first["z"]], arm.tool_points([qa])[0])
    assert main(["explore", project, "map", "--metric", "gravity[2]", "--joints", "2", "4", "--steps", "3",
                 "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1 + 9 and lines[0] == 'q2,q4,gravity[2]'
    assert main(["explore", project, "map", "--metric", "gravity[2]", "--joints", "2", "3", "--quiet"]) == 2
    assert "1, 2, 4, 6" in capsys.readouterr().err


def test_sweep_of_a_closed_chain_parameter(capsys):
    """A sweep of the crank length: each design's summary is the metric of that design's ActuatedArm
    at the sweep's samples."""
    import csv
    import io
    from designer.explore.maps import sample_configurations, summarize
    project = str(robot_path("palletizer_parallelogram"))
    assert main(["explore", project, "sweep", "--param", "c", "0.2", "0.4", "2", "--metric", "gravity[4]",
                 "--samples", "16", "--quiet", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 2 and not any(r["error"] for r in rows)
    model = load_project(robot_path("palletizer_parallelogram"))
    for row in rows:
        arm = explore_arm(model, {"c": float(row["c"])})
        q = sample_configurations(arm, 16)
        expected = summarize(compute(arm, q, "gravity")[:, 2])
        assert np.isclose(float(row["gravity[4]:max"]), expected["max"])
        assert np.isclose(float(row["total_mass"]), arm.total_mass())


def test_sizing_along_a_move_of_a_closed_chain(capsys):
    import csv
    import io
    from designer.explore.sizing import quintic
    project = str(robot_path("palletizer_parallelogram"))
    assert main(["explore", project, "sizing", "--from", "0", "0", "0", "0", "--to", "1", "0.3", "-0.3", "0.5",
                 "--duration", "1.5", "--steps", "21", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    cd = explore_arm(load_project(robot_path("palletizer_parallelogram"))).cd
    traj = quintic(np.zeros(4), np.array([1, 0.3, -0.3, 0.5]), 1.5, 21)
    tau = np.array([cd.tau(q, qd, qdd) for q, qd, qdd in zip(traj.q, traj.qd, traj.qdd)])
    assert np.allclose([float(r["peak_torque"]) for r in rows], np.abs(tau).max(axis=0))
