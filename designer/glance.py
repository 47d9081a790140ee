"""A glance at a project file: the numbers the window's first look draws, read without sympy (issue 29).

The window shows the user's arm before the model's modules (sympy: 0.3-0.5 s to import) have loaded: this
reading gives the arm at its parameters' values as a :class:`~designer.kinematics.numeric.NumericArm` and the
DH table's cells as the file writes them. It shares the file's first reading with the model's
(:mod:`designer.project.source`: its bounds, JSON, format and version) and the expression checker with the
model's parser (:mod:`designer.model.expr_tree`, evaluated to floats here, turned into sympy there).

It reads a serial arm whose links give their mass, centre of mass and inertia (numbers or expressions of the
project's parameters). Anything else - a tree or closed chain, a link made of a part, a file that does not read
cleanly - gives None, and the window opens as it does without a first look: the model's reading says what is
wrong with a file, never this one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import DesignerError
from .kinematics.numeric import NumericArm
from .model.expr_tree import ExpressionError, value_of
from .model.kinds import Convention
from .model.poses import pose_matrix
from .project.source import INERTIA_KEYS, MAX_EXPRESSION_CHARS, MAX_LINKS, MAX_PARAMETERS, read_document

__all__ = ["Glance", "TABLE_COLUMNS", "glance"]

#: the DH table's columns (:data:`designer.gui.dh_table.COLUMNS`), whose cells :attr:`Glance.rows` holds
TABLE_COLUMNS = ("name", "joint", "a", "alpha", "d", "theta", "mass")
#: a link's fields that make it part of a tree or closed chain, or of a part: not read here (None)
_NOT_GLANCED = {"parent", "actuated", "gamma", "b", "part"}


@dataclass(frozen=True)
class Glance:
    """What the first look shows: the project's name, the DH table's cells as the file writes them (one row of
    :data:`TABLE_COLUMNS` a link) and the arm at its parameters' values."""

    name: str
    rows: tuple[tuple[str, ...], ...]
    arm: NumericArm


class _NotShown(Exception):
    """The file is not one the first look reads (or not cleanly): the window opens without it."""


def glance(path: str | os.PathLike) -> Glance | None:
    """The first look of the project file at ``path``, or None (see the module's text). Never raises for what
    a file holds: every file that is not a clean serial arm is None."""
    try:
        data, _version = read_document(path)
        return _read(data)
    except (_NotShown, DesignerError, ValueError, TypeError, ArithmeticError, RecursionError):
        return None


def _read(data: dict) -> Glance:
    links = data.get("links")
    if not isinstance(links, list) or not 1 <= len(links) <= MAX_LINKS or data.get("loops"):
        raise _NotShown
    if not all(isinstance(link, dict) and not (_NOT_GLANCED & set(link)) for link in links):
        raise _NotShown
    convention = data.get("convention", "standard")
    if convention not in ("standard", "modified"):
        raise _NotShown
    numbers = _Numbers({})
    numbers.values = _parameters(numbers, data.get("parameters"))
    rows, revolute, dh, mass, com, inertia, limits = [], [], [], [], [], [], []
    for link in links:
        joint = link.get("joint")
        if joint not in ("R", "P") or "mass" not in link:
            raise _NotShown
        revolute.append(joint == "R")
        dh.append([numbers(link.get(key, 0)) for key in ("a", "alpha", "d", "theta")])
        mass.append(numbers(link["mass"]))
        com.append(numbers.vector(_given(link.get("com"), [0, 0, 0]), 3))
        inertia.append(_inertia(numbers, link.get("inertia")))
        bounds = link.get("limits")
        limits.append([np.nan, np.nan] if bounds is None else numbers.vector(bounds, 2))
        name = _given(link.get("name"), "")
        if not isinstance(name, str):
            raise _NotShown
        rows.append((name, joint, *(_cell(link.get(key, 0)) for key in ("a", "alpha", "d", "theta")),
                     _cell(link["mass"])))
    base, tool = _pose(numbers, data.get("base")), _pose(numbers, data.get("tool"))
    point_masses = []
    for load in data.get("point_masses") or []:
        if not isinstance(load, dict) or not isinstance(load.get("link"), int) or isinstance(load["link"], bool) \
                or not 1 <= load["link"] <= len(links) or "mass" not in load:
            raise _NotShown
        position = numbers.vector(_given(load.get("position"), [0, 0, 0]), 3)
        point_masses.append((load["link"] - 1, numbers(load["mass"]), np.array(position)))
    gravity = np.array(numbers.vector(_given(data.get("gravity"), [0, 0, "-g"]), 3, unvalued_zero=True))
    if data.get("gravity_frame", "base") == "world":   # in frame 0, as the dynamics take it
        gravity = base[:3, :3].T @ gravity
    name = data.get("name", "")
    arm = NumericArm(convention=Convention(convention), revolute=np.array(revolute, dtype=bool),
                     dh=np.array(dh, dtype=float).reshape(-1, 4), mass=np.array(mass, dtype=float),
                     com=np.array(com, dtype=float).reshape(-1, 3), inertia=np.array(inertia, dtype=float),
                     gravity=gravity, limits=np.array(limits, dtype=float).reshape(-1, 2),
                     point_masses=tuple(point_masses), base=base, tool=tool)
    return Glance(name if isinstance(name, str) else "", tuple(rows), arm)


class _Numbers:
    """The file's values as floats, its parameters' values substituted; its expressions' text bounded in all."""

    def __init__(self, values: Mapping[str, float]):
        self.values = values
        self.chars = 0

    def __call__(self, value: Any, unvalued_zero: bool = False) -> float:
        if isinstance(value, str):
            self.chars += len(value)
            if self.chars > MAX_EXPRESSION_CHARS:
                raise _NotShown
        try:
            # a JSON number or a text, as a finite float (value_of refuses any other value and any result that is
            # not a finite real)
            return value_of(value, self.values)
        except ExpressionError:
            if not unvalued_zero:
                raise
        # gravity's own names (g) may lack a value: the arm is drawn without them (display_arm's rule)
        return value_of(value, _Zeros(self.values))

    def vector(self, value: Any, size: int, unvalued_zero: bool = False) -> list[float]:
        if not isinstance(value, list) or len(value) != size:
            raise _NotShown
        return [self(v, unvalued_zero) for v in value]


class _Zeros(dict):
    """The parameters' values, and 0 for any other name."""

    def __missing__(self, key: str) -> float:
        return 0.0


def _parameters(numbers: _Numbers, data: Any) -> dict[str, float]:
    """The parameters' values (numbers: no names), their text counted with the rest of the file's."""
    if data is None:
        return {}
    if not isinstance(data, dict) or len(data) > MAX_PARAMETERS:
        raise _NotShown
    return {name: numbers(value) for name, value in data.items()}


def _inertia(numbers: _Numbers, value: Any) -> list[list[float]]:
    """The 3x3 inertia about the centre of mass (absent: zero), symmetric as the model's."""
    if value is None:
        return [[0.0] * 3 for _ in range(3)]
    if isinstance(value, dict):
        if set(value) - set(INERTIA_KEYS):
            raise _NotShown
        xx, yy, zz, xy, xz, yz = (numbers(value.get(k, 0)) for k in INERTIA_KEYS)
    else:
        if not isinstance(value, list) or len(value) != 3:
            raise _NotShown
        m = [numbers.vector(row, 3) for row in value]
        # the model keeps the mean of a tensor's two products (equal to rounding), as the reader does
        xx, yy, zz = m[0][0], m[1][1], m[2][2]
        xy, xz, yz = ((m[r][c] + m[c][r]) / 2 for r, c in ((0, 1), (0, 2), (1, 2)))
    return [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]


def _pose(numbers: _Numbers, value: Any) -> np.ndarray:
    """A base or tool frame: absent, ``{"xyz": [...], "rpy": [...]}`` or a 4x4 matrix of numbers."""
    if value is None:
        return np.eye(4)
    if isinstance(value, dict):
        if set(value) - {"xyz", "rpy"}:
            raise _NotShown
        xyz, rpy = (numbers.vector(value.get(key, [0, 0, 0]), 3) for key in ("xyz", "rpy"))
        return pose_matrix(xyz, rpy)
    if not isinstance(value, list) or len(value) != 4:
        raise _NotShown
    T = np.array([numbers.vector(row, 4) for row in value], dtype=float)
    if np.abs(T[3] - [0, 0, 0, 1]).max() > 0 or np.abs(T[:3, :3].T @ T[:3, :3] - np.eye(3)).max() > 1e-9:
        raise _NotShown
    return T


def _given(value: Any, default: Any) -> Any:
    """A field's value; ``default`` where the file leaves it out or writes null (the model's reader's rule)."""
    return default if value is None else value


def _cell(value: Any) -> str:
    """A DH table cell as the file writes it: the expression's text, or the number as JSON writes it."""
    return value if isinstance(value, str) else json.dumps(value)
