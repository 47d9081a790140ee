"""Mass, centre of mass and inertia of links without ``<inertial>``, from their geometry and a density.

A link's collision geometry is used (what the vendor meant as its solid), else its visual
geometry: meshes through trimesh's mass properties (the divergence theorem over the triangles),
boxes, cylinders and spheres by trimesh's primitives. A mesh that is not watertight has no
inside, so its convex hull's volume is used instead, with a warning saying so (the hull is
larger than the part: the mass is an upper bound).
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np

from .geometry import UrdfGeometry
from .meshes import MeshError, load_mesh, resolve_mesh
from .packages import PackageResolver
from .rigid import Body, combine
from .source import UrdfError, UrdfInertial, UrdfTree

__all__ = ["MAX_DENSITY", "geometry_body", "fill_inertials"]

MAX_DENSITY = 25_000.0   # kg/m^3: osmium is 22,590; a larger number is a unit slip (g/cm^3 vs kg/m^3 is 1000x)


def _solid(geom: UrdfGeometry, folder, resolver):
    """(a trimesh with volume, note or None)."""
    import trimesh
    if geom.kind == "box":
        return trimesh.primitives.Box(extents=geom.size), None
    if geom.kind == "cylinder":
        return trimesh.primitives.Cylinder(radius=geom.size[0], height=geom.size[1]), None
    if geom.kind == "sphere":
        return trimesh.primitives.Sphere(radius=geom.size[0]), None
    mesh = load_mesh(resolve_mesh(geom.filename, folder, resolver), geom.scale)
    name = os.path.basename(geom.filename)
    if not mesh.is_watertight:
        return mesh.convex_hull, (f"mesh {name} is not watertight: the volume of its convex hull was used "
                                  f"({mesh.convex_hull.volume:.4g} m^3; the mass is an upper bound)")
    if mesh.volume < 0:   # faces wound inwards: the same solid
        mesh.invert()
    return mesh, None


def geometry_body(geom: UrdfGeometry, density: float, folder, resolver=None) -> tuple[Body, str | None]:
    """The solid of one geometry element at ``density``, in its link's frame, and a warning or None."""
    solid, note = _solid(geom, folder, resolver)
    volume = float(solid.volume)
    if not np.isfinite(volume) or volume <= 0:
        raise MeshError(f"{geom.filename or geom.kind}: encloses no volume")
    solid.density = density
    body = Body(float(solid.mass), np.asarray(solid.center_mass, float), np.asarray(solid.moment_inertia, float))
    return body.moved(geom.origin), note


def fill_inertials(tree: UrdfTree, links, density: float, folder: str | os.PathLike,
                   resolver: PackageResolver | None = None) -> tuple[UrdfTree, list[str], list[str]]:
    """``tree`` with an inertial computed for each of ``links`` that has none and has geometry.

    Returns (tree, report lines with the figures, warnings)."""
    density = float(density)
    if not np.isfinite(density) or not 0 < density <= MAX_DENSITY:
        raise UrdfError(f"density {density:g} kg/m^3: must be above 0 and at most {MAX_DENSITY:g} "
                        "(aluminium 2700, steel 7850)")
    inertials = dict(tree.inertials)
    lines, warnings = [], []
    for link in links:
        if inertials.get(link) is not None:
            continue
        geoms, kind = tree.collisions.get(link) or [], "collision"
        if not geoms:
            geoms, kind = tree.visuals.get(link) or [], "visual"
        if not geoms:
            continue
        parts = []
        for geom in geoms:
            try:
                body, note = geometry_body(geom, density, folder, resolver)
            except MeshError as exc:
                raise UrdfError(f"link {link!r}: cannot compute its inertia from its {kind} geometry: {exc}") from None
            parts.append(body)
            if note:
                warnings.append(f"link {link!r}: {note}")
        body = combine(parts)
        inertials[link] = UrdfInertial(body.mass, body.com, body.inertia)
        I = body.inertia
        lines.append(f"inertia of {link!r} from its {kind} geometry at {density:g} kg/m^3: mass {body.mass:.4g} kg, "
                     f"COM ({', '.join(f'{c:.4g}' for c in body.com)}) m, Ixx {I[0, 0]:.4g} Iyy {I[1, 1]:.4g} "
                     f"Izz {I[2, 2]:.4g} Ixy {I[0, 1]:.3g} Ixz {I[0, 2]:.3g} Iyz {I[1, 2]:.3g} kg m^2 (link frame)")
    return replace(tree, inertials=inertials), lines, warnings
