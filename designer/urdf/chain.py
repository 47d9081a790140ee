"""Choosing the serial chain in a URDF tree and sorting every other link into a body or out.

The chain is the path of joints from the base link down to the tip link; each movable joint
on it starts a body. The tip, unless named, follows one rule for URDF and MJCF (:func:`choose_tip`):
the arm is the longest chain of moving joints from the base; equally long chains that part near
the end (fingers) end the arm where they part. A link off the path belongs to the body of the path link it hangs from:
joined by fixed joints it is lumped in; behind a movable joint off the path it is locked at
that joint's zero and lumped in (as Pinocchio's buildReducedModel), or dropped on request.
Links fixed to the base before the first movable joint do not move and are left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..project.source import MAX_LINKS
from .dh import Axis
from .source import MULTI_DOF, UrdfError, UrdfTree

__all__ = ["Chain", "TipChoice", "chain_ends", "choose_tip", "default_tip", "moving_count", "select_chain",
           "world_poses", "axes_at"]


@dataclass
class Chain:
    base: str
    tip: str
    joints: list[str]                               # the movable joints, base outwards
    bodies: list[list[str]]                         # links of each moving body
    locked: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # links left out with --drop-rest
    fixed_to_base: list[str] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)   # a closed chain's: each body's parent (-1 the base)
    notes: list[str] = field(default_factory=list)     # how the tip was chosen, when the report must say it
    locked_into: dict[str, int] = field(default_factory=dict)   # locked joint -> the body it is lumped into


def world_poses(tree: UrdfTree, values: dict[str, float] | None = None) -> dict[str, np.ndarray]:
    """Every link's frame in the root link's frame with all joints at zero, or at ``values``
    ({joint: rad or m}, the others at zero: a mimic joint's offset)."""
    poses = {tree.root: np.eye(4)}
    todo = [tree.root]
    while todo:
        link = todo.pop()
        for j in tree.child_joints.get(link, []):
            joint = tree.joints[j]
            poses[joint.child] = poses[link] @ joint.origin @ _motion(joint, (values or {}).get(j, 0.0))
            todo.append(joint.child)
    return poses


def axes_at(tree: UrdfTree, chain: Chain, poses) -> list[Axis]:
    """The chain's joint axes (point, direction) in the root link's frame at the link ``poses``."""
    out = []
    for j in chain.joints:
        joint = tree.joints[j]
        T = poses[joint.parent] @ joint.origin
        out.append(Axis(T[:3, 3].copy(), T[:3, :3] @ joint.axis))
    return out


def _motion(joint, value: float) -> np.ndarray:
    T = np.eye(4)
    if value == 0.0 or not joint.movable:
        return T
    if joint.type == "prismatic":
        T[:3, 3] = joint.axis * value
        return T
    k = joint.axis
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    T[:3, :3] = np.eye(3) + np.sin(value) * K + (1 - np.cos(value)) * K @ K
    return T


def chain_ends(tree: UrdfTree, base: str) -> list[str]:
    """The ends of the tree below ``base`` an arm could end at: leaves with a movable joint on the way."""
    leaves = tree.leaves(base)
    # a leaf fixed to the base (a mounting plate, a "base" frame) is not where the arm ends
    moving = [leaf for leaf in leaves if any(tree.joints[j].movable for j in tree.path(base, leaf) or [])]
    return moving or leaves


def moving_count(tree: UrdfTree, joints) -> int:
    """The joints of ``joints`` that move (a mimic joint too: a finger following the other finger still
    makes its chain as long as the other's)."""
    return sum(tree.joints[j].movable for j in joints)


class TipNeeded(UrdfError):
    """The tree names no end by the one rule (two arms): the user names the tip."""


@dataclass
class TipChoice:
    """The arm's end below a base by the one rule (:func:`choose_tip`), or why there is none."""

    tip: str | None
    note: str = ""       # for the report: the arm ends where equally long chains part
    refusal: str = ""    # one line: why no tip is chosen (name it with --tip)
    longest: int = 0     # moving joints of the longest chain below the base
    to: str = ""         # an end of a longest chain


def choose_tip(tree: UrdfTree, base: str, ends: list[str] | None = None) -> TipChoice:
    """The arm is the longest chain of moving joints from ``base`` (among ``ends``, by default every
    leaf below it): the end of the only longest chain; when several are equally long, the link where
    they part if no more moving joints follow the parting than come before it (a hand's fingers, a
    gripper and its propeller: they are locked at zero and lumped into it), else none (two arms).
    Links hanging by fixed joints only are part of the link they hang from and never compete."""
    leaves = list(ends) if ends is not None else tree.leaves(base)
    if not leaves:
        return TipChoice(None, refusal=f"nothing hangs below {base!r}")
    paths = {leaf: tree.path(base, leaf) or [] for leaf in leaves}
    count = {leaf: moving_count(tree, paths[leaf]) for leaf in leaves}
    longest = max(count.values())
    top = [leaf for leaf in leaves if count[leaf] == longest]
    if len(top) == 1 or longest == 0:
        # no moving joint at all: the only end, else the base itself (select_chain says there is nothing to move)
        tip = top[0] if len(top) == 1 else base
        return TipChoice(tip, longest=longest, to=top[0])
    common = 0
    while all(len(paths[l]) > common for l in top) and len({paths[l][common] for l in top}) == 1:
        common += 1
    shared = paths[top[0]][:common]
    parting = tree.joints[shared[-1]].child if shared else base
    before = moving_count(tree, shared)
    named = sorted(top)
    ends_text = ", ".join(repr(t) for t in named[:4]) + (", ..." if len(named) > 4 else "")
    if before == longest:   # the ends hang by fixed joints only (a flange and a tool frame): part of that link
        return TipChoice(parting, longest=longest, to=named[0])
    if before >= longest - before:
        return TipChoice(parting, longest=longest, to=named[0],
                         note=f"the arm ends at {parting!r}, where {len(top)} equally long chains of moving joints "
                              f"part (to {ends_text}, {longest - before} joint(s) beyond it each): locked at zero and "
                              "lumped in (--tip names another end)")
    offer = _branch_tips(tree, base, top, paths, common)
    return TipChoice(None, longest=longest, to=named[0],
                     refusal=f"the tree below {base!r} holds {len(top)} equally long chains of {longest} moving "
                             f"joint{'s' if longest != 1 else ''}, parting at {parting!r}, to {ends_text}: name the "
                             f"tip (--tip {offer[0]} or --tip {offer[1]})")


def _branch_tips(tree: UrdfTree, base: str, top: list[str], paths: dict, common: int) -> list[str]:
    """A tip to offer on each branch where the longest chains part (two arms): the branch's own end by the
    one rule (its hand, where its fingers part), else its first end by name; sorted."""
    branches: dict[str, list[str]] = {}
    for leaf in top:
        branches.setdefault(paths[leaf][common], []).append(leaf)
    offers = sorted({choose_tip(tree, base, ends).tip or min(ends) for ends in branches.values()})
    return offers if len(offers) > 1 else sorted(top)[:2]


def default_tip(tree: UrdfTree, base: str) -> str | None:
    """The arm's end below ``base`` by the one rule (:func:`choose_tip`), or None when it names none."""
    return choose_tip(tree, base).tip


def check_names(tree: UrdfTree, base: str | None, tip: str | None) -> None:
    """Refuse a base or tip that names no link, naming the links nearest in spelling (else the first ten)."""
    import difflib
    links = list(tree.inertials)
    for name, what in ((base, "base"), (tip, "tip")):
        if name is not None and name not in links:
            near = difflib.get_close_matches(name, links, n=5, cutoff=0.6)
            shown = (f"the nearest: {', '.join(map(repr, near))}; {len(links)} links" if near else
                     "links: " + ", ".join(links[:10]) + (", ..." if len(links) > 10 else ""))
            raise UrdfError(f"no link named {name!r} for the {what} ({shown})")


def select_chain(tree: UrdfTree, base: str | None = None, tip: str | None = None,
                 drop_rest: bool = False) -> Chain:
    base = base or tree.root
    check_names(tree, base, tip)
    choice = choose_tip(tree, base)
    if tip is None:
        if choice.tip is None:
            raise TipNeeded(choice.refusal)
        tip = choice.tip
    notes = [choice.note] if choice.note and tip == choice.tip else []
    path = tree.path(base, tip)
    if path is None:
        raise UrdfError(f"link {tip!r} is not below link {base!r}: the chain from base to tip must be a path "
                        "down the tree")
    movable = [j for j in path if tree.joints[j].movable]
    for j in path:
        joint = tree.joints[j]
        if joint.type in MULTI_DOF:
            raise UrdfError(f"joint {j!r} is {joint.type}: only revolute, continuous, prismatic and fixed joints "
                            f"can be on the chain (a mobile base? start the arm below it: --base {joint.child})")
        if joint.mimic:
            raise UrdfError(f"joint {j!r} mimics joint {joint.mimic!r}: mimic joints cannot be imported")
    if not movable:
        raise UrdfError(f"no movable joint between {base!r} and {tip!r}")
    if len(movable) > MAX_LINKS:   # a project could not be opened again
        raise UrdfError(f"{len(movable)} movable joints between {base!r} and {tip!r}: a project holds at most "
                        f"{MAX_LINKS} (choose a nearer --tip)")
    if moving_count(tree, path) < choice.longest and not notes:   # never a shorter arm without saying so
        notes.append(f"the tip {tip!r} ends an arm of {moving_count(tree, path)} moving joint(s); the longest chain "
                     f"below {base!r} has {choice.longest} (to {choice.to!r})")
    on_path = set(path)
    chain = Chain(base, tip, movable, [[] for _ in movable], notes=notes)
    walk_bodies(tree, chain, on_path, drop_rest)
    return chain


def walk_bodies(tree: UrdfTree, chain: Chain, on_path: set[str], drop_rest: bool, branch=None) -> None:
    """Sort the links below ``chain.base`` into ``chain``'s bodies (the chain's joints are ``chain.joints``):
    fixed to a body, locked behind a movable joint off the path (or dropped), fixed to the base.
    ``branch(joint)``: whether a movable joint off the path starts a body of its own (a closed chain's
    bar, designer/urdf/closed_import.py), appended to ``chain.joints`` with its parent body in
    ``chain.parents``."""
    index = {j: k for k, j in enumerate(chain.joints)}
    # walk the subtree below the base: (link, body index or None before joint 1)
    todo: list[tuple[str, int | None]] = [(chain.base, None)]
    while todo:
        link, owner = todo.pop()
        if owner is None:
            if link != chain.base:
                chain.fixed_to_base.append(link)
        else:
            chain.bodies[owner].append(link)
        for j in tree.child_joints.get(link, []):
            joint = tree.joints[j]
            if j in on_path:
                todo.append((joint.child, index.get(j, owner)))
                continue
            if branch is not None and joint.movable and branch(j):   # a bar, on a body or on the base itself
                chain.joints.append(j)
                chain.bodies.append([])
                chain.parents.append(-1 if owner is None else owner)
                todo.append((joint.child, len(chain.joints) - 1))
                continue
            if joint.movable or joint.type in MULTI_DOF:
                if drop_rest and owner is not None:
                    chain.dropped.extend(tree.subtree(joint.child))
                    continue
                if owner is not None:
                    if joint.type in MULTI_DOF:
                        raise UrdfError(f"joint {j!r} is {joint.type} and off the chain: it cannot be locked "
                                        "(use --drop-rest to leave its links out)")
                    if joint.mimic in on_path:
                        raise UrdfError(f"joint {j!r} mimics joint {joint.mimic!r} of the chain: it cannot be "
                                        "locked (use --drop-rest to leave its links out)")
                    chain.locked.append(j)
                    chain.locked_into[j] = owner
            todo.append((joint.child, owner))
