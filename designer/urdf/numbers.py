"""Turning floats computed from a URDF into the numbers a person would have written.

Angles that equal a multiple of pi/12 to machine precision become that exact multiple
(``pi/2``, not 1.5707963267948966), so the derivation simplifies as for a hand-typed table;
other numbers become the shortest decimal that lies within rounding noise of the float
(0.10915, not 0.10915000000000001), and noise around zero becomes 0.
"""

from __future__ import annotations

import math

import sympy as sp

__all__ = ["ANGLE_SNAP", "ANGLE_TOL", "LENGTH_TOL", "snap_angle", "tidy_angle", "tidy_number"]

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


def snap_angle(x: float) -> tuple[sp.Expr, float]:
    """(the angle as :func:`tidy_angle` would write it, but read as k pi/12 when within
    :data:`ANGLE_SNAP` of it; how far that moved it, 0 when not)."""
    x = float(x)
    k = round(x / (math.pi / 12))
    off = x - k * math.pi / 12
    if ANGLE_TOL * max(1.0, abs(x)) < abs(off) <= ANGLE_SNAP:
        k = ((k + 11) % 24) - 11
        return sp.pi * sp.Rational(k, 12), abs(off)
    return tidy_angle(x), 0.0
