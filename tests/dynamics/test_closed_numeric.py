"""Closed-chain dynamics in the actuated coordinates against Pinocchio and physical laws.

Random four-bars (Newton closure) and parallelogram arms (exact linear closure), both DH
conventions, several seeds: forward dynamics against pin.constraintDynamics with a rigid CONTACT_3D
constraint closing the loop (proximal solver at 1e-14); inverse dynamics against pin.rnea of the
spanning tree fed with loop-consistent passive rates, projected by W from central differences of
the closure; the cut-joint forces against Pinocchio's lambda_c; energy, power, M_a, and the
parallelogram with massless bars against the serial engine's arm with the coupled joint.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from designer.model import Convention, Manipulator
from designer.numeric import arm_dynamics
from designer.kinematics import NumericArm
from designer.numeric.closed import ClosedDynamics
from designer.numeric.simulate import simulate
from tests.support.closed_reference import PinMechanism, four_bar, parallelogram_arm

CASES = [(gen, conv, seed) for gen in (four_bar, parallelogram_arm) for conv in Convention for seed in range(3)]
IDS = [f"{g.__name__}-{c.value}-{s}" for g, c, s in CASES]


def mechanism(gen, conv, seed):
    if gen is parallelogram_arm and seed == 2:   # a wrist on the forearm: a branch after the loop's links
        return gen(np.random.default_rng(seed), conv, wrist=True)
    if gen is four_bar and seed == 2:            # on a turning column: the loop closes on link 1
        return gen(np.random.default_rng(seed), conv, mounted=True)
    return gen(np.random.default_rng(seed), conv)


def rel(a, b) -> float:
    return float(np.abs(np.asarray(a) - np.asarray(b)).max() / max(1.0, np.abs(b).max()))


def fd_W(cd: ClosedDynamics, qa, eps=1e-6) -> np.ndarray:
    """W by central differences of the closure: independent of the analytic W."""
    cols = []
    for k in range(cd.n):
        e = np.zeros(cd.n)
        e[k] = eps
        cols.append((cd.positions(qa + e) - cd.positions(qa - e)) / (2 * eps))
    return np.array(cols).T


def both_sides(gen, conv, seed, stream: int):
    """(ours, Pinocchio's, a random stream) for one random mechanism."""
    model = mechanism(gen, conv, seed)
    return ClosedDynamics(model), PinMechanism(model), np.random.default_rng(stream + seed)


@pytest.mark.parametrize("gen, conv, seed", CASES, ids=IDS)
def test_forward_dynamics_and_cut_forces_match_pinocchio(gen, conv, seed):
    cd, ref, rng = both_sides(gen, conv, seed, 100)
    for _ in range(5):
        qa, qda, taua = rng.uniform(-0.6, 0.6, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n) * 5
        q, qd, _, W = cd.state(qa, qda)
        tau_tree = np.zeros(cd.n_tree)
        tau_tree[cd.act] = taua
        qdd_pin = ref.constrained(q, qd, tau_tree)
        qdda = cd.qdd(qa, qda, taua)
        assert rel(qdda, qdd_pin[cd.act]) < 1e-8
        # the cut forces: Pinocchio's lambda_c is the force on link i's cut frame, in that frame;
        # an out-of-plane component that no joint feels is not determined: compare the rest
        forces = cd.cut_forces(qa, qda, qdda)
        terms = cd.tree.loop_terms(q)
        i, _, Fi, _, _ = cd.tree.loops[0]
        R = (cd.tree.frames(q)[i + 1] @ Fi)[:3, :3]
        mine_local = R.T @ forces.force[0]
        J_local = R.T @ terms.jacobian[:3]          # joint directions each force component acts on
        P = np.linalg.pinv(J_local.T) @ J_local.T    # projector onto the determined components
        assert rel(P @ mine_local, P @ ref.lambda_c[:3]) < 1e-7
        assert rel(mine_local, P @ mine_local) < 1e-9   # ours has no undetermined part (least norm)


@pytest.mark.parametrize("gen, conv, seed", CASES, ids=IDS)
def test_inverse_dynamics_is_the_projected_tree_rnea(gen, conv, seed):
    cd, ref, rng = both_sides(gen, conv, seed, 200)
    for _ in range(5):
        qa, qda, qdda = rng.uniform(-0.6, 0.6, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n)
        q, qd, qdd, W = cd.state(qa, qda, qdda)
        assert cd.closure.residual(q) < 1e-11
        Wfd = fd_W(cd, qa)
        assert rel(W, Wfd) < 1e-7
        # passive rates: velocities and accelerations of the closure by finite differences in time
        dt = 1e-5
        traj = [cd.positions(qa + qda * s + 0.5 * qdda * s * s) for s in (-dt, 0.0, dt)]
        assert rel(qd, (traj[2] - traj[0]) / (2 * dt)) < 1e-6
        assert rel(qdd, (traj[2] - 2 * traj[1] + traj[0]) / dt**2) < 1e-3
        tau_a = Wfd.T @ ref.rnea(q, qd, qdd)
        assert rel(cd.tau(qa, qda, qdda), tau_a) < 1e-6
        # power: tau_a . qd_a is the power of the tree's joint torques
        assert cd.tau(qa, qda, qdda) @ qda == pytest.approx(ref.rnea(q, qd, qdd) @ qd, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("gen, conv, seed", CASES[::2], ids=IDS[::2])
def test_mass_matrix_and_velocity_terms_are_lagrangian(gen, conv, seed):
    """M_a symmetric positive definite; h_a = C_a qd_a with C_a the Christoffel matrix of M_a (central
    differences), so that qd^T (M_a' - 2 C_a) qd = 0 and M_a' - 2 C_a is skew."""
    cd = ClosedDynamics(mechanism(gen, conv, seed))
    rng = np.random.default_rng(300 + seed)
    qa, qda = rng.uniform(-0.5, 0.5, cd.n), rng.normal(size=cd.n)
    Ma = cd.M(qa)
    assert np.allclose(Ma, Ma.T, rtol=0, atol=1e-12 * np.abs(Ma).max())
    assert np.linalg.eigvalsh(Ma)[0] > 0
    eps = 1e-6
    dM = np.array([(cd.M(qa + e) - cd.M(qa - e)) / (2 * eps) for e in np.eye(cd.n) * eps])  # dM[k] = dM/dq_k
    C = np.zeros((cd.n, cd.n))
    for i in range(cd.n):
        for j in range(cd.n):
            C[i, j] = sum(0.5 * (dM[k][i, j] + dM[j][i, k] - dM[i][j, k]) * qda[k] for k in range(cd.n))
    assert rel(cd.h(qa, qda), C @ qda) < 1e-6
    Mdot = sum(dM[k] * qda[k] for k in range(cd.n))
    S = Mdot - 2 * C
    assert np.abs(S + S.T).max() < 1e-6 * max(1.0, np.abs(Mdot).max())


@pytest.mark.parametrize("conv", list(Convention))
def test_passive_closed_chain_conserves_energy(conv):
    cd = ClosedDynamics(four_bar(np.random.default_rng(7), conv))
    traj = simulate(cd, [0.1], [2.0], (0.0, 1.0), rtol=1e-10, atol=1e-12)
    energy = traj.kinetic + traj.potential
    assert np.abs(energy - energy[0]).max() < 1e-6 * max(1.0, abs(traj.kinetic).max())
    assert traj.residual.max() < 1e-11
    cd = ClosedDynamics(parallelogram_arm(np.random.default_rng(8), conv))
    traj = simulate(cd, [0.2, 0.3, -0.2], [0.5, 1.0, -1.0], (0.0, 0.5), rtol=1e-10, atol=1e-12)
    energy = traj.kinetic + traj.potential
    assert np.abs(energy - energy[0]).max() < 1e-6 * max(1.0, abs(traj.kinetic).max())


@pytest.mark.parametrize("conv", list(Convention))
def test_parallelogram_with_massless_bars_is_the_serial_arm_with_the_coupled_joint(conv):
    """The serial engine's 3-link arm (links 1-3 alone) at q3 = q4 - q2, projected by the linear map
    (q1, q2, q4) -> (q1, q2, q4 - q2): the same M, tau as the mechanism whose crank and coupler weigh
    nothing."""
    model = parallelogram_arm(np.random.default_rng(11), conv, bars_mass=False)
    cd = ClosedDynamics(model)
    serial = Manipulator(links=tuple(replace(l, actuated=True) for l in model.links[:3]), convention=conv,
                         gravity=model.gravity)
    dyn = arm_dynamics(NumericArm.from_model(serial))
    S = np.array([[1, 0, 0], [0, 1, 0], [0, -1, 1]], dtype=float)
    rng = np.random.default_rng(12)
    for _ in range(5):
        qa, qda, qdda = rng.uniform(-1, 1, 3), rng.normal(size=3), rng.normal(size=3)
        assert rel(cd.M(qa), S.T @ dyn.M(S @ qa) @ S) < 1e-12
        assert rel(cd.tau(qa, qda, qdda), S.T @ dyn.tau(S @ qa, S @ qda, S @ qdda)) < 1e-12


def test_a_dead_centre_and_an_unreachable_pose_are_clear_errors():
    from designer.kinematics.closure import ClosureError
    failures = 0
    for seed in range(6):
        cd = ClosedDynamics(four_bar(np.random.default_rng(seed), Convention.STANDARD))
        for angle in np.linspace(-np.pi, np.pi, 25):    # a rocker crank cannot turn all the way
            try:
                q = cd.positions([angle])
            except ClosureError as exc:
                assert "four-bar" in str(exc)
                failures += 1
            else:
                assert np.all(np.isfinite(q)) and cd.closure.residual(q) < 1e-11
    assert failures > 0
    with pytest.raises(ClosureError, match="not finite"):
        cd.positions([np.nan])


def test_a_loop_that_cannot_close_names_itself():
    from designer.kinematics.closure import ClosureError
    model = four_bar(np.random.default_rng(4), Convention.STANDARD)
    loop = model.loops[0]
    # 10 mm out of the four-bar's plane: no turn of its joints (axes normal to the plane) closes that
    shifted = replace(loop.frame_j, xyz=(loop.frame_j.xyz[0], 0, 0.01))
    moved = replace(model, loops=(replace(loop, frame_j=shifted),))
    with pytest.raises(ClosureError, match=r"loops\[1\] \(four-bar\): cannot be assembled .*: the cut joint's two "
                       r"frames are 10 mm apart at best"):
        ClosedDynamics(moved)
    # 10 mm along the ground (in the plane): assembled (tests/kinematics/test_assembly.py), its loop closed there
    shifted = replace(loop.frame_j, xyz=(loop.frame_j.xyz[0] + 0.01, 0, 0))
    cd = ClosedDynamics(replace(model, loops=(replace(loop, frame_j=shifted),)))
    assert cd.closure.residual(cd.positions(np.zeros(1))) < 1e-12
    wrong = replace(model, links=(model.links[0], replace(model.links[1], actuated=True), model.links[2]))
    with pytest.raises(ClosureError, match="1 degree\\(s\\) of freedom .* but 2 actuated"):
        ClosedDynamics(wrong)


def test_parallelogram_closure_is_detected_as_linear():
    cd = ClosedDynamics(parallelogram_arm(np.random.default_rng(5), Convention.STANDARD))
    # q3 = q4 - q2 and q5 = q2 - q4, in the actuated order (q1, q2, q4)
    assert cd.closure.linear is not None
    assert np.array_equal(cd.closure.linear.A, [[0, -1, 1], [0, 1, -1]])
    cd4 = ClosedDynamics(four_bar(np.random.default_rng(5), Convention.STANDARD))
    assert cd4.closure.linear is None




@pytest.mark.parametrize("name", ["palletizer_parallelogram", "acma_sr400", "four_bar"])
def test_bundled_mechanisms_match_pinocchio(name):
    """The examples (point masses, Khalil-Kleinfinger frames, a cut frame with a rotation)."""
    from designer.project import load_project
    from tests.support import robot_path
    model = load_project(robot_path(name))
    cd = ClosedDynamics(model)
    ref = PinMechanism(model)
    rng = np.random.default_rng(9)
    for _ in range(3):
        qa, qda, taua = rng.uniform(-0.5, 0.5, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n) * 20
        q, qd, _, _ = cd.state(qa, qda)
        tau_tree = np.zeros(cd.n_tree)
        tau_tree[cd.act] = taua
        qdd_pin = ref.constrained(q, qd, tau_tree)
        assert rel(cd.qdd(qa, qda, taua), qdd_pin[cd.act]) < 1e-8


@pytest.mark.parametrize("name", ["four_bar", "palletizer_parallelogram"])
def test_linearized_model_is_the_derivative_of_the_forward_dynamics(name):
    """A's lower blocks against central differences of the forward dynamics at the holding torque
    (the linearization itself comes from the inverse dynamics' derivatives and M_a)."""
    from designer.control.linearize import linearize_closed
    from designer.project import load_project
    from tests.support import robot_path
    cd = ClosedDynamics(load_project(robot_path(name)))
    rng = np.random.default_rng(5)
    q0, qd0 = rng.uniform(-0.4, 0.4, cd.n), rng.normal(size=cd.n) * 0.3
    lm = linearize_closed(cd, q0, qd0)
    h = 1e-6
    for k, e in enumerate(np.eye(cd.n) * h):
        dfdq = (cd.qdd(q0 + e, qd0, lm.tau0) - cd.qdd(q0 - e, qd0, lm.tau0)) / (2 * h)
        dfdqd = (cd.qdd(q0, qd0 + e, lm.tau0) - cd.qdd(q0, qd0 - e, lm.tau0)) / (2 * h)
        scale = max(1.0, np.abs(lm.A).max())
        assert np.abs(lm.A[cd.n:, k] - dfdq).max() < 1e-5 * scale
        assert np.abs(lm.A[cd.n:, cd.n + k] - dfdqd).max() < 1e-5 * scale
    assert np.allclose(lm.B[cd.n:], np.linalg.inv(cd.M(q0)))


@pytest.mark.parametrize("gen, conv, seed", [(four_bar, Convention.STANDARD, 0),
                                             (parallelogram_arm, Convention.MODIFIED, 2)])
def test_closed_loop_regressor_and_base_parameter_count_match_pinocchio(gen, conv, seed):
    """W^T Y_tree pi = tau_a; the number of base parameters is the rank of Pinocchio's joint-torque
    regressor of the spanning tree projected by W from differences of the closure, over random states."""
    import pinocchio as pin
    from designer.identification.regressor import Regressor, base_grouping
    model = mechanism(gen, conv, seed)
    cd = ClosedDynamics(model)
    reg = Regressor(cd)
    ref = PinMechanism(model)
    rng = np.random.default_rng(seed)
    stacked = []
    for _ in range(60):
        qa, qda, qdda = rng.uniform(-0.5, 0.5, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n)
        assert rel(reg.actuated(qa, qda, qdda) @ reg.values, cd.tau(qa, qda, qdda)) < 1e-10
        q, qd, qdd, _ = cd.state(qa, qda, qdda)
        o = ref.order
        Y_pin = pin.computeJointTorqueRegressor(ref.model, ref.model.createData(), q[o], qd[o], qdd[o])
        Y = np.empty_like(Y_pin)
        Y[o] = Y_pin                       # rows in our joint order (columns: Pinocchio's parameters)
        stacked.append(fd_W(cd, qa).T @ Y)
    S = np.vstack(stacked)
    s = np.linalg.svd(S, compute_uv=False)
    assert base_grouping(cd).count == int(np.sum(s > 1e-7 * s[0]))
