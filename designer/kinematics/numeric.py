"""Numeric kinematics with numpy, for the 3D view and numeric checks.

:class:`NumericArm` resolves a model's symbols to floats once; its methods
then cost only a few small matrix products per call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..model.evaluate import NotANumber, real_value
from ..model.manipulator import Convention, Manipulator

__all__ = ["NumericArm", "dh_transform"]


def dh_transform(a: float, alpha: float, d: float, theta: float, convention: Convention) -> np.ndarray:
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    if convention is Convention.STANDARD:
        return np.array([[ct, -st * ca, st * sa, a * ct],
                         [st, ct * ca, -ct * sa, a * st],
                         [0.0, sa, ca, d],
                         [0.0, 0.0, 0.0, 1.0]])
    return np.array([[ct, -st, 0.0, a],
                     [st * ca, ct * ca, -sa, -sa * d],
                     [st * sa, ct * sa, ca, ca * d],
                     [0.0, 0.0, 0.0, 1.0]])


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

    @classmethod
    def from_model(cls, model: Manipulator, overrides: Mapping[str, float] | None = None) -> NumericArm:
        """Raises :class:`~designer.model.MissingParameterError` naming symbols without values."""
        model.substitutions(overrides)  # raises MissingParameterError naming every missing symbol
        values = dict(model.parameters)
        values.update(overrides or {})

        def f(e) -> float:
            # plain doubles: substituting into sympy could overflow in mpmath (exp(exp(100*L)))
            try:
                return real_value(e, values)
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
            gravity=np.array([f(g) for g in num.gravity]),
            limits=limits,
            point_masses=tuple((p.link - 1, f(p.mass), np.array([f(c) for c in p.position])) for p in num.point_masses),
            base=np.eye(4) if model.base is None else model.base.matrix(f),
            tool=np.eye(4) if model.tool is None else model.tool.matrix(f),
        )

    @property
    def n(self) -> int:
        return len(self.revolute)

    def link_transforms(self, q: ArrayLike) -> list[np.ndarray]:
        q = np.asarray(q, dtype=float)
        out = []
        for i in range(self.n):
            a, alpha, d, theta = self.dh[i]
            if self.revolute[i]:
                theta = theta + q[i]
            else:
                d = d + q[i]
            out.append(dh_transform(a, alpha, d, theta, self.convention))
        return out

    def frames(self, q: Sequence[float]) -> np.ndarray:
        """(n+1, 4, 4): T_0^i for i = 0..n."""
        T = np.empty((self.n + 1, 4, 4))
        T[0] = np.eye(4)
        for i, A in enumerate(self.link_transforms(q), start=1):
            T[i] = T[i - 1] @ A
        return T

    def joint_axes(self, q: Sequence[float], T: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(origins (n, 3), unit axes (n, 3)) of the joints in the base frame."""
        T = self.frames(q) if T is None else T
        k = np.arange(self.n) + (0 if self.convention is Convention.STANDARD else 1)
        return T[k, :3, 3].copy(), T[k, :3, 2].copy()

    def com_positions(self, q: Sequence[float], T: np.ndarray | None = None) -> np.ndarray:
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

    def total_mass(self) -> float:
        return float(self.mass.sum() + sum(m for _, m, _ in self.point_masses))
