"""The pieces every import builds a project from (designer/urdf/importer.py for a serial chain,
designer/urdf/closed_model.py for a closed one): the report, a DH link with its lumped body,
limits and drive, exact angles, poses, gravity, and the refusal of a model the loader would refuse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ..model.expr import symbol
from ..model.extras import Drive, Pose, rpy_from_matrix
from ..model.manipulator import Inertia, JointType, Link, Manipulator
from ..model.validation import Severity, validate
from .chain import Chain
from .check import CHECK_POSES
from .numbers import tidy_angle, tidy_number
from .rigid import Body, combine
from .source import UrdfError, UrdfTree

__all__ = ["ParallelSnaps", "ImportReport", "drive_of", "gravity_fields", "make_link", "pose_of", "refuse_invalid"]


@dataclass
class ImportReport:
    """What an import made and what it did with the rest of the file."""

    model: Manipulator
    source: str
    chain: Chain
    lumped: dict[str, list[str]] = field(default_factory=dict)   # DH link name -> URDF links lumped in
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)   # what reading the file changed or computed: axes, angles,
    # inertia from meshes, visuals
    checked: float | None = None   # largest disagreement with the file's own tree (relative)
    moved: float = 0.0              # the sum of the angles (rad) the import changed
    checked_by: str = "the file's own kinematic tree"
    # how far the arm made lies from the file as written when angles were read as exact ones (the
    # largest relative difference of M, G and tool pose; None: nothing read so, or --literal)
    as_written: float | None = None

    def locked_text(self) -> str:
        """The joints locked at zero, each with the DH link its branch is lumped into."""
        into: dict[str, list[str]] = {}
        for j in self.chain.locked:
            k = self.chain.locked_into.get(j)
            name = self.model.links[k].name if k is not None and k < len(self.model.links) else ""
            into.setdefault(name or "", []).append(j)
        return "; ".join((f"{', '.join(js)} into {name}" if name else ", ".join(js)) for name, js in into.items())

    def text(self) -> str:
        c = self.chain
        lines = [f"imported {self.source}: {len(c.joints)} joints from {c.base!r} to {c.tip!r} "
                 f"({self.model.convention.value} DH) in {self.seconds:.2f} s"]
        lines += ["  " + n for n in c.notes]
        for name, parts in self.lumped.items():
            if parts:
                lines.append(f"  lumped into {name}: " + ", ".join(parts))
        if c.locked:
            lines.append("  locked at zero (and lumped): " + self.locked_text())
        if c.dropped:
            lines.append("  dropped: " + ", ".join(c.dropped))
        if c.fixed_to_base:
            lines.append("  fixed to the base (no effect on the dynamics): " + ", ".join(c.fixed_to_base))
        lines += ["  " + n for n in self.notes]
        if self.checked is not None:
            lines.append(f"  checked against {self.checked_by} at {CHECK_POSES} random poses: "
                         f"M, G and tool pose agree to {self.checked:.1e} relative")
        lines += ["  warning: " + w for w in self.warnings]
        return "\n".join(lines) + "\n"


def vec_of(values, scale: float = 1.0) -> tuple[sp.Expr, ...]:
    return tuple(tidy_number(v, scale) for v in values)


class ParallelSnaps:
    """What the conversion changed of the file's arm: axes nearly parallel, made parallel (not with ``literal``),
    each with a note. Nothing else: angles a file writes rounded are read as the exact ones where they are read
    (urdf/source.py, mjcf/source.py; not with ``literal``), and the DH angles are then the file's exactly, k pi/12
    only where they are one to machine precision (:func:`tidy_angle`), never snapped again (a DH angle near
    k pi/12 that the file does not write as one, Sawyer's right_j5 from a quaternion written 0.0616248 0.06163
    ..., stays as the file has it)."""

    def __init__(self, snaps) -> None:
        """``snaps`` holds (joint, joint, :class:`.dh.Snap`) for each pair of axes made parallel."""
        self.notes: list[str] = []
        self.moved = 0.0    # the sum of every angle changed (rad)
        for before, joint, snap in snaps:
            if snap.angle > 1e-12:   # below, the file meant parallel to the last digit and nothing moved
                self.notes.append(f"joints {before!r} and {joint!r}: axes {snap.angle:.1e} rad from parallel, made "
                                  f"parallel (moves the arm by up to {snap.moved:.1e} m)")
            self.moved += snap.angle


def pose_of(T: np.ndarray) -> Pose:
    return Pose(vec_of(T[:3, 3]), tuple(tidy_angle(a) for a in rpy_from_matrix(T[:3, :3])))


def drive_of(joint) -> Drive | None:
    def positive(v):
        return v if v is not None and v > 0 else None
    # MJCF's armature is the joint-side reflected inertia N^2 Jm: with the actuator's gear as N the
    # motor inertia is armature / N^2; without an actuator N = 1 (only the product enters the dynamics)
    armature, gear = positive(joint.armature), positive(abs(joint.gear) if joint.gear is not None else None)
    if gear is not None and gear < 1e-6:   # armature / N^2 would overflow; no gearbox is 1e-6 : 1
        raise UrdfError(f"joint {joint.name!r}: actuator gear {joint.gear:g} is too small to be a gear ratio")
    if armature is not None and gear is None:
        gear = 1.0
    elif armature is None and gear == 1.0:   # an actuator's default gear says nothing about a gearbox
        gear = None
    return Drive(rated_torque=positive(joint.rated_torque), peak_torque=positive(joint.effort),
                 rated_speed=positive(joint.velocity), gear_ratio=gear,
                 motor_inertia=None if armature is None or gear is None else armature / gear ** 2,
                 viscous=positive(joint.damping), coulomb=positive(joint.friction))


def make_link(tree: UrdfTree, chain: Chain, k: int, numbers, frame: np.ndarray, poses, lumped: dict,
              warnings: list[str], massless: bool, **fields) -> Link:
    """The DH link of the chain's joint k: its DH ``numbers`` (a, alpha, d, theta), its frame in the world
    (the bodies of ``chain.bodies[k]`` lumped into it), limits and drive; ``fields``: more Link fields."""
    a, alpha, d, theta = numbers
    j = chain.joints[k]
    joint = tree.joints[j]
    parts = []
    for link in chain.bodies[k]:
        ine = tree.inertials[link]
        if ine is not None:
            parts.append(Body(ine.mass, ine.com, ine.inertia).moved(poses[link]))
    name = tree.labels.get(joint.child, joint.child)
    if not parts:
        if not massless:
            raise UrdfError(f"link {name!r} (moved by joint {j!r}) and the links fixed to it have no "
                            "<inertial>: add one, or import it massless (--massless)")
        warnings.append(f"link {name!r} (moved by joint {j!r}) has no <inertial>: imported massless")
    body = combine(parts).moved(np.linalg.inv(frame)) if parts else Body.empty()
    scale = float(np.abs(body.inertia).max()) if parts else 1.0
    lumped[name] = [tree.labels.get(l, l) for l in chain.bodies[k] if tree.labels.get(l, l) != name]
    revolute = joint.type != "prismatic"
    limits = None
    shift = fields.pop("shift", 0.0)   # a mimic joint's offset taken into theta (closed_import)
    if joint.type != "continuous" and joint.lower is not None and joint.upper is not None:
        if joint.upper > joint.lower:
            limits = (tidy_number(joint.lower - shift), tidy_number(joint.upper - shift))
        elif joint.upper < joint.lower:  # equal bounds are the usual 'no limits' placeholder
            warnings.append(f"joint {j!r}: limit lower {joint.lower:g} > upper {joint.upper:g}: "
                            "imported without limits")
    return Link(
        JointType.REVOLUTE if revolute else JointType.PRISMATIC,
        a=tidy_number(a), alpha=tidy_angle(alpha), d=tidy_number(d), theta=tidy_angle(theta),
        mass=tidy_number(body.mass), com=vec_of(body.com), inertia=Inertia.from_matrix(
            [[tidy_number(body.inertia[r, c], scale) for c in range(3)] for r in range(3)]),
        name=name, joint_name=j, limits=limits, drive=drive_of(joint), **fields)


def gravity_fields(gravity: tuple[float, float, float] | None) -> dict:
    """A URDF's gravity is -z of its world with a simulator's magnitude (9.81 by default): a symbol g;
    another vector (an MJCF's <option gravity>) keeps that magnitude, or is written as it stands."""
    if gravity is None:
        return {"gravity": (0, 0, -symbol("g")), "parameters": (("g", 9.81),)}
    gx, gy, gz = (float(v) for v in gravity)
    if gx == 0 and gy == 0 and gz < 0:
        return {"gravity": (0, 0, -symbol("g")), "parameters": (("g", -gz),)}
    return {"gravity": tuple(tidy_number(v) for v in (gx, gy, gz)), "parameters": ()}


def refuse_invalid(model: Manipulator) -> list[str]:
    """A model the project loader would refuse (an inertia that is not positive semi-definite...)
    is refused here, naming the URDF link, instead of being written to a file that cannot be opened.
    Returns the lines of the inertias the loader warns of (the triangle inequality broken), so named:
    the import report says so, not only a later ``validate``."""
    lines: list[str] = []
    for problem in validate(model):
        where = problem.where
        match = re.match(r"links\[(\d+)\]", where)
        if match:
            k = int(match.group(1)) - 1
            where = f"link {model.links[k].name!r} (moved by joint {model.links[k].joint_name!r})" + \
                where[match.end():].replace(".", ", ", 1)
        if problem.severity is Severity.ERROR:
            raise UrdfError(f"{where}: {problem.message}")
        if match and problem.where.endswith(".inertia"):
            lines.append(f"{where}: {problem.message}")
    return lines
