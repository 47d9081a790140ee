"""Checks of a model: every problem at once, each naming its field.

Errors make a model unusable (negative mass, an inertia that is not positive
semi-definite); warnings flag legal but suspicious input and never block work.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from .evaluate import NotANumber, real_value
from .expr import is_valid_name
from .manipulator import Manipulator, MissingParameterError

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


def _fields(model: Manipulator):
    """(where, expression) for every quantity of the model."""
    for i, link in enumerate(model.links, start=1):
        w = f"links[{i}]"
        yield from ((f"{w}.{k}", getattr(link, k)) for k in ("a", "alpha", "d", "theta", "mass"))
        yield from ((f"{w}.com[{k}]", c) for k, c in enumerate(link.com))
        yield from ((f"{w}.inertia.{k}", getattr(link.inertia, k)) for k in ("xx", "yy", "zz", "xy", "xz", "yz"))
        if link.limits is not None:
            yield from ((f"{w}.limits[{k}]", v) for k, v in enumerate(link.limits))
    yield from ((f"gravity[{k}]", g) for k, g in enumerate(model.gravity))
    for k, pm in enumerate(model.point_masses, start=1):
        yield f"point_masses[{k}].mass", pm.mass
        yield from ((f"point_masses[{k}].position[{j}]", c) for j, c in enumerate(pm.position))


def _numbers(model: Manipulator, err) -> dict[str, float | None]:
    """{where: value with the default parameter values}, None where a symbol has no value.

    A quantity that is infinite or complex with the defaults (sqrt(L - 2) at L = 1) is an
    error: numeric work could not use the model.
    """
    values = {k: v for k, v in model.parameters if np.isfinite(v)}
    out: dict[str, float | None] = {}
    for where, expr in _fields(model):
        try:
            out[where] = real_value(expr, values)
        except MissingParameterError:
            out[where] = None
        except NotANumber as exc:
            out[where] = None
            text = str(expr)
            text = text if len(text) <= 60 else text[:57] + "..."
            err(where, f"{exc.reason} with the default parameter values ({text})")
    return out


def validate(model: Manipulator) -> list[Problem]:
    """All problems of ``model``; numeric checks use parameter default values where given."""
    out: list[Problem] = []

    def err(where, msg):
        out.append(Problem(Severity.ERROR, where, msg))

    def warn(where, msg):
        out.append(Problem(Severity.WARNING, where, msg))

    if not model.links:
        err("links", "at least one link is needed")
    for name, value in model.parameters:
        if not is_valid_name(name):
            err(f"parameters.{name}", "not a valid parameter name (letters, digits and _, starting "
                "with a letter; not a function, pi, or a joint variable like q1/qd1/qdd1)")
        if not np.isfinite(value):
            err(f"parameters.{name}", "value is not finite")

    num = _numbers(model, err)
    for i, link in enumerate(model.links, start=1):
        where = f"links[{i}]"
        mass = num[f"{where}.mass"]
        if mass is not None and mass < 0:
            err(f"{where}.mass", f"must be >= 0, is {mass:g}")
        values = [num[f"{where}.inertia.{k}"] for k in ("xx", "xy", "xz", "xy", "yy", "yz", "xz", "yz", "zz")]
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
            lo, hi = num[f"{where}.limits[0]"], num[f"{where}.limits[1]"]
            if lo is not None and hi is not None and lo >= hi:
                err(f"{where}.limits", f"lower limit {lo:g} is not below upper limit {hi:g}")

    for k, pm in enumerate(model.point_masses, start=1):
        where = f"point_masses[{k}]"
        if not 1 <= pm.link <= model.n:
            err(f"{where}.link", f"no link {pm.link} (links are numbered 1 to {model.n})")
        mass = num[f"{where}.mass"]
        if mass is not None and mass < 0:
            err(f"{where}.mass", f"must be >= 0, is {mass:g}")

    missing = model.unvalued_symbols()
    if missing:
        warn("parameters", "no default value for " + ", ".join(missing) +
             " (they stay symbolic; numeric work will ask for them)")
    elif model.links and not any(p.severity is Severity.ERROR for p in out):
        singular = _singular_joint(model)
        if singular is not None:
            warn(f"links[{singular}]", "the mass matrix is singular at every pose tried: nothing resists "
                 f"acceleration of joint {singular} (no inertia about its axis and no mass beyond it?); "
                 "forward dynamics, simulation and metrics that need M^-1 are undefined")
    return out


SINGULAR_RTOL = 1e-12  # smallest eigenvalue of M relative to its largest


def _singular_joint(model: Manipulator, poses: int = 3) -> int | None:
    """The joint (1-based) that M(q) leaves free at every one of a few random poses, or None."""
    from ..kinematics import NumericArm  # numeric layers import the model package: import here
    from ..numeric.recursive import mass_matrix
    try:
        arm = NumericArm.from_model(model)
    except (ValueError, ArithmeticError):
        return None
    rng = np.random.default_rng(0)  # the same poses every time: a warning must not flicker
    joint = None
    for _ in range(poses):
        q = np.where(arm.revolute, rng.uniform(-np.pi, np.pi, arm.n), rng.uniform(-0.5, 0.5, arm.n))
        eig, vec = np.linalg.eigh(mass_matrix(arm, q))
        if not np.all(np.isfinite(eig)) or eig[0] > SINGULAR_RTOL * max(float(np.abs(eig).max()), 1e-300):
            return None
        joint = int(np.argmax(np.abs(vec[:, 0]))) + 1
    return joint


def errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity is Severity.ERROR]


def warnings(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity is Severity.WARNING]
