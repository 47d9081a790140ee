"""Optional parts of a model added in project format version 2: base and tool poses, drive data.

A :class:`Pose` is a rigid transform written as a translation and URDF-style roll-pitch-yaw
angles, R = Rz(yaw) Ry(pitch) Rx(roll), so that a pose read from a URDF ``origin`` is kept as
written. A :class:`Drive` holds a joint's motor and gearbox numbers (SI units, joint side unless
said otherwise); every entry is optional.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
import sympy as sp

from .expr import format_expr, to_expr
from .poses import pose_matrix, rpy_matrix

__all__ = ["Drive", "Pose", "DRIVE_FIELDS", "ELASTIC_DRIVE_FIELDS", "CATALOG_DRIVE_KEYS", "DRIVE_COLUMNS",
           "DRIVE_ORDER", "drive_column", "pose_matrix",
           "rpy_from_matrix", "rpy_matrix"]

ZERO = sp.Integer(0)


@dataclass(frozen=True)
class Pose:
    """A rigid transform: translation ``xyz`` then rotation ``rpy`` (URDF ``origin`` semantics)."""

    xyz: tuple[sp.Expr, sp.Expr, sp.Expr] = (ZERO, ZERO, ZERO)
    rpy: tuple[sp.Expr, sp.Expr, sp.Expr] = (ZERO, ZERO, ZERO)

    def __post_init__(self):
        for name in ("xyz", "rpy"):
            items = tuple(to_expr(v) for v in getattr(self, name))
            if len(items) != 3:
                raise ValueError(f"{name}: expected three components")
            object.__setattr__(self, name, items)

    @property
    def is_identity(self) -> bool:
        return all(v == 0 for v in (*self.xyz, *self.rpy))

    def expressions(self):
        yield from self.xyz
        yield from self.rpy

    def map(self, fn) -> Pose:
        return Pose(tuple(fn(v) for v in self.xyz), tuple(fn(v) for v in self.rpy))

    def matrix(self, value=float) -> np.ndarray:
        """The 4x4 transform; ``value`` turns each entry into a float (a model's symbols resolved)."""
        return pose_matrix([value(v) for v in self.xyz], [value(v) for v in self.rpy])

    def sym_matrix(self) -> sp.Matrix:
        """The same transform as a sympy matrix (exact for exact angles)."""
        r, p, y = self.rpy
        Rx = sp.Matrix([[1, 0, 0], [0, sp.cos(r), -sp.sin(r)], [0, sp.sin(r), sp.cos(r)]])
        Ry = sp.Matrix([[sp.cos(p), 0, sp.sin(p)], [0, 1, 0], [-sp.sin(p), 0, sp.cos(p)]])
        Rz = sp.Matrix([[sp.cos(y), -sp.sin(y), 0], [sp.sin(y), sp.cos(y), 0], [0, 0, 1]])
        T = sp.eye(4)
        T[:3, :3] = Rz * Ry * Rx
        T[:3, 3] = sp.Matrix(self.xyz)
        return T


@dataclass(frozen=True)
class Drive:
    """Drive data of one joint; ``None`` where not known.

    Torques are forces for a prismatic joint (N), speeds m/s. ``gear_ratio`` N is motor turns per
    joint turn and ``motor_inertia`` Jm the rotor inertia on the motor side, so the inertia
    reflected to the joint is N^2 Jm. ``viscous`` (N m s/rad) and ``coulomb`` (N m) friction act at
    the joint.

    ``stiffness`` k (N m/rad, N/m for a prismatic joint) and ``damping`` d (N m s/rad) make the joint
    elastic (project format version 3): the gearbox's torsional stiffness at the joint side, the
    catalogue figure, with the spring torque k (theta/N - q) + d (theta'/N - q') between the motor
    angle theta (motor side) and the joint angle q (designer/numeric/elastic.py). These two may be
    named: a sympy expression of parameters (``k2``, ``2*k_gear``), valued by the model's
    ``parameters`` like a link's mass, so that a sweep can vary them; a number is kept as a float.
    ``resolved(values)`` gives the all-float drive that numeric work reads.
    """

    rated_torque: float | None = None
    peak_torque: float | None = None
    rated_speed: float | None = None
    gear_ratio: float | None = None
    motor_inertia: float | None = None
    viscous: float | None = None
    coulomb: float | None = None
    stiffness: float | sp.Expr | None = None
    damping: float | sp.Expr | None = None
    #: catalog items the drive names (format version 4, docs/catalogs.md): the figures they give fill the fields
    #: above that the file leaves out; ``from_catalog`` holds those (field, figure) pairs, and a field still at its
    #: catalog figure is not written back (an edited one is)
    gearbox: str | None = None
    motor: str | None = None
    from_catalog: tuple[tuple[str, float], ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "from_catalog", tuple((str(k), float(v)) for k, v in self.from_catalog))
        for f in fields(self):
            v = getattr(self, f.name)
            if v is None or f.name in _NOT_NUMBERS:
                continue
            if f.name in ELASTIC_DRIVE_FIELDS:
                v = _named_or_float(v)
            else:
                v = float(v)
            object.__setattr__(self, f.name, v)

    # -- named (symbolic) stiffness and damping ------------------------------------------------
    def expressions(self):
        """The sympy expressions among the fields (a named stiffness or damping)."""
        for name in ELASTIC_DRIVE_FIELDS:
            v = getattr(self, name)
            if isinstance(v, sp.Basic):
                yield v

    def map(self, fn) -> Drive:
        """A copy with ``fn`` applied to the named fields (a substitution turns them into floats)."""
        changes = {name: fn(getattr(self, name)) for name in ELASTIC_DRIVE_FIELDS
                   if isinstance(getattr(self, name), sp.Basic)}
        return replace(self, **changes) if changes else self

    @property
    def is_numeric(self) -> bool:
        return not any(True for _ in self.expressions())

    def resolved(self, values) -> Drive:
        """The drive with its named fields valued by ``values`` ({name: float}); KeyError names a
        missing one (the caller turns it into its own error)."""
        if self.is_numeric:
            return self

        def value(e: sp.Expr) -> sp.Expr:
            missing = sorted(s.name for s in e.free_symbols if s.name not in values)
            if missing:
                raise KeyError(", ".join(missing))
            return e.xreplace({s: sp.Float(values[s.name]) for s in e.free_symbols})
        return self.map(value)

    @property
    def catalog_fields(self) -> tuple[str, ...]:
        """The fields still at the figure a catalog item gave them."""
        return tuple(k for k, v in self.from_catalog if getattr(self, k) == v)

    @property
    def is_empty(self) -> bool:
        return all(getattr(self, name) is None for name in (*DRIVE_FIELDS, *CATALOG_DRIVE_KEYS))

    @property
    def reflected_inertia(self) -> float:
        """N^2 Jm, 0 when either is unknown."""
        if self.gear_ratio is None or self.motor_inertia is None:
            return 0.0
        return self.gear_ratio ** 2 * self.motor_inertia

    def as_dict(self) -> dict[str, float | str]:
        """The fields that have a value, JSON-ready: numbers, and a named field's text."""
        given = dict(self.from_catalog)
        out = {name: (format_expr(v) if isinstance(v, sp.Basic) else v)
               for name in DRIVE_FIELDS if (v := getattr(self, name)) is not None and given.get(name) != v}
        out.update({name: v for name in CATALOG_DRIVE_KEYS if (v := getattr(self, name)) is not None})
        return out


#: a drive's keys naming catalog items (format version 4)
CATALOG_DRIVE_KEYS = ("gearbox", "motor")
_NOT_NUMBERS = (*CATALOG_DRIVE_KEYS, "from_catalog")
#: the drive's figures (numbers, or a name for the elastic fields)
DRIVE_FIELDS = tuple(f.name for f in fields(Drive) if f.name not in _NOT_NUMBERS)
#: the drive fields that project format version 3 added (an elastic joint); they may be named
ELASTIC_DRIVE_FIELDS = ("stiffness", "damping")

#: field: (label, unit of a revolute joint, unit of a prismatic joint, zero allowed), in the table's order: the
#: gearbox (ratio, stiffness, damping) and the motor first, what an elastic arm's designer reads, then the ratings
#: and the friction (issue 29 item 10: the stiffness was beyond a horizontal scroll); the
#: window's drive table and the design report read it
DRIVE_COLUMNS: dict[str, tuple[str, str, str, bool]] = {
    "gear_ratio": ("gear ratio", "motor:joint", "motor:joint", False),
    "stiffness": ("torsional stiffness", "N·m/rad", "N/m", False),   # an elastic joint (format version 3)
    "damping": ("torsional damping", "N·m·s/rad", "N·s/m", True),
    "motor_inertia": ("motor inertia", "kg·m², motor side", "kg·m², motor side", True),
    "rated_torque": ("rated torque", "N·m", "N", False),
    "peak_torque": ("peak torque", "N·m", "N", False),
    "rated_speed": ("rated speed", "rad/s", "m/s", False),
    "viscous": ("viscous friction", "N·m·s/rad", "N·s/m", True),
    "coulomb": ("Coulomb friction", "N·m", "N", True),
}


#: the drive's figures in the table's order: those :data:`DRIVE_COLUMNS` names first, in its order, then any other
DRIVE_ORDER = tuple(f for f in DRIVE_COLUMNS if f in DRIVE_FIELDS) + tuple(f for f in DRIVE_FIELDS
                                                                         if f not in DRIVE_COLUMNS)


def drive_column(name: str) -> tuple[str, str, str, bool]:
    """The label and units of a drive field; a field not in :data:`DRIVE_COLUMNS` shows its own name."""
    return DRIVE_COLUMNS.get(name, (name.replace("_", " "), "", "", True))


def _named_or_float(v) -> float | sp.Expr:
    """A float for a number (``"1e4"``, ``sympy.Float``), the expression for text or sympy with names."""
    if isinstance(v, (str, sp.Basic)):
        e = to_expr(v)
        if e.free_symbols:
            return e
        return float(e)
    return float(v)


def rpy_from_matrix(R: np.ndarray) -> tuple[float, float, float]:
    """Roll, pitch, yaw with R = Rz(yaw) Ry(pitch) Rx(roll); at pitch = +-pi/2 roll is taken 0."""
    R = np.asarray(R, dtype=float)
    cp = float(np.hypot(R[0, 0], R[1, 0]))
    pitch = float(np.arctan2(-R[2, 0], cp))
    if cp > 1e-12:
        return float(np.arctan2(R[2, 1], R[2, 2])), pitch, float(np.arctan2(R[1, 0], R[0, 0]))
    # gimbal lock: only yaw - roll (or yaw + roll) is defined
    return 0.0, pitch, float(np.arctan2(-R[0, 1], R[1, 1]))
