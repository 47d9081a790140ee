"""What springs a mechanism's joints have: per joint a stiffness (inf: rigid), damping, gear ratio and rotor
inertia, read from a project's drive data. Data only; the elastic-joint dynamics over it is
:mod:`designer.numeric.elastic`, and the modes, compliance and the links' bending read it too."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import DesignerError
from ..model.drives import elastic_links, numeric_drives, passive_stiffness
from ..model.manipulator import Manipulator, MissingParameterError

__all__ = ["ElasticJoints", "ElasticModelError", "elastic_joints"]


class ElasticModelError(DesignerError, ValueError):
    """Drive data that cannot make an elastic-joint model (no elastic joint, a massless motor side)."""


def _per_joint(v, n: int, default: float) -> np.ndarray:
    if v is None:
        return np.full(n, default)
    try:
        return np.broadcast_to(np.asarray(v, dtype=float), (n,)).copy()
    except ValueError:
        raise ElasticModelError(f"drive data: expected one value or {n}, got {np.shape(v)}") from None


@dataclass(frozen=True, eq=False)
class ElasticJoints:
    """Per joint: stiffness k (inf: rigid), damping d, gear ratio N (1 where not given), rotor inertia Jm."""

    stiffness: np.ndarray
    damping: np.ndarray
    gear: np.ndarray
    rotor: np.ndarray

    @classmethod
    def of(cls, n: int, stiffness=None, damping=None, gear=None, rotor=None) -> ElasticJoints:
        k = _per_joint(stiffness, n, math.inf)
        k = np.where(np.isnan(k), math.inf, k)
        out = cls(k, _per_joint(damping, n, 0.0), _per_joint(gear, n, 1.0), _per_joint(rotor, n, 0.0))
        bad = [i + 1 for i in range(n) if not k[i] > 0]
        if bad:
            raise ElasticModelError(f"stiffness of joint(s) {', '.join(map(str, bad))}: must be positive")
        if np.any(out.gear == 0) or not np.all(np.isfinite(out.gear)):
            raise ElasticModelError("gear ratio: must be a finite non-zero number for every joint")
        if np.any(out.rotor < 0) or np.any(out.damping < 0):
            raise ElasticModelError("rotor inertia and damping: must not be negative")
        return out

    @property
    def n(self) -> int:
        return len(self.stiffness)

    @cached_property
    def elastic(self) -> np.ndarray:
        """Indices (m,) of the elastic joints."""
        return np.flatnonzero(np.isfinite(self.stiffness))

    @cached_property
    def rigid(self) -> np.ndarray:
        return np.flatnonzero(~np.isfinite(self.stiffness))

    @property
    def m(self) -> int:
        return len(self.elastic)

    @cached_property
    def reflected(self) -> np.ndarray:
        """(n,) N^2 Jm of the rigid joints (added to M), 0 at the elastic ones (their motors are apart)."""
        out = self.gear ** 2 * self.rotor
        out[self.elastic] = 0.0
        return out

    def stiffened(self, factor: float) -> ElasticJoints:
        """The same joints with every stiffness and damping times ``factor`` (K -> infinity studies)."""
        with np.errstate(invalid="ignore"):   # 0 * inf: no damping, not NaN
            damping = np.where(self.damping == 0, 0.0, self.damping * factor)
        return ElasticJoints(self.stiffness * factor, damping, self.gear, self.rotor)


def elastic_joints(model: Manipulator) -> ElasticJoints:
    """The elastic joints of a project's drive data (a joint without stiffness is rigid; a named stiffness
    at its parameter's value). A closed chain's: its actuated joints, in their order (a passive joint with a
    stiffness is refused naming it)."""
    passive = passive_stiffness(model)
    if passive:
        raise ElasticModelError(f"passive joint(s) {', '.join(map(str, passive))} of the closed chain have a drive "
                                "stiffness; only the actuated joints (the motors' gearboxes) can be elastic")
    try:
        every = numeric_drives(model)
    except MissingParameterError as exc:   # a named stiffness (k2) without its value
        raise ElasticModelError(f"drive data: {exc}") from None
    drives = [every[i] for i in elastic_links(model)]

    def values(name: str):
        return [None if d is None else getattr(d, name) for d in drives]

    def arr(name: str, default: float):
        return np.array([default if v is None else v for v in values(name)], dtype=float)
    return ElasticJoints.of(len(drives), arr("stiffness", math.inf), arr("damping", 0.0), arr("gear_ratio", 1.0),
                            arr("motor_inertia", 0.0))
