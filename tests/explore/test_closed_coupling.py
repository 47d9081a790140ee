"""Coupling sweeps of closed chains (issue 22: the window's Coupling tab takes them) and the joints
Explore numbers: random four-bars and parallelogram arms in both DH conventions.

M_a on the sweeps is checked against Pinocchio's CRBA of the spanning tree, projected by W from
central differences of the loop closure (W^T M W), not against the ClosedBatch the sweep uses.
"""

from __future__ import annotations

import numpy as np
import pytest

from designer.explore.coupling import Quantity, joints_moving_inertia, parameter_grid_job, sweep_joint
from designer.explore.joints import explore_arm, explore_joints
from designer.jobs import Cancelled, CancelToken, run
from designer.kinematics import NumericArm
from designer.numeric.actuated_arm import ActuatedArm
from designer.model import Convention
from designer.project import load_project
from tests.support import robot_path
from tests.support.closed_reference import four_bar, parallelogram_arm

pin = pytest.importorskip("pinocchio")


def _mechanisms():
    rng = np.random.default_rng(2206)
    for conv in (Convention.STANDARD, Convention.MODIFIED):
        yield parallelogram_arm(rng, conv, wrist=True)
        yield parallelogram_arm(rng, conv)
        yield four_bar(rng, conv, mounted=True)


def _pin_M_a(model, arm: ActuatedArm, q_a) -> np.ndarray:
    from tests.support.closed_reference import pin_mechanism
    pm, _constraints, order = pin_mechanism(model)
    cd = arm.cd
    q = cd.positions(q_a)
    M_pin = pin.crba(pm, pm.createData(), q[order])
    M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
    M = np.empty_like(M_pin)
    M[np.ix_(order, order)] = M_pin
    h = 1e-6
    W = np.array([(cd.closure.solve(q_a + e, q) - cd.closure.solve(q_a - e, q)) / (2 * h) for e in np.eye(cd.n) * h]).T
    return W.T @ M @ W


@pytest.mark.parametrize("model", list(_mechanisms()), ids=lambda m: f"{m.name} {m.convention.value}")
def test_a_joint_sweep_of_a_closed_chain_gives_its_projected_mass_matrix(model):
    arm = explore_arm(model)
    assert isinstance(arm, ActuatedArm)
    joints = explore_joints(model)
    assert joints.closed and list(joints.index) == [int(j) for j in arm.cd.act]
    if arm.n < 2:
        pytest.skip("one actuated joint: no pair")
    rng = np.random.default_rng(4)
    q0 = rng.uniform(-0.3, 0.3, arm.n)
    values = np.linspace(-0.4, 0.4, 7)
    sweep = sweep_joint(arm, q0, 0, 1, 1, values)
    assert sweep.x_label.startswith(joints.names[1])
    assert sweep.label(Quantity.COUPLING) == f"M_{joints.index[0] + 1}{joints.index[1] + 1}"
    M01 = sweep.curves[""][Quantity.COUPLING]
    for k in (0, 3, 6):
        q = q0.copy()
        q[1] = values[k]
        try:
            reference = _pin_M_a(model, arm, q)
        except Exception:   # noqa: BLE001 - a pose where the four-bar cannot close: NaN on the sweep
            assert np.isnan(M01[k])
            continue
        assert M01[k] == pytest.approx(reference[0, 1], rel=1e-6, abs=1e-9)
    # the Coriolis coefficients: the core's Christoffel symbols of a closed chain, or NaN and its reason
    b = sweep.curves[""][Quantity.CORIOLIS_I]
    assert np.isfinite(b).any() if not sweep.note else (np.isnan(b).all() and "closed chain" in sweep.note)


def test_a_serial_arm_keeps_its_numbers_and_names():
    model = load_project(robot_path("puma560"))
    joints = explore_joints(model)
    assert not joints.closed and joints.names == tuple(f"q{k}" for k in range(1, 7))
    arm = explore_arm(model)
    assert isinstance(arm, NumericArm)
    sweep = sweep_joint(arm, np.zeros(6), 1, 2, 2, [0.0, 0.5])
    assert sweep.numbers is None and sweep.x_label == "q3 (rad)" and not sweep.note
    assert sweep.label(Quantity.CORIOLIS_J) == "B_3,23"


def test_the_palletizer_s_joints_map_between_the_tree_and_the_actuated_pose():
    model = load_project(robot_path("palletizer_parallelogram"))
    joints = explore_joints(model)
    assert joints.names == ("q1", "q2", "q4", "q6") and joints.n == 4 and joints.n_tree == 6
    q_tree = np.arange(6.0)
    assert list(joints.pose(q_tree)) == [0, 1, 3, 5]
    assert list(joints.tree_pose([9, 8, 7, 6], q_tree)) == [9, 8, 2, 7, 4, 6]
    assert list(joints.per_joint(np.arange(6.0) * 10)) == [0, 10, 30, 50]
    assert joints.per_joint(None) is None
    # the shoulder and the crank move M_a (q1 turns the whole arm, q6 the wrist about its axis)
    assert joints_moving_inertia(explore_arm(model)) == [2, 3]


def test_a_closed_chain_s_parameter_grid_reports_progress_and_can_be_cancelled():
    model = load_project(robot_path("palletizer_parallelogram"))
    steps = []
    job = parameter_grid_job(model, "c", np.linspace(0.2, 0.4, 5))
    grid = run(job, steps.append)
    assert len(grid.arms) == 5 and len(steps) == 5 and steps[-1].fraction == 1.0
    sweep = grid.evaluate(np.zeros(4), 1, 2)
    for v, m in zip(grid.values, sweep.curves[""][Quantity.COUPLING]):
        assert m == pytest.approx(explore_arm(model, {"c": float(v)}).cd.M(np.zeros(4))[1, 2], rel=1e-12)
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        run(parameter_grid_job(model, "c", [0.2, 0.3], token=token))


def test_explore_compare_of_the_two_palletizers_runs_from_the_command_line(capsys):
    """The beam and deflection metrics read the links' beams, which an ActuatedArm has not: they are left
    out (MetricError) instead of stopping the comparison with an AttributeError."""
    from designer.cli import main
    code = main(["explore", str(robot_path("palletizer_parallelogram")), "compare", "--with",
                 str(robot_path("palletizer_serial")), "--samples", "16", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0 and '"M[2,3]"' in out
