"""A closed chain's elastic joints at one pose: what ``modes`` (cli/closed_modes.py) and the window
(gui/modes.py: the read-out, the mode animation, the compliance ellipsoid) both read.

The elastic joints of a closed chain are its actuated ones (the gearboxes sit at the motors; a passive
joint with a drive stiffness is refused in one line naming it). At the actuated values q_a, the loops
closed on the nominal pose's branch, :func:`closed_elastic_at` gives M_a, G_a and the tool Jacobian in
the actuated rates J W (:class:`~designer.explore.closed.ClosedArm`'s batch, which the tests hold to
Pinocchio's CRBA and RNEA on the spanning tree projected by W), and from them the locked modes
K v = w^2 M_a v, the free modes with the rotors, the tool compliance J_a K^-1 J_a^T and the sag
J_v K^-1 (J_v^T m_p g - G_a); the links stay rigid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kinematics.closure import ClosureError
from ..numeric.elastic import ElasticJoints
from ..numeric.modes import Modes, free_modes, locked_modes
from ..numeric.stiffness import joint_compliance, sag
from .closed import ClosedArm
from .elastic_metrics import drive_ratings, passive_stiffness_refused

__all__ = ["ClosedElastic", "closed_elastic", "closed_elastic_at"]


def closed_elastic(model, what: str = "the closed chain") -> tuple[ClosedArm, ElasticJoints]:
    """The mechanism in the actuated joints and its elastic joints (the actuated ones with a drive stiffness;
    ``joints.m`` is 0 when none has one). A DesignerError names a passive joint given a stiffness, a missing
    parameter or drive value."""
    passive_stiffness_refused(model, what)
    arm = ClosedArm(model)
    values = drive_ratings(model)
    return arm, ElasticJoints.of(arm.n, values["stiffness"], None, values["gear"], values["rotor"])


@dataclass(frozen=True)
class ClosedElastic:
    """The elastic quantities of a closed chain at actuated values ``q`` (n_a,)."""

    arm: ClosedArm
    joints: ElasticJoints
    q: np.ndarray
    M: np.ndarray   # (n_a, n_a) M_a
    J: np.ndarray   # (6, n_a) the tool's [v; w] in the actuated rates, frame 0
    G: np.ndarray   # (n_a,) G_a
    tool: np.ndarray   # (3,) the tool point, frame 0

    def locked(self, shapes: bool = True) -> Modes:
        """Motors locked: K v = w^2 M_a v over the elastic joints."""
        return locked_modes(self.M, self.joints, shapes=shapes)

    def free(self) -> Modes:
        """Motors free: the 2 n_a model with the rotors (ValueError when an elastic joint has no rotor inertia)."""
        return free_modes(self.M, self.joints)

    def compliance(self) -> np.ndarray:
        """(6, 6) J_a K^-1 J_a^T (m/N in the translation block), frame 0."""
        return (self.J * joint_compliance(self.joints)) @ self.J.T

    def sag(self, payload: float = 0.0) -> np.ndarray:
        """(3,) the tool's static displacement (m) under gravity and ``payload`` kg at the tool, frame 0."""
        return sag(self.arm, self.joints, self.q, payload, J=self.J, G=self.G)  # type: ignore[arg-type]


def closed_elastic_at(arm: ClosedArm, joints: ElasticJoints, q) -> ClosedElastic:
    """:class:`ClosedElastic` at actuated values ``q``; ClosureError (a DesignerError, one line) where the loops
    cannot close or stand at a dead centre."""
    q = np.asarray(q, dtype=float).ravel()
    b = arm.batch(q)
    M, J, G, tool = b.M[0], b.tool_jacobian[0], b.G[0], b.tool_position[0]
    if not (np.isfinite(M).all() and np.isfinite(J).all() and np.isfinite(G).all()):
        raise ClosureError(f"the loops cannot close at q = ({', '.join(f'{v:.4g}' for v in q)}) "
                           "(or stand at a dead centre)")
    return ClosedElastic(arm, joints, q, M, J, G, tool)
