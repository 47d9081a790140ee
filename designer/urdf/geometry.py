"""The visual and collision geometry of each URDF link, as plain data (nothing is loaded here)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["UrdfGeometry", "link_geometry"]


@dataclass(frozen=True)
class UrdfGeometry:
    """One ``<visual>`` or ``<collision>``: a mesh file or a box, cylinder or sphere, placed by
    ``origin`` (4x4) in the link's frame; ``size``: the box's edges, (radius, length), (radius,)."""

    kind: str
    origin: np.ndarray
    filename: str = ""
    scale: tuple[float, ...] = (1.0, 1.0, 1.0)
    size: tuple[float, ...] = ()
    rgba: tuple[float, ...] | None = None


def _finite(values) -> tuple[float, ...] | None:
    try:
        out = tuple(float(v) for v in np.ravel(values))
    except (TypeError, ValueError):
        return None
    return out if all(np.isfinite(out)) else None


def _one(item, colors: dict) -> UrdfGeometry | None:
    g = item.geometry
    if g is None:
        return None
    origin = np.eye(4) if item.origin is None else np.asarray(item.origin, dtype=float)
    if not np.all(np.isfinite(origin)):
        return None
    rgba = None
    material = getattr(item, "material", None)
    if material is not None:
        color = material.color.rgba if material.color is not None else colors.get(material.name)
        rgba = _finite(color) if color is not None else None
        if rgba is not None and (len(rgba) != 4 or not all(0 <= c <= 1 for c in rgba)):
            rgba = None
    if g.mesh is not None and g.mesh.filename:
        scale = (1.0, 1.0, 1.0) if g.mesh.scale is None else _finite(np.broadcast_to(g.mesh.scale, 3))
        if scale is None:
            return None
        return UrdfGeometry("mesh", origin, filename=str(g.mesh.filename), scale=scale, rgba=rgba)
    if g.box is not None:
        size = _finite(g.box.size)
        return None if size is None or len(size) != 3 else UrdfGeometry("box", origin, size=size, rgba=rgba)
    if g.cylinder is not None:
        size = _finite((g.cylinder.radius, g.cylinder.length))
        return None if size is None else UrdfGeometry("cylinder", origin, size=size, rgba=rgba)
    if g.sphere is not None:
        size = _finite((g.sphere.radius,))
        return None if size is None else UrdfGeometry("sphere", origin, size=size, rgba=rgba)
    return None


def link_geometry(robot) -> tuple[dict[str, list[UrdfGeometry]], dict[str, list[UrdfGeometry]]]:
    """({link: visuals}, {link: collisions}) of a yourdfpy robot; unreadable entries are left out
    (they only cost the link its picture, never the import)."""
    colors = {}
    for m in getattr(robot, "materials", None) or []:
        if m.name and m.color is not None:
            colors[m.name] = m.color.rgba
    visuals, collisions = {}, {}
    for link in robot.links:
        visuals[link.name] = [g for g in (_one(v, colors) for v in link.visuals) if g is not None]
        collisions[link.name] = [g for g in (_one(c, colors) for c in link.collisions) if g is not None]
    return visuals, collisions
