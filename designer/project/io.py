"""Project files (docs/project-format.md): read, check, write atomically.

Reading never runs code (expressions go through the whitelist parser) and
reports every problem of a file at once, each naming its field.
"""

from __future__ import annotations

import json
from dataclasses import replace
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..model.expr import ExpressionError, format_expr, to_expr
from ..model.extras import CATALOG_DRIVE_KEYS, DRIVE_FIELDS, ELASTIC_DRIVE_FIELDS, Drive, Pose, rpy_from_matrix
from ..model.manipulator import Convention, Inertia, JointType, Link, Manipulator, PointMass
from ..model.mechanism import uses_closed_chain_fields
from ..model.parts import PartError, parts_of
from .closed_io import V3_CLOSED_LINK_KEYS, V3_CLOSED_TOP_KEYS, closed_chain_link, closed_chain_link_json, loop_json, \
    read_loops
from ..model.validation import Severity, validate
from .atomic import write_atomic
from .source import (FORMAT, INERTIA_KEYS, MAX_EXPRESSION_CHARS, MAX_FILE_BYTES, MAX_LINKS, MAX_PARAMETERS, VERSION,
                     ProjectError, check_header, parse_document, read_bytes)
from .catalog_drives import names_catalog_items, resolve_catalog_drives
from .visuals import absolute_meshes, read_visuals, relative_meshes, uses_visuals, visuals_json
from .parts_io import materials_json, part_json, read_materials, read_part
from .requirements import V4_TOP_KEYS, absolute_cycle, check_sizes, read_requirements, relative_cycle, \
    requirements_json

__all__ = ["FORMAT", "VERSION", "MAX_FILE_BYTES", "ProjectError", "load_project", "loads_project",
           "from_dict", "to_dict", "save_project", "dumps_project"]


_LINK_KEYS = {"name", "joint", "a", "alpha", "d", "theta", "mass", "com", "inertia", "limits",
              "joint_name", "drive", "part", "visual"}
_TOP_KEYS = {"format", "version", "name", "description", "convention", "gravity", "parameters",
             "links", "point_masses", "base", "tool", "gravity_frame", "materials", "base_visual"}
# closed chains (version 3, project/closed_io.py): a link's parent, actuated flag and branching parameters; loops
_LINK_KEYS |= V3_CLOSED_LINK_KEYS
_TOP_KEYS |= V3_CLOSED_TOP_KEYS
# requirements, payload and cycle (version 4, project/requirements.py)
_TOP_KEYS |= V4_TOP_KEYS
# fields that version 1 did not have: a version-1 file holding them is refused, as it was before
_V2_LINK_KEYS = {"joint_name", "drive"}
_V2_TOP_KEYS = {"base", "tool", "gravity_frame"}
# fields of version 3: a file of an older version holding them is refused; a model using them is written as 3
# (parts and materials: project/parts_io.py; visual meshes: project/visuals.py)
_V3_LINK_KEYS = {"part", "visual"}
_V3_TOP_KEYS = {"materials", "base_visual"}
_INERTIA_KEYS = set(INERTIA_KEYS)


#: the largest drive value read: N^2 Jm and the friction terms multiply them (a gear ratio of 1e308
#: overflowed in the drive terms); no drive has a figure near it in SI units
MAX_DRIVE_VALUE = 1e9




class _Reader:
    """Turns a parsed JSON document into a model, collecting problems instead of stopping."""

    def __init__(self):
        self.problems: list[str] = []
        self.chars = 0  # expression text read so far, against MAX_EXPRESSION_CHARS
        self.materials: dict = {}   # the project's materials (built-ins and its own), read before the links
        self.values: dict[str, float] = {}   # the parameters' defaults, read before the links

    def fail(self, where: str, message: str):
        self.problems.append(f"{where}: {message}")

    def expr(self, value, where: str, default=None):
        if value is None and default is not None:
            return to_expr(default)
        if isinstance(value, str):
            # each text is bounded by the parser; this bounds the whole file's reading time
            self.chars += len(value)
            if self.chars > MAX_EXPRESSION_CHARS:
                if self.chars - len(value) <= MAX_EXPRESSION_CHARS:
                    self.fail(where, f"the file's expressions are longer than {MAX_EXPRESSION_CHARS} "
                                     "characters in all")
                return None
        try:
            return to_expr(value, where)
        except ExpressionError as exc:
            self.problems.append(str(exc))
            return None

    def vec3(self, value, where: str, default=(0, 0, 0)):
        if value is None:
            return tuple(to_expr(v) for v in default)
        if not isinstance(value, list) or len(value) != 3:
            self.fail(where, "must be a list of three numbers or expressions")
            return None
        items = [self.expr(v, f"{where}[{k}]") for k, v in enumerate(value)]
        return None if any(v is None for v in items) else tuple(items)

    def inertia(self, value, where: str):
        if value is None:
            return Inertia()
        if isinstance(value, dict):
            unknown = set(value) - _INERTIA_KEYS
            if unknown:
                self.fail(where, "unknown key(s) " + ", ".join(sorted(map(str, unknown))) +
                          " (use xx, yy, zz, xy, xz, yz)")
                return None
            parts = {k: self.expr(value.get(k, 0), f"{where}.{k}") for k in _INERTIA_KEYS}
            if any(v is None for v in parts.values()):
                return None
            return Inertia(**parts)
        if not (isinstance(value, list) and len(value) == 3
                and all(isinstance(r, list) and len(r) == 3 for r in value)):
            self.fail(where, "must be a 3x3 matrix (list of three rows of three) "
                             "or an object with xx, yy, zz, xy, xz, yz")
            return None
        m = [[self.expr(v, f"{where}[{r}][{c}]") for c, v in enumerate(row)] for r, row in enumerate(value)]
        if any(v is None for row in m for v in row):
            return None
        for r, c in ((0, 1), (0, 2), (1, 2)):
            if (m[r][c] - m[c][r]).expand() == 0:
                continue
            if not _nearly_equal(m, r, c):
                self.fail(where, f"not symmetric ([{r}][{c}] = {format_expr(m[r][c])} "
                                 f"but [{c}][{r}] = {format_expr(m[c][r])})")
                return None
            # a tensor computed as R D R^T differs from its transpose by rounding: keep the mean
            m[r][c] = m[c][r] = (m[r][c] + m[c][r]) / 2
        return Inertia.from_matrix(m)

    def pose(self, value, where: str) -> Pose | None:
        """``{"xyz": [..], "rpy": [..]}`` or a 4x4 homogeneous matrix of numbers."""
        if value is None:
            return None
        if isinstance(value, dict):
            unknown = set(value) - {"xyz", "rpy"}
            if unknown:
                self.fail(where, "unknown key(s) " + ", ".join(sorted(map(str, unknown))) + " (use xyz, rpy)")
                return None
            xyz = self.vec3(value.get("xyz"), f"{where}.xyz")
            rpy = self.vec3(value.get("rpy"), f"{where}.rpy")
            return None if xyz is None or rpy is None else Pose(xyz, rpy)
        if not (isinstance(value, list) and len(value) == 4 and all(isinstance(r, list) and len(r) == 4 for r in value)
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for r in value for v in r)):
            self.fail(where, "must be {\"xyz\": [x, y, z], \"rpy\": [roll, pitch, yaw]} or a 4x4 matrix of numbers")
            return None
        T = np.array(value, dtype=float)
        R = T[:3, :3]
        # a rotation's entries are within [-1, 1]: a larger one is refused before R^T R could overflow (1e308)
        if not np.all(np.isfinite(T)) or np.abs(R).max() > 1 + 1e-9 or np.abs(R.T @ R - np.eye(3)).max() > 1e-9 \
                or np.linalg.det(R) < 0 \
                or np.abs(T[3] - [0, 0, 0, 1]).max() > 0:
            self.fail(where, "not a rigid transform (the 3x3 part must be a rotation, the last row 0 0 0 1)")
            return None
        return Pose((float(T[0, 3]), float(T[1, 3]), float(T[2, 3])), rpy_from_matrix(R))

    def drive(self, value, where: str) -> Drive | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            self.fail(where, "must be an object (" + ", ".join(DRIVE_FIELDS) + ")")
            return None
        unknown = set(value) - set(DRIVE_FIELDS) - set(CATALOG_DRIVE_KEYS)
        if unknown:
            self.fail(where, "unknown key(s) " + ", ".join(sorted(map(str, unknown))) +
                      " (use " + ", ".join(DRIVE_FIELDS + CATALOG_DRIVE_KEYS) + ")")
            return None
        out: dict[str, Any] = {}
        for key, raw in value.items():
            if key in CATALOG_DRIVE_KEYS:   # a catalog item's name (version 4, project/catalog_drives.py)
                if not isinstance(raw, str) or not raw.strip() or len(raw) > 200:
                    self.fail(f"{where}.{key}", "must be a catalog item's name (a text, docs/catalogs.md)")
                else:
                    out[key] = raw.strip()
                continue
            named = _named_drive_field(self, key, raw, f"{where}.{key}")
            if named is not None:
                if named is not _REFUSED:
                    out[key] = named
                continue
            number = self.number(raw, f"{where}.{key}")
            if number is None:
                continue
            if number < 0:
                self.fail(f"{where}.{key}", f"must not be negative, found {number!r}")
                continue
            if key == "stiffness" and number == 0:
                self.fail(f"{where}.{key}", "must be positive (leave it out for a rigid joint)")
                continue
            if key not in ("stiffness", "damping") and number > MAX_DRIVE_VALUE:
                self.fail(f"{where}.{key}", f"{number:.3g} is too large (at most {MAX_DRIVE_VALUE:g})")
                continue
            out[key] = number
        return Drive(**out)

    def number(self, value, where: str) -> float | None:
        """A value that must not use names (drive data, parameter defaults)."""
        expr = self.expr(value, where)
        if expr is None:
            return None
        if expr.free_symbols:
            self.fail(where, "must be a number (it may use pi and functions, not names)")
            return None
        number = complex(expr.evalf())
        if abs(number.imag) > 1e-12 or not np.isfinite(number.real):
            self.fail(where, f"not a finite real number: {expr}")
            return None
        return float(number.real)

    def text(self, value, where: str) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            self.fail(where, "must be text")
            return ""
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate from a "\ud800" escape could never be saved
            self.fail(where, "is not valid Unicode text")
            return ""
        return value

    def link(self, data, i: int):
        where = f"links[{i}]"
        if not isinstance(data, dict):
            self.fail(where, "must be an object")
            return None
        unknown = set(data) - _LINK_KEYS
        if unknown:
            self.fail(where, "unknown field(s) " + ", ".join(sorted(map(str, unknown))))
        joint = data.get("joint")
        if "joint" not in data:
            self.fail(f"{where}.joint", "missing (\"R\" for revolute or \"P\" for prismatic)")
        elif joint not in ("R", "P"):
            self.fail(f"{where}.joint", f"must be \"R\" (revolute) or \"P\" (prismatic), not {json.dumps(joint)}")
        fields = {k: self.expr(data.get(k, 0), f"{where}.{k}") for k in ("a", "alpha", "d", "theta")}
        part = None
        if data.get("part") is not None:
            # a part makes the mass, COM and inertia (model/parts.py): the file gives one or the other
            part = read_part(self, data["part"], f"{where}.part", self.materials, self.values)
            given = sorted({"mass", "com", "inertia"} & set(data))
            if given:
                self.fail(where, "give either part or " + ", ".join(given) + " (a part makes mass, com and inertia)")
            mass, com, inertia = (to_expr(0), (to_expr(0),) * 3, Inertia()) if part is not None else (None, None, None)
        elif "mass" not in data:
            self.fail(f"{where}.mass", "missing")
            mass = None
        else:
            mass = self.expr(data["mass"], f"{where}.mass")
        if data.get("part") is None:
            com = self.vec3(data.get("com"), f"{where}.com")
            inertia = self.inertia(data.get("inertia"), f"{where}.inertia")
        name = self.text(data.get("name"), f"{where}.name")
        joint_name = self.text(data.get("joint_name"), f"{where}.joint_name")
        drive = self.drive(data.get("drive"), f"{where}.drive")
        visuals = read_visuals(data.get("visual"), f"{where}.visual", self.fail)
        limits = None
        if data.get("limits") is not None:
            lim = data["limits"]
            if not isinstance(lim, list) or len(lim) != 2:
                self.fail(f"{where}.limits", "must be [lower, upper]")
            else:
                limits = (self.expr(lim[0], f"{where}.limits[0]"), self.expr(lim[1], f"{where}.limits[1]"))
                if None in limits:
                    limits = None
        closed = closed_chain_link(self, data, where)
        values = [*fields.values(), mass, com, inertia]
        if joint not in ("R", "P") or any(v is None for v in values) or com is None or inertia is None \
                or closed is None:
            return None
        return Link(JointType(joint), mass=mass, com=com, inertia=inertia, name=name, limits=limits,
                    joint_name=joint_name, drive=drive, part=part, visuals=visuals, **fields, **closed)

    def point_mass(self, data, k: int):
        where = f"point_masses[{k}]"
        if not isinstance(data, dict):
            self.fail(where, "must be an object")
            return None
        unknown = set(data) - {"link", "mass", "position"}
        if unknown:
            self.fail(where, "unknown field(s) " + ", ".join(sorted(map(str, unknown))))
        link = data.get("link")
        if isinstance(link, bool) or not isinstance(link, int):
            self.fail(f"{where}.link", "must be a link number (1-based)")
            link = None
        mass = self.expr(data.get("mass"), f"{where}.mass") if "mass" in data else None
        if "mass" not in data:
            self.fail(f"{where}.mass", "missing")
        position = self.vec3(data.get("position"), f"{where}.position")
        if link is None or mass is None or position is None:
            return None
        return PointMass(link, mass, position)

    def parameters(self, data) -> dict[str, float]:
        out: dict[str, float] = {}
        if data is None:
            return out
        if not isinstance(data, dict):
            self.fail("parameters", "must be an object of name: number")
            return out
        if len(data) > MAX_PARAMETERS:
            self.fail("parameters", f"more than {MAX_PARAMETERS} parameters")
            return out
        for name, value in data.items():
            where = f"parameters.{name}"
            expr = self.expr(value, where)
            if expr is None:
                continue
            if expr.free_symbols:
                self.fail(where, "a default value must be a number (it may use pi and functions, not names)")
                continue
            number = complex(expr.evalf())
            if abs(number.imag) > 1e-12 or not np.isfinite(number.real):
                self.fail(where, f"not a finite real number: {expr}")
                continue
            out[name] = float(number.real)
        return out


SYMMETRY_RTOL = 1e-12  # relative to the tensor's largest entry


def _nearly_equal(m: list, r: int, c: int) -> bool:
    """Whether numeric entries m[r][c] and m[c][r] agree to rounding (relative to the largest numeric
    entry). Symbols elsewhere in the tensor (a diagonal ``Izz3``) do not matter to this pair."""
    if m[r][c].free_symbols or m[c][r].free_symbols:
        return False
    scale = max(abs(float(v)) for row in m for v in row if not v.free_symbols)
    return abs(float(m[r][c]) - float(m[c][r])) <= SYMMETRY_RTOL * scale


def from_dict(data: Any, source: str = "") -> Manipulator:
    """A model from a parsed project document; raises :class:`ProjectError` listing every error."""
    version = check_header(data, source)
    data = migrate(data)

    reader = _Reader()
    unknown = set(data) - _TOP_KEYS
    if version < 2:
        unknown |= set(data) & _V2_TOP_KEYS
    if version < 3:
        unknown |= set(data) & _V3_TOP_KEYS
    if version < 3 and set(data) & V3_CLOSED_TOP_KEYS:
        reader.fail("loops", "needs format version 3")
    if version < 4 and set(data) & V4_TOP_KEYS:
        reader.fail("(top level)", "field(s) " + ", ".join(sorted(set(data) & V4_TOP_KEYS)) +
                    " need format version 4")
    if unknown:
        reader.fail("(top level)", "unknown field(s) " + ", ".join(sorted(map(str, unknown))))
    convention = data.get("convention", "standard")
    if convention not in ("standard", "modified"):
        reader.fail("convention", f"must be \"standard\" or \"modified\", not {json.dumps(convention)}")
        convention = "standard"
    gravity = reader.vec3(data.get("gravity"), "gravity", default=(0, 0, "-g"))
    parameters = reader.parameters(data.get("parameters"))
    reader.values = parameters
    reader.materials = read_materials(reader, data.get("materials"))
    links_data = data.get("links")
    links = []
    if not isinstance(links_data, list) or not links_data:
        reader.fail("links", "must be a list with at least one link")
    elif len(links_data) > MAX_LINKS:
        reader.fail("links", f"more than {MAX_LINKS} links")
    else:
        links = [reader.link(l, i) for i, l in enumerate(links_data, start=1)]
        if version < 2:
            for i, l in enumerate(links_data, start=1):
                if isinstance(l, dict) and set(l) & _V2_LINK_KEYS:
                    reader.fail(f"links[{i}]", "field(s) " + ", ".join(sorted(set(l) & _V2_LINK_KEYS)) +
                                " need format version 2")
        if version < 3:
            for i, l in enumerate(links_data, start=1):
                if isinstance(l, dict) and set(l) & (_V3_LINK_KEYS | V3_CLOSED_LINK_KEYS):
                    keys = set(l) & (_V3_LINK_KEYS | V3_CLOSED_LINK_KEYS)
                    reader.fail(f"links[{i}]", "field(s) " + ", ".join(sorted(keys)) + " need format version 3")
    if version < 3:
        _elastic_fields_need_version_3(links_data, reader)
    links = _catalog_drives(links, version, source, reader)
    loops = read_loops(reader, data.get("loops")) if version >= 3 else ()
    pms_data = data.get("point_masses") or []
    pms = []
    if not isinstance(pms_data, list):
        reader.fail("point_masses", "must be a list")
    else:
        pms = [reader.point_mass(p, k) for k, p in enumerate(pms_data, start=1)]
    name = reader.text(data.get("name"), "name")
    description = reader.text(data.get("description"), "description")
    base = reader.pose(data.get("base"), "base")
    tool = reader.pose(data.get("tool"), "tool")
    base_visuals = read_visuals(data.get("base_visual"), "base_visual", reader.fail)
    # absent: "base" (frame 0), what every file written before this key meant
    gravity_frame = data.get("gravity_frame", "base")
    requirements = read_requirements(reader.fail, data) if version >= 4 else None
    if gravity_frame not in ("base", "world"):
        reader.fail("gravity_frame", f"must be \"base\" (DH frame 0) or \"world\", not {json.dumps(gravity_frame)}")
    problems = list(reader.problems)
    if links:
        # Check the values too, with harmless stand-ins for the entries that could not be
        # read, so that one pass over the file reports every problem (numbering kept).
        try:
            model = Manipulator(links=tuple(Link() if l is None else l for l in links), name=name,
                                description=description, convention=Convention(convention),
                                gravity=gravity or (0, 0, 0), parameters=tuple(parameters.items()),
                                point_masses=tuple(PointMass(1, 0) if p is None else p for p in pms),
                                base=base, tool=tool, gravity_in_world=gravity_frame == "world",
                                base_visuals=base_visuals, loops=loops)
            if requirements:
                model = replace(model, requirements=requirements)
                check_sizes(model, lambda where, message: problems.append(f"{where}: {message}"))
        except PartError as exc:
            raise ProjectError(problems + [str(exc)], source) from None
        problems += [str(p) for p in validate(model) if p.severity is Severity.ERROR]
    if problems:
        raise ProjectError(problems, source)
    return model


# -- elastic joints (format version 3) ------------------------------------------------------
def _elastic_fields_need_version_3(links_data, reader: _Reader) -> None:
    """A file older than version 3 holding a drive's stiffness or damping is refused, as before."""
    if not isinstance(links_data, list):
        return
    for i, link in enumerate(links_data, start=1):
        drive = link.get("drive") if isinstance(link, dict) else None
        used = sorted(set(drive) & set(ELASTIC_DRIVE_FIELDS)) if isinstance(drive, dict) else []
        if used:
            reader.fail(f"links[{i}].drive", "field(s) " + ", ".join(used) + " need format version 3")


def _catalog_drives(links: list, version: int, source: str, reader: _Reader) -> list:
    """The links with the figures of the catalog items their drives name (version 4)."""
    where = [(f"links[{i}].drive", link.drive if link is not None else None) for i, link in enumerate(links, start=1)]
    if version < 4:
        for w, d in where:
            if names_catalog_items(d):
                reader.fail(w, "field(s) gearbox, motor need format version 4")
        return links
    drives = resolve_catalog_drives(where, source, reader.fail)
    return [link if link is None or link.drive is d else replace(link, drive=d) for link, d in zip(links, drives)]


def _named_drive_field(reader: _Reader, key: str, raw, where: str):
    """A stiffness or damping given as a name or an expression of parameters (``"k2"``): that expression,
    valued by ``parameters`` like any other (checked by validation at the parameter's value). None for
    the other fields and for numbers, which the number checks take; _REFUSED for a text that is no
    expression (the reader has said why)."""
    if key not in ELASTIC_DRIVE_FIELDS or not isinstance(raw, str):
        return None
    expr = reader.expr(raw, where)
    if expr is None:
        return _REFUSED
    return expr if expr.free_symbols else None


_REFUSED = object()


def _uses_elastic_joints(model: Manipulator) -> bool:
    """Whether the model needs format version 3 for its elastic-joint drive data."""
    return any(link.drive is not None and any(getattr(link.drive, f) is not None for f in ELASTIC_DRIVE_FIELDS)
               for link in model.links)


def migrate(data: dict) -> dict:
    """Bring an older document up to :data:`VERSION`.

    Version 2 only adds optional fields (base, tool, joint names, drive data), so a version-1
    document reads unchanged; saving it writes version 2.
    """
    return data


def _pose_json(pose: Pose) -> dict:
    return {"xyz": [format_expr(v) for v in pose.xyz], "rpy": [format_expr(v) for v in pose.rpy]}


def _inertia_json(inertia: Inertia):
    m = inertia.matrix()
    return [[format_expr(m[r, c]) for c in range(3)] for r in range(3)]


def to_dict(model: Manipulator) -> dict:
    """The project document of ``model`` (JSON-ready)."""
    links = []
    parts = dict(parts_of(model))
    for i, link in enumerate(model.links):
        entry: dict[str, Any] = {}
        if link.name:
            entry["name"] = link.name
        entry.update({
            "joint": link.joint.value,
            "a": format_expr(link.a), "alpha": format_expr(link.alpha),
            "d": format_expr(link.d), "theta": format_expr(link.theta),
        })
        if link.part is not None:
            entry["part"] = part_json(parts[i])
        else:
            entry.update({"mass": format_expr(link.mass), "com": [format_expr(c) for c in link.com],
                          "inertia": _inertia_json(link.inertia)})
        if link.limits is not None:
            entry["limits"] = [format_expr(v) for v in link.limits]
        if link.joint_name:
            entry["joint_name"] = link.joint_name
        if link.drive is not None:
            entry["drive"] = link.drive.as_dict()
        if link.visuals:
            entry["visual"] = visuals_json(link.visuals)
        entry.update(closed_chain_link_json(link))
        links.append(entry)
    doc: dict[str, Any] = {
        "format": FORMAT, "version": written_version(model), "name": model.name, "description": model.description,
        "convention": model.convention.value,
        "gravity": [format_expr(g) for g in model.gravity],
        "parameters": dict(model.parameters),
        "links": links,
    }
    for key in ("base", "tool"):
        pose = getattr(model, key)
        if pose is not None:
            doc[key] = _pose_json(pose)
    if model.gravity_in_world:
        doc["gravity_frame"] = "world"
    if model.base_visuals:
        doc["base_visual"] = visuals_json(model.base_visuals)
    if model.loops:
        doc["loops"] = [loop_json(loop, _pose_json) for loop in model.loops]
    if model.point_masses:
        doc["point_masses"] = [{"link": p.link, "mass": format_expr(p.mass),
                                "position": [format_expr(c) for c in p.position]} for p in model.point_masses]
    materials = materials_json(list(parts.values()))
    if materials:
        doc["materials"] = materials
    doc.update(requirements_json(model.requirements))
    return doc


def written_version(model: Manipulator) -> int:
    """The version a model is written as: 3 only when it uses a version-3 field, 4 when it holds requirements or a
    drive names catalog items, so that a project that does not can still be opened by the programs that read
    version 2."""
    if model.requirements or any(names_catalog_items(link.drive) for link in model.links):
        return 4   # requirements (project/requirements.py), catalog items (project/catalog_drives.py)
    if any(link.part is not None for link in model.links) or _uses_elastic_joints(model) or uses_visuals(model) \
            or uses_closed_chain_fields(model):
        return 3
    return 2


def loads_project(text: str | bytes, source: str = "") -> Manipulator:
    """A model from project text."""
    return from_dict(parse_document(text, source), source)


def load_project(path: str | os.PathLike) -> Manipulator:
    """Read a project file; every failure is a :class:`ProjectError` naming the file."""
    path = Path(path)
    return absolute_cycle(absolute_meshes(loads_project(read_bytes(path), str(path)), path.parent), path.parent)


def dumps_project(model: Manipulator) -> str:
    try:
        return json.dumps(to_dict(model), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError:
        # only a model built in code can hold NaN or infinity; the file would not load again
        raise ProjectError("cannot save: a value is NaN or infinite, which a project file cannot hold") from None


def save_project(model: Manipulator, path: str | os.PathLike) -> None:
    """Write atomically: a temporary file in the same folder, flushed and fsynced, then renamed
    (:mod:`designer.project.atomic`); mesh paths beside the file are written relative to its folder."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    write_atomic(path, dumps_project(relative_cycle(relative_meshes(model, folder), folder)))


