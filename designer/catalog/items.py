"""Catalog items as frozen values in SI units: gearboxes (with the piecewise torsional stiffness strain-wave
makers publish) and servo motors."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from ..errors import UserError

__all__ = ["CatalogError", "StiffnessCurve", "Gearbox", "Motor", "MaterialPrice", "Catalog", "GEARBOX_KINDS"]

GEARBOX_KINDS = ("strain-wave", "cycloidal", "planetary")


class CatalogError(UserError):
    """A catalog file or a name in it that cannot be used; the message says what and where."""


@dataclass(frozen=True)
class StiffnessCurve:
    """Torsional stiffness at the output, piecewise linear in the torque (N m/rad, N m).

    Strain-wave makers publish K1 up to T1, K2 from T1 to T2 and K3 above T2; the torsion angle is
    phi(T) = T/K1 (T <= T1), T1/K1 + (T - T1)/K2 (T <= T2), T1/K1 + (T2 - T1)/K2 + (T - T2)/K3 above,
    odd in T. A single figure (planetary and cycloidal datasheets) is K1 = K2 = K3 with T1 = T2 = 0.
    """

    k1: float
    k2: float
    k3: float
    t1: float = 0.0
    t2: float = 0.0

    @classmethod
    def linear(cls, k: float) -> StiffnessCurve:
        return cls(k, k, k, 0.0, 0.0)

    @property
    def is_linear(self) -> bool:
        return self.k1 == self.k2 == self.k3

    def angle(self, torque):
        """Torsion angle (rad) under ``torque`` (scalar or array), odd in the torque."""
        import numpy as np
        T = np.abs(np.asarray(torque, float))
        a1 = self.t1 / self.k1
        a2 = a1 + (self.t2 - self.t1) / self.k2
        phi = np.where(T <= self.t1, T / self.k1,
                       np.where(T <= self.t2, a1 + (T - self.t1) / self.k2, a2 + (T - self.t2) / self.k3))
        return np.sign(torque) * phi

    def secant(self, torque) -> float:
        """The stiffness T/phi(T) at a load ``torque``: the linear spring that twists as far at that load
        (K1 at zero load; it rises towards K3 as the load grows)."""
        T = abs(float(torque))
        if T <= self.t1 or T == 0.0:
            return self.k1
        return T / float(self.angle(T))


@dataclass(frozen=True)
class Gearbox:
    """A reducer: ``ratio`` input turns per output turn; torques at the output (N m): ``rated`` (continuous),
    ``peak`` (repeated peak, acceleration and deceleration), ``momentary`` (emergency stop); ``stiffness``
    at the output; ``lost_motion`` (rad); ``mass`` (kg); ``inertia`` at the input (kg m^2);
    ``max_input_speed`` (rad/s). None where the datasheet gives no figure."""

    name: str
    kind: str
    ratio: float
    rated_torque: float
    peak_torque: float
    momentary_torque: float | None = None
    stiffness: StiffnessCurve | None = None
    lost_motion: float | None = None
    mass: float | None = None
    inertia: float | None = None
    max_input_speed: float | None = None
    series: str = ""
    source: str = ""
    date: str = ""
    price: float | None = None   # in ``currency`` (a file's price_eur: "EUR"); None: no price given
    currency: str = ""
    printed: tuple[tuple[str, str], ...] = ()   # (a field, the source's printed text of its figure)


@dataclass(frozen=True)
class Motor:
    """A servo motor: torques (N m), speeds (rad/s), ``rotor_inertia`` (kg m^2), ``mass`` (kg), ``voltage``
    class (V). None where the datasheet gives no figure."""

    name: str
    rated_torque: float
    peak_torque: float
    rated_speed: float
    max_speed: float
    rotor_inertia: float
    mass: float | None = None
    voltage: float | None = None
    series: str = ""
    source: str = ""
    date: str = ""
    price: float | None = None
    currency: str = ""
    printed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class MaterialPrice:
    """A material's price per kg (``currency``/kg), by the material's name as a part names it."""

    name: str
    price_per_kg: float
    currency: str
    source: str = ""
    date: str = ""


@dataclass(frozen=True)
class Catalog:
    """Gearboxes and motors by name; ``files`` the files read, in order (a later item replaces an earlier one
    of the same name: a user catalog's)."""

    gearboxes: dict[str, Gearbox] = field(default_factory=dict)
    motors: dict[str, Motor] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    materials: dict[str, MaterialPrice] = field(default_factory=dict)

    def gearbox(self, name: str, where: str = "") -> Gearbox:
        return _lookup(self.gearboxes, name, "gearbox", where)

    def motor(self, name: str, where: str = "") -> Motor:
        return _lookup(self.motors, name, "motor", where)

    def merged(self, other: Catalog) -> Catalog:
        return Catalog({**self.gearboxes, **other.gearboxes}, {**self.motors, **other.motors},
                       self.files + other.files, {**self.materials, **other.materials})


def _lookup(items: dict, name: str, what: str, where: str):
    try:
        return items[name]
    except KeyError:
        def common(k: str) -> int:
            return len(os.path.commonprefix([k.lower(), str(name).lower()]))
        best = max((common(k) for k in items), default=0)
        close = sorted(k for k in items if common(k) == best)[:8] if best >= 3 else []
        hint = f" (similar: {', '.join(close)})" if close else f" ({len(items)} {what}s known: docs/catalogs.md)"
        raise CatalogError(f"{where + ': ' if where else ''}no {what} named '{name}' in the catalogs{hint}") from None


def rpm(value: float) -> float:
    """rad/s of a speed in revolutions per minute."""
    return value * 2 * math.pi / 60


ARCMIN = math.pi / (180 * 60)
