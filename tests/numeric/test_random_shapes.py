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
from tests.support.closed_reference import PinMechanism, pin_actuated_terms, pin_tree_terms
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


@settings(max_examples=examples(25), deadline=None)
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
        qa, qd = rng.uniform(-0.2, 0.2, dyn.n), rng.normal(size=dyn.n)
        q_tree = dyn.positions(qa)
        assert dyn.residual(qa) < 1e-9
        M_ref, G_ref, h_ref = pin_actuated_terms(ref, dyn, q_tree, qd)
        scale = max(1.0, np.abs(M_ref).max())
        assert np.abs(dyn.M(qa) - M_ref).max() < 1e-8 * scale
        assert _relative(dyn.G(qa), G_ref) < 1e-8
        assert _relative(dyn.h(qa, qd), h_ref) < 1e-7
