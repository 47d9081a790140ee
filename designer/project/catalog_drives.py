"""A drive naming catalog items (format version 4, docs/catalogs.md): ``"gearbox": "NPT025-MF-5"`` and
``"motor": "SGMSH-10A"`` in a link's drive. The items' figures fill the drive's fields the file leaves out:

- gear ratio N: the gearbox's; rotor inertia Jm: the motor's rotor plus the gearbox's input inertia;
- rated and peak torque at the joint: the smaller of the gearbox's and the motor's times N;
- rated speed at the joint: the smaller of the motor's rated speed and the gearbox's input limit, over N;
- stiffness: the gearbox's torsional stiffness at its rated torque (the secant T/phi(T) of the strain-wave
  curve; a single figure as it is): the high-load figure. ``optimize.sizing.cycle_stiffness`` gives the one at
  the load a cycle puts on it, and the low-load K1.

A figure the file gives stays the file's. Friction is the drive's own (the catalogs hold none). Without a
gearbox a motor drives the joint directly (N = 1).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import replace

from ..catalog import Catalog, CatalogError, Gearbox, Motor, load_catalog
from ..model.extras import CATALOG_DRIVE_KEYS, DRIVE_FIELDS, Drive

__all__ = ["drive_from_items", "resolve_catalog_drives", "names_catalog_items"]


def drive_from_items(drive: Drive, gearbox: Gearbox | None, motor: Motor | None) -> Drive:
    """``drive`` with the fields it leaves out filled from its items (module docstring)."""
    derived: dict[str, float] = {}
    N = gearbox.ratio if gearbox is not None else 1.0
    if gearbox is not None:
        derived.update(gear_ratio=N, rated_torque=gearbox.rated_torque, peak_torque=gearbox.peak_torque)
        if gearbox.stiffness is not None:
            derived["stiffness"] = gearbox.stiffness.secant(gearbox.rated_torque)
        if gearbox.max_input_speed is not None:
            derived["rated_speed"] = gearbox.max_input_speed / N
    if motor is not None:
        derived["motor_inertia"] = motor.rotor_inertia + (gearbox.inertia or 0.0 if gearbox is not None else 0.0)
        derived["rated_torque"] = min(derived.get("rated_torque", math.inf), motor.rated_torque * N)
        derived["peak_torque"] = min(derived.get("peak_torque", math.inf), motor.peak_torque * N)
        derived["rated_speed"] = min(derived.get("rated_speed", math.inf), motor.rated_speed / N)
    fill = {k: v for k, v in derived.items() if getattr(drive, k) is None}
    return replace(drive, **fill, from_catalog=tuple((k, fill[k]) for k in DRIVE_FIELDS if k in fill))  # type: ignore[arg-type]


def names_catalog_items(drive: Drive | None) -> bool:
    return drive is not None and any(getattr(drive, k) is not None for k in CATALOG_DRIVE_KEYS)


def resolve_catalog_drives(drives: list[tuple[str, Drive | None]], source: str | os.PathLike | None,
                           fail: Callable[[str, str], None], catalog: Catalog | None = None) -> list[Drive | None]:
    """Each drive with its items' figures; ``drives`` as (where, drive); a name not in the catalogs (bundled,
    then ``*.catalog.json`` beside the file ``source``) is reported through ``fail(where, message)``."""
    if not any(names_catalog_items(d) for _, d in drives):
        return [d for _, d in drives]
    if catalog is None:
        beside = source if source and os.path.isfile(source) else None
        try:
            catalog = load_catalog(beside)
        except CatalogError as exc:
            fail("catalogs", str(exc))
            return [d for _, d in drives]
    out: list[Drive | None] = []
    for where, d in drives:
        if not names_catalog_items(d):
            out.append(d)
            continue
        assert d is not None
        items: dict[str, object] = {}
        for key, table in (("gearbox", catalog.gearboxes), ("motor", catalog.motors)):
            name = getattr(d, key)
            if name is None:
                continue
            if name in table:
                items[key] = table[name]
            else:
                try:
                    getattr(catalog, key)(name)
                except CatalogError as exc:
                    fail(f"{where}.{key}", str(exc))
        out.append(drive_from_items(d, items.get("gearbox"), items.get("motor")))  # type: ignore[arg-type]
    return out
