"""The version-3 ``visual`` fields of a project file (docs/project-format.md, "Visual meshes").

A relative ``mesh`` is relative to the project file's folder: :func:`absolute_meshes` turns it absolute on
loading, :func:`relative_meshes` writes a mesh in the project's folder (or below) relative again on saving,
so a project moved with its meshes still finds them. Nothing is loaded here: a missing mesh is the 3D
view's warning, not a reason to refuse the project."""

from __future__ import annotations

import math
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..model.manipulator import Manipulator
from ..model.visual import Visual

__all__ = ["MAX_VISUALS", "VISUAL_KEYS", "absolute_meshes", "read_visuals", "relative_meshes", "uses_visuals",
           "visuals_json"]

MAX_VISUALS = 64   # per link; the vendor descriptions tried have 1-3
VISUAL_KEYS = {"mesh", "scale", "xyz", "rpy", "color"}
_COUNTS = {"scale": 3, "xyz": 3, "rpy": 3, "color": 4}
_LIMIT = 1e6   # metres, or a scale factor: a larger number is a typo, not an arm


def read_visuals(value, where: str, fail) -> tuple[Visual, ...]:
    """The visuals of one ``visual`` field; each problem is reported through ``fail(where, message)``."""
    if value is None:
        return ()
    if not isinstance(value, list):
        fail(where, "must be a list of meshes ({\"mesh\": \"file.stl\", ...})")
        return ()
    if len(value) > MAX_VISUALS:
        fail(where, f"more than {MAX_VISUALS} meshes")
        return ()
    out = []
    for k, item in enumerate(value):
        at = f"{where}[{k}]"
        if not isinstance(item, dict):
            fail(at, "must be an object")
            continue
        unknown = set(item) - VISUAL_KEYS
        if unknown:
            fail(at, "unknown field(s) " + ", ".join(sorted(map(str, unknown))))
        mesh = item.get("mesh")
        if not isinstance(mesh, str) or not mesh.strip() or len(mesh) > 4096 or "\x00" in mesh:
            fail(f"{at}.mesh", "must be the mesh file's path (text)")
            continue
        fields: dict[str, Any] = {}
        good = True
        for key, count in _COUNTS.items():
            if item.get(key) is None:
                continue
            v = item[key]
            ok = isinstance(v, list) and len(v) == count and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and abs(x) <= _LIMIT
                for x in v)
            if ok and key == "color":
                ok = all(0.0 <= x <= 1.0 for x in v)
            if not ok:
                what = "between 0 and 1" if key == "color" else f"of size at most {_LIMIT:g}"
                fail(f"{at}.{key}", f"must be {count} numbers {what}")
                good = False
            else:
                fields[key] = tuple(float(x) for x in v)
        if good:
            out.append(Visual(mesh, **fields))
    return tuple(out)


def visuals_json(visuals) -> list[dict]:
    out = []
    for v in visuals:
        entry: dict[str, Any] = {"mesh": v.mesh}
        if v.scale != (1.0, 1.0, 1.0):
            entry["scale"] = list(v.scale)
        entry["xyz"], entry["rpy"] = list(v.xyz), list(v.rpy)
        if v.color is not None:
            entry["color"] = list(v.color)
        out.append(entry)
    return out


def uses_visuals(model: Manipulator) -> bool:
    return bool(model.base_visuals) or any(link.visuals for link in model.links)


def _map_meshes(model: Manipulator, fn) -> Manipulator:
    if not uses_visuals(model):
        return model
    def each(visuals):
        return tuple(replace(v, mesh=fn(v.mesh)) for v in visuals)
    return replace(model, links=tuple(replace(l, visuals=each(l.visuals)) for l in model.links),
                   base_visuals=each(model.base_visuals))


def absolute_meshes(model: Manipulator, folder: str | os.PathLike) -> Manipulator:
    """Relative mesh paths taken relative to ``folder`` (the project file's)."""
    folder = Path(folder).absolute()
    return _map_meshes(model, lambda m: m if os.path.isabs(m) else os.path.normpath(folder / m))


def relative_meshes(model: Manipulator, folder: str | os.PathLike) -> Manipulator:
    """Meshes in ``folder`` or below written relative to it (with /), the others absolute."""
    folder = Path(folder).absolute()

    def rel(mesh: str) -> str:
        path = Path(mesh) if os.path.isabs(mesh) else folder / mesh
        try:
            return Path(os.path.normpath(path)).relative_to(folder).as_posix()
        except ValueError:
            return str(path)
    return _map_meshes(model, rel)
