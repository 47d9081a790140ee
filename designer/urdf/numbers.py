"""Turning floats computed from a URDF into the numbers a person would have written.

Angles that equal a multiple of pi/12 to machine precision become that exact multiple
(``pi/2``, not 1.5707963267948966), so the derivation simplifies as for a hand-typed table;
other numbers become the shortest decimal that lies within rounding noise of the float
(0.10915, not 0.10915000000000001), and noise around zero becomes 0.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import sympy as sp

__all__ = ["ANGLE_SNAP", "ANGLE_TOL", "LENGTH_TOL", "snap_direction", "snap_rotation", "snap_value",
           "tidy_angle", "tidy_number"]

# a few rounding steps of composed rotations and products (a few units in the last place) stay below these
ANGLE_TOL = 1e-14
LENGTH_TOL = 4e-15
#: an angle this close (radians) to a multiple of pi/12 in an imported file is read as that multiple,
#: and the import report says so: files write pi/2 as 1.5708 (3.7e-6 off), 1.570796 (3.3e-7 off) or
#: 1.57079632679 (4.9e-12 off, which left theta = 3.1415926535849 and a closed form of 380,000 terms)
ANGLE_SNAP = 1e-5


def tidy_number(x: float, scale: float = 1.0) -> sp.Expr:
    """``x`` as the shortest decimal within ``LENGTH_TOL * max(scale, |x|)`` of it (0 for noise)."""
    x = float(x)
    tol = LENGTH_TOL * max(abs(scale), abs(x))
    if abs(x) <= tol:
        return sp.Integer(0)
    for digits in range(1, 18):
        y = float(f"{x:.{digits}g}")
        if abs(y - x) <= tol:
            if y == int(y) and abs(y) < 1e15:
                return sp.Integer(int(y))
            return sp.Float(y)
    return sp.Float(x)


def tidy_angle(x: float) -> sp.Expr:
    """An angle in (-pi, pi]: an exact multiple of pi/12 when it is one to machine precision."""
    x = float(x)
    k = round(x / (math.pi / 12))
    if abs(x - k * math.pi / 12) <= ANGLE_TOL * max(1.0, abs(x)):
        k = ((k + 11) % 24) - 11  # into (-pi, pi]
        return sp.pi * sp.Rational(k, 12)
    return tidy_number(x)


# ---- angles as a file writes them: snapped where they are read, before anything is computed from them ----

@cache
def _grid_cos_sin(k: int) -> tuple[float, float]:
    """cos and sin of k pi/12, correctly rounded (cos(pi/2) is 0, not 6e-17)."""
    angle = sp.pi * sp.Rational(k % 24, 12)
    return float(sp.cos(angle)), float(sp.sin(angle))


def snap_value(x: float, unit: float = 1.0) -> tuple[float, float]:
    """(an angle as written, in ``unit`` radians: 1, or pi/180 for degrees, read as the multiple of
    pi/12 within :data:`ANGLE_SNAP` of it; how far that moved it in rad, 0 when not moved).
    ``1.5708`` becomes 1.5707963267948966, ``90.00001`` degrees 90."""
    x = float(x)
    k = round(x * unit / (math.pi / 12))
    exact = k * 15.0 if unit != 1.0 else float(sp.pi * sp.Rational(k, 12))
    off = abs(x - exact) * unit
    if ANGLE_TOL * max(1.0, abs(x * unit)) < off <= ANGLE_SNAP:   # below, written in full: left as it is
        return exact, off
    return x, 0.0


def _angle_between(a: np.ndarray, b: np.ndarray) -> float:
    return float(math.atan2(np.linalg.norm(np.cross(a, b)), float(a @ b)))


def snap_direction(v) -> tuple[np.ndarray, float]:
    """(a direction as written, read as the nearest whose angles to a coordinate axis and about it are
    multiples of pi/12 when within :data:`ANGLE_SNAP` of one (unit length then); the angle moved, 0 when
    not). ``0 0.7071 0.7071`` becomes (0, sqrt(2)/2, sqrt(2)/2), ``1e-7 0 1`` the z axis."""
    v = np.asarray(v, dtype=float)
    norm = float(np.linalg.norm(v))
    if not norm > 0 or not np.isfinite(norm):
        return v, 0.0
    d = v / norm
    best, best_off = None, ANGLE_SNAP
    for a in range(3):
        u, w = (a + 1) % 3, (a + 2) % 3
        polar = math.atan2(math.hypot(d[u], d[w]), d[a])
        azimuth = math.atan2(d[w], d[u])
        kp, ka = round(polar / (math.pi / 12)), round(azimuth / (math.pi / 12))
        (cp, sp_), (ca, sa) = _grid_cos_sin(kp), _grid_cos_sin(ka)
        e = np.zeros(3)
        e[a], e[u], e[w] = cp, sp_ * ca, sp_ * sa
        off = _angle_between(d, e)
        if off <= best_off:
            best, best_off = e, off
    if best is None or best_off <= ANGLE_TOL:   # written in full: left as it is
        return v, 0.0
    return best, best_off


_SEQUENCES = ("xyz", "xzy", "yxz", "yzx", "zxy", "zyx", "xyx", "xzx", "yxy", "yzy", "zxz", "zyz")


def _elementary(axis: str, k: int) -> np.ndarray:
    c, s = _grid_cos_sin(k)
    if axis == "x":
        return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def snap_rotation(R) -> tuple[np.ndarray, float]:
    """(a rotation matrix as written, read as the nearest product of three turns by multiples of pi/12
    about coordinate axes when within :data:`ANGLE_SNAP` of one; the angle moved, 0 when not). Every
    Euler sequence is tried, so one far from its gimbal lock finds it (a quaternion 0.5 0.5 -0.5 0.5
    written 0.500001 ...)."""
    import warnings

    from scipy.spatial.transform import Rotation

    R = np.asarray(R, dtype=float)
    rot = Rotation.from_matrix(R)
    best, best_off = None, ANGLE_SNAP
    for seq in _SEQUENCES:
        with warnings.catch_warnings():   # gimbal lock: another sequence finds it
            warnings.simplefilter("ignore")
            angles = rot.as_euler(seq)     # extrinsic: R = R3 R2 R1 for angles (a1, a2, a3)
        ks = [round(a / (math.pi / 12)) for a in angles]
        E = _elementary(seq[2], ks[2]) @ _elementary(seq[1], ks[1]) @ _elementary(seq[0], ks[0])
        # |E - R| (Frobenius) is 2 sqrt(2) sin(angle / 2) for the turn between them
        off = 2.0 * math.asin(min(1.0, float(np.linalg.norm(E - R)) / (2.0 * math.sqrt(2.0))))
        if off <= best_off:
            best, best_off = E, off
    if best is None or best_off <= ANGLE_TOL:   # written in full: left as it is
        return R, 0.0
    return best, best_off
