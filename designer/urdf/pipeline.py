"""A URDF or xacro file to a project, with its meshes: the steps around :func:`import_tree`.

:func:`read_any` reads the file (running xacro on a ``.xacro``), :func:`import_prepared` fills
missing inertials from the geometry when a density is given, imports the chain and attaches
the visual meshes in the DH frames. :func:`import_file` is both, for the command line; the
window's dialog calls them apart (the chain is chosen between them).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..kinematics import display_arm
from ..model.manipulator import Manipulator
from ..model.visual import Visual
from ..model.extras import rpy_from_matrix
from .chain import Chain, select_chain, world_poses
from .importer import ImportReport, import_tree
from .mesh_inertia import fill_inertials
from .meshes import MESH_SUFFIXES, MeshError, resolve_mesh
from .packages import PackageResolver
from .source import UrdfError, UrdfTree, parse_urdf, read_urdf, written
from .xacro_run import is_xacro, run_xacro

__all__ = ["FileOptions", "attach_visuals", "import_file", "import_prepared", "read_any"]


@dataclass
class FileOptions:
    """How to read a file: xacro arguments, package folders (``DIR`` or ``{name: DIR}``), the
    density for links without ``<inertial>`` (kg/m^3; None: leave them to ``massless``), and folders
    outside the file's own that a xacro file may include from (``--allow-root``)."""

    xacro_args: dict[str, str] = field(default_factory=dict)
    package_paths: list[str] = field(default_factory=list)
    packages: dict[str, str] = field(default_factory=dict)
    density: float | None = None
    allow_roots: list[str] = field(default_factory=list)

    def resolver(self, path) -> PackageResolver:
        # as $(find): the folders named (--package-path, --allow-root) and the file's own package, no upward search
        return PackageResolver(path, [*self.package_paths, *self.allow_roots], self.packages, own_only=True)


def read_any(path: str | os.PathLike, options: FileOptions | None = None) -> UrdfTree:
    """The tree of a URDF file, or of the URDF that xacro makes of a ``.xacro`` file."""
    options = options or FileOptions()
    if not is_xacro(path):
        return read_urdf(path)
    notes: list[str] = []
    # the xacro child reads below the file's folder and the package folders: the folders allowed go with them
    raw = run_xacro(path, options.xacro_args, [*options.package_paths, *options.allow_roots], options.packages, notes)
    tree = parse_urdf(raw, str(path))
    tree.notes += notes
    return tree


def _pose_fields(T: np.ndarray) -> dict:
    # 1e-12 m and rad are far below what can be seen; rounding drops the noise (-2.6e-50) from the file
    return {"xyz": tuple(round(float(v), 12) + 0.0 for v in T[:3, 3]),
            "rpy": tuple(round(float(a), 12) + 0.0 for a in rpy_from_matrix(T[:3, :3]))}


def attach_visuals(model: Manipulator, tree: UrdfTree, chain: Chain, folder,
                   resolver=None) -> tuple[Manipulator, list[str]]:
    """``model`` with the visual meshes of each body's URDF links placed in its DH frame, and those of
    the links fixed to the base in DH frame 0; warnings for meshes that cannot be found (left out).

    A visual's pose in DH frame i is inv(F_i) P_link O, with F_i the DH frame and P_link the URDF
    link's frame in the world at the zero pose (the same q for both, q_DH = q_URDF) and O the
    visual's origin. F_i is taken from the imported model itself, so the meshes move with it."""
    arm = display_arm(model)
    if model.is_serial:
        frames = arm.base @ arm.frames([0.0] * arm.n)   # DH frames 0..n in the root link's frame
    else:   # a closed chain's links form a tree (designer/urdf/closed_import.py)
        from ..kinematics.tree import TreeArm
        frames = arm.base @ TreeArm.from_model(model).frames(np.zeros(arm.n))
    poses = world_poses(tree)
    problems: list[tuple[str, str]] = []   # (link, what is wrong with its mesh), each file once
    missing: set[str] = set()

    def visuals_of(links, frame: np.ndarray) -> tuple[Visual, ...]:
        out = []
        inv = np.linalg.inv(frame)
        for link in links:
            for g in tree.visuals.get(link, []):
                if g.kind != "mesh":
                    continue
                try:
                    path = resolve_mesh(g.filename, folder, resolver)
                    if path.suffix.lower() not in MESH_SUFFIXES:
                        raise MeshError(f"{path}: not a mesh file the designer reads ({', '.join(MESH_SUFFIXES)})")
                    if not path.is_file():
                        raise MeshError(f"{path}: no such mesh file")
                except MeshError as exc:
                    if g.filename not in missing:
                        missing.add(g.filename)
                        problems.append((link, str(exc)))
                    continue
                out.append(Visual(str(path), g.scale, color=g.rgba, **_pose_fields(inv @ poses[link] @ g.origin)))
        return tuple(out)

    links = tuple(replace(link, visuals=visuals_of(chain.bodies[k], frames[k + 1]))
                  for k, link in enumerate(model.links))
    base = visuals_of([chain.base, *chain.fixed_to_base], frames[0])
    return replace(model, links=links, base_visuals=base), _mesh_warnings(problems)


#: more mesh files than this not there (a vendor's description copied without its meshes) are said in one line
MESH_LINES = 3


def _mesh_warnings(problems: list[tuple[str, str]]) -> list[str]:
    """One line per mesh that cannot be drawn; mesh files simply not there, when more than
    :data:`MESH_LINES`, in one line naming the first and the links drawn as sticks."""
    absent = [(link, what) for link, what in problems if what.endswith(": no such mesh file")]
    if len(absent) <= MESH_LINES:
        absent = []
    lines = [f"link {link!r}: {what} (drawn as a stick)" for link, what in problems if (link, what) not in absent]
    if absent:
        links = list(dict.fromkeys(link for link, _ in absent))
        named = ", ".join(map(repr, links[:6])) + (f", ... ({len(links)} links)" if len(links) > 6 else "")
        first = absent[0][1].removesuffix(": no such mesh file")
        lines.append(f"{len(absent)} mesh file(s) not there (the first {first}, of link {absent[0][0]!r}): "
                     f"{named} drawn as sticks")
    return lines


def import_prepared(tree: UrdfTree, source: str | os.PathLike, options: FileOptions | None = None,
                    **chain_options) -> ImportReport:
    """Import ``tree`` read from ``source`` (its folder resolves relative mesh names); ``chain_options``:
    those of :func:`import_tree` (base, tip, convention, drop_rest, massless, literal)."""
    options = options or FileOptions()
    if chain_options.get("literal"):   # the file as written, also for the inertia from meshes and the visuals
        tree = written(tree)
    folder = Path(source).parent
    resolver = options.resolver(source)
    read_notes = list(tree.notes)
    notes: list[str] = []
    warnings: list[str] = []
    if options.density is not None:
        chain = select_chain(tree, chain_options.get("base"), chain_options.get("tip"),
                             chain_options.get("drop_rest", False))
        tree, notes, warnings = fill_inertials(tree, [l for body in chain.bodies for l in body], options.density,
                                               folder, resolver)
    report = import_tree(tree, source=str(source), **chain_options)
    model, missing = attach_visuals(report.model, tree, report.chain, folder, resolver)
    report.model = model
    shown = sum(len(l.visuals) for l in model.links) + len(model.base_visuals)
    if shown:
        notes.append(f"{shown} visual meshes attached (drawn in the 3D view; Show > Meshes)")
    report.notes += read_notes + notes
    report.warnings += warnings + missing
    return report


def import_file(path: str | os.PathLike, options: FileOptions | None = None, **chain_options) -> ImportReport:
    """Read a URDF or xacro file and import its chain; every failure a :class:`UrdfError` naming the file."""
    start = time.perf_counter()
    tree = read_any(path, options)
    try:
        report = import_prepared(tree, path, options, **chain_options)
    except UrdfError as exc:
        raise UrdfError(f"{path}: {exc}") from None
    report.seconds = time.perf_counter() - start
    return report
