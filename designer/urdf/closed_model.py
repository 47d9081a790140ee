"""A file's loops -> a closed-chain project: the steps of :mod:`.closed_import` put together, on the
URDF import's pieces (the DH links, the report). docs/urdf.md "Mimic joints that close a loop" and
docs/mjcf.md "Import of loops".
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np

from ..model.manipulator import Convention, Manipulator
from ..model.mechanism import model_tool_link
from ..project.source import MAX_LINKS
from . import closed_import as ci
from .building import ImportReport, ParallelSnaps, gravity_fields, make_link, pose_of, refuse_invalid
from .chain import axes_at, default_tip, world_poses
from .closed_export import relation_text
from .dh import dh_numbers
from .numbers import tidy_angle, tidy_number
from .source import UrdfError, UrdfTree

__all__ = ["import_closed", "proposed_tip"]


def proposed_tip(tree: UrdfTree, base: str) -> tuple[str | None, bool]:
    """(the tip an import proposes below ``base``, whether the file's loops then close): the arm's end
    beside the bars of a loop the mimic joints (or an MJCF's connects) describe, else
    :func:`.chain.default_tip`."""
    if tree.cuts or any(tree.joints[j].mimic for l in tree.subtree(base) for j in tree.child_joints.get(l, [])):
        try:
            tip = ci.default_tip(ci.merge_coaxial_mimics(tree), base)
            made = import_closed(tree, base, tip, Convention.STANDARD, False, True, "URDF", None)
            if not isinstance(made, str):
                return tip, True
            made = import_closed(tree, base, tip, Convention.MODIFIED, False, True, "URDF", None)
            if not isinstance(made, str):
                return tip, True
        except (UrdfError, ValueError, np.linalg.LinAlgError):
            pass
    return default_tip(tree, base), False


def import_closed(tree: UrdfTree, base, tip, convention: Convention, drop_rest: bool, massless: bool,
                   source: str, gravity) -> ImportReport | str:
    """The closed chain the file's mimic joints (or an MJCF's connects) describe (:mod:`.closed_import`),
    or why there is none."""
    original, tree = tree, ci.merge_coaxial_mimics(tree)
    base = base or tree.root
    note = ""
    if tip is None:
        choice = ci.tip_choice(tree, base)
        if choice.tip is None:
            return choice.refusal
        tip, note = choice.tip, choice.note
    chain, parents, main = ci.mechanism_chain(tree, base, tip, drop_rest)
    chain.notes += [note] if note else []
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
    axes, snaps = ci.snap_tree(axes_at(tree, chain, poses), parents, main, poses[chain.tip][:3, 3], tree.literal)
    leaf_poses = [poses[tree.joints[j].child] for j in chain.joints]
    frames = ci.branch_frames(axes, parents, main, poses[chain.base], poses[chain.tip], leaf_poses, convention)
    parallel, links = ParallelSnaps([(chain.joints[a], chain.joints[b], snap) for a, b, snap in snaps]), []
    warnings: list[str] = []
    lumped: dict[str, list[str]] = {}
    for k, j in enumerate(chain.joints):
        p = parents[k]
        extra = {} if p == k - 1 else {"parent": p + 1}
        # a branch's first link (the one after a link of the chain from base to tip, or the base's, may start
        # one) hangs from a frame made for another joint: plain DH from it only in the standard convention,
        # whose refusal says so
        continues = p == k - 1 and not ((p in main or p == -1) and k not in main)
        try:
            if continues or convention is Convention.STANDARD:
                numbers = dh_numbers(frames[p + 1], frames[k + 1], convention)
            else:
                gamma, b, numbers = ci.kk_numbers(np.linalg.solve(frames[p + 1], frames[k + 1]))
                extra.update(gamma=tidy_angle(gamma), b=tidy_number(b))
        except ValueError:
            branch = (f"joint {j!r} does not turn about the z axis of the frame of the link it hangs from, as the "
                      f"{convention.value} convention needs for a branch")
            if convention is Convention.MODIFIED:
                return branch
            # the way out is the modified convention where it makes the mechanism; else what stops that stops both
            other = import_closed(original, base, tip, Convention.MODIFIED, drop_rest, massless, source, gravity)
            return f"{branch} (import with --convention modified)" if isinstance(other, ImportReport) else other
        shift = values.get(j, 0.0)
        links.append(make_link(tree, chain, k, numbers, frames[k + 1], poses, lumped, warnings, massless,
                               actuated=j not in passive, shift=shift, **extra))
    tool = np.linalg.solve(frames[main[-1] + 1], poses[chain.tip])
    model = Manipulator(
        links=tuple(links), name=tree.name, convention=convention,
        description=f"Imported from {os.path.basename(source)}: {chain.base} to {chain.tip}, closed by its "
                    + ("connects" if tree.cuts else "mimic joints"),
        gravity_in_world=True, **gravity_fields(gravity),
        base=pose_of(frames[0]), tool=pose_of(tool))
    relation = {index[j]: {index[a]: m for a, m in terms.items() if m != 0} for j, (terms, _) in rel.items()}
    if tree.cuts:   # an MJCF's connects say where the loops close
        made = ci.cut_loops(tree, chain, frames, poses)
        if isinstance(made, str):
            return made
        loops = made
    else:
        leaves = [k for k in range(len(chain.joints)) if k not in main and k not in parents]
        loops = ci.find_loops(model, leaves, relation)
        found = {lp.link_i - 1 for lp in loops} | {lp.link_j - 1 for lp in loops}
        lost = [chain.joints[k] for k in leaves if k not in found]
        if lost or not loops:
            return "no pin found for the branch ending at joint(s) " + ", ".join(repr(j) for j in lost) + \
                " (no link it turns about a fixed axis with when the mimic relations hold)"
    model = replace(model, loops=tuple(loops))
    why = ci.closure_matches(model, relation, exact=not tree.cuts)
    if why:
        return _coupled(tree, chain, base, model, len(loops)) or why
    warnings += refuse_invalid(model)
    deepest = model_tool_link(model)
    if deepest != len(links) - 1:
        warnings.append(f"the tool is on {links[-1].name!r} (the tip), but the closed-chain views and metrics put "
                        f"it on the tree's deepest link, {links[deepest].name!r} (a bar hangs deeper than the tip)")
    notes = list(parallel.notes)
    for j, (terms, off) in rel.items():
        notes.append(f"joint {j!r} = {relation_text(terms.items())}" + (f" + {off:g}" if off else "") +
                     " (its mimic joints) made passive" +
                     (f"; its project value is the file's minus {off:g}" if off else ""))
    kinds = {"R": "revolute", "S": "ball", "F": "fixed"}
    for lp in loops:
        notes.append(f"loop {lp.name!r}: {kinds[lp.joint.value]} cut joint between {links[lp.link_i - 1].name!r} and "
                     + (repr(links[lp.link_j - 1].name) if lp.link_j else "the base")
                     + ("; its closure reproduces the mimic relations exactly" if rel else " (the file's connects)"))
    return ImportReport(model, source, chain, lumped, warnings, notes=notes, moved=parallel.moved)


def _coupled(tree: UrdfTree, chain, base: str, model: Manipulator, loops: int) -> str | None:
    """Why the mechanism cannot be a project when its loops leave passive joints free (the file ties them by a
    coupling of their own: a mimic across two loops, an MJCF joint equality or tendon), naming them and the tip
    to import the arm to without them; None when the loops determine every passive joint."""
    free = [chain.joints[k] for k in ci.free_passive(model)]
    if not free:
        return None
    masters = sorted({str(tree.joints[j].mimic) for j in free if tree.joints[j].mimic is not None})
    tied = (f"which the file ties to joint(s) {', '.join(map(repr, masters))} by <mimic> alone" if masters else
            "which no actuator of the file drives directly (a joint equality or tendon does)")
    # the arm to import instead: up to the link these joints hang from nearest the base (the rest locked and lumped)
    hangs = min((tree.joints[j].parent for j in free), key=lambda link: len(tree.path(base, link) or []))
    return (f"the {loops} loop(s) leave joint(s) {', '.join(map(repr, free))} free to move, {tied}: a coupling "
            f"with no loop is not a project element; import the arm to {hangs!r} with those joints locked and "
            f"lumped (--tip {hangs})")
