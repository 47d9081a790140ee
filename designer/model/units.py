"""The SI unit of each parameter, read from where the model uses it (no Qt: the GUI and reports use it)."""

from __future__ import annotations

from collections.abc import Iterable

import sympy as sp

from .manipulator import Manipulator

__all__ = ["parameter_units", "mass_length", "inertial_unit", "with_unit", "LENGTH", "MASS", "INERTIA",
           "ANGLE", "ACCELERATION", "ELASTIC_DRIVE_UNITS"]

LENGTH, MASS, INERTIA, ANGLE, ACCELERATION = "m", "kg", "kg m²", "rad", "m/s²"


def _linear_symbols(expr, scaled: bool = True) -> list[sp.Symbol]:
    """The symbols of ``expr`` when it is a sum of number * symbol terms (``L1``, ``d1 - L1/2``);
    [] for anything else (``m1*L1**2/12`` tells nothing certain about L1's unit). ``scaled`` False: only
    terms of coefficient 1 or -1 count (an inertia ``m1*0.3**2/2`` is a mass times a length squared)."""
    expr = sp.sympify(expr)
    out = []
    for term in sp.Add.make_args(expr):
        coeff, rest = term.as_coeff_Mul()
        if rest.is_Symbol:
            if scaled or abs(coeff) == 1:
                out.append(rest)
        elif not (rest == 1 and coeff.is_Number):
            return []
    return out


def parameter_units(model: Manipulator) -> dict[str, str]:
    """Symbol name -> SI unit, for every symbol whose unit its use makes certain; a symbol used in
    roles of different units (or only inside products) is left out."""
    found: dict[str, set[str]] = {}

    def note(exprs: Iterable, unit: str, scaled: bool = True) -> None:
        for e in exprs:
            for s in _linear_symbols(e, scaled):
                found.setdefault(s.name, set()).add(unit)

    def note_pose(pose) -> None:
        if pose is None:
            return
        note(pose.xyz, LENGTH)
        note(pose.rpy, ANGLE)

    for link in model.links:
        note((link.a, link.d, link.b), LENGTH)
        note((link.alpha, link.theta, link.gamma), ANGLE)
        note((link.mass,), MASS)
        note(link.com, LENGTH)
        inertia = link.inertia
        note((inertia.xx, inertia.yy, inertia.zz, inertia.xy, inertia.xz, inertia.yz), INERTIA, scaled=False)
        if link.limits is not None:
            note(link.limits, ANGLE if link.is_revolute else LENGTH)
        if link.part is not None:   # a section's dimensions (a tube's diameter and wall) and its segment's ends
            note(link.part.expressions(), LENGTH)
    for pm in model.point_masses:
        note((pm.mass,), MASS)
        note(pm.position, LENGTH)
    note(model.gravity, ACCELERATION)
    for pose in (model.base, model.tool):
        note_pose(pose)
    for loop in model.loops:   # a closed chain's cut joint on its two links (the four-bar's ground length L0)
        note_pose(loop.frame_i)
        note_pose(loop.frame_j)
    for link in model.links:   # a named gearbox stiffness or damping (k2)
        if link.drive is not None:
            for name, (_, revolute, prismatic) in ELASTIC_DRIVE_UNITS.items():
                v = getattr(link.drive, name)
                if isinstance(v, sp.Basic):
                    note((v,), revolute if link.is_revolute else prismatic)
    # an inertia that is a mass times a quadratic form in other symbols (m2*(L2**2 + w**2)/12): those are lengths
    masses = {name for name, units in found.items() if units == {MASS}}
    for link in model.links:
        inertia = link.inertia
        for e in (inertia.xx, inertia.yy, inertia.zz, inertia.xy, inertia.xz, inertia.yz):
            for name in _lengths_in_inertia(e, masses):
                found.setdefault(name, set()).add(LENGTH)
    return {name: units.pop() for name, units in found.items() if len(units) == 1}


def _lengths_in_inertia(expr, masses: set[str]) -> list[str]:
    """The symbols of ``expr`` that are lengths because ``expr`` (an inertia, kg m²) is a product of one
    mass symbol (of ``masses``) and a homogeneous quadratic polynomial in the others in which each appears
    squared; [] for any other shape."""
    expr = sp.sympify(expr)
    if not isinstance(expr, sp.Expr):
        return []
    for m in (s for s in expr.free_symbols if s.name in masses):
        rest = sp.cancel(expr / m)
        others = sorted(rest.free_symbols, key=lambda s: s.name)
        if not others or m in rest.free_symbols:
            continue
        try:
            poly = sp.Poly(rest, *others)
        except sp.PolynomialError:
            continue
        squares = {others[i] for monomial in poly.monoms() for i, k in enumerate(monomial) if k == 2}
        if poly.is_homogeneous and poly.total_degree() == 2 and squares == set(others):
            return [s.name for s in others]
    return []


def mass_length(power: int) -> str:
    """kg times metres to ``power``: ``kg``, ``kg m``, ``kg m²``, ``kg/m``."""
    if power == 0:
        return "kg"
    if power < 0:
        return "kg/m" if power == -1 else f"kg/m{_SUPER.get(-power, f'^{-power}')}"
    return "kg m" if power == 1 else f"kg m{_SUPER.get(power, f'^{power}')}"


_SUPER = {2: "²", 3: "³"}


def inertial_unit(torque_revolute: bool, *rates_revolute: bool) -> str:
    """Unit of a coefficient that turns accelerations or products of rates of joints
    (``rates_revolute``, one or two) into the torque or force of a joint (``torque_revolute``):
    M_ij (one rate), B_k,ij and C_kj (two). A torque is kg m² s⁻², a force kg m s⁻², a revolute
    rate s⁻¹ and a prismatic one m s⁻¹: kg m^(1 + [k revolute] - [prismatic rates])."""
    return mass_length(1 + int(torque_revolute) - sum(not r for r in rates_revolute))


def with_unit(label: str, unit: str) -> str:
    """``label (unit)``; dimensionless quantities read ``(1)``; no unit known: the label alone."""
    return f"{label} ({unit})" if unit else label


#: label and SI unit of the elastic-joint drive fields (project format version 3), revolute joint / prismatic
#: joint; for the window's drive editor and reports beside the other drive fields' rows
ELASTIC_DRIVE_UNITS = {
    "stiffness": ("torsional stiffness k", "N m/rad", "N/m"),
    "damping": ("joint damping d", "N m s/rad", "N s/m"),
}
