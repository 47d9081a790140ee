"""URDF -> project: the chosen chain as a DH model with lumped bodies, base and tool poses, drives."""

from __future__ import annotations

import math
import os
from dataclasses import replace

import numpy as np

from ..model.manipulator import Convention, Link, Manipulator
from ..kinematics import NumericArm
from .building import ImportReport, ParallelSnaps, gravity_fields, make_link, pose_of, refuse_invalid
from .chain import Chain, TipNeeded, axes_at, check_names, select_chain, world_poses
from .check import CHECK_TOL, check_against_tree
from .dh import FAR, Axis, dh_frames, dh_numbers, snap_parallel
from .numbers import ANGLE_SNAP
from .source import UrdfError, UrdfTree, written

__all__ = ["ImportReport", "import_tree"]


def import_tree(tree: UrdfTree, *, base: str | None = None, tip: str | None = None,
                convention: Convention | str = Convention.STANDARD, drop_rest: bool = False,
                massless: bool = False, source: str = "URDF",
                gravity: tuple[float, float, float] | None = None, literal: bool = False) -> ImportReport:
    """The model of a kinematic tree (a URDF's, or an MJCF's read into the same form: designer/mjcf).
    ``gravity``: the world's gravity vector when it is not (0, 0, -9.81) as a URDF's. ``literal``: the
    tree of the file as written (:func:`.source.written`), no angle made exact, no axes made parallel;
    otherwise the report says how far the arm lies from the file as written when the reader read angles
    as exact ones."""
    if literal:
        tree = written(tree)
    report = _import(tree, base, tip, Convention(convention), drop_rest, massless, source, gravity)
    _as_written_note(report, tree)
    return report


def _import(tree: UrdfTree, base, tip, convention: Convention, drop_rest: bool, massless: bool, source: str,
            gravity) -> ImportReport:
    check_names(tree, base, tip)   # a name that is not there is said alone, not as why no loop was found
    why = None
    what = "connects (equality constraints)" if tree.cuts else "mimic joints"
    below = tree.subtree(base or tree.root)
    if tree.cuts or any(tree.joints[j].mimic for l in below for j in tree.child_joints.get(l, [])):
        from .closed_model import import_closed
        report = import_closed(tree, base, tip, convention, drop_rest, massless, source, gravity)
        if isinstance(report, ImportReport):
            return report
        why = report
    try:
        serial = _import_serial(tree, base, tip, convention, drop_rest, massless, source, gravity)
    except UrdfError as exc:
        if isinstance(exc, TipNeeded) and why and "name the tip" in why:   # the loop search found no tip either:
            raise UrdfError(str(exc)) from None                              # one request to name it, not two
        raise UrdfError(f"{exc} (the {what} make no closed chain: {why})" if why and why != str(exc)
                        else str(exc)) from None
    if why:
        serial.notes.append(f"{what} not imported as a loop: {why}")
    return serial


def _import_serial(tree: UrdfTree, base, tip, convention: Convention, drop_rest: bool, massless: bool,
                   source: str, gravity) -> ImportReport:
    chain = select_chain(tree, base, tip, drop_rest)
    poses = world_poses(tree)
    axes = axes_at(tree, chain, poses)
    axes, snaps = snap_parallel(axes, [a.point for a in axes] + [poses[chain.tip][:3, 3]], tree.literal)
    frames = dh_frames(axes, poses[chain.base], poses[chain.tip], convention)
    far = _far_normals(tree, chain, axes, frames)
    warnings = list(far)
    parallel = ParallelSnaps([(chain.joints[s.index - 1], chain.joints[s.index], s) for s in snaps])
    links: list[Link] = []
    lumped: dict[str, list[str]] = {}
    for k, j in enumerate(chain.joints):
        try:
            numbers = dh_numbers(frames[k], frames[k + 1], convention)
        except ValueError as exc:
            raise UrdfError(f"joint {j!r}: {exc}") from None
        links.append(make_link(tree, chain, k, numbers, frames[k + 1], poses, lumped, warnings, massless))
    tool = np.linalg.solve(frames[-1], poses[chain.tip])
    model = Manipulator(
        links=tuple(links), name=tree.name, convention=convention,
        description=f"Imported from {os.path.basename(source)}: {chain.base} to {chain.tip}",
        gravity_in_world=True, **gravity_fields(gravity),
        base=pose_of(frames[0]), tool=pose_of(tool))
    warnings += refuse_invalid(model)
    try:
        return check_import(ImportReport(model, source, chain, lumped, warnings, notes=parallel.notes,
                                         moved=parallel.moved), tree)
    except UrdfError as exc:
        if not (tree.literal and far):
            raise
        # the numbers as written: DH frames of nearly parallel axes lie far out and cannot hold the arm
        raise UrdfError(f"{exc}: as written, {far[0].split(';')[0]}; without --literal such axes are read as "
                        "parallel") from None


def check_import(report: ImportReport, tree: UrdfTree) -> ImportReport:
    """``report`` with its model checked against the tree (:mod:`.check`); raises :class:`UrdfError`
    with the figure when they disagree beyond 1e-9 relative plus 10 times the angles the import
    changed (a turn of e rad moves the arm's parts by e times their distance)."""
    arm = NumericArm.from_model(report.model)
    report.checked = check_against_tree(arm, tree, report.chain, CHECK_TOL + 10 * report.moved)
    return report


def _as_written_note(report: ImportReport, tree: UrdfTree) -> None:
    """One line of the report when the reader read angles of the file as exact ones: how many, the largest
    change, and how far the arm made lies from the file as written (link frames at the zero pose; M, G
    and the tool pose at random poses, relative as the check); ``report.as_written`` the latter."""
    if tree.literal or tree.as_written is None or not tree.snaps:
        return
    # of equal changes, one that moves the arm rather than a picture (<visual>, <collision>, MJCF's geoms)
    largest = max(tree.snaps, key=lambda s: (s.angle, not any(w in s.where for w in ("<visual>", "<collision>",
                                                                                      "geom ", "site "))))
    # links the import gave an inertia (from meshes, --density) have it in the file as written too
    then_tree = replace(tree.as_written, inertials={
        link: ine if ine is not None else tree.inertials.get(link) for link, ine in tree.as_written.inertials.items()})
    now, then = world_poses(tree), world_poses(then_tree)
    common = [link for link in now if link in then]
    moved = max(float(np.linalg.norm(now[l][:3, 3] - then[l][:3, 3])) for l in common)
    # |R - R'| (Frobenius) is 2 sqrt(2) sin(angle / 2) for the turn between them
    turned = max(2 * math.asin(min(1.0, float(np.linalg.norm(now[l][:3, :3] - then[l][:3, :3])) / (2 * math.sqrt(2))))
                 for l in common)
    text = (f"{len(tree.snaps)} angle(s) of the file within {ANGLE_SNAP:g} rad of a multiple of pi/12 read as it "
            f"(largest {largest.angle:.1e} rad: {largest.where} \"{largest.written}\"); the file as written moves "
            f"the link frames by up to {moved:.1e} m and {turned:.1e} rad")
    if report.model.is_serial and report.chain.tip in then:
        arm = NumericArm.from_model(report.model)
        report.as_written = check_against_tree(arm, then_tree, report.chain, math.inf)
        text += f", M, G and the tool pose by {report.as_written:.1e} relative"
    report.notes.append(text + " (--literal takes the numbers as written)")


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
