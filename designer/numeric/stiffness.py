"""Tool compliance and static sag of an arm with elastic joints (motors held at their angles).

A small tool wrench F = (force, moment) deflects the elastic joints by dq = K^-1 J^T F and the tool
by J dq, so the tool compliance (6 x 6, base axes, [translation; rotation]) is

    C(q) = J(q) K^-1 J(q)^T  +  C_links(q)

with J the tool's geometric Jacobian and K^-1 zero for rigid joints. The translational block is in
m/N, the rotational in rad/(N m). C_links is the links' own bending and torsion
(:func:`links_compliance`, beam theory over the part-made links; zero for the others).

The sag under gravity and a payload at a pose: the motors hold the angles that put the arm at q
without load (the encoder sits on the motor, so the controller does not see the springs), and the
joints deflect by dq = -K^-1 (G(q) - J_v^T m_p g) (G the holding torque of the arm, m_p g the
payload's weight at the tool); the tool moves by J_v dq (to first order).
"""

from __future__ import annotations

import numpy as np

from ..kinematics import NumericArm
from .batch import BatchDynamics
from .beams import tool_compliance_many
from .joints import ElasticJoints
from .engine import arm_dynamics

__all__ = ["links_compliance", "tool_compliance", "joint_compliance", "sag", "compliance_axes"]


def joint_compliance(joints: ElasticJoints) -> np.ndarray:
    """(n,) 1/k per joint, 0 for the rigid ones."""
    return np.where(np.isfinite(joints.stiffness), 1.0 / joints.stiffness, 0.0)


def links_compliance(arm: NumericArm, q) -> np.ndarray:
    """(..., 6, 6) the links' own compliance at the tool: the beam bending and torsion of the part-made
    links (``numeric/beams.py``); zero for links without a section (rigid)."""
    q = np.asarray(q, dtype=float)
    lead = q.shape[:-1]
    return tool_compliance_many(arm, q.reshape(-1, arm.n)).reshape(lead + (6, 6))


def tool_compliance(arm: NumericArm, joints: ElasticJoints, q, J=None) -> np.ndarray:
    """(..., 6, 6) C = J K^-1 J^T + links; ``J`` (..., 6, n) when the caller has the tool Jacobian."""
    if J is None:
        J = BatchDynamics(arm).tool_jacobian(q)
    c = joint_compliance(joints)
    return (J * c) @ np.swapaxes(J, -1, -2) + links_compliance(arm, q)


def sag(arm: NumericArm, joints: ElasticJoints, q, payload: float = 0.0, J=None, G=None) -> np.ndarray:
    """(..., 3) the tool's displacement in metres under gravity and ``payload`` kg at the tool point."""
    q = np.asarray(q, dtype=float)
    if J is None:
        J = BatchDynamics(arm).tool_jacobian(q)
    if G is None:
        G = arm_dynamics(arm).G(q)
    Jv = J[..., :3, :]
    weight = float(payload) * np.asarray(arm.gravity, dtype=float)
    hold = G - np.einsum("...in,i->...n", Jv, weight)
    dq = -joint_compliance(joints) * hold
    return np.einsum("...in,...n->...i", Jv, dq)


def compliance_axes(C: np.ndarray, block: str = "translation") -> tuple[np.ndarray, np.ndarray]:
    """(semi-axes, directions) of a compliance block's ellipsoid: the deflection per unit force (or
    moment) along each principal direction, ascending; directions as columns."""
    part = C[..., :3, :3] if block == "translation" else C[..., 3:, 3:]
    w, V = np.linalg.eigh(part)
    return np.clip(w, 0.0, None), V
