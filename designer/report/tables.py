"""The arm's description as the reports show it: DH rows, mass rows, parameters, loads.

Cells are sympy expressions (or None for an empty cell); each format prints
them with its own printer.

A model with loops (issue 22) adds its loop quantities (:func:`closed_chain_tables`: a serial arm has none):
its tree and loops, M_a and G_a at the pose, and the forces its cut joints carry, the numbers a designer sizes
a parallelogram's bearings from. The numbers come from the mechanism's dynamics
(:func:`~designer.numeric.mechanism.load_dynamics` and the protocol's extras: M_a = W^T M W, G_a = W^T G, the
cut-joint forces from the loop multipliers); holding still, the cut joints carry what gravity puts through the
loops. Besides the pose's, the report gives each loop's largest holding force over :data:`SAMPLES` poses drawn
within the actuated joints' limits (seed 0, so that two reports of one design agree), and the pose where it
occurs.
Those cells are text, each table (title, header, rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from ..kinematics.closure import ClosureError
from ..model.manipulator import Convention, Manipulator
from ..model.mechanism import parents_of

__all__ = ["DHRow", "MassRow", "dh_rows", "mass_rows", "dh_headers", "parameter_rows", "inertia_cells", "Table",
           "closed_chain_tables", "design_tables", "SAMPLES"]


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

SAMPLES = 512   # holding poses for the largest cut-joint force: ~0.4 s for the palletizer

#: (title, header, rows) of one table
Table = tuple[str, list[str], list[list[str]]]


def _g(v: float) -> str:
    return f"{v if abs(v) > 1e-9 else 0.0:.5g}"   # rounding (1e-13 N of a zero component) shown as 0


def _where(pose) -> str:
    """A cut joint's place on its link: "xyz (..); rpy (..)", the rotation left out when there is none."""
    xyz = "(" + ", ".join(str(v) for v in pose.xyz) + ")"
    if all(v == 0 for v in pose.rpy):
        return xyz
    return f"{xyz}; rpy ({', '.join(str(v) for v in pose.rpy)})"


def _structure(model: Manipulator) -> list[Table]:
    parents = parents_of(model.links)
    # Khalil-Kleinfinger's gamma and b only where a link has them (a branch turned about its parent's z)
    branching = any(link.gamma != 0 or link.b != 0 for link in model.links)
    header = ["link", "name", "mounted on", "joint", "drive"] + (["gamma", "b"] if branching else [])
    links = [[str(i), link.name, "base" if parents[i - 1] == 0 else f"link {parents[i - 1]}",
              link.joint.value, "actuated" if link.actuated else "passive"]
             + ([str(link.gamma), str(link.b)] if branching else [])
             for i, link in enumerate(model.links, start=1)]
    loops = [[lp.label(k), lp.joint.value, f"link {lp.link_i}", _where(lp.frame_i),
              "the base" if lp.link_j == 0 else f"link {lp.link_j}", _where(lp.frame_j)]
             for k, lp in enumerate(model.loops, start=1)]
    return [("Tree: each link and the link it is mounted on", header, links),
            ("Loops: the cut joint closing each, and where it sits on each link (in the link's frame, m, rad)",
             ["loop", "cut joint", "between", "at", "and", "at"], loops)]


def _names(act) -> list[str]:
    return [f"q{j + 1}" for j in act]


def closed_chain_tables(model: Manipulator, pose: Sequence[float] | None = None, samples: int = SAMPLES) -> list[Table]:
    """The loop tables of a mechanism at ``pose`` (every joint's value, as the window's sliders hold it,
    or the actuated joints' only; None: all zero). A model whose loops cannot close gets its tree and
    loops and one line saying why the numbers are missing; a mechanism without loops: none."""
    if not model.loops:
        return []
    from ..numeric.mechanism import load_dynamics
    tables = _structure(model)
    loops = [row[0] for row in tables[-1][2]]   # the loops table's labels
    try:
        cd: Any = load_dynamics(model, springs=False)
        act = list(cd.actuated)
        q = np.zeros(cd.n) if pose is None else np.asarray(pose, float).ravel()
        q_a = q[act] if len(q) == cd.n_tree and len(q) != cd.n else q
        q_tree = cd.positions(q_a)
        at_pose = cd.following(q_tree)
    except (ClosureError, ValueError) as exc:
        return tables + [("Dynamics in the actuated joints", ["note"], [[f"not computed: {exc}"]])]
    names = _names(act)
    at = ", ".join(f"{name} = {v:.4g}" for name, v in zip(names, q_a))
    M, G = at_pose.M(q_a), at_pose.G(q_a)
    tables.append((f"M_a at the pose ({at}; rad, m): W^T M W", [""] + names,
                   [[name] + [_g(v) for v in row] for name, row in zip(names, M)]))
    tables.append(("G_a at the pose: the actuated joints' holding torques or forces (N m, N)",
                   ["joint", "G_a"], [[name, _g(v)] for name, v in zip(names, G)]))
    zero = np.zeros(cd.n)
    held = at_pose.cut_forces(q_a, zero, zero)
    spread = _holding_forces(cd, samples, len(loops))
    rows = []
    for k, name in enumerate(loops):
        f, m = held.force[k], held.moment[k]
        median, peak, where = spread[k]
        at = "—" if where is None else ", ".join(f"{v:.3g}" for v in where)
        rows.append([name, _g(float(np.linalg.norm(f))), ", ".join(_g(v) for v in f), _g(float(np.linalg.norm(m))),
                     _g(median), _g(peak), at])
    tables.append(("Cut-joint forces holding still against gravity (frame 0, on the loop's first link); over "
                   f"{samples} poses within the actuated joints' limits the median and the largest (near a dead "
                   "centre of the loop the force grows without bound)",
                   ["loop", "|f| at the pose (N)", "f (N)", "|moment| (N m)", "median |f| (N)", "largest |f| (N)",
                    f"largest at ({', '.join(names)})"],
                   rows))
    return tables


def _holding_forces(cd, samples: int, loops: int) -> list[tuple[float, float, np.ndarray | None]]:
    """Per loop, (median, largest, pose of the largest) cut-joint force holding still over poses within
    the actuated limits (the limits of the arm the dynamics give: its actuated joints')."""
    limits = np.array(cd.arm.limits, float)
    lo = np.where(np.isfinite(limits[:, 0]), limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(limits[:, 1]), limits[:, 1], np.pi)
    rng = np.random.default_rng(0)
    poses, forces = [], []
    zero = np.zeros(cd.n)
    follow = cd.following()
    for q_a in rng.uniform(lo, hi, (samples, cd.n)):
        try:
            forces.append(np.linalg.norm(follow.cut_forces(q_a, zero, zero).force, axis=1))
            poses.append(q_a)
        except ClosureError:
            follow.last = None
    if not forces:
        return [(float("nan"), float("nan"), None)] * loops
    F = np.array(forces)
    return [(float(np.median(F[:, k])), float(F[:, k].max()), poses[int(F[:, k].argmax())])
            for k in range(F.shape[1])]


# -- what the arm is made of: the design report's links, loads and drives ---------------------------------------
def _number(expr, values) -> str:
    """An expression's value at the parameters' values ("4.095"), or the expression itself where one is missing."""
    from ..model.evaluate import real_value
    try:
        return _g(real_value(expr, values))
    except (ValueError, TypeError, ArithmeticError):
        return sp.sstr(expr)


def _made_of(link, values) -> str:
    """"tube, cast aluminium: outer diameter D2 = 0.09, wall t2 = 0.004 m" for a part; "typed values" else."""
    part = link.part
    if part is None:
        return "typed values"
    dims = getattr(part, "dims", ())
    words = []
    for name, expr in dims:
        value = _number(expr, values)
        shown = sp.sstr(expr)
        words.append(f"{name.replace('_', ' ')} {shown}" + ("" if shown == value else f" = {value}"))
    material = getattr(getattr(part, "material", None), "name", "")
    head = ", ".join(w for w in (getattr(part, "shape", "part").replace("_", " "), material) if w)
    return head + (f": {', '.join(words)} m" if words else "")


def design_tables(model: Manipulator) -> list[Table]:
    """The arm's mass properties and drives as numbers at the parameters' values, the tables a designer hands on
    beside the DH table: each link's mass, COM and inertia (and what it is made of), the loads, the total mass,
    and each joint's drive data and catalog items (the fields :data:`~designer.model.extras.DRIVE_COLUMNS` names).
    A value whose parameters have no value is shown as its expression."""
    from ..model.evaluate import real_value
    from ..model.extras import CATALOG_DRIVE_KEYS, DRIVE_ORDER, drive_column
    values = model.parameter_values
    rows = []
    for i, link in enumerate(model.links, start=1):
        kind, cells = inertia_cells(link.inertia.entries())
        inertia = "0" if kind == "zero" else ", ".join(_number(e, values) for e in cells)
        rows.append([str(i), link.name, _made_of(link, values), _number(link.mass, values),
                     "(" + ", ".join(_number(c, values) for c in link.com) + ")",
                     inertia + {"zero": "", "diag": " (xx, yy, zz)", "full": " (xx, yy, zz, xy, xz, yz)"}[kind]])
    tables: list[Table] = [("Links: mass (kg), centre of mass in the link frame (m), inertia about it (kg m^2)",
                            ["link", "name", "made of", "mass", "COM", "inertia"], rows)]
    if model.point_masses:
        tables.append(("Loads (point masses)", ["link", "mass (kg)", "position in the link frame (m)"],
                       [[str(pm.link), _number(pm.mass, values),
                         "(" + ", ".join(_number(c, values) for c in pm.position) + ")"]
                        for pm in model.point_masses]))
    parts = ([link.mass for link in model.links], [pm.mass for pm in model.point_masses])
    try:
        sums = [sum(real_value(m, values) for m in group) for group in parts]
        cells = [_g(v) for v in (*sums, sum(sums))]
    except (ValueError, TypeError, ArithmeticError):   # a mass without a value: the sums as expressions
        cells = [sp.sstr(sp.Add(*group)) for group in (*parts, parts[0] + parts[1])]
    tables.append(("Total mass (kg)", ["links", "loads", "total"], [cells]))
    drives = [(i, link) for i, link in enumerate(model.links, start=1) if link.drive is not None]
    if drives:
        keys = [k for k in CATALOG_DRIVE_KEYS if any(getattr(link.drive, k, None) for _, link in drives)]
        shown = [f for f in DRIVE_ORDER if any(getattr(link.drive, f) is not None for _, link in drives)]
        kinds = {link.is_revolute for _, link in drives}

        def unit(f: str) -> str:
            """The label with the unit of the drives' joints ("N·m/rad"; "N·m/rad or N/m" for both kinds)."""
            label, rev, pri = drive_column(f)[:3]
            units = list(dict.fromkeys(u for u, kind in ((rev, True), (pri, False)) if kind in kinds and u))
            return f"{label} ({' or '.join(units)})" if units else label
        header = ["joint", *keys, *(unit(f) for f in shown)]
        body = [[str(i), *(str(getattr(link.drive, k, None) or "") for k in keys),
                 *("" if getattr(link.drive, f) is None else _number(getattr(link.drive, f), values) for f in shown)]
                for i, link in drives]
        tables.append(("Drives (joint side unless said; empty: not known)", header, body))
    return tables
