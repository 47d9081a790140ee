"""URDF mimic joints that describe a loop -> a closed-chain project (docs/urdf.md, "Mimic joints that close a loop").

The steps, as the manual numbers them: coaxial mimic joints through massless links merged into one; the
mechanism (the chain plus every branch hanging from it through a movable mimic joint, those passive); a pin
found for each bar's last body (a fixed relative axis at random poses, to 1e-9 of the arm's size) made a
revolute cut joint; the closure (designer/kinematics/closure.py) must be linear and reproduce the mimic
relations, or the serial importer decides. A mimic's offset goes into the passive joint's DH offset."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..kinematics.closure import Closure, ClosureError
from ..kinematics.tree import TreeArm
from ..model.extras import Pose
from ..model.manipulator import Convention, Manipulator
from ..model.mechanism import CutJoint, Loop
from .chain import Chain, walk_bodies
from .dh import Axis, dh_frames, dh_numbers, snap_parallel
from .source import MULTI_DOF, UrdfError, UrdfJoint, UrdfTree

__all__ = ["merge_coaxial_mimics", "mechanism_chain", "relations", "find_loops", "kk_numbers", "closure_matches",
           "free_passive"]

#: a pin is accepted when the relative motion fixes a line to this share of the arm's size
PIN_TOL = 1e-9


def _pure_mimic(joint: UrdfJoint) -> bool:
    return joint.mimic is not None and joint.type in ("revolute", "continuous")


def merge_coaxial_mimics(tree: UrdfTree) -> UrdfTree:
    """``tree`` with each revolute mimic joint whose child is a massless link carrying only another
    revolute mimic joint on the same axis line (same direction) merged: the first follows the sum,
    the second becomes a fixed joint (rotations about one line add and commute)."""
    joints = dict(tree.joints)
    labels = dict(tree.labels)
    changed = True
    while changed:
        changed = False
        for name, first in joints.items():
            kids = tree.child_joints.get(first.child, [])
            ine = tree.inertials.get(first.child)
            if not _pure_mimic(first) or len(kids) != 1 or (ine is not None and ine.mass != 0):
                continue
            second = joints[kids[0]]
            if not _pure_mimic(second) or tree.visuals.get(first.child):
                continue
            R, t = second.origin[:3, :3], second.origin[:3, 3]
            line = R @ second.axis
            if np.abs(line - first.axis).max() > 1e-12 or np.linalg.norm(np.cross(t, first.axis)) > 1e-12:
                continue
            terms: tuple[tuple[str, float], ...] = ((str(second.mimic), second.multiplier),) + second.also
            joints[name] = replace(first, also=first.also + terms, offset=first.offset + second.offset)
            joints[kids[0]] = replace(second, type="fixed", mimic=None, also=())
            labels[first.child] = labels.get(second.child, second.child)   # the body is named by its link
            changed = True
            break
    return replace(tree, joints=joints, labels=labels)


def relations(tree: UrdfTree, names: list[str]) -> dict[str, tuple[dict[str, float], float]]:
    """{mimic joint: ({independent joint: multiplier}, offset)} among ``names``, mimics of mimics
    substituted; raises KeyError naming a joint followed that is not among ``names``, ValueError for
    a cycle."""
    out: dict[str, tuple[dict[str, float], float]] = {}

    def resolve(name: str, depth: int = 0) -> tuple[dict[str, float], float]:
        joint = tree.joints[name]
        if joint.mimic is None:
            if name not in names:
                raise KeyError(name)
            return {name: 1.0}, 0.0
        if depth > len(names):
            raise ValueError(f"the mimic joints through {name!r} follow each other in a cycle")
        terms: dict[str, float] = {}
        offset = joint.offset
        for master, m in ((joint.mimic, joint.multiplier),) + joint.also:
            if master not in names:
                raise KeyError(master)
            sub, off = resolve(master, depth + 1)
            offset += m * off
            for k, v in sub.items():
                terms[k] = terms.get(k, 0.0) + m * v
        return terms, offset

    for name in names:
        if tree.joints[name].mimic is not None:
            out[name] = resolve(name)
    return out


def mechanism_chain(tree: UrdfTree, base: str, tip: str, drop_rest: bool) -> tuple[Chain, list[int], list[int]]:
    """(the chain from ``base`` to ``tip`` plus the branches holding movable mimic joints, the parent
    body of each joint: -1 the base, the bodies from base to tip). Each body comes after its parent,
    the tip's last."""
    path = tree.path(base, tip) or []
    on_path = set(path)
    main = [j for j in path if tree.joints[j].movable]
    for j in path:
        if tree.joints[j].type in MULTI_DOF:
            raise UrdfError(f"joint {j!r} is {tree.joints[j].type}: only revolute, continuous, prismatic and fixed "
                            "joints can be on the chain")
    chain = Chain(base, tip, list(main), [[] for _ in main], parents=list(range(-1, len(main) - 1)))
    walk_bodies(tree, chain, on_path, drop_rest, lambda j: _carries_mimic(tree, j))
    parents = chain.parents
    return _tip_last(chain, parents, len(main))


def _tip_last(chain: Chain, parents: list[int], n_main: int) -> tuple[Chain, list[int], list[int]]:
    """The bodies reordered so that each comes after its parent and the tip's comes last (a project's
    tool sits on its last link): depth first, the child towards the tip visited last."""
    children: dict[int, list[int]] = {k: [] for k in range(-1, len(parents))}
    for k, p in enumerate(parents):
        children[p].append(k)
    towards_tip = set(range(n_main))
    order: list[int] = []
    todo = sorted(children[-1], key=lambda c: c in towards_tip, reverse=True)
    while todo:
        k = todo.pop()
        order.append(k)
        todo += sorted(children[k], key=lambda c: c in towards_tip, reverse=True)
    new = {old: i for i, old in enumerate(order)}
    chain.joints = [chain.joints[k] for k in order]
    chain.bodies = [chain.bodies[k] for k in order]
    chain.parents = [new[parents[k]] if parents[k] >= 0 else -1 for k in order]
    chain.locked_into = {j: new[k] for j, k in chain.locked_into.items()}
    return chain, chain.parents, [new[k] for k in range(n_main)]


def _carries_mimic(tree: UrdfTree, j: str) -> bool:
    """Joint j is a mimic or passive joint, or one behind it is, or a body behind it closes a loop
    (an MJCF connect): its branch belongs to the mechanism."""
    cut_bodies = {b for a, c, _ in tree.cuts for b in (a, c)}

    def marks(k: str) -> bool:
        joint = tree.joints[k]
        return joint.movable and (joint.mimic is not None or joint.passive)
    below = tree.subtree(tree.joints[j].child)
    return marks(j) or any(marks(k) for link in below for k in tree.child_joints.get(link, [])) or \
        any(link in cut_bodies for link in below)


def cut_loops(tree: UrdfTree, chain: Chain, frames, poses) -> list[Loop] | str:
    """The loops of an MJCF's connects (``tree.cuts``) between the mechanism's links, or why not: two
    points of a body pair on a line are a revolute cut joint on it, one a ball joint, three a fixed one."""
    owner = {link: k for k, links in enumerate(chain.bodies) for link in links}
    owner.update({link: -1 for link in [chain.base, *chain.fixed_to_base]})
    loops = []
    for a, b, points in tree.cuts:
        if a not in owner or b not in owner:
            return f"the loop between bodies {a!r} and {b!r} closes outside the arm's mechanism"
        world = (poses[a] @ np.column_stack([points, np.ones(len(points))]).T).T[:, :3]
        if len(points) == 1:
            W, kind = np.eye(4), CutJoint.SPHERICAL
            W[:3, 3] = world[0]
        elif len(points) == 2:
            W, kind = _frame_on(world[0], world[1] - world[0]), CutJoint.REVOLUTE
        else:
            W, kind = _frame_on(world[0], np.cross(world[1] - world[0], world[2] - world[0])), CutJoint.FIXED
        i, j = owner[a], owner[b]
        loops.append(Loop(i + 1, j + 1, _pose(np.linalg.solve(frames[i + 1], W)),
                          _pose(np.linalg.solve(frames[j + 1], W)), kind, f"{a} to {b}"))
    return loops


def tip_choice(tree: UrdfTree, base: str):
    """The end of the arm (:class:`.chain.TipChoice`): of the ends below ``base`` those whose path holds
    the fewest mimic joints (the bars of a parallelogram end beside the arm), then the one rule of
    :func:`.chain.choose_tip` among them (the longest chain of moving joints; fingers locked)."""
    from .chain import chain_ends, choose_tip

    def mimics(leaf: str) -> int:
        return sum(tree.joints[j].mimic is not None for j in tree.path(base, leaf) or [])
    ends = chain_ends(tree, base)
    fewest = min((mimics(e) for e in ends), default=0)
    return choose_tip(tree, base, [e for e in ends if mimics(e) == fewest])


def default_tip(tree: UrdfTree, base: str) -> str:
    """The end of the arm by :func:`tip_choice`; a :class:`UrdfError` naming the ends when it names none."""
    choice = tip_choice(tree, base)
    if choice.tip is None:
        raise UrdfError(choice.refusal)
    return choice.tip


def kk_numbers(T: np.ndarray) -> tuple[float, float, tuple[float, float, float, float]]:
    """(gamma, b, (a, alpha, d, theta)) with T = Rz(gamma) Tz(b) * modified DH (Khalil and Kleinfinger);
    raises ValueError when T's z axis cannot be reached so (it always can)."""
    z, o = T[:3, 2], T[:3, 3]
    cross = np.cross([0.0, 0.0, 1.0], z)
    s = float(np.linalg.norm(cross))
    if s > 1e-10:
        n = cross / s
        # the common normal's foot on the parent's z: o + t z meets (0, 0, b) + a n
        A = np.column_stack([[0.0, 0.0, 1.0], n, -z])
        b, a, _ = np.linalg.solve(A, o)
        if a < 0:
            n = -n
    else:
        b = float(o[2])
        n = np.array([o[0], o[1], 0.0])
        n = n / np.linalg.norm(n) if np.linalg.norm(n) > 1e-10 else np.array([1.0, 0.0, 0.0])
    gamma = float(np.arctan2(n[1], n[0]))
    pre = np.eye(4)
    c, si = np.cos(gamma), np.sin(gamma)
    pre[:2, :2] = [[c, -si], [si, c]]
    pre[2, 3] = b
    return gamma, float(b), dh_numbers(pre, T, Convention.MODIFIED)


def find_loops(model: Manipulator, leaves: list[int], relation: dict[int, dict[int, float]],
               seed: int = 0) -> list[Loop]:
    """A revolute cut joint for each bar branch's last link (0-based ``leaves``): the first body (base,
    then the links in order) relative to which it turns about a fixed line when the passive joints
    follow ``relation`` ({passive: {actuated: multiplier}}) at random actuated poses; a leaf pinned already by
    an earlier leaf (two branches ending at one pin) gets none."""
    tree = TreeArm.from_model(model)
    rng = np.random.default_rng(seed)
    size = max(1.0, float(np.abs(tree.frames(np.zeros(tree.n))[:, :3, 3]).max()))
    samples = []
    for _ in range(8):
        q = np.zeros(tree.n)
        q[list(tree.actuated)] = rng.uniform(-1.0, 1.0, len(tree.actuated))
        for p, terms in relation.items():
            q[p] = sum(m * q[a] for a, m in terms.items())
        samples.append(tree.frames(q))
    T0 = tree.frames(np.zeros(tree.n))
    loops: list[Loop] = []
    for leaf in leaves:
        if any(lp.link_j == leaf + 1 and lp.link_i - 1 in leaves for lp in loops):
            continue   # the bar's far end, pinned to it already: one loop, not the same cut joint twice
        for other in [-1] + list(range(tree.n)):
            if other in (leaf, tree.parent[leaf]):
                continue
            pin = _pin(samples, leaf + 1, other + 1, size)
            if pin is None:
                continue
            point, axis = pin
            W = _frame_on(T0[leaf + 1] @ np.append(point, 1.0), T0[leaf + 1][:3, :3] @ axis)
            name = f"{model.links[leaf].joint_name or model.links[leaf].name} pin"
            loops.append(Loop(leaf + 1, other + 1, _pose(np.linalg.solve(T0[leaf + 1], W)),
                              _pose(np.linalg.solve(T0[other + 1], W)), CutJoint.REVOLUTE, name))
            break
    return loops


def _pin(samples, i: int, j: int, size: float):
    """(point, axis) in body i's frame of the line that stays fixed in body j, or None."""
    X = [np.linalg.solve(T[j], T[i]) for T in samples]   # body i in body j's frame
    R0, t0 = X[0][:3, :3], X[0][:3, 3]
    A = np.vstack([Xk[:3, :3] - R0 for Xk in X[1:]])
    rhs = np.concatenate([t0 - Xk[:3, 3] for Xk in X[1:]])
    if np.abs(A).max() < 1e-3:   # no relative turn (a bar parallel to a link: 1e-6 from rounding): not a pin
        return None
    point, *_ = np.linalg.lstsq(A, rhs, rcond=None)
    if np.abs(A @ point - rhs).max() > PIN_TOL * size:
        return None
    u = np.linalg.svd(A)[2][-1]
    if np.abs(A @ u).max() > 1e-9 or np.linalg.matrix_rank(A, tol=1e-9) != 2:
        return None
    return point, u


def _frame_on(point, axis) -> np.ndarray:
    z = axis / np.linalg.norm(axis)
    x = np.cross(z, [1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.cross(z, [0.0, 1.0, 0.0])
    x /= np.linalg.norm(x)
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = x, np.cross(z, x), z, point[:3]
    return T


def _pose(T: np.ndarray) -> Pose:
    from ..model.extras import rpy_from_matrix
    from .numbers import tidy_angle, tidy_number
    return Pose(tuple(tidy_number(v) for v in T[:3, 3]), tuple(tidy_angle(a) for a in rpy_from_matrix(T[:3, :3])))


def closure_matches(model: Manipulator, relation: dict[int, dict[int, float]], exact: bool = True) -> str | None:
    """None when the loops of ``model`` close linearly with exactly ``relation``; else why not. Not
    ``exact`` (an MJCF's connects): None when they close at all (a valid mechanism)."""
    try:
        closure = Closure(TreeArm.from_model(model))
    except ClosureError as exc:
        return str(exc)
    if not exact:
        return None
    if closure.linear is None:
        return "the loops found do not close linearly"
    act = list(closure.act)
    for row, p, c in zip(closure.linear.A, closure.pas, closure.linear.c):
        want = np.zeros(len(act))
        for a, m in relation.get(int(p), {}).items():
            want[act.index(a)] = m
        if np.abs(row - want).max() > 1e-9 or abs(c) > 1e-9:
            return f"the loop gives joint {int(p) + 1} a relation other than its mimic's"
    return None


def free_passive(model: Manipulator) -> list[int]:
    """The passive joints (0-based) that the loops leave free at the nominal pose: those moving in the null space
    of the loops' Jacobian over the passive joints (a coupling the file states otherwise, a mimic between two
    loops or an MJCF joint equality, is no loop: a project cannot hold it)."""
    tree = TreeArm.from_model(model)
    pas = list(tree.passive)
    if not pas:
        return []
    J = tree.loop_terms(np.zeros(tree.n)).jacobian[:, pas]
    _, s, Vt = np.linalg.svd(J) if len(J) else (None, np.zeros(0), np.eye(len(pas)))
    tol = 1e-9 * max(1.0, float(s[0]) if len(s) else 1.0)
    free = Vt[int(np.sum(s > tol)):]
    return [p for p, col in zip(pas, free.T) if np.abs(col).max(initial=0.0) > 1e-6]


def snap_tree(axes: list[Axis], parents: list[int], main: list[int], tip: np.ndarray, literal: bool = False):
    """(``axes`` with nearly parallel ones made parallel as :func:`.dh.snap_parallel` does, [(body, body,
    Snap)]): along the chain from base to tip, then each branch's axis to its parent's (a bar's axis
    written with 1.5708 for pi/2 would put its common normal 50 km out and the loop 0.5 m apart)."""
    out = list(axes)
    reach = [a.point for a in axes] + [tip]
    made, snaps = snap_parallel([axes[k] for k in main], reach, literal)
    for k, axis in zip(main, made):
        out[k] = axis
    pairs = [(main[s.index - 1], main[s.index], s) for s in snaps]
    for k in range(len(axes)):
        if k not in main and parents[k] >= 0:
            two, snaps = snap_parallel([out[parents[k]], axes[k]], reach, literal)
            out[k] = two[1]
            pairs += [(parents[k], k, s) for s in snaps]
    return out, pairs


def branch_frames(axes: list[Axis], parents: list[int], main: list[int], base_pose, tip_pose, leaf_poses,
                  convention: Convention) -> list[np.ndarray]:
    """World frames 0..n of the bodies (frame 0 the base) at the nominal pose: the chain's from base
    to tip by :func:`dh_frames` as a serial arm's, each branch's by :func:`dh_frames` from the frame
    of the link it hangs from (following its first child)."""
    n = len(axes)
    children = {k: [c for c in range(n) if parents[c] == k] for k in range(-1, n)}
    frames: list[np.ndarray | None] = [None] * (n + 1)
    made = dh_frames([axes[k] for k in main], base_pose, tip_pose, convention)
    frames[0] = made[0]
    for k, body in enumerate(main):
        frames[body + 1] = made[k + 1]
    for start in range(n):   # parents come first: a branch's parent frame is made before it
        if frames[start + 1] is not None:
            continue
        path = [start]
        while children[path[-1]]:
            path.append(children[path[-1]][0])
        parent_frame = frames[parents[start] + 1]
        assert parent_frame is not None   # made before: parents come first
        made = dh_frames([axes[k] for k in path], parent_frame, leaf_poses[path[-1]], convention)
        for k, body in enumerate(path):
            frames[body + 1] = made[k + 1]
    return frames  # type: ignore[return-value]
