"""Numbers that mean exact angles, and comparisons with a relative tolerance.

A DH table exported by another tool (Corke's toolbox, a URDF importer) holds pi/2 as the double
1.5707963267948966; derived as it stands, cos(alpha) = 6.1e-17 stays in every product as a real
term, the equations grow many times over and code generation slows from seconds to minutes.
:func:`exact_angles` reads every twist and angle offset that equals a multiple of pi/12 to machine
precision as that exact angle before deriving, and says which it changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import sympy as sp

from .manipulator import Manipulator

__all__ = ["ExactAngles", "exact_angle", "exact_angles", "REL_TOL"]

#: relative tolerance of "equal" for numbers that went through floating point (R D R^T, exports)
REL_TOL = 1e-12
#: the grid of exact angles: multiples of pi/12 (15 degrees) cover every twist seen in practice
_STEP = math.pi / 12
#: a double within this many units in the last place of k pi/12 is read as k pi/12
_ULPS = 4


def exact_angle(value: sp.Expr) -> sp.Expr | None:
    """k pi / 12 when ``value`` is a float within a few ulps of it, else None (integers and
    exact values are left alone: 0 and 1 already mean what they say)."""
    if not isinstance(value, sp.Float):
        return None
    x = float(value)
    if x == 0.0 or not math.isfinite(x) or abs(x) > 1e6:   # no exact angle so far out (and x / step could overflow)
        return None
    k = round(x / _STEP)
    if k == 0 or abs(x - k * _STEP) > _ULPS * math.ulp(max(abs(x), _STEP)):
        return None
    return sp.pi * sp.Rational(k, 12)


@dataclass(frozen=True)
class ExactAngles:
    """The model with exact angles, and [(where, value as written, exact angle)] that changed."""

    model: Manipulator
    changed: tuple[tuple[str, float, sp.Expr], ...]

    def notes(self) -> list[str]:
        """'links[2].alpha = 1.5707963267948966 read as pi/2' for each change."""
        return [f"{where} = {value!r} read as {sp.sstr(angle)}" for where, value, angle in self.changed]


@lru_cache(maxsize=64)
def exact_angles(model: Manipulator) -> ExactAngles:
    """The twists (alpha) and angle offsets (theta) of ``model`` that are floats equal to a
    multiple of pi/12 to machine precision, replaced by that exact multiple."""
    links, changed = [], []
    for i, link in enumerate(model.links, start=1):
        updates = {}
        for name in ("alpha", "theta"):
            exact = exact_angle(getattr(link, name))
            if exact is not None:
                updates[name] = exact
                changed.append((f"links[{i}].{name}", float(getattr(link, name)), exact))
        links.append(replace(link, **updates) if updates else link)
    if not changed:
        return ExactAngles(model, ())
    return ExactAngles(replace(model, links=tuple(links)), tuple(changed))
