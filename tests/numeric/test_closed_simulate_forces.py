"""The cut-joint forces along a closed chain's simulation (what a parallelogram's bearings carry while
it moves): at every row, Pinocchio's constraint forces (constraintDynamics with a rigid constraint
closing the loop, the same torques, the tree's state from the row) against the simulation's."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from designer.cli import main
from designer.model import Convention
from designer.numeric.closed import ClosedDynamics
from designer.numeric.simulate import simulate
from designer.project import load_project
from tests.support import robot_path
from tests.support.closed_reference import felt, parallelogram_arm


@pytest.mark.parametrize("conv", [Convention.STANDARD, Convention.MODIFIED])
def test_a_falling_parallelograms_cut_forces_are_pinocchios(conv):
    pytest.importorskip("pinocchio")
    from tests.support.closed_reference import PinMechanism
    rng = np.random.default_rng(17)
    for _ in range(2):
        model = parallelogram_arm(rng, conv, wrist=True)
        cd = ClosedDynamics(model)
        q0 = rng.uniform(-0.4, 0.4, cd.n)
        traj = simulate(cd, q0, np.zeros(cd.n), (0.0, 0.4), t_eval=np.linspace(0.0, 0.4, 5))
        ref = PinMechanism(model)
        assert traj.cut_force is not None
        for r in range(len(traj.t)):
            q = traj.q_tree[r]
            qd = cd.closure.rates(q, traj.qd[r])[0]
            qdd = ref.constrained(q, qd, np.zeros(cd.n_tree))          # let go: no torque anywhere
            ours, P = felt(cd, q, traj.cut_force[r, 0])
            scale = max(1.0, float(np.abs(ref.lambda_c[:3]).max()))
            assert np.allclose(ours, P @ ref.lambda_c[:3], rtol=1e-4, atol=1e-4 * scale), (r, ours, ref.lambda_c[:3])
            assert np.allclose(qdd[cd.act], cd.following(q).qdd(traj.q[r], traj.qd[r], np.zeros(cd.n)), atol=1e-6)


def test_simulate_writes_the_cut_forces_and_their_peak(tmp_path, capsys):
    path = str(robot_path("palletizer_parallelogram"))
    out = tmp_path / "fall.csv"
    assert main(["simulate", path, "--q0", "0", "0.3", "0.2", "0", "--t", "0.3", "--dt", "0.05", "--quiet",
                 "--out", str(out)]) == 0
    summary = capsys.readouterr().out
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    forces = np.array([[float(r[f"f1{a}"]) for a in "xyz"] for r in rows])
    peak = np.linalg.norm(forces, axis=1).max()
    assert f"loops[1] (parallelogram): peak cut-joint force {peak:.6g} N" in summary
    # the first row is at rest: the force is the one holding the pose against gravity, as eval gives it
    cd = ClosedDynamics(load_project(path))
    q0 = np.array([0.0, 0.3, 0.2, 0.0])
    qdd0 = cd.qdd(q0, np.zeros(4), np.zeros(4))
    assert np.allclose(forces[0], cd.cut_forces(q0, np.zeros(4), qdd0).force[0], rtol=1e-9, atol=1e-9)
