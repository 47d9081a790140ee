"""The arm's description as the reports show it: DH rows, mass rows, parameters, loads.

Cells are sympy expressions (or None for an empty cell); each format prints
them with its own printer.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..model.manipulator import Convention, Manipulator

__all__ = ["DHRow", "MassRow", "dh_rows", "mass_rows", "dh_headers", "parameter_rows", "inertia_cells"]


@dataclass(frozen=True)
class DHRow:
    """One link's geometry; ``theta`` and ``d`` include the joint variable."""

    index: int
    name: str
    joint: str  # "R" or "P"
    a: sp.Expr
    alpha: sp.Expr
    d: sp.Expr
    theta: sp.Expr


@dataclass(frozen=True)
class MassRow:
    """One link's mass, centre of mass and inertia about it (link frame axes)."""

    index: int
    mass: sp.Expr
    com: tuple[sp.Expr, sp.Expr, sp.Expr]
    inertia: tuple[sp.Expr, ...]  # xx yy zz xy xz yz


def dh_headers(model: Manipulator) -> tuple[str, str]:
    """Names of the a and alpha columns: a_i, alpha_i (standard) or a_{i-1}, alpha_{i-1} (modified)."""
    if model.convention is Convention.MODIFIED:
        return "a_{i-1}", "alpha_{i-1}"
    return "a_i", "alpha_i"


def dh_rows(model: Manipulator) -> list[DHRow]:
    rows = []
    for i, (link, q) in enumerate(zip(model.links, model.q), start=1):
        theta, d = link.joint_values(q)
        rows.append(DHRow(i, link.name, link.joint.value, link.a, link.alpha, d, theta))
    return rows


def mass_rows(model: Manipulator) -> list[MassRow]:
    return [MassRow(i, link.mass, link.com, link.inertia.entries())
            for i, link in enumerate(model.links, start=1)]


def inertia_cells(entries: tuple[sp.Expr, ...]) -> tuple[str, list[sp.Expr]]:
    """How to show an inertia: ("zero", []), ("diag", [xx, yy, zz]) or ("full", all six)."""
    if all(e == 0 for e in entries):
        return "zero", []
    if all(e == 0 for e in entries[3:]):
        return "diag", list(entries[:3])
    return "full", list(entries)


def parameter_rows(model: Manipulator) -> list[tuple[str, float | None]]:
    """Every symbol the model uses with its default value (None when it has none), by name."""
    values = model.parameter_values
    names = sorted(set(model.symbol_names()) | set(values))
    return [(name, values.get(name)) for name in names]
