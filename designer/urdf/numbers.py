"""Turning floats computed from a URDF into the numbers a person would have written.

Angles that equal a multiple of pi/12 to machine precision become that exact multiple
(``pi/2``, not 1.5707963267948966), so the derivation simplifies as for a hand-typed table;
other numbers become the shortest decimal that lies within rounding noise of the float
(0.10915, not 0.10915000000000001), and noise around zero becomes 0.
"""

from __future__ import annotations

import math

import sympy as sp

__all__ = ["ANGLE_TOL", "LENGTH_TOL", "tidy_angle", "tidy_number"]

# a few rounding steps of composed rotations and products (a few units in the last place) stay below these
ANGLE_TOL = 1e-14
LENGTH_TOL = 4e-15


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
