"""Checks of a model: every problem at once, each naming its field.

Only what the model's own numbers show (this runs on every project load); the check that needs
M(q) at sample poses is :func:`designer.numeric.checks.check_model`, which the command line's
``validate``/``info`` and the window's Problems panel run.

Errors make a model unusable (negative mass, an inertia that is not positive
semi-definite); warnings flag legal but suspicious input and never block work.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np
import sympy as sp

from .drives import drive_arrays
from .evaluate import NotANumber, real_value
from .expr import is_valid_name
from .manipulator import Manipulator, MissingParameterError

__all__ = ["Severity", "Problem", "validate", "errors", "warnings", "drive_note", "SINGULAR_AT_EVERY_POSE"]

TOL = 1e-9
#: how every warning about a mass matrix singular at every pose begins
SINGULAR_AT_EVERY_POSE = "the mass matrix is singular at every pose"


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
        if link.gamma != 0 or link.b != 0:
            yield from ((f"{w}.{k}", getattr(link, k)) for k in ("gamma", "b"))
        if link.drive is not None:   # a named stiffness or damping (k2): checked at its parameter's value
            yield from ((f"{w}.drive.{k}", v) for k in ("stiffness", "damping")
                        if isinstance(v := getattr(link.drive, k), sp.Basic))
    yield from _loop_fields(model)
    for key in ("base", "tool"):   # a base at x = 1e308 overflowed in fk (numpy's warning, then inf)
        pose = getattr(model, key)
        if pose is not None:
            yield from ((f"{key}.xyz[{j}]", v) for j, v in enumerate(pose.xyz))
            yield from ((f"{key}.rpy[{j}]", v) for j, v in enumerate(pose.rpy))
    yield from ((f"gravity[{k}]", g) for k, g in enumerate(model.gravity))
    for k, pm in enumerate(model.point_masses, start=1):
        yield f"point_masses[{k}].mass", pm.mass
        yield from ((f"point_masses[{k}].position[{j}]", c) for j, c in enumerate(pm.position))


def _loop_fields(model: Manipulator):
    """(where, expression) of the loops' cut-joint frames (closed chains, format version 3)."""
    for k, loop in enumerate(model.loops, start=1):
        for side in ("frame_i", "frame_j"):
            pose = getattr(loop, side)
            yield from ((f"loops[{k}].{side}.xyz[{j}]", v) for j, v in enumerate(pose.xyz))
            yield from ((f"loops[{k}].{side}.rpy[{j}]", v) for j, v in enumerate(pose.rpy))


def _numbers(model: Manipulator, err) -> dict[str, float | None]:
    """{where: value with the default parameter values}, None where a symbol has no value.

    A quantity that is infinite or complex with the defaults (sqrt(L - 2) at L = 1) is an
    error: numeric work could not use the model.
    """
    values = {k: v for k, v in model.parameters if np.isfinite(v)}
    out: dict[str, float | None] = {}
    for where, expr in _fields(model):
        try:
            value = real_value(expr, values)
            if abs(value) > MAX_MAGNITUDE:
                err(where, f"{value:.3g} is too large (at most {MAX_MAGNITUDE:g} in size: the dynamics "
                           "multiply such numbers together, beyond the range of floating point)")
                out[where] = None
            else:
                out[where] = value
        except MissingParameterError:
            out[where] = None
        except NotANumber as exc:
            out[where] = None
            text = str(expr)
            text = text if len(text) <= 60 else text[:57] + "..."
            err(where, f"{exc.reason} with the default parameter values ({text})")
    return out


#: the largest size of a quantity: M, tau and the regressor multiply up to about six of them (m a^2 qd^2),
#: and a length of 1e308 made every command fail on infinities
MAX_MAGNITUDE = 1e50


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
                # the principal moments (not the diagonal: an inertia given in turned axes, as imports
                # write them, can have a plausible diagonal) obey the triangle inequality for a real body
                label = _triangle_broken(mat, eig, TOL * scale)
                if label:
                    warn(f"{where}.inertia", f"breaks the triangle inequality {label} (no real body has it; "
                         "MuJoCo refuses it; some published data sets do)")
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

    from .mechanism import structure_problems
    for where, message in structure_problems(model):
        err(where, message)

    _elastic_drives(model, err, warn, num)
    from .angles import exact_angles
    for where, value, angle in exact_angles(model).changed:
        if num.get(where) is not None:   # a field out of range is an error above, not an angle
            warn(where, f"{value!r} read as {angle} (a multiple of pi/12 to machine precision)")
    if model.is_serial:   # the singular-M checks read the links as one chain
        _singular_mass_matrix(model, num, warn)   # the general case needs M(q): designer.numeric.checks

    missing = model.unvalued_symbols()
    if missing:
        warn("parameters", "no default value for " + ", ".join(missing) +
             " (they stay symbolic; numeric work will ask for them)")
    return out


def _triangle_broken(mat: np.ndarray, eig: np.ndarray, tol: float) -> str:
    """'' when the principal moments obey a + b >= c, else which inequality fails: by the axes'
    names for an inertia given in its principal axes, else by the moments."""
    if eig[0] + eig[1] >= eig[2] - tol:
        return ""
    if not np.any(mat - np.diag(np.diag(mat))):
        d = np.diag(mat)
        for a, b, c, label in ((d[0], d[1], d[2], "Ixx + Iyy >= Izz"), (d[1], d[2], d[0], "Iyy + Izz >= Ixx"),
                               (d[0], d[2], d[1], "Ixx + Izz >= Iyy")):
            if a + b < c - tol:
                return label
    return f"of its principal moments ({eig[0]:.4g} + {eig[1]:.4g} < {eig[2]:.4g})"


def _elastic_drives(model: Manipulator, err, warn, num: dict[str, float | None]) -> None:
    """An elastic joint's stiffness must be a positive finite number, its damping not negative (a named one
    at its parameter's value; without a value it is not checked here); an elastic joint without a motor
    inertia has a massless motor side (the simulation refuses it)."""
    for i, link in enumerate(model.links, start=1):
        drive = link.drive
        if drive is None:
            continue
        where = f"links[{i}].drive"
        k, d = (num.get(f"{where}.{f}") if isinstance(v := getattr(drive, f), sp.Basic) else v
                for f in ("stiffness", "damping"))
        if drive.stiffness is not None and k is None:
            pass   # named, no value yet: the missing parameter is reported as such
        elif k is not None and not (np.isfinite(k) and k > 0):
            err(f"{where}.stiffness", f"must be a positive number (N m/rad), is {k:g}")
        elif drive.stiffness is not None and not link.actuated:   # the elastic commands refuse it (numeric/joints.py)
            warn(f"{where}.stiffness", "a passive joint's stiffness: only actuated joints (the motors' gearboxes) "
                 "can be elastic; the rigid commands leave it out, the elastic ones (modes, --elastic) refuse it")
        elif k is not None and not drive.motor_inertia:
            warn(f"{where}.stiffness", "elastic joint without motor_inertia: its natural frequencies with "
                 "locked motors are defined, the elastic simulation needs the rotor inertia")
        if d is not None and not (np.isfinite(d) and d >= 0):
            err(f"{where}.damping", f"must be a number >= 0 (N m s/rad), is {d:g}")
        elif d is not None and drive.stiffness is None:
            warn(f"{where}.damping", "damping without stiffness: the joint stays rigid and the damping is not used")


def _singular_mass_matrix(model: Manipulator, num: dict, warn) -> None:
    """Warn when M(q) is singular at every pose: a joint that moves no mass, or a last moving
    link whose mass lies on its joint axis with no inertia about it (Corke's UR5 with a point
    mass on the last axis)."""
    n = model.n
    bodies: list[list] = [[] for _ in range(n)]  # (mass, com, inertia 3x3) in link frame i
    for i in range(n):
        w = f"links[{i + 1}]"
        vals = [num.get(f"{w}.mass")] + [num.get(f"{w}.com[{k}]") for k in range(3)] + \
            [num.get(f"{w}.inertia.{k}") for k in ("xx", "xy", "xz", "xy", "yy", "yz", "xz", "yz", "zz")]
        if any(v is None for v in vals):
            return  # symbolic: nothing to say
        bodies[i].append((vals[0], np.array(vals[1:4]), np.array(vals[4:]).reshape(3, 3)))
    for k, pm in enumerate(model.point_masses, start=1):
        vals = [num.get(f"point_masses[{k}].mass")] + [num.get(f"point_masses[{k}].position[{j}]") for j in range(3)]
        if any(v is None for v in vals) or not 1 <= pm.link <= n:
            return
        bodies[pm.link - 1].append((vals[0], np.array(vals[1:]), np.zeros((3, 3))))
    total = sum(m for b in bodies for m, _, _ in b)
    if total <= 0:
        return
    last = max((i for i in range(n) if any(m > 0 or np.any(I != 0) for m, _, I in bodies[i])), default=-1)
    for j in range(last + 1, n):
        warn(f"links[{j + 1}]", SINGULAR_AT_EVERY_POSE + ": joint "
             f"{j + 1} moves no mass" + drive_note(model, [j]))
    if last < 0 or not model.links[last].is_revolute:
        return
    alpha = num.get(f"links[{last + 1}].alpha")
    a = num.get(f"links[{last + 1}].a")
    if alpha is None or a is None:
        return
    if model.convention.value == "standard":  # joint axis z_{i-1} seen from frame i
        u, p = np.array([0.0, np.sin(alpha), np.cos(alpha)]), np.array([-a, 0.0, 0.0])
    else:
        u, p = np.array([0.0, 0.0, 1.0]), np.zeros(3)
    about = sum(u @ I @ u + m * float(np.sum(np.cross(c - p, u) ** 2)) for m, c, I in bodies[last])
    reach = max(1.0, float(np.max(np.abs([c for _, c, _ in bodies[last]]))))
    scale = max(sum(m for m, _, _ in bodies[last]), 1e-300) * reach**2
    if about <= 1e-12 * scale:
        warn(f"links[{last + 1}]", SINGULAR_AT_EVERY_POSE + ": the mass of link "
             f"{last + 1} lies on its joint axis and has no inertia about it" + drive_note(model, [last]))


def drive_note(model: Manipulator, joints: list[int]) -> str:
    """The end of a singular-M warning: what it means for metrics, and whether the drive terms
    (``--drives``: the reflected motor inertia N^2 Jm on M's diagonal) make M regular after all."""
    reflected = drive_arrays(model)[0]
    if joints and all(reflected[j] > 0 for j in joints):
        names = ("joint " if len(joints) == 1 else "joints ") + ", ".join(str(j + 1) for j in joints)
        return (f" (for the links alone: with the drive terms, --drives, the motor inertia N^2 Jm of {names} "
                "makes it regular; metrics without them that need M^-1 will say 'singular')")
    return " (metrics that need M^-1 will say 'singular')"



def errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity is Severity.ERROR]


def warnings(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity is Severity.WARNING]
