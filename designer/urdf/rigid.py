"""Rigid bodies as (mass, centre of mass, inertia about it): moving them and combining them exactly."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Body", "combine"]


@dataclass(frozen=True)
class Body:
    """Mass, centre of mass and the inertia tensor about it, all in one frame's coordinates."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray

    @classmethod
    def empty(cls) -> Body:
        return cls(0.0, np.zeros(3), np.zeros((3, 3)))

    def moved(self, T: np.ndarray) -> Body:
        """The same body seen from the frame in which T (4x4) gives this body's frame."""
        R = T[:3, :3]
        return Body(self.mass, R @ self.com + T[:3, 3], R @ self.inertia @ R.T)


def _point_inertia(mass: float, r: np.ndarray) -> np.ndarray:
    return mass * (float(r @ r) * np.eye(3) - np.outer(r, r))


def combine(bodies: list[Body]) -> Body:
    """One rigid body of several in the same frame: total mass, joint COM, parallel-axis inertia."""
    total = sum(b.mass for b in bodies)
    if total <= 0.0:
        # massless parts: only their rotational inertia (if any) adds, about the origin
        return Body(0.0, np.zeros(3), sum((b.inertia for b in bodies), np.zeros((3, 3))))
    c = np.asarray(sum(b.mass * b.com for b in bodies)) / total
    inertia = sum((b.inertia + _point_inertia(b.mass, b.com - c) for b in bodies), np.zeros((3, 3)))
    return Body(float(total), c, 0.5 * (inertia + inertia.T))
