"""Mass-distribution helpers: common bodies as (mass, COM, inertia about the COM).

Horn's memo models an arm as a solid cylinder and thin rods; these helpers give
such bodies in a link frame, symbolically or numerically, and :func:`combine`
joins several bodies into one with the parallel-axis theorem.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

import sympy as sp

from .expr import to_expr
from .manipulator import Inertia

__all__ = ["Body", "point_mass", "thin_rod", "solid_cylinder", "box", "combine"]

_AXES = {"x": 0, "y": 1, "z": 2}


@dataclass(frozen=True)
class Body:
    """A rigid body: mass, centre of mass and inertia about the COM (link-frame axes)."""

    mass: sp.Expr
    com: tuple[sp.Expr, sp.Expr, sp.Expr]
    inertia: Inertia


def _v(values) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    out = tuple(to_expr(v) for v in values)
    if len(out) != 3:
        raise ValueError("a point needs three coordinates")
    return out


def point_mass(mass, position=(0, 0, 0)) -> Body:
    """A point mass: no inertia about its own centre."""
    return Body(to_expr(mass), _v(position), Inertia())


def thin_rod(mass, start, end) -> Body:
    """A uniform thin rod from ``start`` to ``end``: I = m L^2 / 12 (1 - u u^T) about its middle."""
    m = to_expr(mass)
    p0, p1 = sp.Matrix(_v(start)), sp.Matrix(_v(end))
    r = p1 - p0
    length2 = (r.T * r)[0]
    # m/12 (L^2 1 - r r^T) is m L^2/12 (1 - u u^T) without dividing by L
    inertia = sp.Rational(1, 12) * m * (length2 * sp.eye(3) - r * r.T)
    com = (p0 + p1) / 2
    return Body(m, tuple(sp.expand(c) for c in com), Inertia.from_matrix(inertia.applyfunc(sp.expand)))


def solid_cylinder(mass, radius, length, axis: str = "z", center=(0, 0, 0)) -> Body:
    """A solid cylinder along ``axis`` centred at ``center``: m r^2/2 about the axis, m(3r^2+h^2)/12 across."""
    m, r, h = to_expr(mass), to_expr(radius), to_expr(length)
    if axis not in _AXES:
        raise ValueError(f"axis must be 'x', 'y' or 'z', not {axis!r}")
    k = _AXES[axis]
    across = m * (3 * r**2 + h**2) / 12
    diag = [across, across, across]
    diag[k] = m * r**2 / 2
    return Body(m, _v(center), Inertia(*diag))


def box(mass, size_x, size_y, size_z, center=(0, 0, 0)) -> Body:
    """A solid box with edges along the link axes: I_xx = m (y^2 + z^2) / 12, ..."""
    m = to_expr(mass)
    x, y, z = to_expr(size_x), to_expr(size_y), to_expr(size_z)
    return Body(m, _v(center), Inertia(m * (y**2 + z**2) / 12, m * (x**2 + z**2) / 12, m * (x**2 + y**2) / 12))


def _shift(inertia: Inertia, mass: sp.Expr, offset: sp.Matrix) -> sp.Matrix:
    """Parallel-axis theorem: the inertia about a point displaced by ``offset`` from the COM."""
    return inertia.matrix() + mass * ((offset.T * offset)[0] * sp.eye(3) - offset * offset.T)


def combine(bodies: Sequence[Body]) -> Body:
    """One body equivalent to ``bodies`` rigidly joined (parallel-axis theorem).

    With symbolic masses the COM is a quotient of sums; a total mass of zero
    gives a massless body at the origin.
    """
    if not bodies:
        return point_mass(0)
    total = sp.Add(*(b.mass for b in bodies))
    if total == 0:
        return Body(sp.Integer(0), (sp.Integer(0),) * 3, Inertia())
    com = sp.Matrix([0, 0, 0])
    for b in bodies:
        com += b.mass * sp.Matrix(b.com)
    com = (com / total).applyfunc(sp.simplify)
    inertia = sp.zeros(3, 3)
    for b in bodies:
        inertia += _shift(b.inertia, b.mass, sp.Matrix(b.com) - com)
    inertia = inertia.applyfunc(lambda e: sp.simplify(sp.expand(e)))
    return Body(total, tuple(com), Inertia.from_matrix(inertia))
