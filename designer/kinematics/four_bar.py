"""The planar four-bar's closure in closed form: two circles meet, the branch kept.

A planar loop with two passive revolute joints p1, p2 (all its axes parallel) closes where two
circles in the loop's plane meet, whatever the rest of the tree does:

- both passive joints on the same side of the cut (p1 nearer the base): p2's axis point B turns
  about p1's axis point A (|B - A| fixed) and must lie at the fixed distance |P_i - B| from the
  other side's cut point P_j: B is on circle(A, |B - A|) and circle(P_j, |P_i - B|);
- one on each side: the cut point turns about A on one side and about B on the other: it is on
  circle(A, |P_i - A|) and circle(B, |P_j - B|).

Of the two intersections, the one on the nominal pose's side of the line between the centres is
taken (the branch of a four-bar only changes through a dead centre, where the circles touch); the
passive angles are then the rotations that carry the moving points there. No intersection, or
circles that touch (a dead centre), is a :class:`ClosureError`.
"""

from __future__ import annotations

import numpy as np

from ..errors import DesignerError
from .numeric import cross3
from .tree import TreeArm

__all__ = ["FourBar", "four_bar_of"]

PARALLEL = 1e-12   # axes count as parallel when their cross product is below this
TOUCH = 1e-9       # circles that (nearly) touch: a dead centre, relative to the radii


class FourBarError(DesignerError):
    """A pose where the four-bar cannot close, or a dead centre."""


def _side(tree: TreeArm, link: int) -> set[int]:
    return set(tree.path(link)) if link >= 0 else set()


class FourBar:
    """The closed-form closure of one planar loop with two passive revolute joints (see the module)."""

    def __init__(self, tree: TreeArm, p1: int, p2: int, same_side: bool, nominal: np.ndarray):
        self.tree, self.p1, self.p2, self.same_side = tree, p1, p2, same_side
        self.branch = 0.0
        self.branch = self._sign(nominal)

    def _points(self, q):
        """(A, B, P_i, P_j, n, T): the passive axis points, the cut points and the plane's normal."""
        tree = self.tree
        T = tree.frames(q)
        origins, axes = tree.joint_axes(T)
        i, j, Fi, Fj, _ = tree.loops[0]
        Pi, Pj = (T[i + 1] @ Fi)[:3, 3], (T[j + 1] @ Fj)[:3, 3]
        return origins[self.p1], origins[self.p2], Pi, Pj, axes[self.p1], T

    def _circles(self, q, points=None):
        A, B, Pi, Pj, n, _ = self._points(q) if points is None else points
        if self.same_side:   # X = B: on circle(A, |B - A|) and circle(P_j, |P_i - B|)
            return (A, _norm(B - A, n)), (Pj, _norm(Pi - B, n)), B, n
        # X = the cut point: circle(A, |P - A|) (the side of p1) and circle(B, |P - B|) (the side of p2)
        side_i = self.p1 in _side(self.tree, self.tree.loops[0][0])
        Pa, Pb = (Pi, Pj) if side_i else (Pj, Pi)
        return (A, _norm(Pa - A, n)), (B, _norm(Pb - B, n)), Pi, n

    def _sign(self, q) -> float:
        (c1, _), (c2, _), X, n = self._circles(q)
        return float(np.sign(np.dot(cross3(c2 - c1, X - c1), n))) or 1.0

    def solve(self, q) -> np.ndarray:
        """q with p1 and p2 replaced so that the loop closes (the nominal pose's branch)."""
        points = self._points(q)   # at q: the circles', and the first joint's below (q unchanged until then)
        (c1, r1), (c2, r2), X, n = self._circles(q, points)
        c2p = c1 + _planar(c2 - c1, n)   # the centres in one plane normal to n
        d = float(np.linalg.norm(c2p - c1))
        if d == 0.0 or d > r1 + r2 or d < abs(r1 - r2):
            raise FourBarError("cannot close: the bars do not reach")
        a = (r1**2 - r2**2 + d**2) / (2 * d)
        h2 = r1**2 - a**2
        if h2 <= TOUCH * max(r1, r2) ** 2:
            raise FourBarError("at a dead centre (the passive joints are not determined there)")
        u = (c2p - c1) / d
        v = cross3(n, u)
        target = c1 + a * u + self.branch * np.sqrt(h2) * v
        target = target + np.dot(X - c1, n) * n   # back to the moving point's plane
        q = np.array(q, dtype=float)
        if self.same_side:
            A = points[0]
            q[self.p1] += _angle(X - A, target - A, n)
            A, B, Pi, Pj, n2, _ = self._points(q)
            q[self.p2] += _angle(Pi - B, Pj - B, n2)
        else:
            A, B, Pi, Pj, n2, _ = points
            side_i = self.p1 in _side(self.tree, self.tree.loops[0][0])
            Pa, Pb = (Pi, Pj) if side_i else (Pj, Pi)
            q[self.p1] += _angle(Pa - A, target - A, n2)
            q[self.p2] += _angle(Pb - B, target - B, n2)
        return q


def _planar(v, n):
    return v - np.dot(v, n) * n


def _norm(v, n) -> float:
    return float(np.linalg.norm(_planar(v, n)))


def _angle(u, v, n) -> float:
    """The rotation about n carrying u's direction to v's (both projected on the plane)."""
    u, v = _planar(u, n), _planar(v, n)
    return float(np.arctan2(np.dot(cross3(u, v), n), np.dot(u, v)))


def four_bar_of(tree: TreeArm, nominal: np.ndarray) -> FourBar | None:
    """The closed-form closure when the mechanism is one planar loop with two passive revolute joints
    on it (every loop axis parallel at the nominal pose); None otherwise."""
    if len(tree.loops) != 1 or len(tree.passive) != 2:
        return None
    i, j, Fi, Fj, kind = tree.loops[0]
    if any(not tree.arm.revolute[p] for p in tree.passive):
        return None
    side_i, side_j = _side(tree, i), _side(tree, j)
    loop = (side_i | side_j) - (side_i & side_j)
    if not set(tree.passive) <= loop:
        return None
    T = tree.frames(nominal)
    _, axes = tree.joint_axes(T)
    n = axes[tree.passive[0]]
    if any(np.linalg.norm(cross3(axes[k], n)) > PARALLEL for k in loop):
        return None
    if kind.value == "R" and np.linalg.norm(cross3((T[i + 1] @ Fi)[:3, 2], n)) > PARALLEL:
        return None
    p1, p2 = tree.passive
    same = (p1 in side_i) == (p2 in side_i) if (p1 in loop and p2 in loop) else False
    if same:   # p1 the one nearer the base on that side
        side = side_i if p1 in side_i else side_j
        path = tree.path(i if side is side_i else j)
        p1, p2 = (p2, p1) if path.index(p1) < path.index(p2) else (p1, p2)
    return FourBar(tree, p1, p2, same, nominal)
