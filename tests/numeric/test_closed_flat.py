"""A linear closure's forward dynamics as flat code (numeric/closed_flat.py): the C, the traced Python and the
interpreted path (tree CRBA/RNEA on numpy, the closure's W, a Cholesky solve) are three computations of one
q_a''; they agree to rounding on random parallelogram arms (M_a too), and the flat one is what
ClosedDynamics.qdd and M run."""

from __future__ import annotations

import numpy as np
import pytest

from designer.model.manipulator import Convention
from designer.numeric.closed import ClosedDynamics
from tests.support.closed_reference import four_bar, parallelogram_arm


def rel(a, b):
    return float(np.abs(np.asarray(a) - b).max() / max(1.0, np.abs(b).max()))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("conv", list(Convention))
def test_compiled_and_interpreted_closed_forward_dynamics_agree(seed, conv):
    rng = np.random.default_rng(seed)
    cd = ClosedDynamics(parallelogram_arm(rng, conv, bars_mass=bool(seed % 2), wrist=seed >= 3))
    flat = cd._flat
    assert flat is not None and cd.closure.linear is not None
    for _ in range(10):
        qa, qda, taua = rng.uniform(-1.2, 1.2, cd.n), rng.normal(size=cd.n), 5 * rng.normal(size=cd.n)
        p = cd.close(qa)
        for gravity in (True, False):
            interpreted = cd._forward_checked(p, qda, taua, gravity)
            python = flat(qa, qda, taua, gravity, compiled=False)
            assert python is not None and rel(python, interpreted) < 1e-12
            if flat.native is not None:   # C from the same tape (DESIGNER_NATIVE=0: the Python only)
                assert rel(flat(qa, qda, taua, gravity), interpreted) < 1e-12
        W = cd.closure.W(p)
        interpreted_M = W.T @ cd.tree_M(p) @ W
        assert rel(flat.mass(qa, compiled=False), interpreted_M) < 1e-12
        assert rel(cd.M(qa), interpreted_M) < 1e-12
        assert rel(cd.qdd(qa, qda, taua), cd._forward_checked(p, qda, taua)) < 1e-12
        assert rel(cd.qdd_free(qa, qda, taua), cd._forward_checked(p, qda, taua, False)) < 1e-12


def test_a_nonlinear_closure_keeps_the_interpreted_path():
    cd = ClosedDynamics(four_bar(np.random.default_rng(0)))
    assert cd.closure.linear is None and cd._flat is None


@pytest.mark.parametrize("seed", range(3))
def test_the_machine_codes_whole_right_hand_side_is_the_interpreted_forward_dynamics(seed):
    """rhs_qdd / rhs_free (y = [q_a, qd_a], par = [Kp, Kd, target, tau0]) give [qd_a, q_a''] of the law
    tau = tau0 + Kp (target - q) - Kd qd: the same numbers as the interpreted path fed that torque."""
    rng = np.random.default_rng(seed)
    cd = ClosedDynamics(parallelogram_arm(rng, Convention.STANDARD, bars_mass=True, wrist=seed == 2))
    native = cd._flat.native
    if native is None:
        pytest.skip("no C compiler here (DESIGNER_NATIVE=0 or none installed)")
    n = cd.n
    for _ in range(5):
        y = np.concatenate([rng.uniform(-1.2, 1.2, n), rng.normal(size=n)])
        kp, kd, target, tau0 = rng.uniform(0, 50, n), rng.uniform(0, 5, n), rng.uniform(-1, 1, n), rng.normal(size=n)
        tau = tau0 + kp * (target - y[:n]) - kd * y[n:]
        p = cd.close(y[:n])
        for entry, gravity in ((native.rhs_qdd, True), (native.rhs_free, False)):
            dy = np.empty(2 * n)
            assert entry(y, np.concatenate([kp, kd, target, tau0]), dy)
            assert np.array_equal(dy[:n], y[n:])
            assert rel(dy[n:], cd._forward_checked(p, y[n:], tau, gravity)) < 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_a_runs_rows_from_the_flat_code_are_the_interpreted_rows(seed):
    """Positions, energies, residuals and cut forces of many rows at once (rows_extras, the flat code over numpy
    columns) are the interpreted path's row by row: the closure, frames and COMs for the energy, the tree's RNEA at
    the loops' rates for the cut forces."""
    rng = np.random.default_rng(seed)
    cd = ClosedDynamics(parallelogram_arm(rng, list(Convention)[seed % 2], bars_mass=bool(seed % 2), wrist=seed >= 2))
    Q, QD, QDD = rng.uniform(-1.2, 1.2, (7, cd.n)), rng.normal(size=(7, cd.n)), rng.normal(size=(7, cd.n))
    rows = cd.rows_extras(Q, QD, QDD)
    kinetic, potential = cd.energy(Q, QD)
    forces = cd.cut_forces(Q, QD, QDD)
    residual = cd.residual(Q)
    for r in range(len(Q)):
        p = cd.closure.solve(Q[r])
        assert np.array_equal(rows["positions"][r], p)
        assert rows["residual"][r] == cd.closure.residual(p) == residual[r]
        qd = cd.closure.rates(p, QD[r])[0]
        T = cd.tree.frames(p)
        bodies = cd._bodies
        coms = np.einsum("nij,nj->ni", T[1:, :3, :3], bodies.com) + T[1:, :3, 3]
        want = 0.5 * qd @ cd.tree_M(p) @ qd, -float(np.sum(bodies.mass * (coms @ cd.tree.arm.gravity)))
        assert rel(rows["energy"][r], np.array(want)) < 1e-12
        assert rel([kinetic[r], potential[r]], np.array(want)) < 1e-12
        cut = cd._cut(p, QD[r], QDD[r])
        assert rel(rows["cut"][r], cut) < 1e-12
        assert rel(forces.force[r], cut[0]) < 1e-12 and rel(forces.moment[r], cut[1]) < 1e-12
