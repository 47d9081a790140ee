"""Standard inertial parameters: the ten numbers per link that the dynamics are linear in.

Per link j (Khalil and Kleinfinger; Atkeson, An and Hollerbach), in link frame j, about its origin:

    m, mx, my, mz, XX, XY, XZ, YY, YZ, ZZ

with (mx, my, mz) = m c the first moment and J = [[XX, XY, XZ], [XY, YY, YZ], [XZ, YZ, ZZ]] the
inertia tensor about the origin of frame j (tensor entries: XY = -sum m x y, as in project files).
The point masses a link carries are part of its parameters. The same formulas serve sympy
expressions and floats, so one code path gives the symbolic grouping and the numeric checks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import sympy as sp

from ..kinematics import NumericArm
from ..model.manipulator import Convention, Manipulator

__all__ = ["PARAMETER_KINDS", "parameter_names", "standard_parameters", "link_parameters", "move_parameters", "split",
           "join", "joint_frame_offsets", "joint_frame_parameters", "standard_parameter_values", "DRIVE_KINDS",
           "drive_slots", "drive_parameter_values"]

PARAMETER_KINDS = ("m", "mx", "my", "mz", "XX", "XY", "XZ", "YY", "YZ", "ZZ")
_INDEX = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]


def parameter_names(n: int) -> list[str]:
    """``m1, mx1, ..., ZZ1, m2, ...``: the names of the 10 n standard parameters."""
    return [f"{kind}{j}" for j in range(1, n + 1) for kind in PARAMETER_KINDS]


def split(pi: Sequence) -> tuple[object, list, list]:
    """(m, MS (3), J (3x3 nested)) from one link's ten parameters."""
    m, mx, my, mz, xx, xy, xz, yy, yz, zz = pi
    return m, [mx, my, mz], [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]


def join(m, ms, J) -> list:
    """The ten parameters of (m, MS, J)."""
    return [m, *ms, *(J[r][c] for r, c in _INDEX)]


def _body(mass, c, I) -> list:
    """The ten parameters of a body with mass, COM c and inertia I about the COM (nested or None)."""
    ms = [mass * x for x in c]
    cc = sum(x * x for x in c)
    J = [[(I[r][k] if I is not None else 0) + mass * ((cc if r == k else 0) - c[r] * c[k]) for k in range(3)]
         for r in range(3)]
    return join(mass, ms, J)


def link_parameters(link) -> list:
    """The ten standard parameters of one link's own body (m, m c, inertia about the link frame's origin) as
    expressions in the model's symbols, unexpanded; its loads not included."""
    I = link.inertia.matrix()
    return _body(link.mass, list(link.com), [[I[r, k] for k in range(3)] for r in range(3)])


def standard_parameters(model: Manipulator) -> list[sp.Expr]:
    """The 10 n standard parameters of ``model`` as expressions in its symbols (loads included)."""
    out: list[sp.Expr] = []
    for j, link in enumerate(model.links):
        total = link_parameters(link)
        for p in model.point_masses_on(j + 1):
            total = [a + b for a, b in zip(total, _body(p.mass, list(p.position), None))]
        out += [sp.expand(x) for x in total]
    return out


def move_parameters(pi: Sequence, R, p) -> list:
    """The parameters of a body given in frame B, expressed in frame A, where R (nested 3x3) turns
    B axes into A axes and p is the origin of B in A. Linear in ``pi``; works on sympy and floats.

    MS' = R MS + m p;  J' = R J R^T + (2 p.s + m |p|^2) 1 - s p^T - p s^T - m p p^T  with s = R MS.
    """
    m, ms, J = split(pi)
    s = [sum(R[r][k] * ms[k] for k in range(3)) for r in range(3)]
    ms2 = [s[r] + m * p[r] for r in range(3)]
    RJ = [[sum(R[r][k] * J[k][c] for k in range(3)) for c in range(3)] for r in range(3)]
    RJR = [[sum(RJ[r][k] * R[c][k] for k in range(3)) for c in range(3)] for r in range(3)]
    sp_ = sum(p[k] * s[k] for k in range(3))
    pp = sum(x * x for x in p)
    J2 = [[RJR[r][c] + ((2 * sp_ + m * pp) if r == c else 0) - s[r] * p[c] - p[r] * s[c] - m * p[r] * p[c]
           for c in range(3)] for r in range(3)]
    return join(m, ms2, J2)


def _rotx(alpha) -> list:
    ca, sa = sp.cos(alpha), sp.sin(alpha)
    return [[1, 0, 0], [0, ca, -sa], [0, sa, ca]]


def joint_frame_offsets(model: Manipulator) -> list[tuple[list, list]]:
    """Per link, (R, p) taking link-frame quantities to joint frame j'."""
    if model.convention is Convention.MODIFIED:
        return [([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0]) for _ in model.links]
    return [(_rotx(link.alpha), [link.a, 0, 0]) for link in model.links]


def joint_frame_parameters(model: Manipulator, standard: list) -> list[list]:
    """The ten parameters of each link in its joint frame, from the 10 n link-frame ones."""
    return [move_parameters(standard[10 * j:10 * j + 10], R, p)
            for j, (R, p) in enumerate(joint_frame_offsets(model))]


def standard_parameter_values(arm: NumericArm) -> np.ndarray:
    """The 10 n standard parameters of ``arm`` (point loads included), in
    :data:`~designer.dynamics.inertial.PARAMETER_KINDS` order per link."""
    out = np.zeros((arm.n, len(PARAMETER_KINDS)))

    def add(j: int, mass: float, c: np.ndarray, I: np.ndarray) -> None:
        c = np.asarray(c, dtype=float)
        J = I + mass * (c @ c * np.eye(3) - np.outer(c, c))
        out[j] += [mass, *(mass * c), J[0, 0], J[0, 1], J[0, 2], J[1, 1], J[1, 2], J[2, 2]]

    for j in range(arm.n):
        add(j, float(arm.mass[j]), arm.com[j], np.asarray(arm.inertia[j], dtype=float))
    for j, mass, pos in arm.point_masses:
        add(int(j), float(mass), pos, np.zeros((3, 3)))
    return out.ravel()


DRIVE_KINDS = ("Ia", "fv", "fc")  # reflected rotor inertia N^2 Jm, viscous and Coulomb friction


def drive_slots(model) -> list[tuple[int, str]]:
    """(joint 0-based, kind) of the drive parameters: three for every joint with drive data."""
    return [(j, kind) for j, link in enumerate(model.links) if link.drive is not None for kind in DRIVE_KINDS]


def drive_parameter_values(model) -> np.ndarray:
    """The drive parameters in :func:`drive_slots` order (0 where the project gives none)."""
    out = []
    for j, kind in drive_slots(model):
        d = model.links[j].drive
        out.append({"Ia": d.reflected_inertia, "fv": d.viscous or 0.0, "fc": d.coulomb or 0.0}[kind])
    return np.array(out, dtype=float)
