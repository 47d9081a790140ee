"""Mesh files of URDF links: finding them, loading them safely, thinning them for drawing, and
their mass properties (no Qt; the 3D view and the import both use this).

Loading is through trimesh (STL, OBJ, PLY; DAE through pycollada). A mesh file is untrusted:
at most :data:`MAX_MESH_BYTES`, at most :data:`MAX_FACES` triangles after loading, a DAE (XML)
with a ``<!DOCTYPE`` or ``<!ENTITY`` is refused, and every failure is a :class:`MeshError`
naming the file. A DAE's ``<unit meter=...>`` is applied, as RViz does (trimesh only records it).
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from urllib.parse import unquote

import numpy as np

from ..errors import DesignerError
from ..jobs import NEVER, CancelToken, Job, Progress
from .packages import PackageResolver
from .source import read_bounded

__all__ = ["MAX_MESH_BYTES", "MAX_FACES", "MESH_SUFFIXES", "MeshError", "MeshData", "decimate", "load_cached",
           "load_mesh", "load_meshes_job", "mesh_arrays", "resolve_mesh"]

MAX_MESH_BYTES = 100_000_000   # the largest vendor mesh seen (Panda's link0.dae) is 1.6 MB
MAX_FACES = 5_000_000
MESH_SUFFIXES = (".stl", ".obj", ".dae", ".ply")


class MeshError(DesignerError):
    """A mesh that cannot be found or loaded; the message names the file."""


def resolve_mesh(name: str, folder: str | os.PathLike, resolver: PackageResolver | None = None) -> Path:
    """The file a URDF's ``<mesh filename=...>`` means: ``package://pkg/rest`` below the package's
    folder, ``file://`` and absolute paths as they are, others relative to ``folder`` (the URDF's)."""
    name = name.strip()
    if name.startswith("package://"):
        rest = name[len("package://"):]
        pkg, _, inner = rest.partition("/")
        found = (resolver or PackageResolver(folder, own_only=True)).find(pkg)
        if found is None:
            raise MeshError(f"{name}: package {pkg!r} not found (give --package-path)")
        return (found / unquote(inner)).resolve()
    if name.startswith("file://"):
        return Path(unquote(name[len("file://"):])).resolve()
    if re.match(r"^[a-z][a-z0-9+.-]*://", name, re.IGNORECASE):
        raise MeshError(f"{name}: only package://, file:// and plain paths are read")
    path = Path(name)
    return (path if path.is_absolute() else Path(folder) / path).resolve()


def _unit(mesh) -> float:
    units = str(getattr(mesh, "metadata", {}).get("units", "") or "")
    match = re.match(r"\s*([0-9.eE+-]+)\s*\*\s*meters", units)
    try:
        value = float(match.group(1)) if match else 1.0
    except ValueError:
        return 1.0
    return value if np.isfinite(value) and value > 0 else 1.0


def load_mesh(path: str | os.PathLike, scale=(1.0, 1.0, 1.0)):
    """One ``trimesh.Trimesh`` of the file (all its parts, in metres, times ``scale``)."""
    import trimesh

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in MESH_SUFFIXES:
        raise MeshError(f"{path}: not a mesh file the designer reads ({', '.join(MESH_SUFFIXES)})")
    raw = read_bounded(path, MAX_MESH_BYTES, str(path), MeshError, "a mesh file",
                       f"larger than the {MAX_MESH_BYTES} bytes a mesh may be")
    if suffix == ".dae" and re.search(rb"<!\s*(DOCTYPE|ENTITY)", raw[:1_000_000], re.IGNORECASE):
        raise MeshError(f"{path}: holds a document type declaration (<!DOCTYPE or <!ENTITY); refused for safety")
    try:
        import io
        mesh = trimesh.load(io.BytesIO(raw), file_type=suffix[1:], force="mesh",
                            resolver=trimesh.resolvers.FilePathResolver(str(path)))
    except MeshError:
        raise
    except Exception as exc:  # noqa: BLE001 - a corrupt file fails inside any of four parsers in its own way
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise MeshError(f"{path}: cannot read the mesh: {first}") from None
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise MeshError(f"{path}: holds no triangles")
    if len(mesh.faces) > MAX_FACES:
        raise MeshError(f"{path}: {len(mesh.faces)} triangles, more than the {MAX_FACES} a mesh may have")
    if not np.all(np.isfinite(mesh.vertices)):
        raise MeshError(f"{path}: a vertex that is not a finite number")
    factor = _unit(mesh) * np.asarray(scale, dtype=float)
    if not np.allclose(factor, 1.0):
        mesh.apply_transform(np.diag([*factor, 1.0]))
    return mesh


class MeshData:
    """Triangles ready to draw: ``vertices`` (V, 3) float32, ``faces`` (F, 3) uint32, ``color`` RGBA or None
    (the file's first material colour, when it has one)."""

    def __init__(self, vertices: np.ndarray, faces: np.ndarray, color=None, original_faces: int = 0):
        self.vertices = np.ascontiguousarray(vertices, dtype=np.float32)
        self.faces = np.ascontiguousarray(faces, dtype=np.uint32)
        self.color = color
        self.original_faces = original_faces or len(faces)


def decimate(vertices: np.ndarray, faces: np.ndarray, max_faces: int) -> tuple[np.ndarray, np.ndarray]:
    """At most about ``max_faces`` triangles: quadric decimation (fast-simplification), then, where a mesh
    of many small parts keeps more (the UR5's upper arm stops at 7,400 of its 29,000 whatever the
    target), vertex clustering on a grid; as it is when it has fewer."""
    if len(faces) <= max_faces:
        return vertices, faces
    faces = np.asarray(faces, np.int64)
    if faces.ndim != 2 or faces.shape[1] != 3 or faces.min() < 0 or faces.max() >= len(vertices):
        # checked here: the C++ decimation would read out of bounds and take the window down
        raise ValueError("face indices outside the vertex list")
    import fast_simplification
    v, f = fast_simplification.simplify(np.asarray(vertices, np.float64), np.asarray(faces, np.int64),
                                        target_count=max_faces)
    if len(f) <= 1.25 * max_faces:
        return v, f
    # the coarsest grid that keeps enough triangles, by bisection on the cell size (log scale)
    size = float(np.ptp(v, axis=0).max()) or 1.0
    lo, hi = size * 1e-4, size * 0.5
    best = _cluster(v, f, hi)
    for _ in range(12):
        mid = float(np.sqrt(lo * hi))
        cv, cf = _cluster(v, f, mid)
        if len(cf) > max_faces:
            lo = mid
        else:
            hi, best = mid, (cv, cf)
    return best


def _cluster(v: np.ndarray, f: np.ndarray, cell: float) -> tuple[np.ndarray, np.ndarray]:
    """Vertices merged per grid cell (at their mean), faces that collapse dropped."""
    keys = np.floor((v - v.min(axis=0)) / cell).astype(np.int64)
    _, index, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    index = index.ravel()
    merged = np.zeros((len(counts), 3))
    np.add.at(merged, index, v)
    merged /= counts[:, None]
    g = index[f]
    keep = (g[:, 0] != g[:, 1]) & (g[:, 1] != g[:, 2]) & (g[:, 0] != g[:, 2])
    return merged, np.unique(g[keep], axis=0)


def _file_color(mesh) -> tuple[float, ...] | None:
    try:
        visual = mesh.visual
        if visual.kind == "texture" and getattr(visual, "material", None) is not None:
            rgba = np.asarray(visual.material.main_color, float) / 255.0
        elif visual.kind in ("face", "vertex"):
            rgba = np.asarray(visual.face_colors, float).mean(axis=0) / 255.0
        else:
            return None
        return tuple(float(c) for c in rgba) if rgba.shape == (4,) and np.all(np.isfinite(rgba)) else None
    except Exception:  # noqa: BLE001 - colour is a nicety; a file whose material trimesh cannot read is grey
        return None


def mesh_arrays(path: str | os.PathLike, scale=(1.0, 1.0, 1.0), max_faces: int = 20_000) -> MeshData:
    """The file's triangles for drawing, thinned to about ``max_faces``."""
    import trimesh
    mesh = load_mesh(path, scale)
    color = _file_color(mesh)
    # a DAE splits vertices at every crease for its normals; merged, the decimation can collapse across them
    # (the UR5's upper arm went from 29436 to 8778 triangles for a target of 5000 without merging)
    plain = trimesh.Trimesh(mesh.vertices, mesh.faces, process=True)
    # one winding per part, outwards where a part is closed: the view does not draw faces turned away
    # (gui/meshes.py), so an inward face would be a hole (0.05 s on the UR5's upper arm)
    plain.fix_normals(multibody=True)
    v, f = decimate(plain.vertices, plain.faces, max_faces)
    return MeshData(v, f, color, len(mesh.faces))


_cache: dict[tuple, MeshData | str] = {}
_cache_lock = threading.Lock()


def _key(path: str, scale, max_faces: int) -> tuple:
    try:
        st = os.stat(path)
        stamp: tuple | None = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = None
    return path, tuple(scale), max_faces, stamp


def load_cached(path: str, scale, max_faces: int) -> MeshData | str:
    """The mesh's arrays, or the one-line reason it cannot be drawn (kept per file version, so a bad
    file is read once and an edited one again)."""
    key = _key(path, scale, max_faces)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    try:
        result: MeshData | str = mesh_arrays(path, scale, max_faces)
    except DesignerError as exc:
        result = str(exc)
    except (MemoryError, ValueError, RuntimeError) as exc:   # thinning a degenerate mesh
        result = f"{path}: cannot draw: {exc}"
    with _cache_lock:
        _cache[key] = result
    return result


def load_meshes_job(requests: list[tuple[str, tuple, int]], token: CancelToken = NEVER) -> Job[list]:
    """Load (path, scale, max_faces) requests, one :class:`Progress` per file; returns one
    :class:`MeshData` or message per request."""
    out = []
    for k, (path, scale, max_faces) in enumerate(requests):
        yield Progress("loading meshes", k / max(len(requests), 1), os.path.basename(path))
        token.check()
        out.append(load_cached(path, scale, max_faces))
    return out
