"""Checks of a model: every problem at once, each naming its field.

Errors make a model unusable (negative mass, an inertia that is not positive
semi-definite); warnings flag legal but suspicious input and never block work.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np
import sympy as sp

from .expr import is_valid_name
from .manipulator import Manipulator

__all__ = ["Severity", "Problem", "validate", "errors", "warnings"]

TOL = 1e-9


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    severity: Severity
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


def _num(expr: sp.Expr, subs: dict) -> float | None:
    """A float when the expression is numeric with the default values, else None."""
    try:
        value = expr.xreplace(subs) if expr.free_symbols else expr
        if value.free_symbols:
            return None
        out = complex(value.evalf())
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return out.real if abs(out.imag) < 1e-12 and np.isfinite(out.real) else None


def validate(model: Manipulator) -> list[Problem]:
    """All problems of ``model``; numeric checks use parameter default values where given."""
    out: list[Problem] = []

    def err(where, msg):
        out.append(Problem(Severity.ERROR, where, msg))

    def warn(where, msg):
        out.append(Problem(Severity.WARNING, where, msg))

    if not model.links:
        err("links", "at least one link is needed")
    subs = model.substitutions(require_all=False)
    for name, value in model.parameters:
        if not is_valid_name(name):
            err(f"parameters.{name}", "not a valid parameter name (letters, digits and _, starting "
                "with a letter; not a function, pi, or a joint variable like q1/qd1/qdd1)")
        if not np.isfinite(value):
            err(f"parameters.{name}", "value is not finite")

    for i, link in enumerate(model.links, start=1):
        where = f"links[{i}]"
        mass = _num(link.mass, subs)
        if mass is not None and mass < 0:
            err(f"{where}.mass", f"must be >= 0, is {mass:g}")
        inertia = link.inertia.matrix()
        values = [_num(e, subs) for e in inertia]
        if all(v is not None for v in values):
            mat = np.array(values, dtype=float).reshape(3, 3)
            eig = np.linalg.eigvalsh(mat)
            scale = max(1.0, float(np.max(np.abs(eig))))
            if eig[0] < -TOL * scale:
                err(f"{where}.inertia", f"not positive semi-definite (smallest eigenvalue {eig[0]:.4g})")
            else:
                d = np.diag(mat)
                # principal moments obey the triangle inequalities for a real body
                for a, b, c, label in ((d[0], d[1], d[2], "Ixx + Iyy >= Izz"),
                                       (d[1], d[2], d[0], "Iyy + Izz >= Ixx"),
                                       (d[0], d[2], d[1], "Ixx + Izz >= Iyy")):
                    if a + b < c - TOL * scale:
                        warn(f"{where}.inertia", f"breaks the triangle inequality {label} "
                             "(no real body has it; some published data sets do)")
                if mass is not None and mass == 0 and np.any(np.abs(mat) > TOL):
                    warn(f"{where}.mass", "massless link with a non-zero inertia")
        if link.limits is not None:
            lo, hi = (_num(v, subs) for v in link.limits)
            if lo is not None and hi is not None and lo >= hi:
                err(f"{where}.limits", f"lower limit {lo:g} is not below upper limit {hi:g}")

    for k, pm in enumerate(model.point_masses, start=1):
        where = f"point_masses[{k}]"
        if not 1 <= pm.link <= model.n:
            err(f"{where}.link", f"no link {pm.link} (links are numbered 1 to {model.n})")
        mass = _num(pm.mass, subs)
        if mass is not None and mass < 0:
            err(f"{where}.mass", f"must be >= 0, is {mass:g}")

    missing = model.unvalued_symbols()
    if missing:
        warn("parameters", "no default value for " + ", ".join(missing) +
             " (they stay symbolic; numeric work will ask for them)")
    return out


def errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity is Severity.ERROR]


def warnings(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity is Severity.WARNING]
