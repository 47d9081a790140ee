"""URDF -> project: the chosen chain as a DH model with lumped bodies, base and tool poses, drives."""

from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass, field, replace

import numpy as np
import sympy as sp

from ..model.expr import symbol
from ..project.io import MAX_LINKS
from ..model.extras import Drive, Pose, rpy_from_matrix
from ..model.manipulator import Convention, Inertia, JointType, Link, Manipulator
from ..model.validation import Severity, validate
from ..kinematics import NumericArm
from .chain import Chain, select_chain, world_poses
from .check import CHECK_POSES, CHECK_TOL, check_against_tree
from .dh import FAR, Axis, dh_frames, dh_numbers, snap_parallel
from .numbers import snap_angle, tidy_number
from .rigid import Body, combine
from .source import UrdfError, UrdfTree, read_urdf

__all__ = ["ImportReport", "import_urdf", "import_tree", "proposed_tip"]


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

    def text(self) -> str:
        c = self.chain
        lines = [f"imported {self.source}: {len(c.joints)} joints from {c.base!r} to {c.tip!r} "
                 f"({self.model.convention.value} DH) in {self.seconds:.2f} s"]
        for name, parts in self.lumped.items():
            if parts:
                lines.append(f"  lumped into {name}: " + ", ".join(parts))
        if c.locked:
            lines.append("  locked at zero (and lumped): " + ", ".join(c.locked))
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


def import_urdf(path: str | os.PathLike, *, base: str | None = None, tip: str | None = None,
                convention: Convention | str = Convention.STANDARD, drop_rest: bool = False,
                massless: bool = False) -> ImportReport:
    """Read a URDF file and make a model of the chain from ``base`` to ``tip``.

    Raises :class:`UrdfError` (one line naming the file and the joint or link) for what cannot
    be represented. ``massless``: a moving body without any ``<inertial>`` gets mass 0 and a
    warning instead of a refusal.
    """
    start = time.perf_counter()
    tree = read_urdf(path)
    try:
        report = import_tree(tree, base=base, tip=tip, convention=convention, drop_rest=drop_rest,
                             massless=massless, source=str(path))
    except UrdfError as exc:
        raise UrdfError(f"{path}: {exc}") from None
    report.seconds = time.perf_counter() - start
    return report


def _vec(values, scale: float = 1.0) -> tuple[sp.Expr, ...]:
    return tuple(tidy_number(v, scale) for v in values)


class _Angles:
    """Angles read as multiples of pi/12 when within ANGLE_SNAP of one, with a note for each."""

    def __init__(self):
        self.notes: list[str] = []
        self.moved = 0.0    # the sum of every angle changed (rad)

    def snapped(self, snaps) -> None:
        """Notes for axes made parallel: ``snaps`` holds (joint, joint, :class:`.dh.Snap`)."""
        for before, joint, snap in snaps:
            if snap.angle > 1e-12:   # below, the file meant parallel to the last digit and nothing moved
                self.notes.append(f"joints {before!r} and {joint!r}: axes {snap.angle:.1e} rad from parallel, made "
                                  f"parallel (moves the arm by up to {snap.moved:.1e} m)")
            self.moved += snap.angle

    def __call__(self, value: float, where: str) -> sp.Expr:
        angle, off = snap_angle(value)
        if off:
            self.notes.append(f"{where} = {value!r} read as {sp.sstr(angle)} ({off:.1e} rad)")
            self.moved += off
        return angle


def _pose(T: np.ndarray, angles: _Angles, where: str) -> Pose:
    rpy = rpy_from_matrix(T[:3, :3])
    return Pose(_vec(T[:3, 3]), tuple(angles(a, f"{where} {n}") for n, a in zip(("roll", "pitch", "yaw"), rpy)))


def _drive(joint) -> Drive | None:
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


def import_tree(tree: UrdfTree, *, base: str | None = None, tip: str | None = None,
                convention: Convention | str = Convention.STANDARD, drop_rest: bool = False,
                massless: bool = False, source: str = "URDF",
                gravity: tuple[float, float, float] | None = None) -> ImportReport:
    """The model of a kinematic tree (a URDF's, or an MJCF's read into the same form: designer/mjcf).
    ``gravity``: the world's gravity vector when it is not (0, 0, -9.81) as a URDF's."""
    convention = Convention(convention)
    why = None
    what = "connects (equality constraints)" if tree.cuts else "mimic joints"
    below = tree.subtree(base or tree.root)
    if tree.cuts or any(tree.joints[j].mimic for l in below for j in tree.child_joints.get(l, [])):
        report = _import_closed(tree, base, tip, convention, drop_rest, massless, source, gravity)
        if isinstance(report, ImportReport):
            return report
        why = report
    try:
        serial = _import_serial(tree, base, tip, convention, drop_rest, massless, source, gravity)
    except UrdfError as exc:
        raise UrdfError(f"{exc} (the {what} describe no loop: {why})" if why else str(exc)) from None
    if why:
        serial.notes.append(f"{what} not imported as a loop: {why}")
    return serial


def _import_serial(tree: UrdfTree, base, tip, convention: Convention, drop_rest: bool, massless: bool,
                   source: str, gravity) -> ImportReport:
    chain = select_chain(tree, base, tip, drop_rest)
    poses = world_poses(tree)
    axes = []
    for j in chain.joints:
        joint = tree.joints[j]
        T = poses[joint.parent] @ joint.origin
        axes.append(Axis(T[:3, 3].copy(), T[:3, :3] @ joint.axis))
    axes, snaps = snap_parallel(axes, [a.point for a in axes] + [poses[chain.tip][:3, 3]])
    frames = dh_frames(axes, poses[chain.base], poses[chain.tip], convention)
    warnings = _far_normals(tree, chain, axes, frames)
    angles = _Angles()
    angles.snapped([(chain.joints[s.index - 1], chain.joints[s.index], s) for s in snaps])
    links: list[Link] = []
    lumped: dict[str, list[str]] = {}
    for k, j in enumerate(chain.joints):
        try:
            numbers = dh_numbers(frames[k], frames[k + 1], convention)
        except ValueError as exc:
            raise UrdfError(f"joint {j!r}: {exc}") from None
        links.append(make_link(tree, chain, k, numbers, frames[k + 1], poses, angles, lumped, warnings, massless))
    tool = np.linalg.solve(frames[-1], poses[chain.tip])
    model = Manipulator(
        links=tuple(links), name=tree.name, convention=convention,
        description=f"Imported from {os.path.basename(source)}: {chain.base} to {chain.tip}",
        gravity_in_world=True, **_gravity(gravity),
        base=_pose(frames[0], angles, "base"), tool=_pose(tool, angles, "tool"))
    _refuse_invalid(model)
    return check_import(ImportReport(model, source, chain, lumped, warnings, notes=angles.notes, moved=angles.moved),
                        tree)


def proposed_tip(tree: UrdfTree, base: str) -> tuple[str | None, bool]:
    """(the tip an import proposes below ``base``, whether the file's loops then close): the arm's end
    beside the bars of a loop the mimic joints (or an MJCF's connects) describe, else
    :func:`.chain.default_tip`."""
    from . import closed_import as ci
    from .chain import default_tip
    if tree.cuts or any(tree.joints[j].mimic for l in tree.subtree(base) for j in tree.child_joints.get(l, [])):
        try:
            tip = ci.default_tip(ci.merge_coaxial_mimics(tree), base)
            made = _import_closed(tree, base, tip, Convention.STANDARD, False, True, "URDF", None)
            if not isinstance(made, str):
                return tip, True
            made = _import_closed(tree, base, tip, Convention.MODIFIED, False, True, "URDF", None)
            if not isinstance(made, str):
                return tip, True
        except (UrdfError, ValueError, np.linalg.LinAlgError):
            pass
    return default_tip(tree, base), False


def _import_closed(tree: UrdfTree, base, tip, convention: Convention, drop_rest: bool, massless: bool,
                   source: str, gravity) -> ImportReport | str:
    """The closed chain the file's mimic joints describe (:mod:`.closed_import`), or why there is none."""
    from . import closed_import as ci
    tree = ci.merge_coaxial_mimics(tree)
    base = base or tree.root
    tip = tip or ci.default_tip(tree, base)
    chain, parents, main = ci.mechanism_chain(tree, base, tip, drop_rest)
    try:
        rel = ci.relations(tree, chain.joints)
    except KeyError as exc:
        return f"joint {exc.args[0]!r} is followed by a mimic joint but is not a joint of the arm"
    except ValueError as exc:
        return str(exc)
    passive = set(rel) | {j for j in chain.joints if tree.joints[j].passive}
    if not passive or not main:
        return "no mimic or passive joint on the arm or hanging from it"
    if len(chain.joints) > MAX_LINKS:
        return f"{len(chain.joints)} movable joints in the mechanism: a project holds at most {MAX_LINKS}"
    if main[-1] in parents:
        return (f"the tip's link {chain.bodies[main[-1]][0]!r} carries the bars (a project's tool sits on its last "
                "link): name a tip beyond them (--tip)")
    index = {j: k for k, j in enumerate(chain.joints)}
    values = {j: off for j, (_, off) in rel.items()}
    poses = world_poses(tree, values)
    axes, snaps = ci.snap_tree(ci.axes_at(tree, chain, poses), parents, main, poses[chain.tip][:3, 3])
    leaf_poses = [poses[tree.joints[j].child] for j in chain.joints]
    frames = ci.branch_frames(axes, parents, main, poses[chain.base], poses[chain.tip], leaf_poses, convention)
    angles, links = _Angles(), []
    angles.snapped([(chain.joints[a], chain.joints[b], snap) for a, b, snap in snaps])
    warnings: list[str] = []
    lumped: dict[str, list[str]] = {}
    for k, j in enumerate(chain.joints):
        p = parents[k]
        extra = {} if p == k - 1 else {"parent": p + 1}
        try:
            if p == k - 1 or convention is Convention.STANDARD:
                numbers = dh_numbers(frames[p + 1], frames[k + 1], convention)
            else:
                gamma, b, numbers = ci.kk_numbers(np.linalg.solve(frames[p + 1], frames[k + 1]))
                extra.update(gamma=angles(gamma, f"joint {j!r}: gamma"), b=tidy_number(b))
        except ValueError:
            return (f"joint {j!r} does not turn about the z axis of the frame of the link it hangs from, as the "
                    f"{convention.value} convention needs for a branch (import with --convention modified)")
        shift = values.get(j, 0.0)
        links.append(make_link(tree, chain, k, numbers, frames[k + 1], poses, angles, lumped, warnings, massless,
                               actuated=j not in passive, shift=shift, **extra))
    tool = np.linalg.solve(frames[main[-1] + 1], poses[chain.tip])
    model = Manipulator(
        links=tuple(links), name=tree.name, convention=convention,
        description=f"Imported from {os.path.basename(source)}: {chain.base} to {chain.tip}, closed by its "
                    "mimic joints",
        gravity_in_world=True, **_gravity(gravity),
        base=_pose(frames[0], angles, "base"), tool=_pose(tool, angles, "tool"))
    relation = {index[j]: {index[a]: m for a, m in terms.items() if m != 0} for j, (terms, _) in rel.items()}
    if tree.cuts:   # an MJCF's connects say where the loops close
        made = ci.cut_loops(tree, chain, frames, poses)
        if isinstance(made, str):
            return made
        loops = made
    else:
        leaves = [k for k in range(len(chain.joints)) if k not in main and k not in parents]
        loops = ci.find_loops(model, leaves, relation)
        if len(loops) < len(leaves) or not loops:
            found = {lp.link_i - 1 for lp in loops}
            lost = [chain.joints[k] for k in leaves if k not in found]
            return "no pin found for the branch ending at joint(s) " + ", ".join(repr(j) for j in lost) + \
                " (no link it turns about a fixed axis with when the mimic relations hold)"
    model = replace(model, loops=tuple(loops))
    why = ci.closure_matches(model, relation, exact=not tree.cuts)
    if why:
        return why
    _refuse_invalid(model)
    from ..model.mechanism import parents_of, tool_link
    deepest = tool_link(parents_of(model.links))
    if deepest != len(links) - 1:
        warnings.append(f"the tool is on {links[-1].name!r} (the tip), but the closed-chain views and metrics put "
                        f"it on the tree's deepest link, {links[deepest].name!r} (a bar hangs deeper than the tip)")
    notes = list(angles.notes)
    from .closed_export import relation_text
    for j, (terms, off) in rel.items():
        notes.append(f"joint {j!r} = {relation_text(terms.items())}" + (f" + {off:g}" if off else "") +
                     " (its mimic joints) made passive" +
                     (f"; its project value is the file's minus {off:g}" if off else ""))
    kinds = {"R": "revolute", "S": "ball", "F": "fixed"}
    for lp in loops:
        notes.append(f"loop {lp.name!r}: {kinds[lp.joint.value]} cut joint between {links[lp.link_i - 1].name!r} and "
                     + (repr(links[lp.link_j - 1].name) if lp.link_j else "the base")
                     + ("; its closure reproduces the mimic relations exactly" if rel else " (the file's connects)"))
    report = ImportReport(model, source, chain, lumped, warnings, notes=notes, moved=angles.moved)
    report.checked_by = "the mimic relations (closure at random poses)"
    return report


def make_link(tree: UrdfTree, chain: Chain, k: int, numbers, frame: np.ndarray, poses, angles: _Angles,
              lumped: dict, warnings: list[str], massless: bool, **fields) -> Link:
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
        a=tidy_number(a), alpha=angles(alpha, f"joint {j!r}: alpha"),
        d=tidy_number(d), theta=angles(theta, f"joint {j!r}: theta"),
        mass=tidy_number(body.mass), com=_vec(body.com), inertia=Inertia.from_matrix(
            [[tidy_number(body.inertia[r, c], scale) for c in range(3)] for r in range(3)]),
        name=name, joint_name=j, limits=limits, drive=_drive(joint), **fields)


def check_import(report: ImportReport, tree: UrdfTree) -> ImportReport:
    """``report`` with its model checked against the tree (:mod:`.check`); raises :class:`UrdfError`
    with the figure when they disagree beyond 1e-9 relative plus 10 times the angles the import
    changed (a turn of e rad moves the arm's parts by e times their distance)."""
    arm = NumericArm.from_model(report.model)
    report.checked = check_against_tree(arm, tree, report.chain, CHECK_TOL + 10 * report.moved)
    return report


def _gravity(gravity: tuple[float, float, float] | None) -> dict:
    """A URDF's gravity is -z of its world with a simulator's magnitude (9.81 by default): a symbol g;
    another vector (an MJCF's <option gravity>) keeps that magnitude, or is written as it stands."""
    if gravity is None:
        return {"gravity": (0, 0, -symbol("g")), "parameters": (("g", 9.81),)}
    gx, gy, gz = (float(v) for v in gravity)
    if gx == 0 and gy == 0 and gz < 0:
        return {"gravity": (0, 0, -symbol("g")), "parameters": (("g", -gz),)}
    return {"gravity": tuple(tidy_number(v) for v in (gx, gy, gz)), "parameters": ()}


def _far_normals(tree: UrdfTree, chain: Chain, axes: list[Axis], frames: list[np.ndarray]) -> list[str]:
    """Warnings for nearly parallel axes whose common normal lies far out (1.5708 written for pi/2
    leaves 4e-6 rad: 50 km for axes 0.2 m apart). The model is right, but every evaluation carries
    moments about that far point and cancels them again, losing up to about (distance / reach)^2 * 1e-15."""
    points = np.array([a.point for a in axes])
    reach = max(float(np.linalg.norm(points[:, None] - points[None], axis=-1).max()), 1e-3)
    out = []
    for i in range(len(axes) - 1):
        origin = frames[i + 1][:3, 3]
        far = min(float(np.linalg.norm(origin - axes[i].point)), float(np.linalg.norm(origin - axes[i + 1].point)))
        if far > FAR * reach:
            sine = float(np.linalg.norm(np.cross(axes[i].direction, axes[i + 1].direction)))
            angle = math.asin(min(1.0, sine))
            j, k = chain.joints[i], chain.joints[i + 1]
            out.append(f"joints {j!r} and {k!r}: axes {angle:.2g} rad from parallel put their common normal "
                       f"{far:.3g} m out; numbers computed with these DH frames lose digits (about "
                       f"{(far / reach) ** 2 * 1e-15:.0e} relative). If the axes are meant to be parallel, write the "
                       "URDF's angles in full (1.5707963267948966, not 1.5708)")
    return out


def _refuse_invalid(model: Manipulator) -> None:
    """A model the project loader would refuse (an inertia that is not positive semi-definite...)
    is refused here, naming the URDF link, instead of being written to a file that cannot be opened."""
    for problem in validate(model):
        if problem.severity is not Severity.ERROR:
            continue
        where = problem.where
        match = re.match(r"links\[(\d+)\]", where)
        if match:
            k = int(match.group(1)) - 1
            where = f"link {model.links[k].name!r} (moved by joint {model.links[k].joint_name!r})" + \
                where[match.end():].replace(".", ", ", 1)
        raise UrdfError(f"{where}: {problem.message}")
