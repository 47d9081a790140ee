"""Project -> URDF: one URDF link per DH link, the base and tool frames as fixed joints.

The URDF link of joint i is the frame that the joint moves: DH frame i in the modified
convention; in the standard one, frame i-1 turned by q_i (the URDF joint axis must pass
through its link's origin, and standard frame i lies beyond the joint), so that there the
inertial's origin carries the constant transform to DH frame i and the inertia is written
exactly as in the project, in frame i's axes. Symbols take their default values.

A URDF's gravity is -z of its world with the simulator's magnitude (9.81 by default): the
base pose written is turned so that the model's gravity points down (:func:`urdf_base`).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DesignerError
from ..kinematics import NumericArm, dh_matrices
from ..kinematics.tree import TreeArm
from ..model.extras import rpy_from_matrix
from ..model.manipulator import Convention, Manipulator, MissingParameterError
from ..model.mechanism import model_tool_link
from ..numeric.recursive import LumpedBodies, lumped_bodies
from .source import UrdfError

__all__ = ["Exported", "export_urdf", "exported", "export_notes", "urdf_base", "urdf_document", "urdf_text",
           "write_text"]

JOINT_RADIUS, LINK_RADIUS = 0.03, 0.015


def _num(x: float) -> str:
    x = float(x)
    return "0" if x == 0 else repr(x)


def _vec(v) -> str:
    return " ".join(_num(x) for x in v)


def _origin(parent: ET.Element, T: np.ndarray) -> None:
    ET.SubElement(parent, "origin", xyz=_vec(T[:3, 3]), rpy=_vec(rpy_from_matrix(T[:3, :3])))


def _names(model: Manipulator) -> tuple[list[str], list[str]]:
    links: list[str] = []
    joints: list[str] = []
    # the exporter's own links and joints: a project's joint named "base_joint" made a second one,
    # which every URDF reader refuses
    seen = {"base", "dh_frame0", "tool", "base_joint", "tool_joint"}
    for i, link in enumerate(model.links, start=1):
        for out, name, fallback in ((links, link.name, f"link{i}"), (joints, link.joint_name, f"joint{i}")):
            if not (name and name not in seen and name.isprintable()):
                name, k = fallback, 1
                while name in seen:   # a later link may already be called "link1"
                    name, k = f"{fallback}_{k}", k + 1
            seen.add(name)
            out.append(name)
    return links, joints


def _cylinder(link: ET.Element, T: np.ndarray, radius: float, length: float, material: str,
              visual: bool = True) -> None:
    for kind in ("visual", "collision") if visual else ("collision",):
        el = ET.SubElement(link, kind)
        _origin(el, T)
        geom = ET.SubElement(el, "geometry")
        ET.SubElement(geom, "cylinder", radius=_num(radius), length=_num(length))
        if kind == "visual":
            ET.SubElement(el, "material", name=material)


def _meshes(link: ET.Element, visuals, to_frame: np.ndarray) -> None:
    """The project's visual meshes (``file://`` absolute paths) in a URDF link whose frame holds the
    DH frame at ``to_frame``; a link with meshes gets no stick cylinders as visuals."""
    for k, v in enumerate(visuals):
        el = ET.SubElement(link, "visual")
        _origin(el, to_frame @ v.matrix())
        attrs = {"filename": Path(v.mesh).absolute().as_uri()}
        if v.scale != (1.0, 1.0, 1.0):
            attrs["scale"] = _vec(v.scale)
        ET.SubElement(ET.SubElement(el, "geometry"), "mesh", attrib=attrs)
        if v.color is not None:
            material = ET.SubElement(el, "material", name=f"{link.get('name')}_mesh{k}")
            ET.SubElement(material, "color", rgba=_vec(v.color))


def _segment(link: ET.Element, end: np.ndarray, visual: bool = True) -> None:
    """A thin cylinder from the link frame's origin to ``end``."""
    length = float(np.linalg.norm(end))
    if length < 1e-6:
        return
    z = end / length
    x = np.cross([0.0, 0.0, 1.0], z) if abs(z[2]) < 0.9 else np.cross([1.0, 0.0, 0.0], z)
    x /= np.linalg.norm(x)
    T = np.eye(4)
    T[:3, :3] = np.column_stack([x, np.cross(z, x), z])
    T[:3, 3] = end / 2
    _cylinder(link, T, LINK_RADIUS, length, "link", visual)


def urdf_base(arm: NumericArm) -> np.ndarray:
    """Frame 0 in the URDF's world, whose gravity is -z by convention.

    The model's base pose, turned (about the world origin, by the smallest rotation) when the
    model's gravity does not point down that world's z; a URDF cannot say where gravity points.
    """
    g = arm.base[:3, :3] @ arm.gravity
    norm = float(np.linalg.norm(g))
    if norm == 0.0:
        return arm.base
    u, down = g / norm, np.array([0.0, 0.0, -1.0])
    axis = np.cross(u, down)
    s, c = float(np.linalg.norm(axis)), float(u @ down)
    if s < 1e-15:
        if c > 0:
            return arm.base
        axis, s = np.array([1.0, 0.0, 0.0]), 1.0  # upside down: half a turn about x
        angle = math.pi
    else:
        angle = math.atan2(s, c)
    k = axis / s
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    turn = np.eye(4)
    turn[:3, :3] = np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K
    return turn @ arm.base


@dataclass
class Exported:
    """What every export of a project needs: the numeric arm, its links with their loads lumped, the
    constant DH transform of each link (``offsets``), and link and joint names safe to write."""

    arm: NumericArm
    bodies: LumpedBodies
    standard: bool
    offsets: list[np.ndarray]
    link_names: list[str]
    joint_names: list[str]
    parents: tuple[int, ...] = ()   # 0-based parent of each link (-1 the base); a serial arm's i - 1
    pre: np.ndarray | None = None   # (n, 4, 4): Rz(gamma) Tz(b) of each link (a branch's frame)

    def joint_origin(self, i: int) -> np.ndarray:
        """Joint i's origin in its parent's URDF link (0-based; ``dh_frame0`` for the base): the
        parent's constant DH part (standard), the branch transform, the link's own (modified)."""
        p = self.parents[i] if self.parents else i - 1
        pre = np.eye(4) if self.pre is None else self.pre[i]
        if self.standard:
            return (self.offsets[p] if p >= 0 else np.eye(4)) @ pre
        return pre @ self.offsets[i]


def exported(model: Manipulator, error: type[DesignerError] = UrdfError, tree: bool = False) -> Exported:
    """:class:`Exported` of ``model``; a symbol without a value raises ``error`` naming it, and so
    does a closed chain unless ``tree`` (the URDF writer writes its spanning tree with mimic joints,
    :mod:`.closed_export`; the MJCF writer the tree with equality constraints, designer/mjcf/loops.py):
    a writer reading the links as one serial chain asks without it."""
    if not model.is_serial and not tree:
        raise error("cannot export a closed chain (a tree, passive joints or loops) this way: the links "
                    "would be read as a serial chain")
    try:
        arm = NumericArm.from_model(model)
        branches = TreeArm.from_model(model)
    except MissingParameterError as exc:
        raise error("cannot export: symbol(s) without a value: " + ", ".join(exc.names)) from None
    except ValueError as exc:
        raise error(f"cannot export: {exc}") from None
    standard = arm.convention is Convention.STANDARD
    a, alpha, d, theta = arm.dh.T   # the links' fixed transforms (joint variables at zero)
    offsets = list(dh_matrices(a, alpha, d, theta, arm.convention))
    return Exported(arm, lumped_bodies(arm), standard, offsets, *_names(model), parents=branches.parent,
                    pre=branches.pre)


def urdf_text(model: Manipulator) -> str:
    """The URDF document of ``model``; a symbol without a value raises :class:`UrdfError` naming it.
    A closed chain is written as its spanning tree (:func:`urdf_document`), what that drops said in a
    comment at the top."""
    return urdf_document(model)[0]


def urdf_document(model: Manipulator) -> tuple[str, list[str]]:
    """(the URDF text of ``model``, notes on what a closed chain's URDF cannot say): the links as a
    tree (each joint on its parent's link), passive joints with a linear closure of one actuated joint
    as ``<mimic>`` joints (:mod:`.closed_export`)."""
    from .closed_export import mimic_plan
    out = exported(model, tree=True)
    arm, bodies, standard, M = out.arm, out.bodies, out.standard, out.offsets
    link_names, joint_names = out.link_names, out.joint_names
    mimics, notes = mimic_plan(model, joint_names) if not model.is_serial else ({}, [])

    robot = ET.Element("robot", name=model.name or "manipulator")
    for name, rgba in (("joint", "0.9 0.5 0.1 1"), ("link", "0.6 0.6 0.65 1")):
        ET.SubElement(ET.SubElement(robot, "material", name=name), "color", rgba=rgba)
    ET.SubElement(robot, "link", name="base")
    _meshes(ET.SubElement(robot, "link", name="dh_frame0"), model.base_visuals, np.eye(4))
    fixed = ET.SubElement(robot, "joint", name="base_joint", type="fixed")
    _origin(fixed, urdf_base(arm))
    ET.SubElement(fixed, "parent", link="base")
    ET.SubElement(fixed, "child", link="dh_frame0")
    children = {i: [k for k in range(arm.n) if out.parents[k] == i] for i in range(arm.n)}
    tool_at = model_tool_link(model)   # the tool's link; a closed chain's deepest, not a bar listed last
    for i in range(arm.n):
        link = ET.SubElement(robot, "link", name=link_names[i])
        to_frame = M[i] if standard else np.eye(4)   # DH frame i in this URDF link's frame
        inertial = ET.SubElement(link, "inertial")
        T = to_frame.copy()
        T[:3, 3] = to_frame[:3, :3] @ bodies.com[i] + to_frame[:3, 3]
        _origin(inertial, T)
        ET.SubElement(inertial, "mass", value=_num(bodies.mass[i]))
        I = bodies.inertia[i]
        ET.SubElement(inertial, "inertia", ixx=_num(I[0, 0]), iyy=_num(I[1, 1]), izz=_num(I[2, 2]),
                      ixy=_num(I[0, 1]), ixz=_num(I[0, 2]), iyz=_num(I[1, 2]))
        src = model.links[i]
        _meshes(link, src.visuals, to_frame)
        _cylinder(link, np.eye(4), JOINT_RADIUS, 0.1, "joint", visual=not src.visuals)
        # a stick to each child's joint (modified; the tool's after the last link), to DH frame i (standard)
        ends = [M[i][:3, 3]] if standard else [out.joint_origin(k)[:3, 3] for k in children[i]]
        if not ends and i == tool_at:
            ends = [arm.tool[:3, 3]]
        for end in ends:
            _segment(link, end, visual=not src.visuals)

        revolute = bool(arm.revolute[i])
        limited = not np.isnan(arm.limits[i]).any()
        kind = "prismatic" if not revolute else ("revolute" if limited else "continuous")
        terms = mimics.get(i, [])
        p = out.parents[i]
        joint = _joint(robot, joint_names[i], kind, out.joint_origin(i), link_names[p] if p >= 0 else "dh_frame0",
                       f"{link_names[i]}_mimic2" if len(terms) > 1 else link_names[i], terms[:1], joint_names)
        drive = src.drive
        effort = (drive.peak_torque or drive.rated_torque or 0.0) if drive else 0.0
        velocity = (drive.rated_speed or 0.0) if drive else 0.0
        limit = {"effort": _num(effort), "velocity": _num(velocity)}
        if limited:
            limit.update(lower=_num(arm.limits[i][0]), upper=_num(arm.limits[i][1]))
        ET.SubElement(joint, "limit", attrib=limit)
        if drive and (drive.viscous or drive.coulomb):
            ET.SubElement(joint, "dynamics", damping=_num(drive.viscous or 0.0), friction=_num(drive.coulomb or 0.0))
        for k in range(2, len(terms) + 1):   # a passive joint following several: coaxial mimics (closed_export)
            helper = f"{link_names[i]}_mimic{k}"
            inertial = ET.SubElement(ET.SubElement(robot, "link", name=helper), "inertial")
            ET.SubElement(inertial, "mass", value="0")
            ET.SubElement(inertial, "inertia", ixx="0", iyy="0", izz="0", ixy="0", ixz="0", iyz="0")
            master, multiplier = terms[k - 1]
            helper_joint = _joint(robot, f"{joint_names[i]}_mimic{k}", "continuous", np.eye(4), helper,
                                  f"{link_names[i]}_mimic{k + 1}" if k < len(terms) else link_names[i], terms[k - 1:k],
                                  joint_names)
            if not np.isnan(arm.limits[master]).any():   # the range the master's limits give it
                helper_joint.set("type", "revolute")
                span = sorted(float(multiplier * v) for v in arm.limits[master])
                ET.SubElement(helper_joint, "limit", effort="0", velocity="0", lower=_num(span[0]), upper=_num(span[1]))
    ET.SubElement(robot, "link", name="tool")
    tool = ET.SubElement(robot, "joint", name="tool_joint", type="fixed")
    _origin(tool, (M[tool_at] if standard else np.eye(4)) @ arm.tool)
    ET.SubElement(tool, "parent", link=link_names[tool_at])
    ET.SubElement(tool, "child", link="tool")
    ET.indent(robot)
    head = '<?xml version="1.0"?>\n'
    for note in notes:   # the CLI and the window show the comment lines at the top as notes (export_notes)
        head += "<!-- " + note.replace("--", "- -") + " -->\n"
    return head + ET.tostring(robot, encoding="unicode") + "\n", notes


def _joint(robot: ET.Element, name: str, kind: str, origin: np.ndarray, parent: str, child: str,
           mimic: list[tuple[int, float]], joint_names: list[str]) -> ET.Element:
    joint = ET.SubElement(robot, "joint", name=name, type=kind)
    _origin(joint, origin)
    ET.SubElement(joint, "parent", link=parent)
    ET.SubElement(joint, "child", link=child)
    ET.SubElement(joint, "axis", xyz="0 0 1")
    for master, multiplier in mimic:
        ET.SubElement(joint, "mimic", joint=joint_names[master], multiplier=_num(multiplier), offset="0")
    return joint


def export_notes(text: str) -> list[str]:
    """The notes an exported file carries: the comment lines after its XML declaration (a URDF's) or
    after its top element's opening line (an MJCF's)."""
    out: list[str] = []
    for k, line in enumerate(text.splitlines()[1:]):
        line = line.strip()
        if line.startswith("<!--") and line.endswith("-->"):
            out.append(line[4:-3].strip())
        elif out or k > 0:
            break
    return out


def write_text(path, text: str, error: type[DesignerError] = UrdfError) -> None:
    """``text`` into the file ``path``; ``error`` naming it when that fails."""
    from pathlib import Path
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot write: {exc.strerror or exc}") from None


def export_urdf(model: Manipulator, path) -> None:
    """Write ``model`` as a URDF file."""
    write_text(path, urdf_text(model))
