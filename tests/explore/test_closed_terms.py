"""Christoffel symbols and Lee's split of closed chains (numeric/closed_terms.py) against independent sides.

Random four-bars (Newton closure, also on a turning column) and parallelogram arms (linear closure,
also with a wrist after the loop), both DH conventions, and the bundled mechanisms:

- Gamma against dM_a/dq_a by central differences of M_a, each M_a from a fresh closure solve (no
  guess), and the skew symmetry of M_a' - 2 C_a; qd^T Gamma qd against the RNEA's projected h_a;
- D_tra + D_rot against the composite-rigid-body M_a;
- D_tra, D_rot, H_tra, H_rot against Pinocchio's joint Jacobians, velocities and accelerations of the
  spanning tree (bodies placed by tests/support/closed_reference.py, nothing of ours), projected by W
  and fed the passive rates from central differences of the closure;
- a parallelogram with massless bars against the serial batch's 3-link arm under the linear map
  (q1, q2, q4) -> (q1, q2, q4 - q2), whose Christoffel symbols transform as a tensor.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from designer.explore.joints import explore_arm
from designer.kinematics import NumericArm
from designer.model import Convention, Manipulator
from designer.numeric.batch import Batch
from designer.project import load_project
from tests.support import robot_path
from tests.support.closed_reference import four_bar, parallelogram_arm, pin_mechanism

CASES = [(gen, conv, seed) for gen in (four_bar, parallelogram_arm) for conv in Convention for seed in range(3)]
IDS = [f"{g.__name__}-{c.value}-{s}" for g, c, s in CASES]


def mechanism(gen, conv, seed):
    if gen is parallelogram_arm and seed == 2:
        return gen(np.random.default_rng(seed), conv, wrist=True)
    if gen is four_bar and seed == 2:
        return gen(np.random.default_rng(seed), conv, mounted=True)
    return gen(np.random.default_rng(seed), conv)


def rel(a, b) -> float:
    return float(np.abs(np.asarray(a) - np.asarray(b)).max() / max(1e-300, np.abs(b).max()))


def states(arm, count, seed):
    """Actuated states near the nominal pose (a four-bar's crank turns 0.7 rad either way)."""
    return np.random.default_rng(seed).uniform(-0.5, 0.5, (count, arm.n))


def _check_against_M_and_h(arm, q, seed):
    cd = arm.cd
    b = arm.batch(q)
    rng = np.random.default_rng(seed)
    eps = 1e-6
    for k, qa in enumerate(q):
        M = cd.M(qa)
        assert rel(b.D_tra[k] + b.D_rot[k], M) < 1e-12 and rel(b.M[k], M) < 1e-12   # the tree's CRBA, projected
        assert rel(b.G[k], cd.G(qa)) < 1e-12 if np.abs(cd.G(qa)).max() > 0 else np.abs(b.G[k]).max() < 1e-12

        def tool(x):   # the tool point from a fresh solve of the loops
            T = cd.tree.frames(cd.positions(x))
            return (T[arm.tool_link + 1] @ arm.tool)[:3, 3]
        J = np.stack([(tool(qa + e) - tool(qa - e)) / (2 * eps) for e in np.eye(arm.n) * eps], axis=1)
        assert np.allclose(b.tool_position[k], tool(qa), atol=1e-12)
        assert np.abs(b.tool_jacobian[k, :3] - J).max() < 1e-7
        for D in (b.D_tra[k], b.D_rot[k]):   # each a kinetic energy: symmetric, positive semi-definite
            assert rel(D, D.T) < 1e-13 and np.linalg.eigvalsh(D)[0] > -1e-12 * np.abs(M).max()
        assert np.allclose(b.gamma[k], np.swapaxes(b.gamma[k], 1, 2), rtol=0, atol=1e-14 * np.abs(b.gamma[k]).max())
        # dM/dq by central differences, each side from a fresh solve of the loops
        fd = np.stack([(cd.M(qa + e) - cd.M(qa - e)) / (2 * eps) for e in np.eye(arm.n) * eps], axis=-1)
        assert rel(b.dM[k], fd) < 1e-6
        v = rng.normal(size=arm.n)
        assert rel(b.coriolis(np.tile(v, (len(q), 1)))[k], cd.h(qa, v)) < 1e-11
        C = np.einsum("ijk,k->ij", b.gamma[k], v)
        N = np.einsum("ijk,k->ij", fd, v) - 2 * C          # M' - 2 C: skew
        assert np.abs(N + N.T).max() < 1e-6 * np.abs(fd).max() * np.abs(v).max()
        h_tra, h_rot = b.lee_h(v)
        assert rel(h_tra[k] + h_rot[k], cd.h(qa, v)) < 1e-11


@pytest.mark.parametrize("gen,conv,seed", CASES, ids=IDS)
def test_christoffel_symbols_and_lee_split_of_random_mechanisms(gen, conv, seed):
    arm = explore_arm(mechanism(gen, conv, seed))
    _check_against_M_and_h(arm, states(arm, 3, seed), seed)


@pytest.mark.parametrize("name", ["palletizer_parallelogram", "acma_sr400", "four_bar"])
def test_christoffel_symbols_of_the_bundled_mechanisms(name):
    arm = explore_arm(load_project(robot_path(name)))
    _check_against_M_and_h(arm, states(arm, 2, 7), 7)


def _pin_side(model, qa_states, v):
    """(D_tra, D_rot, H_tra, H_rot) from Pinocchio's kinematics of the spanning tree at the closed states."""
    import pinocchio as pin
    arm = explore_arm(model)
    cd = arm.cd
    pm, _, order = pin_mechanism(model)
    data = pm.createData()
    ours = np.argsort(order)            # pin's vector x[ours] in our joint order; ours'[order] in pin's
    out = []
    for qa in qa_states:
        e, h = 1e-6, 1e-4
        W = np.stack([(cd.positions(qa + d) - cd.positions(qa - d)) / (2 * e) for d in np.eye(arm.n) * e], axis=1)
        q = cd.positions(qa)
        qd = W @ v
        qdd = (cd.positions(qa + h * v) - 2 * q + cd.positions(qa - h * v)) / h**2   # W' v at zero actuated acc.
        pin.forwardKinematics(pm, data, q[order], qd[order], qdd[order])
        pin.computeJointJacobians(pm, data, q[order])
        D_tra = np.zeros((arm.n, arm.n))
        D_rot = np.zeros((arm.n, arm.n))
        H_tra, H_rot = np.zeros(arm.n), np.zeros(arm.n)
        for jid in range(1, pm.njoints):
            inertia = pm.inertias[jid]
            R, c = data.oMi[jid].rotation, inertia.lever
            J = pin.getJointJacobian(pm, data, jid, pin.ReferenceFrame.LOCAL)[:, ours] @ W   # body frame
            Jv = R @ (J[:3] - np.cross(c, J[3:], axis=0))      # the centre's velocity, frame 0
            Jw = R @ J[3:]
            Iw = R @ inertia.inertia @ R.T
            D_tra += inertia.mass * Jv.T @ Jv
            D_rot += Jw.T @ Iw @ Jw
            vel, acc = data.v[jid], data.a[jid]                 # spatial, body frame
            w = vel.angular
            a_c = R @ (acc.linear + np.cross(acc.angular, c) + np.cross(w, vel.linear + np.cross(w, c)))
            H_tra += inertia.mass * Jv.T @ a_c
            w0, al0 = R @ w, R @ acc.angular
            H_rot += Jw.T @ (Iw @ al0 + np.cross(w0, Iw @ w0))
        out.append((D_tra, D_rot, H_tra, H_rot))
    return [np.array(x) for x in zip(*out)]


@pytest.mark.parametrize("gen,conv,seed", CASES, ids=IDS)
def test_lee_split_against_pinocchio(gen, conv, seed):
    pytest.importorskip("pinocchio")
    model = mechanism(gen, conv, seed)
    arm = explore_arm(model)
    q = states(arm, 2, seed + 20)
    v = np.random.default_rng(seed).normal(size=arm.n)
    D_tra, D_rot, H_tra, H_rot = _pin_side(model, q, v)
    b = arm.batch(q)
    assert rel(b.D_tra, D_tra) < 1e-8 and rel(b.D_rot, D_rot) < 1e-8
    h_tra, h_rot = b.lee_h(v)
    scale = np.abs(H_tra).max() + np.abs(H_rot).max()
    assert np.abs(h_tra - H_tra).max() < 1e-5 * scale and np.abs(h_rot - H_rot).max() < 1e-5 * scale


@pytest.mark.parametrize("conv", list(Convention))
def test_parallelogram_with_massless_bars_has_the_serial_arms_split_and_christoffel_symbols(conv):
    """M_a(q_a) = S^T M(S q_a) S with the constant S: D_tra, D_rot transform alike and the Christoffel
    symbols as a tensor, Gamma_a,ijk = S_li S_mj S_nk Gamma_lmn (the serial batch's, from its own
    Jacobian derivatives)."""
    model = parallelogram_arm(np.random.default_rng(31), conv, bars_mass=False)
    arm = explore_arm(model)
    serial = Manipulator(links=tuple(replace(link, actuated=True) for link in model.links[:3]), convention=conv,
                         gravity=model.gravity)
    S = np.array([[1, 0, 0], [0, 1, 0], [0, -1, 1]], dtype=float)
    q = states(arm, 4, 32)
    b, s = arm.batch(q), Batch(NumericArm.from_model(serial), q @ S.T)
    for ours, theirs in ((b.D_tra, s.D_tra), (b.D_rot, s.D_rot)):
        assert rel(ours, np.einsum("li,nlm,mj->nij", S, theirs, S)) < 1e-12
    assert rel(b.gamma, np.einsum("li,mj,nk,slmn->sijk", S, S, S, s.gamma)) < 1e-11
    v = np.random.default_rng(33).normal(size=3)
    for ours, theirs in zip(b.lee_h(v), s.lee_h(S @ v)):
        assert rel(ours, theirs @ S) < 1e-11


def test_a_state_where_the_loop_cannot_close_gives_nan():
    """A rocker cannot follow its crank all the way round: those states are NaN, the others finite."""
    bad_states = 0
    for seed in range(4):
        arm = explore_arm(four_bar(np.random.default_rng(seed)))
        b = arm.batch(np.linspace(-np.pi, np.pi, 25)[:, None])
        bad = ~np.isfinite(b.M).all(axis=(1, 2))
        bad_states += int(bad.sum())
        assert np.isnan(b.gamma[bad]).all() and np.isnan(b.D_tra[bad]).all()
        assert np.isfinite(b.gamma[~bad]).all() and np.isfinite(b.D_rot[~bad]).all()
    assert bad_states > 0


def test_closed_batch_has_the_serial_batchs_names():
    """The window takes either batch: every quantity the metrics and views read has the same name and shape."""
    arm = explore_arm(parallelogram_arm(np.random.default_rng(40), wrist=True))
    q = states(arm, 3, 41)
    b = arm.batch(q)
    n = arm.n
    shapes = {"M": (3, n, n), "M_inv": (3, n, n), "G": (3, n), "tool_jacobian": (3, 6, n), "tool_position": (3, 3),
              "D_tra": (3, n, n), "D_rot": (3, n, n), "gamma": (3, n, n, n), "dM": (3, n, n, n)}
    for name, shape in shapes.items():
        assert getattr(b, name).shape == shape, name
    assert b.size == 3 and b.n == n and b.coriolis(np.ones(n)).shape == (3, n)
    assert np.allclose(b.tool_position, arm.tool_points(q))
    assert np.allclose(b.torque(np.ones((3, n)), np.zeros((3, n))), b.coriolis(np.ones(n)) + b.G)


def test_velocity_metrics_of_a_one_joint_mechanism():
    """The four-bar has one actuated joint: coriolis is |Gamma_111| v^2 / (M_11 a), torque_bound adds |h|."""
    from designer.explore.metrics import Ratings, compute
    arm = explore_arm(load_project(robot_path("four_bar")))
    q = np.array([[0.3]])
    r = Ratings.of(1, speed=3.0, acceleration=10.0)
    h = arm.cd.h(q[0], np.array([3.0]))
    M, G = arm.cd.M(q[0]), arm.cd.G(q[0])
    assert compute(arm, q, "coriolis", r)[0, 0] == pytest.approx(abs(h[0]) / (M[0, 0] * 10.0), rel=1e-10)
    assert compute(arm, q, "torque_bound", r)[0, 0] == pytest.approx(abs(G[0]) + M[0, 0] * 10 + abs(h[0]), rel=1e-10)


def test_bundled_palletizers_agree_with_massless_bars_and_no_elbow_motor():
    """robots/palletizer_parallelogram.json with its crank and coupler weightless (m4 = m5 = 0) and without
    the elbow motor (at the shoulder there, on the elbow in the twin) is robots/palletizer_serial.json under
    q3_serial = q4 - q2: M, Lee's parts, the Christoffel symbols and Lee's H agree through the constant map."""
    closed = explore_arm(load_project(robot_path("palletizer_parallelogram")), {"m4": 0, "m5": 0, "m_motor": 0})
    serial = NumericArm.from_model(load_project(robot_path("palletizer_serial")), {"m_motor": 0})
    S = np.eye(4)
    S[2] = [0, -1, 1, 0]
    q = states(closed, 4, 50) * 2
    b, s = closed.batch(q), Batch(serial, q @ S.T)
    for ours, theirs in ((b.M, s.M), (b.D_tra, s.D_tra), (b.D_rot, s.D_rot)):
        assert rel(ours, np.einsum("li,nlm,mj->nij", S, theirs, S)) < 1e-12
    assert rel(b.gamma, np.einsum("li,mj,nk,slmn->sijk", S, S, S, s.gamma)) < 1e-12
    v = np.random.default_rng(51).normal(size=4)
    for ours, theirs in zip(b.lee_h(v), s.lee_h(S @ v)):
        assert rel(ours, theirs @ S) < 1e-12
