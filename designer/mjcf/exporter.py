"""Project -> MJCF: one body per DH link, hinge or slide joints about z, inertials, drives, motors.

The bodies are the URDF export's links (designer/urdf/exporter.py), every joint at its body's origin on z;
the mapping of drive data (armature, damping, frictionloss, motor gear and ctrlrange) is in docs/mjcf.md.
An elastic joint's gearbox numbers go to ``<custom><numeric>`` (:func:`_gearbox_numbers`). A mass or
principal moment MuJoCo would refuse (below 1e-15) gets a floor of 1e-12 of the arm's largest (at least
1e-14), and an inertia breaking the triangle inequality is raised until it holds (:func:`_triangle`); the
file says so in a comment."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np

from ..kinematics.closure import ClosureError, assembled_model
from ..kinematics.tree import TreeArm
from ..model import MissingParameterError
from ..model.drives import numeric_drives
from ..model.manipulator import Manipulator
from ..model.mechanism import model_tool_link
from ..urdf.exporter import JOINT_RADIUS, LINK_RADIUS, _num, _vec, exported
from .loops import loop_equalities
from .source import MjcfError

__all__ = ["mjcf_text"]

#: the smallest mass and principal moment written, relative to the arm's largest (module docstring)
FLOOR = 1e-12


def _quat(R: np.ndarray) -> str:
    """(w, x, y, z) of a rotation matrix, w >= 0 (Shepperd's method: stable for every rotation)."""
    t = np.trace(R)
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        q = [0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = math.sqrt(1.0 + R[i, i] - R[j, j] - R[k, k]) * 2
        q = [0.0] * 4
        q[0] = (R[k, j] - R[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (R[j, i] + R[i, j]) / s
        q[1 + k] = (R[k, i] + R[i, k]) / s
    q = np.array(q) / np.linalg.norm(q)
    return _vec(-q if q[0] < 0 else q)


def _place(el: ET.Element, T: np.ndarray) -> None:
    el.set("pos", _vec(T[:3, 3]))
    el.set("quat", _quat(T[:3, :3]))


def _segment(body: ET.Element, end: np.ndarray) -> None:
    """A thin massless capsule from the body's origin to ``end`` (the stick figure)."""
    if float(np.linalg.norm(end)) > 1e-6:
        ET.SubElement(body, "geom", type="capsule", size=_num(LINK_RADIUS), fromto="0 0 0 " + _vec(end),
                      material="link", contype="0", conaffinity="0")


#: the mesh files MuJoCo reads (its compiler refuses others, such as COLLADA's .dae)
MESH_SUFFIXES = (".stl", ".obj", ".msh")


def _visuals(body: ET.Element, asset: ET.Element, visuals, to_frame: np.ndarray, end: np.ndarray | None,
             left_out: list[str]) -> None:
    """The geometry drawn for a body: the project's visual meshes (``visuals``, placed in the DH frame
    that ``to_frame`` puts in the body's frame) as <mesh> assets and geoms that neither collide nor
    weigh (the inertial is explicit), else the stick figure (a joint drum and a capsule to ``end``).
    Meshes MuJoCo cannot read are named in ``left_out``."""
    drawn = 0
    for visual in visuals:
        if not visual.mesh.lower().endswith(MESH_SUFFIXES):
            left_out.append(visual.mesh)
            continue
        name = f"mesh{len(asset.findall('mesh'))}"
        ET.SubElement(asset, "mesh", name=name, file=visual.mesh, scale=_vec(visual.scale))
        geom = ET.SubElement(body, "geom", type="mesh", mesh=name, contype="0", conaffinity="0", group="1")
        _place(geom, to_frame @ visual.matrix())
        if visual.color is not None:
            geom.set("rgba", _vec(visual.color))
        drawn += 1
    if drawn or end is None:
        return
    ET.SubElement(body, "geom", type="cylinder", size=f"{JOINT_RADIUS} 0.05", material="joint",
                  contype="0", conaffinity="0")
    _segment(body, end)


def _triangle(I: np.ndarray) -> tuple[np.ndarray, float]:
    """``I`` with its smallest principal moment raised until the two smaller add up to the largest
    (MuJoCo refuses the inertia otherwise), and by how much (0: unchanged). Such an inertia is a
    simplification (the PUMA 560's link 1 has only its moment about the joint axis, 0.35 kg m^2);
    the raise is about an axis across the largest moment's, which for a link that turns only about
    that axis changes nothing in M."""
    w, V = np.linalg.eigh(I)
    short = w[2] - w[1] - w[0]
    if short <= 1e-12 * max(w[2], 1e-300):
        return I, 0.0
    w[0] += short
    return V @ np.diag(w) @ V.T, float(short)


def _assembled(model: Manipulator) -> tuple[Manipulator, str] | None:
    """(the model with its passive joints' zero at the assembled pose, the file's note) for a closed chain whose
    nominal pose the closure assembles (:func:`designer.kinematics.closure.assembled_model`); None otherwise (and
    where the loops cannot be assembled or a value is missing: the export's checks name that)."""
    if not model.loops:
        return None
    try:
        shifted, assembly = assembled_model(model)
    except (ClosureError, MissingParameterError, ValueError, TypeError):
        return None
    if not assembly.assembled:
        return None
    tree = TreeArm.from_model(model)
    values = ", ".join(f"{model.links[i].joint_name or f'joint{i + 1}'} {_num(assembly.q[i])}"
                       for i in tree.passive if assembly.q[i] != 0.0)
    loops = ", ".join(tree.loop_names[k] for k in assembly.assembled)
    return shifted, (f"not closed at the project's nominal pose (every joint 0): {loops}; written at the pose the "
                     f"closure assembles, the passive joints' zero moved by {values} (rad or m; MuJoCo's value = the "
                     "project's minus that)")


def _massless(body: ET.Element) -> None:
    """An explicit empty inertial: Pinocchio's MJCF reader wants one on every body (geoms carry no mass)."""
    ET.SubElement(body, "inertial", pos="0 0 0", mass="0", diaginertia="0 0 0")


def mjcf_text(model: Manipulator) -> str:
    """The MJCF document of ``model``; a symbol without a value raises :class:`MjcfError` naming it. A closed chain
    whose nominal pose does not close is written at the pose the closure assembles (MuJoCo's connects hold the
    bodies as they are at qpos0): its passive joints' zero moved there, a comment says by how much."""
    moved = _assembled(model)
    model = model if moved is None else moved[0]
    out = exported(model, MjcfError, tree=True)
    arm, bodies, standard, M = out.arm, out.bodies, out.standard, out.offsets
    link_names, joint_names = out.link_names, out.joint_names
    scale = max([float(bodies.mass.max(initial=0.0))] + [float(np.abs(I).max()) for I in bodies.inertia])
    floor = max(FLOOR * scale, 1e-14)

    root = ET.Element("mujoco", model=model.name or "manipulator")
    ET.SubElement(root, "compiler", angle="radian", inertiafromgeom="false", autolimits="true")
    ET.SubElement(root, "option", gravity=_vec(arm.base[:3, :3] @ arm.gravity))
    asset = ET.SubElement(root, "asset")
    for name, rgba in (("joint", "0.9 0.5 0.1 1"), ("link", "0.6 0.6 0.65 1")):
        ET.SubElement(asset, "material", name=name, rgba=rgba)
    world = ET.SubElement(root, "worldbody")
    # Pinocchio's MJCF reader takes the top body for its root and drops its placement: the base pose
    # goes on a body inside it (a root body placed off the origin came out with gravity turned)
    parent = ET.SubElement(world, "body", name="base")
    _massless(parent)
    parent = ET.SubElement(parent, "body", name="dh_frame0")
    _place(parent, arm.base)
    _massless(parent)
    floored: list[str] = []
    changed: list[str] = []
    left_out: list[str] = []
    _visuals(parent, asset, model.base_visuals, np.eye(4), None, left_out)
    frame0 = parent
    elements: list[ET.Element] = []
    children = [[k for k in range(arm.n) if out.parents[k] == i] for i in range(arm.n)]
    for i in range(arm.n):
        link, drive = model.links[i], model.links[i].drive
        p = out.parents[i]   # a closed chain's tree: each body inside the body it is mounted on
        body = ET.SubElement(elements[p] if p >= 0 else frame0, "body", name=link_names[i])
        elements.append(body)
        _place(body, out.joint_origin(i))
        revolute = bool(arm.revolute[i])
        joint = ET.SubElement(body, "joint", name=joint_names[i], type="hinge" if revolute else "slide",
                              pos="0 0 0", axis="0 0 1")
        if not np.isnan(arm.limits[i]).any():
            joint.set("range", _vec(arm.limits[i]))
        if drive is not None:
            for attr, value in (("armature", drive.reflected_inertia), ("damping", drive.viscous),
                                ("frictionloss", drive.coulomb)):
                if value:
                    joint.set(attr, _num(value))
        to_frame = M[i] if standard else np.eye(4)   # DH frame i in this body's frame
        R = to_frame[:3, :3]
        I = R @ bodies.inertia[i] @ R.T
        mass = float(bodies.mass[i])
        if mass < floor or np.linalg.eigvalsh(I).min() < floor:
            floored.append(link_names[i])
            mass, I = max(mass, floor), I + floor * np.eye(3)
        I, raised = _triangle(I)
        if raised:
            changed.append(f"{link_names[i]} (smallest principal moment raised by {raised:.3g} kg m^2)")
        ET.SubElement(body, "inertial", pos=_vec(R @ bodies.com[i] + to_frame[:3, 3]), mass=_num(mass),
                      fullinertia=_vec([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]))
        nxt = [out.joint_origin(k)[:3, 3] for k in children[i]] + [arm.tool[:3, 3]]
        end = M[i][:3, 3] if standard else nxt[0]
        _visuals(body, asset, link.visuals, to_frame, end, left_out)
    tool_at = model_tool_link(model)   # a closed chain's tool: on its deepest link
    tool = ET.SubElement(elements[tool_at], "body", name="tool")
    _place(tool, (M[tool_at] if standard else np.eye(4)) @ arm.tool)
    _massless(tool)
    if model.loops:
        loops = loop_equalities(root, model, out, link_names)
        root.insert(0, ET.Comment(f" closed chain: the loops {loops} closed by MuJoCo's soft equality constraints at "
                                  "their cut joints (a revolute: two connects on its axis) "))
        if moved is not None:
            root.insert(1, ET.Comment(f" {moved[1]} "))
    actuator = ET.SubElement(root, "actuator")
    for i, link in enumerate(model.links):
        if not link.actuated:   # a closed chain's passive joint has no motor
            continue
        drive = link.drive
        gear = (drive.gear_ratio if drive and drive.gear_ratio else 1.0)
        motor = ET.SubElement(actuator, "motor", name=f"{joint_names[i]}_motor", joint=joint_names[i], gear=_num(gear))
        limit = (drive.rated_torque or drive.peak_torque) if drive else None
        if limit:
            motor.set("ctrlrange", _vec([-limit / gear, limit / gear]))
    _gearbox_numbers(root, model, joint_names)
    if left_out:
        root.insert(0, ET.Comment(f" meshes MuJoCo cannot read left out ({', '.join(MESH_SUFFIXES)} only; convert "
                                  "them and add them by hand): " + ", ".join(left_out) + " "))
    if changed:
        root.insert(0, ET.Comment(" inertias that break the triangle inequality (MuJoCo refuses them), made to hold "
                                  "it with the least change: " + "; ".join(changed) + " "))
    if floored:
        root.insert(0, ET.Comment(f" mass and principal moments of {', '.join(floored)} raised to {floor:.1e} "
                                  "(MuJoCo refuses a moving body without them) "))
    ET.indent(root)
    return '<?xml version="1.0"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _gearbox_numbers(root: ET.Element, model: Manipulator, joint_names: list[str]) -> None:
    """The elastic joints' gearbox stiffness and damping as ``<custom><numeric>`` data (``stiffness_JOINT``,
    ``damping_JOINT``; a named one at its parameter's value): MJCF's own joint ``stiffness`` is a spring to
    ``springref``, not a gearbox between a rotor and its link, so it would be the wrong model."""
    rows = [(f"{field}_{joint_names[i]}", value) for i, d in enumerate(numeric_drives(model)) if d is not None
            for field in ("stiffness", "damping") if (value := getattr(d, field)) is not None]
    if rows:
        custom = ET.SubElement(root, "custom")
        for name, value in rows:
            ET.SubElement(custom, "numeric", name=name, data=_num(value))


