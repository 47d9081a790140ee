"""Reading a URDF file safely into plain data: links with their inertials, joints, the tree.

The file is untrusted: its size is bounded, a document type declaration (the only way to
declare entities, internal or external) is refused, the XML parser resolves no entities and
opens no network connection, and nothing in the file is ever run. xacro macros are refused
with "run xacro first". The parsing of the URDF elements themselves is yourdfpy's.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DesignerError
from .geometry import UrdfGeometry, link_geometry
from .numbers import snap_direction, snap_value

__all__ = ["MAX_URDF_BYTES", "MAX_VALUE", "MULTI_DOF", "SnappedAngle", "read_bounded", "UrdfError", "UrdfInertial",
           "UrdfJoint", "UrdfTree", "read_urdf", "parse_urdf", "parse_xml", "written"]

MAX_URDF_BYTES = 20_000_000
#: the largest magnitude of a number read (m, kg, kg m^2, rad, N m): beyond, a typo or an attack whose
#: products overflow (1e308 in an origin made the DH frames infinite)
MAX_VALUE = 1e9
MOVABLE = ("revolute", "continuous", "prismatic")
#: joints that move in more than one direction (MJCF's free and ball joints come in as floating / ball)
MULTI_DOF = ("floating", "planar", "ball")
_KNOWN_TYPES = (*MOVABLE, "fixed", *MULTI_DOF)


class UrdfError(DesignerError):
    """A URDF file that cannot be imported; the message names the file and the joint or link."""


@dataclass(frozen=True)
class UrdfInertial:
    """Mass, centre of mass and inertia about it (3x3), in the link's frame."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray


@dataclass(frozen=True)
class UrdfJoint:
    name: str
    type: str
    parent: str
    child: str
    origin: np.ndarray            # 4x4: the joint frame in the parent link's frame
    axis: np.ndarray              # unit vector in the joint frame
    lower: float | None = None
    upper: float | None = None
    effort: float | None = None
    velocity: float | None = None
    damping: float | None = None
    friction: float | None = None
    mimic: str | None = None
    multiplier: float = 1.0       # <mimic multiplier offset>: q = multiplier * q_mimic + offset
    offset: float = 0.0
    # more terms of a linear mimic (joint, multiplier): coaxial mimic joints merged into this one
    # (designer/urdf/closed_import.py), q = sum of multiplier * q_joint + offset
    also: tuple[tuple[str, float], ...] = ()
    passive: bool = False         # MJCF: a joint no actuator drives, in a file that closes loops
    # what MJCF adds (designer/mjcf): joint-side reflected inertia (kg m^2), the actuator's gear, the
    # actuator torque limit at the joint (N m or N)
    armature: float | None = None
    gear: float | None = None
    rated_torque: float | None = None

    @property
    def movable(self) -> bool:
        return self.type in MOVABLE


@dataclass(frozen=True)
class SnappedAngle:
    """A number of the file read as the exact angle it stands for (1.5708 as pi/2): where it is (the
    element and attribute), as written, as read, and how far that turned what it places (rad)."""

    where: str
    written: str
    read: str
    angle: float


@dataclass
class UrdfTree:
    """A URDF's kinematic tree: every link (its inertial or None) and every joint."""

    name: str
    inertials: dict[str, UrdfInertial | None]
    joints: dict[str, UrdfJoint]
    parent_joint: dict[str, str] = field(default_factory=dict)     # child link -> joint
    child_joints: dict[str, list[str]] = field(default_factory=dict)  # link -> joints, file order
    root: str = ""
    mesh_links: set[str] = field(default_factory=set)
    visuals: dict[str, list[UrdfGeometry]] = field(default_factory=dict)      # link -> its <visual>s
    collisions: dict[str, list[UrdfGeometry]] = field(default_factory=dict)   # link -> its <collision>s
    # the name a DH link takes when its link is a helper frame of the reader (MJCF: a joint away from
    # its body's origin moves a frame at the joint, and the body hangs below it by a fixed joint)
    labels: dict[str, str] = field(default_factory=dict)
    # MJCF's loops: (body1, body2, points on body1 in its frame (k, 3)): one point a ball joint, two on
    # an axis a hinge (designer/mjcf/source.py from <equality><connect>)
    cuts: list[tuple[str, str, np.ndarray]] = field(default_factory=list)
    # what reading the file says beside the tree (xacro: run without the Landlock sandbox)
    notes: list[str] = field(default_factory=list)
    # how the angles were read: ``literal`` takes every number as written (and the import then makes no
    # angle exact and no axes parallel); otherwise angles within ANGLE_SNAP of a multiple of pi/12 were read
    # as that multiple where the file gives them (``snaps``), and ``as_written`` is the tree of the file as
    # written (None when nothing was changed); ``reader_model``: the reader's own model of this tree
    # (MJCF: MuJoCo's compiled model, which the import is checked against)
    literal: bool = False
    snaps: list[SnappedAngle] = field(default_factory=list)
    as_written: UrdfTree | None = None
    reader_model: Any = None

    def leaves(self, below: str | None = None) -> list[str]:
        start = below or self.root
        return [l for l in self.subtree(start) if not self.child_joints.get(l)]

    def subtree(self, link: str) -> list[str]:
        out, todo = [], [link]
        while todo:
            l = todo.pop()
            out.append(l)
            todo.extend(self.joints[j].child for j in reversed(self.child_joints.get(l, [])))
        return out

    def path(self, base: str, tip: str) -> list[str] | None:
        """Joint names from ``base`` down to ``tip``, or None when tip is not below base."""
        joints, link = [], tip
        while link != base:
            j = self.parent_joint.get(link)
            if j is None:
                return None
            joints.append(j)
            link = self.joints[j].parent
        return joints[::-1]


def written(tree: UrdfTree) -> UrdfTree:
    """The tree of the file with its numbers taken as written (``--literal``)."""
    if tree.as_written is not None:
        return tree.as_written
    return tree if tree.literal else replace(tree, literal=True)


def read_urdf(path: str | os.PathLike, literal: bool = False) -> UrdfTree:
    """A URDF file's tree; every failure is a :class:`UrdfError` naming the file. ``literal``: the
    numbers as written (:func:`parse_urdf`)."""
    path = Path(path)
    raw = read_bounded(path, MAX_URDF_BYTES, str(path), UrdfError, "a URDF file",
                       f"larger than the {MAX_URDF_BYTES} bytes a URDF may be")
    if path.name.endswith(".xacro"):
        raise UrdfError(f"{path}: a xacro file: run xacro first (xacro {path.name} > robot.urdf)")
    return parse_urdf(raw, str(path), literal)


def xml_problem(exc) -> str:
    """lxml's syntax error as a person reads it: the problem, then (line L, column C) once; nesting deeper
    than the parser's limit said as such, without the parser's option name."""
    text = re.sub(r"\s*\(<string>, line \d+\)$", "", str(exc))
    text = re.sub(r",? line \d+, column \d+$", "", text).strip()
    depth = re.match(r"Excessive depth in document: (\d+)", text)
    if depth:
        text = f"elements nested more than {depth.group(1)} deep"
    line, column = getattr(exc, "position", (None, None)) or (None, None)
    return f"{text} (line {line}, column {column})" if line else text


def read_bounded(path: Path, limit: int, where: str, error: type[DesignerError], what: str,
                 too_large: str | None = None) -> bytes:
    """At most ``limit`` bytes of a file (a device such as /dev/zero never ends); ``error`` naming
    ``where`` for a missing file, a folder, a failed read, and (with ``too_large``, the message's end)
    for a file longer than ``limit``; without ``too_large`` the first ``limit`` bytes."""
    try:
        if too_large and path.stat().st_size > limit:
            raise error(f"{where}: {too_large}")
        with path.open("rb") as fh:
            raw = fh.read(limit + 1)
    except FileNotFoundError:
        raise error(f"{where}: no such file") from None
    except IsADirectoryError:
        raise error(f"{where}: is a folder, not {what}") from None
    except OSError as exc:
        raise error(f"{where}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > limit:
        if too_large:
            raise error(f"{where}: {too_large}")
        raw = raw[:limit]
    return raw


def parse_xml(raw: bytes, where: str, error: type[Exception], kind: str):
    """The root element of the XML text ``raw``, read without entities, a DTD or the network; a document type
    declaration (which ``kind``, a URDF or MJCF, does not need) refused for safety. Failures: ``error``."""
    from lxml import etree
    if re.search(rb"<!\s*(DOCTYPE|ENTITY)", raw[:1_000_000], re.IGNORECASE):
        raise error(f"{where}: holds a document type declaration (<!DOCTYPE or <!ENTITY), which {kind} does not "
                    "need; refused for safety")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        return etree.fromstring(raw, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise error(f"{where}: not valid XML: {xml_problem(exc)}") from None


def parse_urdf(raw: bytes, source: str = "URDF", literal: bool = False) -> UrdfTree:
    """The tree of URDF text (bytes). Unless ``literal``, every ``rpy`` angle and joint ``axis`` within
    ANGLE_SNAP of an exact one (:func:`.numbers.snap_value`, :func:`.numbers.snap_direction`) is read as
    that before anything is computed from it: the tree is the arm the file means (1.5708 is pi/2), and
    its ``as_written`` the file as written."""
    from lxml import etree  # yourdfpy's own dependency
    import yourdfpy

    root = parse_xml(raw, source, UrdfError, "a URDF")
    if root.tag != "robot":
        raise UrdfError(f"{source}: not a URDF (the top element is <{root.tag}>, not <robot>)")
    if _uses_xacro(root):
        raise UrdfError(f"{source}: uses xacro macros: run xacro first (xacro FILE > robot.urdf), or import it "
                        "under a name ending in .xacro, which runs it")
    _check_elements(root, source)
    snaps = [] if literal else _snap_angles(root)

    def load(text: bytes) -> UrdfTree:
        try:
            robot = yourdfpy.URDF.load(io.BytesIO(text), build_scene_graph=False, load_meshes=False,
                                       build_collision_scene_graph=False, load_collision_meshes=False).robot
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            raise UrdfError(f"{source}: cannot read the URDF: {exc}") from None
        return _tree(robot, source)

    as_written = load(raw)
    if not snaps:
        as_written.literal = literal
        return as_written
    as_written.literal = True
    tree = load(etree.tostring(root))
    tree.snaps, tree.as_written = snaps, as_written
    return tree


def _owner(el) -> str:
    """The link or joint an element belongs to, and the element's path inside it."""
    path = []
    while el is not None and el.tag not in ("link", "joint"):
        path.append(el.tag)
        el = el.getparent()
    if el is None:
        return "/".join(reversed(path))
    return " ".join([f"{el.tag} {el.get('name')!r}", *("<" + t + ">" for t in reversed(path))])


def _snap_angles(root) -> list[SnappedAngle]:
    """Every ``rpy`` of an ``<origin>`` (joints, inertials, visuals, collisions) and every joint
    ``<axis xyz>`` read as the exact angle or direction it is within ANGLE_SNAP of, rewritten in
    ``root`` in full precision; what was changed."""
    out = []
    for el in root.iter("origin", "axis"):
        attr = "rpy" if el.tag == "origin" else "xyz"
        text = el.get(attr)
        if text is None or (el.tag == "axis" and el.getparent().tag != "joint"):
            continue
        values = [float(v) for v in text.split()]   # _check_elements: three finite numbers
        if attr == "rpy":
            pairs = [snap_value(v) for v in values]
            new, angle = [v for v, _ in pairs], max(off for _, off in pairs)
        else:
            direction, angle = snap_direction(values)
            new = [float(v) for v in direction]
        if angle > 0.0:
            read = " ".join(repr(v) for v in new)
            el.set(attr, read)
            out.append(SnappedAngle(f"{_owner(el)} {attr}", text, read, angle))
    return out


# the numbers of each element yourdfpy reads: attribute -> how many
_NUMBERS = {"origin": {"xyz": 3, "rpy": 3}, "axis": {"xyz": 3}, "mass": {"value": 1},
            "inertia": {k: 1 for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")},
            "limit": {k: 1 for k in ("lower", "upper", "effort", "velocity")},
            "dynamics": {"damping": 1, "friction": 1}, "mimic": {"multiplier": 1, "offset": 1}}


def _check_elements(root, source: str) -> None:
    """What yourdfpy would stumble on with a bare KeyError or ValueError ('name', "could not convert
    string to float: 'a'"): a missing name, type, parent or child, and attributes that are not the
    right count of finite numbers, each named by its link or joint and line."""
    if not root.get("name"):
        raise UrdfError(f"{source}: the <robot> element has no name attribute (URDF requires one)")
    for kind in ("link", "joint"):
        for el in root.findall(kind):
            name = el.get("name")
            if not name:
                raise UrdfError(f"{source}: line {el.sourceline}: a <{kind}> without a name attribute")
            where = f"{kind} {name!r}"
            if kind == "joint":
                if not el.get("type"):
                    raise UrdfError(f"{source}: {where}: no type attribute (revolute, continuous, prismatic, fixed...)")
                for end in ("parent", "child"):
                    tag = el.find(end)
                    if tag is None or not tag.get("link"):
                        raise UrdfError(f"{source}: {where}: no <{end} link=\"...\"/>")
            elements = el.iter(*_NUMBERS) if kind == "joint" else el.find("inertial").iter(*_NUMBERS) \
                if el.find("inertial") is not None else ()
            for item in elements:
                for attr, count in _NUMBERS[item.tag].items():
                    text = item.get(attr)
                    if text is None:
                        continue
                    try:
                        values = [float(v) for v in text.split()]
                    except ValueError:
                        values = []
                    if len(values) != count or not all(np.isfinite(values)) or \
                            any(abs(v) > MAX_VALUE for v in values):
                        what = ("a finite number" if count == 1 else f"{count} finite numbers") + \
                            f" of size at most {MAX_VALUE:g}"
                        raise UrdfError(f"{source}: {where}: <{item.tag} {attr}=\"{text[:40]}\">: must be {what} "
                                        f"(line {item.sourceline})")


def _uses_xacro(root) -> bool:
    # files made by xacro keep its namespace declaration; only its elements or ${...} matter
    for el in root.iter():
        tag = el.tag if isinstance(el.tag, str) else ""
        if "xacro" in tag:
            return True
        if any("${" in v or "$(" in v for v in el.attrib.values()):
            return True
    return False


def _number(value, where: str, source: str) -> float | None:
    if value is None:
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UrdfError(f"{source}: {where}: not a number: {value!r}") from None
    if not np.isfinite(x):
        raise UrdfError(f"{source}: {where}: not a finite number: {value!r}")
    return x


def _tree(robot, source: str) -> UrdfTree:
    inertials: dict[str, UrdfInertial | None] = {}
    mesh_links = set()
    for link in robot.links:
        if link.name in inertials:
            raise UrdfError(f"{source}: link {link.name!r} is defined twice")
        if any(getattr(v.geometry, "mesh", None) is not None for v in link.visuals):
            mesh_links.add(link.name)
        ine = link.inertial
        if ine is None or ine.mass is None:
            inertials[link.name] = None
            continue
        origin = np.eye(4) if ine.origin is None else np.asarray(ine.origin, dtype=float)
        inertia = np.zeros((3, 3)) if ine.inertia is None else np.asarray(ine.inertia, dtype=float)
        mass = _number(ine.mass, f"link {link.name!r}: mass", source) or 0.0
        if not np.all(np.isfinite(inertia)) or not np.all(np.isfinite(origin)):
            raise UrdfError(f"{source}: link {link.name!r}: inertial holds a number that is not finite")
        if mass < 0:
            raise UrdfError(f"{source}: link {link.name!r}: negative mass {mass}")
        R = origin[:3, :3]
        # the inertial frame may be rotated: the tensor is given in its axes
        inertials[link.name] = UrdfInertial(mass, origin[:3, 3].copy(), R @ inertia @ R.T)
    joints: dict[str, UrdfJoint] = {}
    parent_joint: dict[str, str] = {}
    child_joints: dict[str, list[str]] = {name: [] for name in inertials}
    for j in robot.joints:
        where = f"joint {j.name!r}"
        if j.name in joints:
            raise UrdfError(f"{source}: {where} is defined twice")
        if j.type not in _KNOWN_TYPES:
            raise UrdfError(f"{source}: {where}: unknown joint type {j.type!r}")
        for end in (j.parent, j.child):
            if end not in inertials:
                raise UrdfError(f"{source}: {where} names link {end!r}, which the file does not define")
        if j.child in parent_joint:
            raise UrdfError(f"{source}: closed loop: link {j.child!r} is the child of joints "
                            f"{parent_joint[j.child]!r} and {j.name!r}")
        axis = np.asarray(j.axis if j.axis is not None else (1.0, 0.0, 0.0), dtype=float)
        norm = float(np.linalg.norm(axis))
        if j.type in MOVABLE and not (np.isfinite(norm) and norm > 1e-12):
            raise UrdfError(f"{source}: {where}: the axis is zero or not finite "
                            f"(xyz = {' '.join(f'{v:g}' for v in axis)})")
        lim, dyn = j.limit, j.dynamics
        origin = np.eye(4) if j.origin is None else np.asarray(j.origin, dtype=float)
        if not np.all(np.isfinite(origin)):
            raise UrdfError(f"{source}: {where}: origin holds a number that is not finite")
        joints[j.name] = UrdfJoint(
            name=j.name, type=j.type, parent=j.parent, child=j.child, origin=origin,
            axis=axis / norm if norm > 0 else axis,
            lower=_number(getattr(lim, "lower", None), f"{where}: limit lower", source),
            upper=_number(getattr(lim, "upper", None), f"{where}: limit upper", source),
            effort=_number(getattr(lim, "effort", None), f"{where}: limit effort", source),
            velocity=_number(getattr(lim, "velocity", None), f"{where}: limit velocity", source),
            damping=_number(getattr(dyn, "damping", None), f"{where}: dynamics damping", source),
            friction=_number(getattr(dyn, "friction", None), f"{where}: dynamics friction", source),
            mimic=None if j.mimic is None else str(j.mimic.joint),
            multiplier=1.0 if j.mimic is None or j.mimic.multiplier is None else float(j.mimic.multiplier),
            offset=0.0 if j.mimic is None or j.mimic.offset is None else float(j.mimic.offset))
        parent_joint[j.child] = j.name
        child_joints[j.parent].append(j.name)
    roots = [name for name in inertials if name not in parent_joint]
    if not inertials:
        raise UrdfError(f"{source}: the file defines no links")
    if not roots:
        raise UrdfError(f"{source}: closed loop: every link has a parent joint")
    if len(roots) > 1:
        raise UrdfError(f"{source}: the links form {len(roots)} separate trees (roots " +
                        ", ".join(repr(r) for r in roots[:5]) + ("..." if len(roots) > 5 else "") + ")")
    tree = UrdfTree(robot.name, inertials, joints, parent_joint, child_joints, roots[0], mesh_links,
                    *link_geometry(robot))
    if len(tree.subtree(tree.root)) != len(inertials):  # a cycle not reachable from the root
        raise UrdfError(f"{source}: closed loop among the links not reachable from {roots[0]!r}")
    return tree
