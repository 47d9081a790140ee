"""Numeric kinematics with numpy, for the 3D view and numeric checks.

:class:`NumericArm` resolves a model's symbols to floats once; its methods
then cost only a few small matrix products per call. The module imports
without sympy (the window draws a project's arm before sympy loads, issue 29):
only :meth:`NumericArm.from_model` and :func:`display_arm`, which read a model,
import the model's modules.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..model.kinds import Convention

if TYPE_CHECKING:
    from ..model.manipulator import Manipulator
    from ..model.beam import Beam

__all__ = ["NumericArm", "cross3", "cross_last", "dh_frames", "dh_matrices", "dh_transform", "display_arm"]


def cross3(a, b) -> np.ndarray:
    """a x b of two 3-vectors. numpy's cross checks and moves axes for any shape: about 50 us a call, 60 % of a
    four-bar's loop terms and more than half its forward dynamics (robots/four_bar.json: 5.4 ms a forward
    dynamics with G, 2.4 ms with this); the same products and differences."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


def cross_last(a, b) -> np.ndarray:
    """a x b over the last axis, broadcast (:func:`cross3` for stacks of vectors: np.cross spends ~20 us of
    checks a call on the small arrays of the closed-chain batches)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1], a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def dh_matrices(a, alpha, d, theta, convention: Convention) -> np.ndarray:
    """Link transforms A (..., 4, 4) for DH parameters of any (broadcast) shape.

    Standard: Rz(theta) Tz(d) Tx(a) Rx(alpha); modified: Rx(alpha) Tx(a) Rz(theta) Tz(d).
    The one DH frame function: single links, whole arms, batches of states, the regressor and the
    URDF import and export all come here. Floats give floats; complex values (the regressor's
    complex-step derivatives) stay complex.
    """
    a, alpha, d, theta = np.broadcast_arrays(*(np.asarray(v) for v in (a, alpha, d, theta)))
    dtype = np.result_type(a, alpha, d, theta, float)
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    A = np.zeros(a.shape + (4, 4), dtype=dtype)
    A[..., 3, 3] = 1.0
    if convention is Convention.STANDARD:
        A[..., 0, 0], A[..., 0, 1], A[..., 0, 2], A[..., 0, 3] = ct, -st * ca, st * sa, a * ct
        A[..., 1, 0], A[..., 1, 1], A[..., 1, 2], A[..., 1, 3] = st, ct * ca, -ct * sa, a * st
        A[..., 2, 1], A[..., 2, 2], A[..., 2, 3] = sa, ca, d
    else:
        A[..., 0, 0], A[..., 0, 1], A[..., 0, 3] = ct, -st, a
        A[..., 1, 0], A[..., 1, 1], A[..., 1, 2], A[..., 1, 3] = st * ca, ct * ca, -sa, -sa * d
        A[..., 2, 0], A[..., 2, 1], A[..., 2, 2], A[..., 2, 3] = st * sa, ct * sa, ca, ca * d
    return A


def dh_transform(a: float, alpha: float, d: float, theta: float, convention: Convention) -> np.ndarray:
    """The 4 x 4 transform of one link (see :func:`dh_matrices`)."""
    return dh_matrices(a, alpha, d, theta, convention)


def _link_matrices(arm: NumericArm, q: np.ndarray) -> np.ndarray:
    """(..., n, 4, 4): A_i of every link at joint values q (..., n)."""
    if q.ndim == 0 or q.shape[-1] != arm.n:
        raise ValueError(f"q: expected {arm.n} values per state, got shape {q.shape}")
    zero = np.zeros_like(q)
    theta = arm.dh[:, 3] + np.where(arm.revolute, q, zero)
    d = arm.dh[:, 2] + np.where(arm.revolute, zero, q)
    return dh_matrices(arm.dh[:, 0], arm.dh[:, 1], d, theta, arm.convention)


def dh_frames(arm: NumericArm, q) -> np.ndarray:
    """(..., n+1, 4, 4): T_0^i for i = 0..n at joint values q of shape (..., n)."""
    q = np.asarray(q, dtype=float)
    A = _link_matrices(arm, q)
    T = np.empty(q.shape[:-1] + (arm.n + 1, 4, 4))
    T[..., 0, :, :] = np.eye(4)
    for i in range(arm.n):
        np.matmul(T[..., i, :, :], A[..., i, :, :], out=T[..., i + 1, :, :])
    return T


@dataclass(frozen=True)
class NumericArm:
    """A model with every symbol at a number: DH table, masses, COMs, inertias as arrays."""

    convention: Convention
    revolute: np.ndarray   # (n,) bool
    dh: np.ndarray         # (n, 4): a, alpha, d, theta (offsets)
    mass: np.ndarray       # (n,)
    com: np.ndarray        # (n, 3) in link frames
    inertia: np.ndarray    # (n, 3, 3) about the COM
    gravity: np.ndarray    # (3,)
    limits: np.ndarray     # (n, 2), nan where none
    point_masses: tuple[tuple[int, float, np.ndarray], ...]  # (link index 0-based, mass, position)
    base: np.ndarray = field(default_factory=lambda: np.eye(4))  # frame 0 in the world
    tool: np.ndarray = field(default_factory=lambda: np.eye(4))  # tool frame in frame n
    beams: tuple[Beam, ...] = ()   # the part-made links as beams (model/parts.py), for their bending

    @classmethod
    def from_model(cls, model: Manipulator, overrides: Mapping[str, float] | None = None) -> NumericArm:
        """Raises :class:`~designer.model.MissingParameterError` naming symbols without values."""
        from ..model.evaluate import NotANumber, value_of
        from ..model.parts import link_beams

        model.substitutions(overrides)  # raises MissingParameterError naming every missing symbol
        value = value_of(model, overrides)

        def f(e) -> float:
            # plain doubles: substituting into sympy could overflow in mpmath (exp(exp(100*L)))
            try:
                return value(e)
            except NotANumber as exc:
                raise ValueError(f"{e}: {exc.reason} with the parameter values given") from None

        num = model
        limits = np.full((num.n, 2), np.nan)
        for i, link in enumerate(num.links):
            if link.limits is not None:
                limits[i] = [f(v) for v in link.limits]
        return cls(
            convention=num.convention,
            revolute=np.array([l.is_revolute for l in num.links]),
            dh=np.array([[f(l.a), f(l.alpha), f(l.d), f(l.theta)] for l in num.links], dtype=float).reshape(-1, 4),
            mass=np.array([f(l.mass) for l in num.links]),
            com=np.array([[f(c) for c in l.com] for l in num.links]).reshape(-1, 3),
            inertia=np.array([[[f(e) for e in row] for row in l.inertia.matrix().tolist()]
                              for l in num.links], dtype=float).reshape(-1, 3, 3),
            gravity=np.array([f(g) for g in num.gravity_frame0]),   # in frame 0
            limits=limits,
            point_masses=tuple((p.link - 1, f(p.mass), np.array([f(c) for c in p.position])) for p in num.point_masses),
            base=np.eye(4) if model.base is None else model.base.matrix(f),
            tool=np.eye(4) if model.tool is None else model.tool.matrix(f),
            beams=link_beams(model, overrides) if any(l.part is not None for l in model.links) else (),
        )

    @property
    def n(self) -> int:
        return len(self.revolute)

    def frames(self, q: ArrayLike) -> np.ndarray:
        """(n+1, 4, 4): T_0^i for i = 0..n (q of shape (n,); (..., n) gives (..., n+1, 4, 4))."""
        return dh_frames(self, q)

    def joint_axes(self, q: ArrayLike, T: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(origins (n, 3), unit axes (n, 3)) of the joints in the base frame."""
        T = self.frames(q) if T is None else T
        k = np.arange(self.n) + (0 if self.convention is Convention.STANDARD else 1)
        return T[k, :3, 3].copy(), T[k, :3, 2].copy()

    def com_positions(self, q: ArrayLike, T: np.ndarray | None = None) -> np.ndarray:
        T = self.frames(q) if T is None else T
        return np.einsum("nij,nj->ni", T[1:, :3, :3], self.com) + T[1:, :3, 3]

    def point_jacobian(self, q, point: np.ndarray, upto: int, T: np.ndarray | None = None) -> np.ndarray:
        """6 x n geometric Jacobian [v; w] of a base-frame point moving with link ``upto`` (1-based)."""
        T = self.frames(q) if T is None else T
        origins, axes = self.joint_axes(q, T)
        J = np.zeros((6, self.n))
        for j in range(upto):
            if self.revolute[j]:
                J[:3, j] = np.cross(axes[j], point - origins[j])
                J[3:, j] = axes[j]
            else:
                J[:3, j] = axes[j]
        return J

    def com_jacobians(self, q) -> np.ndarray:
        """(n, 6, n): the Jacobian of each link's centre of mass."""
        T = self.frames(q)
        coms = self.com_positions(q, T)
        return np.array([self.point_jacobian(q, coms[i], i + 1, T) for i in range(self.n)])

    def tool_in_base(self, q: Sequence[float], T: np.ndarray | None = None) -> np.ndarray:
        """The tool frame in frame 0 (the last DH frame when the model has no tool)."""
        T = self.frames(q) if T is None else T
        return T[-1] @ self.tool

    def tool_pose(self, q: Sequence[float]) -> np.ndarray:
        """The tool frame in the world: base * T_0^n(q) * tool."""
        return self.base @ self.tool_in_base(q)

    def tool_jacobian(self, q) -> np.ndarray:
        """6 x n Jacobian of the tool point, in frame-0 coordinates."""
        T = self.frames(q)
        return self.point_jacobian(q, self.tool_in_base(q, T)[:3, 3], self.n, T)

    def tool_points(self, Q) -> np.ndarray:
        """(N, 3) the tool point in frame 0 at states Q (N, n)."""
        return (dh_frames(self, np.atleast_2d(np.asarray(Q, dtype=float)))[:, -1] @ self.tool)[:, :3, 3]

    def with_load(self, mass: float, position) -> NumericArm:
        """This arm with a point mass (kg) at ``position`` (m) in the last link's frame (a payload)."""
        load = (self.n - 1, float(mass), np.array(position, dtype=float))
        return replace(self, point_masses=self.point_masses + (load,))

    def total_mass(self) -> float:
        return float(self.mass.sum() + sum(m for _, m, _ in self.point_masses))


def display_arm(model: Manipulator) -> NumericArm:
    """The model at its default values for drawing and plotting (the window's 3D view, sliders,
    read-out and coupling plots).

    Symbols used only in the gravity vector or in a drive's stiffness and damping may lack a value:
    geometry, M, B and C do not depend on them, so they count as 0. Raises
    :class:`~designer.model.MissingParameterError` for any other symbol without a value.
    """
    elsewhere: set[str] = set()
    for link in model.links:
        # a drive's named stiffness or damping (k2) does not move the arm either: without its value the arm
        # is drawn and read out, and the elastic figures wait for it (they read the model's own values)
        for e in replace(link, drive=None).expressions():
            elsewhere |= {s.name for s in e.free_symbols}
    for pm in model.point_masses:
        for e in (pm.mass, *pm.position):
            elsewhere |= {s.name for s in e.free_symbols}
    overrides = {name: 0.0 for name in model.unvalued_symbols() if name not in elsewhere}
    return NumericArm.from_model(model, overrides)
