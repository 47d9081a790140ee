"""Random projects of every shape the format allows (tests/support/random_models.py: random_project), saved by the
project writer and read back, against Pinocchio and the laws of mechanics.

- Without loops (serial arms and trees, gamma and b, both conventions, prismatic joints anywhere, zero-length
  links, offsets, base and tool, gravity in the world, named parameters, parts, loads): M, G and h of
  ``load_dynamics`` (the rigid link side) against Pinocchio's crba and rnea of the tree built from the DH numbers
  by tests/support/closed_reference.py, to 1e-10 relative.
- With loops of every cut joint (R, S, F; planar and spatial; one or two loops): M_a, G_a, h_a in the actuated
  coordinates against Pinocchio's constrained dynamics with each cut joint's own constraints.
- Every mechanism: M symmetric positive definite, dM/dt - 2C skew (C from the Christoffel symbols, dM/dt by
  central differences), and the energy of the passive mechanism (elastic joints' springs and rotors included)
  conserved over a simulated fall to the integrator's tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.model import Convention
from designer.numeric.mechanism import load_dynamics
from designer.project.io import load_project, save_project
from tests.support import examples
from tests.support.closed_reference import PinMechanism, closable_state, pin_actuated_terms, pin_tree_terms
from tests.support.random_models import Shapes, random_project

pytest.importorskip("pinocchio")


def _saved(tmp_path_factory, model):
    """The model as the writer saves it, read back (the round trip gives the same model)."""
    path = tmp_path_factory.mktemp("shape") / "project.json"
    save_project(model, path)
    again = load_project(path)
    assert again == model
    return again


def _relative(a, b) -> float:
    return float(np.abs(np.asarray(a) - b).max() / max(1.0, np.abs(b).max()))


SEEDS = st.integers(0, 2**32 - 1)


@settings(max_examples=examples(15), deadline=None)
@given(seed=SEEDS, loops=st.booleans())
def test_open_mechanisms_match_pinocchio(tmp_path_factory, seed, loops):
    """Serial arms and trees of random shapes: M, G, h at random states against Pinocchio's tree."""
    rng = np.random.default_rng(seed)
    shapes = Shapes.every(rng)
    shapes = Shapes(**{**shapes.__dict__, "loops": ()})
    model = _saved(tmp_path_factory, random_project(rng, shapes))
    dyn = load_dynamics(model, springs=False)
    assert dyn.n == model.n
    for _ in range(3):
        q, qd = rng.uniform(-2.5, 2.5, model.n), rng.normal(size=model.n)
        M_ref, G_ref, h_ref = pin_tree_terms(model, q, qd)
        assert _relative(dyn.M(q), M_ref) < 1e-10
        assert _relative(dyn.G(q), G_ref) < 1e-10
        assert _relative(dyn.h(q, qd), h_ref) < 1e-10


CUTS = [("R", True), ("S", True), ("F", True), ("S", False), ("R", False), ("F", False)]


@pytest.mark.parametrize("cut, planar", CUTS, ids=[f"{c}-{'planar' if p else 'spatial'}" for c, p in CUTS])
@settings(max_examples=examples(3), deadline=None)
@given(seed=SEEDS)
def test_closed_mechanisms_match_pinocchio(tmp_path_factory, cut, planar, seed):
    """A loop closed by each cut joint (and a second loop beside it): the actuated M_a, G_a, h_a against
    Pinocchio's constrained dynamics with the cut joint's own constraints (exact_cuts)."""
    rng = np.random.default_rng(seed)
    cuts = (cut,) if rng.random() < 0.6 else (cut, str(rng.choice(["R", "S", "F"])))
    shapes = Shapes(convention=list(Convention)[int(rng.integers(2))], loops=cuts, planar=planar,
                    branches=int(rng.integers(0, 2)), degenerate=bool(rng.random() < 0.3), loads=True,
                    named=bool(rng.random() < 0.5), frames=bool(rng.random() < 0.5))
    model = _saved(tmp_path_factory, random_project(rng, shapes))
    dyn = load_dynamics(model, springs=False)
    ref = PinMechanism(model, exact_cuts=True)
    for _ in range(2):
        qa, q_tree = closable_state(rng, model, dyn)
        qd = rng.normal(size=dyn.n)
        assert dyn.residual(qa) < 1e-9
        M_ref, G_ref, h_ref = pin_actuated_terms(ref, dyn, q_tree, qd)
        assert _relative(dyn.M(qa), M_ref) < 1e-10
        assert _relative(dyn.G(qa), G_ref) < 1e-10
        assert _relative(dyn.h(qa, qd), h_ref) < 1e-10


def _laws_state(rng, model, dyn):
    """A state to check at: a closed chain's where its loops close, an elastic arm's links and motors."""
    if dyn.n_tree != model.n or any(not link.actuated for link in model.links):
        link = getattr(dyn, "link", dyn)
        qa, _ = closable_state(rng, model, link, 0.1)
        if link is dyn:
            return qa
        return np.concatenate([qa, rng.uniform(-0.1, 0.1, dyn.n - link.n)])
    return rng.uniform(-1.5, 1.5, dyn.n)


@settings(max_examples=examples(8), deadline=None)
@given(seed=SEEDS)
def test_every_shape_keeps_the_laws_of_mechanics(tmp_path_factory, seed):
    """Any shape (serial, tree, closed; the rigid link side): M symmetric positive definite, dM/dt - 2C
    skew-symmetric with C from the Christoffel symbols and dM/dt by central differences along qd, and h = C qd."""
    rng = np.random.default_rng(seed)
    model = _saved(tmp_path_factory, random_project(rng, Shapes.every(rng)))
    dyn = load_dynamics(model, springs=False)   # the elastic joints' springs and dampers: the fall below
    q = _laws_state(rng, model, dyn)
    qd = rng.normal(size=dyn.n)
    M = dyn.M(q)
    assert np.allclose(M, M.T, rtol=0, atol=1e-12 * np.abs(M).max())
    assert np.linalg.eigvalsh(M).min() > 0
    gamma = dyn.christoffel(q)             # h_i = sum_jk Gamma_ijk qd_j qd_k
    C = np.einsum("ijk,k->ij", gamma, qd)
    assert _relative(C @ qd, dyn.h(q, qd)) < 1e-8
    eps = 1e-6
    Mdot = (dyn.M(q + eps * qd) - dyn.M(q - eps * qd)) / (2 * eps)
    # Gamma here need not be the symmetric Christoffel symbols of the first kind; the skew property holds for
    # those: C_ij = sum_k 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) qd_k
    Cs = np.einsum("ijk,k->ij", 0.5 * (gamma + gamma.transpose(0, 2, 1)), qd)
    S = Mdot - 2 * Cs
    assert np.abs(S + S.T).max() < 1e-6 * max(1.0, np.abs(Mdot).max())


KINDS = {"serial": {}, "tree": {"branches": 2}, "closed": {"loops": ("R", "S")},
         "elastic": {"elastic": True, "joints": "RRPR"}, "closed-elastic": {"elastic": True, "loops": ("F",)}}


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=examples(2), deadline=None)
@given(seed=SEEDS)
def test_a_passive_fall_keeps_its_energy(tmp_path_factory, kind, seed):
    """Let go at rest from a random pose, any shape: kinetic plus potential energy (springs and rotors of elastic
    joints included) stays what it was, to the integrator's tolerance, relative to the energy that moves; with
    the gearboxes' damping it only falls."""
    from designer.numeric.elastic import ElasticDynamics
    from designer.numeric.simulate import simulate
    rng = np.random.default_rng(seed)
    shapes = Shapes.every(rng)
    shapes = Shapes(**{**shapes.__dict__, "drives": False, "elastic": False, "loops": (), "branches": 0,
                       "joints": None, **KINDS[kind]})
    model = _saved(tmp_path_factory, random_project(rng, shapes))
    dyn = load_dynamics(model)
    assert isinstance(dyn, ElasticDynamics) == ("elastic" in kind)
    q0 = _laws_state(rng, model, dyn)
    traj = simulate(dyn, q0, np.zeros(dyn.n), (0, 0.3), rtol=1e-10, atol=1e-12)
    x, xd = traj.q, traj.qd
    if traj.theta is not None:   # an elastic arm's run: its links' coordinates, then the motors'
        x, xd = np.hstack([x, traj.theta]), np.hstack([xd, traj.thetad])
    kinetic, potential = dyn.energy(x, xd)
    E = kinetic + potential
    assert np.ptp(kinetic) > 1e-3
    tol = 1e-6 * np.ptp(kinetic)
    if any(link.drive is not None and link.drive.damping for link in model.links):   # the gearboxes' dampers
        assert np.all(np.diff(E) < tol) and E[-1] < E[0]
    else:
        assert np.max(np.abs(E - E[0])) < tol
