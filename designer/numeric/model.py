"""The constants of one arm at given parameter values, laid out for the recursive algorithms.

Pinocchio's split: an :class:`ArmModel` holds what does not change between
evaluations (built once per arm), the algorithms keep their per-state values
local and return them. Every DH link is written as a constant placement, a
joint about or along its own z axis, and nothing after it::

    F_i = F_{i-1} X_i J(q_i),   J = Rz(q) (revolute) or Tz(q) (prismatic)

For standard DH, A_i = Rz(theta + q) Tz(d) Tx(a) Rx(alpha), the part after the
joint, Tz(d) Tx(a) Rx(alpha) with the offset Rz(theta), moves into the next
placement and into the body's own constants (its COM and inertia are given in
frame i); for modified DH, A_i = Rx(alpha) Tx(a) Rz(theta) Tz(d) J(q), nothing
follows the joint. Both conventions then share one code path, in joint frames
where every joint axis is (0, 0, 1).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..kinematics import NumericArm
from ..model.manipulator import Convention

__all__ = ["ArmModel", "LumpedBodies", "arm_model", "lumped_bodies", "SNAP"]

#: a cosine or sine of a constant angle this close to 0 is 0: cos(1.5707963267948966) = 6e-17 is
#: rounding, and an exact zero lets the generated code drop the terms it multiplies
SNAP = 1e-15


def _cs(angle: float) -> tuple[float, float]:
    c, s = np.cos(angle), np.sin(angle)
    return (0.0 if abs(c) < SNAP else float(c)), (0.0 if abs(s) < SNAP else float(s))


def _rot_z(angle: float) -> np.ndarray:
    c, s = _cs(angle)
    T = np.eye(4)
    T[:2, :2] = [[c, -s], [s, c]]
    return T


def _rot_x(angle: float) -> np.ndarray:
    c, s = _cs(angle)
    T = np.eye(4)
    T[1:3, 1:3] = [[c, -s], [s, c]]
    return T


def _shift(x: float = 0.0, z: float = 0.0) -> np.ndarray:
    T = np.eye(4)
    T[0, 3], T[2, 3] = x, z
    return T


def _split(arm: NumericArm, i: int) -> tuple[np.ndarray, np.ndarray]:
    """(before, after): A_i = before J(q_i) after."""
    a, alpha, d, theta = (float(v) for v in arm.dh[i])
    rev = bool(arm.revolute[i])
    if arm.convention is Convention.STANDARD:
        if rev:
            return np.eye(4), _rot_z(theta) @ _shift(z=d) @ _shift(x=a) @ _rot_x(alpha)
        return _rot_z(theta) @ _shift(z=d), _shift(x=a) @ _rot_x(alpha)
    before = _rot_x(alpha) @ _shift(x=a) @ _rot_z(theta) @ _shift(z=d)
    return before, np.eye(4)


def _tuple3(v) -> tuple[float, float, float]:
    return tuple(float(x) for x in v)  # type: ignore[return-value]


@dataclass(frozen=True, eq=False)
class ArmModel:
    """Per joint i: placement X_i (rotation ``E[i]``, offset ``r[i]``) from the previous joint frame,
    and the lumped body in joint frame i (mass, COM, inertia about the COM); plain floats.

    ``after[i]`` (4 x 4) places DH frame i in joint frame i; ``gravity`` is in the base frame.
    """

    n: int
    revolute: tuple[bool, ...]
    E: tuple[tuple[tuple[float, ...], ...], ...]
    r: tuple[tuple[float, float, float], ...]
    mass: tuple[float, ...]
    com: tuple[tuple[float, float, float], ...]
    inertia: tuple[tuple[tuple[float, ...], ...], ...]
    gravity: tuple[float, float, float]
    after: tuple[np.ndarray, ...]

    @classmethod
    def from_arm(cls, arm: NumericArm) -> ArmModel:
        return cls(**placements(arm))


def placements(arm: NumericArm, parent=None, pre=None) -> dict:
    """The fields of an :class:`ArmModel`: each joint placed from its predecessor's joint frame, the
    link before (``parent`` None) or ``parent[i]`` (0-based, -1 the base) after Khalil-Kleinfinger's
    ``pre[i]`` = Rz(gamma) Tz(b) (a tree, :mod:`designer.numeric.tree_algorithms`)."""
    bodies = lumped_bodies(arm)
    E, r, mass, com, inertia, after = [], [], [], [], [], []  # type: ignore[var-annotated]
    for i in range(arm.n):
        before, aft = _split(arm, i)
        p = i - 1 if parent is None else parent[i]
        X = np.eye(4) if p < 0 else after[p]
        X = (X if pre is None else X @ pre[i]) @ before
        E.append(tuple(_tuple3(row) for row in X[:3, :3]))
        r.append(_tuple3(X[:3, 3]))
        R, o = aft[:3, :3], aft[:3, 3]
        mass.append(float(bodies.mass[i]))
        com.append(_tuple3(R @ bodies.com[i] + o))
        inertia.append(tuple(_tuple3(row) for row in R @ bodies.inertia[i] @ R.T))
        after.append(aft)
    return dict(n=arm.n, revolute=tuple(bool(x) for x in arm.revolute), E=tuple(E), r=tuple(r),
                mass=tuple(mass), com=tuple(com), inertia=tuple(inertia),
                gravity=_tuple3(arm.gravity), after=tuple(after))


@dataclass(frozen=True)
class LumpedBodies:
    """Per link: total mass, COM (link frame) and inertia about that COM (link-frame axes)."""

    mass: np.ndarray     # (n,)
    com: np.ndarray      # (n, 3)
    inertia: np.ndarray  # (n, 3, 3)


def _point_inertia(mass: float, r: np.ndarray) -> np.ndarray:
    """Inertia of a point mass at offset r about the origin: m (|r|^2 E - r r^T)."""
    return mass * (np.dot(r, r) * np.eye(3) - np.outer(r, r))


def lumped_bodies(arm: NumericArm) -> LumpedBodies:
    """Each link with the point masses it carries, as one rigid body."""
    mass = np.array(arm.mass, dtype=float).copy()
    com = np.array(arm.com, dtype=float).copy()
    inertia = np.array(arm.inertia, dtype=float).copy()
    by_link: dict[int, list[tuple[float, np.ndarray]]] = {}
    for link, m, pos in arm.point_masses:
        by_link.setdefault(int(link), []).append((float(m), np.asarray(pos, dtype=float)))
    for i, loads in by_link.items():
        parts = [(mass[i], com[i])] + loads
        total = sum(m for m, _ in parts)
        if total <= 0.0:
            continue
        c = sum(m * r for m, r in parts) / total
        I = inertia[i] + sum(_point_inertia(m, r - c) for m, r in parts)
        mass[i], com[i], inertia[i] = total, c, I
    return LumpedBodies(mass, com, inertia)


#: arms whose generated code is kept (a few kilobytes each); the least recently used go first
CACHE_SIZE = 32
_cache: OrderedDict[int, tuple[NumericArm, dict]] = OrderedDict()
_lock = threading.Lock()


def cached(arm: NumericArm, key: str, make):
    """``make(arm)``, made once per arm object while it is among the last :data:`CACHE_SIZE` used.

    Keyed by identity: a NumericArm holds arrays, so it cannot be a dict key itself.
    """
    with _lock:
        entry = _cache.get(id(arm))
        if entry is None or entry[0] is not arm:
            entry = (arm, {})
            _cache[id(arm)] = entry
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
        _cache.move_to_end(id(arm))
        store = entry[1]
    if key not in store:
        store[key] = make(arm)
    return store[key]


def arm_model(arm: NumericArm) -> ArmModel:
    """The :class:`ArmModel` of ``arm``, built once per arm object."""
    return cached(arm, "model", ArmModel.from_arm)
