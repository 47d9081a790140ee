"""Geometry of a closed-chain arm's 3D picture, in plain numpy (no Qt, no OpenGL).

A closed-chain project (issue 22) is a tree of links plus loops closed by cut joints. The window
poses it through the core's loop closure (:class:`designer.kinematics.closure.Closure`): the
actuated sliders give the actuated joints, the closure the passive ones. The picture draws each
link from the frame of the link it is mounted on, and each loop's two extra bars: from link i's
frame to the cut joint's place on link i, and from link j's frame to its place on link j. At a
closed pose the two bars' far ends coincide (the cut joint is one joint again); tests check that.

The drawing's functions need numpy only: the module imports without sympy (the 3D view draws a serial
arm before sympy loads, issue 29); :class:`Mechanism` and the checks import the core's closure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..model.kinds import Convention

if TYPE_CHECKING:
    from ..kinematics.closure import ClosureError
    from ..kinematics.tree import TreeArm
    from ..model.manipulator import Manipulator
    from ..model.validation import Problem

__all__ = ["Mechanism", "mechanism_of", "tree_segments", "tree_reach", "loop_bars", "loop_parts", "loop_count",
           "loop_problems", "ClosureError"]


def tree_segments(tree: TreeArm, T: np.ndarray) -> np.ndarray:
    """(n, 2, 2, 3): each link's two straight pieces like :func:`arm_scene.link_segments`, but
    starting at the frame of the link it is mounted on (after its Rz(gamma) Tz(b))."""
    arm = tree.arm
    out = np.empty((tree.n, 2, 2, 3))
    for i in range(tree.n):
        F = T[tree.parent[i] + 1] @ tree.pre[i]
        start, end = F[:3, 3], T[i + 1, :3, 3]
        if arm.convention is Convention.STANDARD:
            corner = end - arm.dh[i, 0] * T[i + 1, :3, 0]
        else:
            corner = start + arm.dh[i, 0] * F[:3, 0]
        out[i, 0] = (start, corner)
        out[i, 1] = (corner, end)
    return out


def tree_reach(tree: TreeArm) -> float:
    """A length scale like :func:`arm_scene.arm_reach` but along the path from the base to the tool
    only: a parallelogram's crank and coupler run beside the arm and would count twice (the
    palletizer's solids came out half as thick again as its serial twin's)."""
    path = tree.path(tree.tool_link)
    return float(max(np.abs(tree.arm.dh[path][:, [0, 2]]).sum(), 0.1))


def _cuts(tree: TreeArm) -> list[tuple]:
    """Per loop of the tree (none without): its two links (-1 the base) and the cut joint's frame on each."""
    return [(i, j, Fi, Fj) for i, j, Fi, Fj, _kind in tree.loops]


def loop_bars(tree: TreeArm, T: np.ndarray) -> np.ndarray:
    """(loops, 2, 2, 3): per loop the bar on link i (from its joint, where the link turns, to the cut
    joint's place on it) and the bar on link j likewise (the base: from frame 0's origin).
    ``T``: (n+1, 4, 4) frames, index 0 the base.

    From the joint rather than the link's frame: in the standard convention frame i sits at the
    link's far end, and a bar from there along the link (the palletizer's forearm extended back to
    the coupler's pin) would hide inside the link's own solid."""
    origins = tree.joint_axes(T)[0]
    ends = [[(T[0, :3, 3] if link < 0 else origins[link], (T[link + 1] @ F)[:3, 3]) for link, F in ((i, Fi), (j, Fj))]
            for i, j, Fi, Fj in _cuts(tree)]
    return np.array(ends, dtype=float).reshape(-1, 2, 2, 3)


def loop_count(mechanism: Mechanism | None) -> int:
    """How many loops the mechanism has (none without a :class:`Mechanism`)."""
    return 0 if mechanism is None else len(_cuts(mechanism.tree))


def loop_parts(mechanism: Mechanism | None, T: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """What the view draws of the mechanism's loops: their bars (:func:`loop_bars`) and each cut joint's frame in
    the world (4, 4); none for a mechanism without loops (the window keeps no :class:`Mechanism` for it)."""
    tree = None if mechanism is None else mechanism.tree
    cuts = [] if tree is None else [T[i + 1] @ Fi for i, _j, Fi, _Fj in _cuts(tree)]
    return (np.zeros((0, 2, 2, 3)) if tree is None else loop_bars(tree, T)), cuts


class Mechanism:
    """A closed-chain model at numbers for the window: its tree, its closure, the last good pose.

    :meth:`pose` turns the sliders' values (one per joint of the tree; only the actuated ones
    count) into a closed pose of every joint, or raises :class:`ClosureError` with the core's
    message, keeping :attr:`last` (the last good pose) for the view to stay on.
    """

    def __init__(self, model: Manipulator):
        from ..kinematics.closure import Closure
        from ..kinematics.tree import TreeArm

        self.tree = TreeArm.from_model(model)
        self.closure = Closure(self.tree)     # ClosureError when the mechanism cannot be used at all
        self.actuated = np.array(self.tree.actuated, dtype=int)
        self.passive = np.array(self.tree.passive, dtype=int)
        self.tool_link = self.tree.tool_link   # TreeArm's: the deepest link, a pinned bar left out
        self.last = self.closure.solve(np.zeros(len(self.actuated)))

    def pose(self, q) -> np.ndarray:
        from ..kinematics.closure import ClosureError

        q = np.asarray(q, dtype=float).ravel()
        if len(q) != self.tree.n:
            raise ClosureError(f"{len(q)} joint values for a mechanism of {self.tree.n} joints")
        closed = self.closure.solve(q[self.actuated], guess=self.last)   # the branch stays continuous
        if not np.all(np.isfinite(closed)):
            raise ClosureError("the loop closure gave no finite pose")
        self.last = closed
        return closed

    def frames(self, q) -> np.ndarray:
        """(n+1, 4, 4) frames in the world (the project's base pose applied)."""
        return self.tree.arm.base @ self.tree.frames(q)


def mechanism_of(model: Manipulator | None) -> Mechanism | str | None:
    """None for a serial arm; the :class:`Mechanism` of a closed-chain (or branched) one; or the
    one-line reason it cannot be posed (a loop that cannot close, a missing parameter)."""
    from ..kinematics.closure import ClosureError
    from ..model.mechanism import uses_closed_chain_fields

    if model is None or not uses_closed_chain_fields(model):
        return None
    try:
        return Mechanism(model)
    except ClosureError as exc:
        return f"The mechanism cannot be posed: {exc}"
    except (ValueError, TypeError, ZeroDivisionError, KeyError) as exc:
        return f"The mechanism cannot be posed: {exc}"


def loop_problems(model: Manipulator | None) -> list[Problem]:
    """The loops' geometric checks for the Problems panel, which ``check_model`` (the model layer's,
    without kinematics) leaves to the core's closure: a warning for a loop that does not close at the nominal
    pose and was assembled (the gap in mm, the passive joints' assembled values), an error for one that cannot be
    assembled, a mobility that differs from the number of actuated joints. Nothing while the tree itself is wrong
    (``check_model`` names that) or for a serial arm."""
    from ..kinematics.closure import mechanism_problems
    from ..kinematics.tree import TreeArm
    from ..model.mechanism import structure_problems, uses_closed_chain_fields

    if model is None or not uses_closed_chain_fields(model) or structure_problems(model):
        return []
    try:
        return mechanism_problems(TreeArm.from_model(model))
    except (ValueError, TypeError, ZeroDivisionError, KeyError):
        return []   # a missing or bad value: check_model names it


if not TYPE_CHECKING:   # mypy reads the import above; a module __getattr__ would make any name pass
    def __getattr__(name: str) -> Any:
        """``ClosureError``, the core's, loaded on first use (its module imports sympy)."""
        if name == "ClosureError":
            from ..kinematics.closure import ClosureError
            return ClosureError
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
