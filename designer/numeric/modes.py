"""Natural frequencies and mode shapes of an arm with elastic joints, at many poses at once.

Two models, both linearized about rest at the pose (the gravity's own stiffness dG/dq is left
out: for the PUMA 560 it is below 60 N m/rad, against gearbox stiffnesses of 1e4 and more):

- motors locked (rigid links on joint springs): K v = w^2 M(q) v over the elastic joints, the
  rigid joints held. With u = K^(1/2) v this is the symmetric problem
  K^(-1/2) M K^(-1/2) u = w^-2 u, one batched ``numpy.linalg.eigh`` over (N, m, m) stacks.
- motors free (the full elastic-joint model, 2n degrees of freedom when every joint is elastic):
  coordinates x = (q, phi) with phi = theta/N the motor angle seen at the joint,

      mass       [[M(q) + R, 0], [0, diag(N^2 Jm)]]     (R: N^2 Jm of the rigid joints)
      stiffness  [[K, -K], [-K, K]]  (+ servo stiffness Kp on the phi block, when given)

  (no inertial coupling between links and rotors in Spong's reduced model). Free motors leave n
  modes at zero frequency (the arm turning as a rigid chain); the vibration frequencies are the
  m others. Solved through the Cholesky factor L of the mass: L^-1 Kf L^-T, batched.

Frequencies in Hz, ascending; mode shapes as columns, scaled to a largest joint component of 1.

One pose of any mechanism (:func:`elastic_at`, :class:`ElasticPose`): M, G and the tool Jacobian from the arm's
batch (:func:`~designer.numeric.batch.batch_of`: a serial arm's, or a closed chain's in its actuated coordinates
with the loops closed), and from them the modes above, the tool compliance and sag, and the links' bending
(:meth:`ElasticPose.links`); what ``modes``, the window's read-out, mode animation and ellipsoid read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..kinematics.closure import ClosureError
from ..kinematics.numeric import NumericArm
from .batch import batch_of
from .beams import tool_compliance_many, tool_sag_many
from .flex_modes import SEGMENTS, FlexField, FlexModes, flex_mode_field, flex_modes
from .joints import ElasticJoints
from .stiffness import joint_compliance, sag

__all__ = ["Modes", "locked_modes", "free_modes", "lowest_frequency", "ElasticPose", "elastic_at"]

TWO_PI = 2.0 * np.pi


@dataclass(frozen=True)
class Modes:
    """``frequency`` (..., k) in Hz ascending; ``shape`` (..., size, k): column j is mode j over the
    coordinates (the n joint angles, then for the free model the m motor angles at the joint side)."""

    frequency: np.ndarray
    shape: np.ndarray


def _normalised(V: np.ndarray) -> np.ndarray:
    big = np.take_along_axis(V, np.abs(V).argmax(axis=-2)[..., None, :], axis=-2)
    return V / np.where(big == 0, 1.0, big)


def _nan_safe_eigh(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Batched eigh; the matrices holding NaN (a singular pose upstream) give NaN, not a failed batch."""
    bad = ~np.isfinite(A).all(axis=(-2, -1))
    if not bad.any():
        return np.linalg.eigh(A)
    w, V = np.linalg.eigh(np.where(bad[..., None, None], 0.0, A))
    w[bad], V[bad] = np.nan, np.nan
    return w, V


def locked_modes(M: np.ndarray, joints: ElasticJoints, shapes: bool = True) -> Modes:
    """Motors locked, rigid links: K v = w^2 M v over the elastic joints, M (..., n, n)."""
    E = joints.elastic
    M = np.asarray(M, dtype=float)
    lead = M.shape[:-2]
    if len(E) == 0:
        return Modes(np.zeros(lead + (0,)), np.zeros(lead + (joints.n, 0)))
    s = 1.0 / np.sqrt(joints.stiffness[E])
    A = M[..., E[:, None], E[None, :]] * s[:, None] * s[None, :]
    if not shapes:
        mu = np.linalg.eigvalsh(A) if np.isfinite(A).all() else _nan_safe_eigh(A)[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            return Modes(1.0 / (TWO_PI * np.sqrt(mu[..., ::-1])), np.zeros(lead + (joints.n, 0)))
    mu, U = _nan_safe_eigh(A)
    mu, U = mu[..., ::-1], U[..., ::-1]   # largest 1/w^2 first: lowest frequency first
    with np.errstate(divide="ignore", invalid="ignore"):
        freq = 1.0 / (TWO_PI * np.sqrt(mu))
    V = np.zeros(lead + (joints.n, len(E)))
    V[..., E, :] = U * s[:, None]
    return Modes(freq, _normalised(V))


def free_modes(M: np.ndarray, joints: ElasticJoints, servo=None, shapes: bool = True) -> Modes:
    """The full elastic-joint model with the motor inertias (module docstring), motors free or, with
    ``servo`` (n joint-side position gains), held by their position loops. Needs every elastic joint's
    rotor inertia."""
    E, n, m = joints.elastic, joints.n, joints.m
    M = np.asarray(M, dtype=float)
    lead = M.shape[:-2]
    if np.any(joints.rotor[E] <= 0):
        raise ValueError("the free-motor modes need every elastic joint's rotor inertia (motor_inertia)")
    size = n + m
    Mf = np.zeros(lead + (size, size))
    Mf[..., :n, :n] = M + np.diag(joints.reflected)
    motor = joints.gear[E] ** 2 * joints.rotor[E]
    Mf[..., n + np.arange(m), n + np.arange(m)] = motor
    Kf = np.zeros((size, size))
    k = joints.stiffness[E]
    Kf[E, E] = k
    Kf[n + np.arange(m), n + np.arange(m)] = k
    Kf[E, n + np.arange(m)] = Kf[n + np.arange(m), E] = -k
    zero_modes = n
    if servo is not None:
        kp = np.broadcast_to(np.asarray(servo, dtype=float), (n,))
        Kf[n + np.arange(m), n + np.arange(m)] += kp[E]
        Kf[joints.rigid, joints.rigid] += kp[joints.rigid]
        zero_modes = int(np.sum(kp <= 0))
    bad = np.asarray(~np.isfinite(Mf).all(axis=(-2, -1)))
    try:
        L = np.linalg.cholesky(np.where(bad[..., None, None], np.eye(size), Mf))
    except np.linalg.LinAlgError:   # a singular M (a massless link on a rigid joint): NaN there, as for NaN poses
        bad = bad | (np.linalg.eigvalsh(np.where(bad[..., None, None], np.eye(size), Mf))[..., 0] <= 0)
        L = np.linalg.cholesky(np.where(bad[..., None, None], np.eye(size), Mf))
    Linv = np.linalg.inv(L)
    A = Linv @ Kf @ np.swapaxes(Linv, -1, -2)
    A = 0.5 * (A + np.swapaxes(A, -1, -2))
    if shapes:
        w2, U = np.linalg.eigh(A)
    else:
        w2, U = np.linalg.eigvalsh(A), None
    w2 = w2[..., zero_modes:]
    freq = np.sqrt(np.clip(w2, 0.0, None)) / TWO_PI
    freq[bad] = np.nan
    if U is None:
        return Modes(freq, np.zeros(lead + (size, 0)))
    V = np.swapaxes(Linv, -1, -2) @ U[..., zero_modes:]
    return Modes(freq, _normalised(V))


def lowest_frequency(M: np.ndarray, joints: ElasticJoints, motors: str = "locked") -> np.ndarray:
    """(...,) the lowest natural frequency in Hz (``motors`` "locked" or "free"); inf without elastic joints."""
    if joints.m == 0:
        return np.full(np.shape(M)[:-2], np.inf)
    modes = (locked_modes if motors == "locked" else free_modes)(M, joints, shapes=False)
    return modes.frequency[..., 0]


# -- one pose of any mechanism: what ``modes`` and the window (read-out, mode animation, compliance ellipsoid) read --
@dataclass(frozen=True)
class ElasticPose:
    """The elastic quantities of a mechanism at actuated values ``q`` (n,)."""

    arm: Any
    joints: ElasticJoints
    q: np.ndarray
    M: np.ndarray   # (n, n)
    J: np.ndarray   # (6, n) the tool's [v; w] in the actuated rates, frame 0
    G: np.ndarray   # (n,)
    tool: np.ndarray   # (3,) the tool point, frame 0

    def locked(self, shapes: bool = True) -> Modes:
        """Motors locked: K v = w^2 M v over the elastic joints."""
        return locked_modes(self.M, self.joints, shapes=shapes)

    def free(self) -> Modes:
        """Motors free: the 2 n model with the rotors (ValueError when an elastic joint has no rotor inertia)."""
        return free_modes(self.M, self.joints)

    def compliance(self) -> np.ndarray:
        """(6, 6) J K^-1 J^T (m/N in the translation block), frame 0."""
        return (self.J * joint_compliance(self.joints)) @ self.J.T

    def links_compliance(self) -> np.ndarray:
        """(6, 6) the links' own share of the tool's compliance (links made as parts; zero without), frame 0."""
        if not getattr(self.arm, "beams", ()):
            return np.zeros((6, 6))
        return batch_of(self.arm, self.q[None]).links_compliance(SEGMENTS)[0]

    def sag(self, payload: float = 0.0) -> np.ndarray:
        """(3,) the tool's static displacement (m) under gravity and ``payload`` kg at the tool, frame 0."""
        return sag(self.arm, self.joints, self.q, payload, J=self.J, G=self.G)

    def bending(self, segments: int = SEGMENTS) -> FlexField | str | None:
        """The modes with the links' bending, motors locked, and how each moves the links' centre lines (for drawing
        them); None when no link is made as a part; a one-line message where the engine cannot give the centre
        lines (a closed chain's bending modes are in ``modes --segments``, not drawn)."""
        if not getattr(self.arm, "beams", ()):
            return None
        if not isinstance(self.arm, NumericArm):
            return "a closed chain's bending modes are listed by `modes --segments` on the command line; not drawn here"
        return flex_mode_field(self.arm, self.joints, self.q, segments)

    def links(self, segments: int = SEGMENTS, payload: float = 0.0) -> tuple[FlexModes, np.ndarray, np.ndarray]:
        """The links' bending (links made as parts) in ``segments`` slices each: the modes with the elastic joints'
        gearboxes, motors locked (:class:`~designer.numeric.flex_modes.FlexModes` at this pose; a closed chain's with
        the loops closed over the slices, its joint shapes over the actuated joints), the links' share of the tool's
        compliance (6, 6) and of its sag under gravity and ``payload`` kg (6,: [delta; theta]), frame 0. A serial
        arm's shares are the beams' exact integral (the virtual joints' sum equals it for any ``segments``);
        ClosureError at a closed chain's dead centre."""
        if isinstance(self.arm, NumericArm):
            q = self.q[None]
            return (flex_modes(self.arm, self.joints, self.q, segments), tool_compliance_many(self.arm, q)[0],
                    tool_sag_many(self.arm, q, payload)[0])
        q_tree = self.arm.batch(self.q[None]).closed[0][0]   # the closed tree pose, the nominal pose's branch
        modes = FlexModes(*self.arm.flex(self.joints.stiffness, segments).modes(q_tree))
        links = self.arm.flex(None, segments)
        return modes, links.compliance(q_tree), links.sag(q_tree, payload)

    def frequency_links(self) -> float | None:
        """The lowest natural frequency (Hz), motors locked, with the links' bending (links made as parts); None
        when no link is one."""
        if not getattr(self.arm, "beams", ()):
            return None
        return float(batch_of(self.arm, self.q[None]).frequency_links(self.joints, SEGMENTS)[0])


def elastic_at(arm, joints: ElasticJoints, q) -> ElasticPose:
    """:class:`ElasticPose` at actuated values ``q``; ClosureError (a DesignerError, one line) where the loops
    cannot close or stand at a dead centre."""
    q = np.asarray(q, dtype=float).ravel()
    b = batch_of(arm, q[None])
    M, J, G, tool = b.M[0], b.tool_jacobian[0], b.G[0], b.tool_position[0]
    if not (np.isfinite(M).all() and np.isfinite(J).all() and np.isfinite(G).all()):
        raise ClosureError(f"the loops cannot close at q = ({', '.join(f'{v:.4g}' for v in q)}) "
                           "(or stand at a dead centre)")
    return ElasticPose(arm, joints, q, M, J, G, tool)
