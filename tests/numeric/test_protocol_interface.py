"""The numeric Dynamics protocol itself: every engine, every call, over batches.

- Shapes: each engine (the serial arm's generated engine and batch engine, a closed chain's projected
  dynamics, all reached through ``load_dynamics`` where it chooses) answers every protocol call, the
  closed chain's extras included, over one state (n,), a trajectory (N, n) and a grid (A, B, n), and a
  batch's answer is its states' answers one by one.
- A closed chain's answers over a batch against Pinocchio's constrained dynamics (the independent side,
  ``pin.constraintDynamics`` with a CONTACT_3D constraint per loop): M_a from Pinocchio's responses to
  unit torques, G_a and h_a from its accelerations at zero torque, then tau, q'', the Christoffel
  symbols (qd^T Gamma qd = h_a), the bodies' Jacobians (G_a = -sum m Jv^T g), the kinetic energy
  1/2 qd^T M_a qd and Pinocchio's potential energy; the tool Jacobian against central differences of
  the tool point.
"""

from __future__ import annotations

import numpy as np
import pytest

from designer.model import Convention
from designer.numeric.batch import BatchDynamics
from designer.numeric.closed import ClosedDynamics
from designer.numeric.engine import ArmDynamics
from designer.numeric.mechanism import load_dynamics
from designer.numeric.protocol import Dynamics
from tests.support.closed_reference import PinMechanism, four_bar, parallelogram_arm, pin_accelerations
from tests.support.random_models import random_model


def _closed(kind: str, seed: int):
    rng = np.random.default_rng(seed)
    conv = list(Convention)[seed % 2]
    if kind == "four_bar":
        return four_bar(rng, conv, mounted=seed % 3 == 2)
    return parallelogram_arm(rng, conv, wrist=seed % 3 == 2)


MECHANISMS = [("serial", s) for s in range(3)] + [("four_bar", s) for s in range(3)] + \
             [("parallelogram", s) for s in range(3)]


def _model(kind: str, seed: int):
    if kind == "serial":
        rng = np.random.default_rng(seed)
        return random_model(rng, int(rng.integers(2, 6)), list(Convention)[seed % 2])
    return _closed(kind, seed)


def _engines(kind: str, seed: int) -> list:
    model = _model(kind, seed)
    dyn = load_dynamics(model)
    if kind == "serial":
        assert isinstance(dyn, ArmDynamics)
        return [dyn, BatchDynamics(dyn.arm)]
    assert isinstance(dyn, ClosedDynamics)
    return [dyn]


def _calls(dyn, q, qd, qdd):
    """Every protocol call at states (..., n): name -> array (tuples stacked on a new first axis)."""
    kin, pot = dyn.energy(q, qd)
    Jv, Jw = dyn.com_jacobians(q)
    forces = dyn.cut_forces(q, qd, qdd)
    tau = dyn.tau(q, qd, qdd)
    return {"M": dyn.M(q), "G": dyn.G(q), "h": dyn.h(q, qd), "tau": tau, "qdd": dyn.qdd(q, qd, tau),
            "christoffel": dyn.christoffel(q), "Jv": Jv, "Jw": Jw, "tool_jacobian": dyn.tool_jacobian(q),
            "kinetic": kin, "potential": pot, "positions": dyn.positions(q), "residual": dyn.residual(q),
            "force": forces.force, "moment": forces.moment}


@pytest.mark.parametrize("kind, seed", MECHANISMS, ids=[f"{k}-{s}" for k, s in MECHANISMS])
def test_every_engine_answers_every_call_over_batches(kind, seed):
    rng = np.random.default_rng(50 + seed)
    for dyn in _engines(kind, seed):
        assert isinstance(dyn, Dynamics)
        n, n_tree = dyn.n, dyn.n_tree
        assert len(dyn.actuated) == n and all(0 <= i < n_tree for i in dyn.actuated)
        B = dyn.com_jacobians(np.zeros(n))[0].shape[0]
        loops = dyn.cut_forces(np.zeros(n), np.zeros(n), np.zeros(n)).force.shape[0]
        assert (loops == 0) == (kind == "serial")
        want = {"M": (n, n), "G": (n,), "h": (n,), "tau": (n,), "qdd": (n,), "christoffel": (n, n, n),
                "Jv": (B, 3, n), "Jw": (B, 3, n), "tool_jacobian": (6, n), "kinetic": (), "potential": (),
                "positions": (n_tree,), "residual": (), "force": (loops, 3), "moment": (loops, 3)}
        for lead in [(), (4,), (2, 3)]:
            q = rng.uniform(-0.4, 0.4, lead + (n,))
            qd, qdd = rng.normal(size=lead + (n,)), rng.normal(size=lead + (n,))
            got = _calls(dyn, q, qd, qdd)
            for name, tail in want.items():
                assert got[name].shape == lead + tail, (type(dyn).__name__, name, lead)
                assert np.all(np.isfinite(got[name])), (type(dyn).__name__, name)
            if lead:   # the batch is its states one by one
                flat = [a.reshape(-1, n) for a in (q, qd, qdd)]
                for k in range(flat[0].shape[0]):
                    one = _calls(dyn, *(a[k] for a in flat))
                    for name, value in one.items():
                        assert np.allclose(got[name].reshape((int(np.prod(lead)),) + want[name])[k], value,
                                           rtol=1e-10, atol=1e-10), (type(dyn).__name__, name)
        # tau and qdd are inverse to each other; without loops the positions are q and nothing is cut
        q, qd, qdd = rng.uniform(-0.4, 0.4, (5, n)), rng.normal(size=(5, n)), rng.normal(size=(5, n))
        assert np.allclose(dyn.qdd(q, qd, dyn.tau(q, qd, qdd)), qdd, rtol=1e-8, atol=1e-8)
        assert np.allclose(dyn.residual(q), 0.0, atol=1e-10)
        assert np.allclose(dyn.positions(q)[:, list(dyn.actuated)], q, rtol=0, atol=1e-12)
        assert dyn.following() is dyn if kind == "serial" else dyn.following() is not dyn


def test_a_following_engine_keeps_its_branch_and_the_plain_one_starts_from_the_nominal_pose():
    """A four-bar's crank turned full circle in steps: the following engine continues from each state, so
    its passive angles come back where they started; the plain engine's batch does the same within one
    call, and its answer for one state does not depend on the calls before."""
    cd = ClosedDynamics(four_bar(np.random.default_rng(3)))
    fol = cd.following()
    angles = np.linspace(0.0, 0.6, 13)[:, None]
    rows = np.array([fol.positions(a) for a in angles])
    assert np.allclose(rows, cd.positions(angles), atol=1e-10)
    assert np.allclose(fol.last, rows[-1])
    before = cd.positions(angles[5])
    cd.positions(angles)   # a plain engine keeps nothing between calls
    assert np.allclose(cd.positions(angles[5]), before, atol=0)


CLOSED = [(k, s) for k in ("four_bar", "parallelogram") for s in range(3)]


@pytest.mark.parametrize("kind, seed", CLOSED, ids=[f"{k}-{s}" for k, s in CLOSED])
def test_closed_chain_protocol_answers_match_pinocchio_over_a_batch(kind, seed):
    import pinocchio as pin
    model = _closed(kind, seed)
    dyn = load_dynamics(model)
    ref = PinMechanism(model)
    rng = np.random.default_rng(400 + seed)
    N, n = 4, dyn.n
    Q, QD = rng.uniform(-0.5, 0.5, (N, n)), rng.normal(size=(N, n))
    QDD = rng.normal(size=(N, n))
    q_tree = dyn.positions(Q)
    M, G, h = dyn.M(Q), dyn.G(Q), dyn.h(Q, QD)
    tau, qdd = dyn.tau(Q, QD, QDD), dyn.qdd(Q, QD, 5 * QDD)
    gamma, (Jv, _), J_tool = dyn.christoffel(Q), dyn.com_jacobians(Q), dyn.tool_jacobian(Q)
    kinetic, potential = dyn.energy(Q, QD)
    g = np.array([float(v) for v in model.numeric().gravity])
    mass = np.concatenate([[float(link.mass) for link in model.numeric().links],
                           [float(p.mass) for p in model.numeric().point_masses]])
    scale = max(1.0, np.abs(M).max())
    for k in range(N):
        q = q_tree[k]

        def accel(qd_a, tau_a, q=q):
            return pin_accelerations(ref, dyn, q, qd_a, tau_a)

        zero = np.zeros(n)
        a0 = accel(zero, zero)
        Minv = np.array([accel(zero, e) - a0 for e in np.eye(n)]).T
        M_ref = np.linalg.inv(Minv)
        G_ref = -M_ref @ a0
        h_ref = -M_ref @ accel(QD[k], zero) - G_ref
        assert np.abs(M[k] - M_ref).max() < 1e-8 * scale
        assert np.abs(G[k] - G_ref).max() < 1e-8 * max(1.0, np.abs(G_ref).max())
        assert np.abs(h[k] - h_ref).max() < 1e-7 * max(1.0, np.abs(h_ref).max())
        assert np.allclose(tau[k], M_ref @ QDD[k] + h_ref + G_ref, rtol=1e-7, atol=1e-7 * scale)
        assert np.allclose(qdd[k], accel(QD[k], 5 * QDD[k]), rtol=1e-7, atol=1e-7)
        assert np.allclose(np.einsum("ijk,j,k->i", gamma[k], QD[k], QD[k]), h_ref, rtol=1e-7, atol=1e-7 * scale)
        assert np.allclose(-np.einsum("b,bki,k->i", mass, Jv[k], g), G_ref, rtol=1e-8, atol=1e-8 * scale)
        assert kinetic[k] == pytest.approx(0.5 * QD[k] @ M_ref @ QD[k], rel=1e-8, abs=1e-10)
        o = ref.order
        assert potential[k] == pytest.approx(pin.computePotentialEnergy(ref.model, ref.data, q[o]),
                                             rel=1e-9, abs=1e-9)
        # the tool point by central differences of the closed mechanism's frames
        eps = 1e-6

        def tool_point(qa):
            T = dyn.tree.frames(dyn.positions(qa))
            return (T[dyn.tree.tool_link + 1] @ dyn.tree.arm.tool)[:3, 3]
        fd = np.array([(tool_point(Q[k] + e) - tool_point(Q[k] - e)) / (2 * eps) for e in np.eye(n) * eps]).T
        assert np.allclose(J_tool[k, :3], fd, atol=1e-6)
