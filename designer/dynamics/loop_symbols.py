"""A closed chain's loop geometry in symbols, written as named steps (the compact form's projection).

The numeric twin is :mod:`designer.kinematics.tree` (``loop_terms``); the same rows in the same order:

- link frames in frame 0, T_0^i = T_0^parent Rz(gamma) Tz(b) A_i(q_i), and the joint axes (standard:
  z of the parent's frame after Rz(gamma) Tz(b); modified: z_i);
- per loop the cut points' position rows J_v(p_i) - J_v(p_j), then the orientation rows
  (u x v) . (J_w(j) - J_w(i)) of the axis pairs (u of the cut frame on link j, v on link i) a revolute
  or fixed cut holds perpendicular. Joints on both sides' paths are left out: at a closed pose their
  columns are exactly 0 (z x (p_i - p_j) with p_i = p_j);
- the rate term J' qd: the cut points' accelerations at zero joint accelerations from one outward
  pass of spatial velocities in frame 0 (and the derivative of the axis pairs' cross product);
- a planar four-bar's two passive angles from the two circles (:mod:`designer.kinematics.four_bar`),
  with the branch a sign: the nominal pose's, as the numeric closure keeps it.

:class:`Steps` collects the named assignments (one short line each, as OpenSYMORO prints).
"""

from __future__ import annotations

import sympy as sp

from ..model.manipulator import Convention, Manipulator
from ..model.mechanism import CutJoint, parents_of, path_to_base
from .customized import ZERO, _add, _cross, _dot, _matvec, _mul, _rotx, _vadd
from .recursive_form import Assignment, _inline
from .tree_recursion import _matmul, _rotz, modified_placement

__all__ = ["Steps", "Geometry", "loop_rows", "four_bar_angles", "PAIRS"]

_AXES = "xyz"
#: the orientation rows of each cut joint, as in kinematics/tree.py
PAIRS = {CutJoint.SPHERICAL: [], CutJoint.REVOLUTE: [(2, 0), (2, 1)], CutJoint.FIXED: [(2, 0), (2, 1), (0, 1)]}


class Steps:
    """Named assignments in evaluation order; values that are 0, a symbol or its negative stay in place."""

    def __init__(self) -> None:
        self.items: list[Assignment] = []

    def one(self, kind: str, label: str, value, link: int = 0, keep: bool = False):
        e = sp.sympify(value)
        if _inline(e) and not keep:
            return e
        sym = sp.Symbol(label, real=True)
        self.items.append(Assignment(sym, e, kind, link))
        return sym

    def vec(self, kind: str, label: str, values, link: int = 0) -> list:
        return [self.one(kind, f"{label}_{_AXES[k]}", v, link) for k, v in enumerate(values)]

    def mat(self, kind: str, label: str, rows, link: int = 0) -> list:
        return [[self.one(kind, f"{label}_{_AXES[r]}{_AXES[c]}", v, link) for c, v in enumerate(row)]
                for r, row in enumerate(rows)]


def _col(R, k):
    return [R[0][k], R[1][k], R[2][k]]


class Geometry:
    """Link frames, joint axes and spatial rates of the tree in frame 0, named on demand."""

    def __init__(self, model: Manipulator, qs, steps: Steps, tag: str = ""):
        """``tag``: a letter in the names of another set of frames (kind T0: the passive joints at 0)."""
        self.model, self.qs, self.steps, self.tag = model, qs, steps, tag
        self.parents = [p - 1 for p in parents_of(model.links)]
        one = sp.S.One
        self._frames: dict[int, tuple] = {-1: ([[one, ZERO, ZERO], [ZERO, one, ZERO], [ZERO, ZERO, one]], [ZERO] * 3)}
        self._rates: dict[int, tuple] = {}

    def reuse(self, other: Geometry, moving: set[int]) -> None:
        """Take ``other``'s frames of the links whose path holds none of the joints ``moving`` (the same
        frames: the two geometries differ in those joints' values only)."""
        for i, frame in other._frames.items():
            if i >= 0 and not moving & set(self.path(i)):
                self._frames[i] = frame

    def path(self, i: int) -> list[int]:
        """0-based joints from link i (0-based) down to the base."""
        return [k - 1 for k in path_to_base(parents_of(self.model.links), i + 1)]

    def frame(self, i: int) -> tuple[list, list]:
        """(R, o) of link i (0-based; -1 the base) in frame 0."""
        if i in self._frames:
            return self._frames[i]
        link = self.model.links[i]
        Rp, op = self.frame(self.parents[i])
        theta, d = link.joint_values(self.qs[i])
        gamma, b = sp.sympify(link.gamma), sp.sympify(link.b)
        if self.model.convention is Convention.STANDARD:
            Rz = _rotz(theta + gamma)
            R = _matmul(Rz, _rotx(link.alpha))
            local = _vadd(_matvec(Rz, [link.a, ZERO, ZERO]), [ZERO, ZERO, _add(b, d)])
        else:
            R, local = modified_placement(link, theta, d)
        name = f"{self.tag}{i + 1}"
        kind = "T0" if self.tag else "T"
        R0 = self.steps.mat(kind, f"R{name}", _matmul(Rp, R), i + 1)
        o0 = self.steps.vec(kind, f"o{name}", _vadd(op, _matvec(Rp, local)), i + 1)
        self._frames[i] = (R0, o0)
        return R0, o0

    def axis(self, i: int) -> tuple[list, list]:
        """(origin, unit axis) of joint i in frame 0."""
        if self.model.convention is Convention.MODIFIED:
            R, o = self.frame(i)
            return o, _col(R, 2)
        Rp, op = self.frame(self.parents[i])
        z = _col(Rp, 2)
        b = sp.sympify(self.model.links[i].b)
        return (_vadd(op, [_mul(b, x) for x in z]) if b != 0 else op), z

    def point(self, i: int, pose) -> tuple[list, list]:
        """(origin, rotation columns) of a frame given in link i's frame (``pose``: a model Pose)."""
        R, o = self.frame(i)
        T = pose.sym_matrix()
        p = _vadd(o, _matvec(R, [T[r, 3] for r in range(3)]))
        F = [[T[r, c] for c in range(3)] for r in range(3)]
        return p, _matmul(R, F)

    def rates(self, i: int, qd) -> tuple[list, list, list, list]:
        """(w, v_origin, alpha, a_origin) of link i at zero joint accelerations, frame 0 (spatial, as
        kinematics/tree.py spatial())."""
        if i < 0:
            return [ZERO] * 3, [ZERO] * 3, [ZERO] * 3, [ZERO] * 3
        if i in self._rates:
            return self._rates[i]
        w, v, al, a = self.rates(self.parents[i], qd)
        o, z = self.axis(i)
        if self.model.links[i].is_revolute:
            Sw, Sv = [_mul(x, qd[i]) for x in z], [_mul(x, qd[i]) for x in _cross(o, z)]
        else:
            Sw, Sv = [ZERO] * 3, [_mul(x, qd[i]) for x in z]
        al = _vadd(al, _cross(w, Sw))
        a = _vadd(a, _cross(w, Sv), _cross(v, Sw))
        w, v = _vadd(w, Sw), _vadd(v, Sv)
        s, name = self.steps, f"{i + 1}"
        out = (s.vec("V", f"w0{name}", w, i + 1), s.vec("V", f"v0{name}", v, i + 1),
               s.vec("V", f"al0{name}", al, i + 1), s.vec("V", f"a0{name}", a, i + 1))
        self._rates[i] = out
        return out


def _column(g: Geometry, k: int, p) -> tuple[list, list]:
    o, z = g.axis(k)
    if g.model.links[k].is_revolute:
        return _cross(z, [_add(x, -y) for x, y in zip(p, o)]), z
    return z, [ZERO] * 3


def loop_rows(g: Geometry, qd=None) -> tuple[list[dict], list]:
    """(rows, rates): each row of the stacked loop Jacobian as {joint: entry} (the joints of one side's
    path only), and with ``qd`` the rate term J' qd of each row (else [])."""
    rows: list[dict] = []
    rates: list = []
    for loop in g.model.loops:
        li, lj = loop.link_i - 1, loop.link_j - 1
        side_i, side_j = set(g.path(li)), set(g.path(lj))
        only_i, only_j = side_i - side_j, side_j - side_i
        pi, Fi = g.point(li, loop.frame_i) if li >= 0 else (_base_point(loop.frame_i))
        pj, Fj = g.point(lj, loop.frame_j) if lj >= 0 else (_base_point(loop.frame_j))
        pos: list[dict] = [{} for _ in range(3)]
        ang_i: dict = {}
        ang_j: dict = {}
        for k in only_i:
            jv, jw = _column(g, k, pi)
            for r in range(3):
                pos[r][k] = jv[r]
            ang_i[k] = jw
        for k in only_j:
            jv, jw = _column(g, k, pj)
            for r in range(3):
                pos[r][k] = -jv[r]
            ang_j[k] = jw
        rows += pos
        if qd is not None:
            acc = []
            for link, p in ((li, pi), (lj, pj)):
                w, v0, al, a0 = g.rates(link, qd)
                acc.append(_vadd(a0, _cross(al, p), _cross(w, _vadd(v0, _cross(w, p)))))
            rates += [_add(x, -y) for x, y in zip(*acc)]
        for a, b in PAIRS[loop.joint]:
            u, v = _col(Fj, a), _col(Fi, b)
            axis = _cross(u, v)
            row = {k: _dot(axis, jw) for k, jw in ang_j.items()}
            for k, jw in ang_i.items():
                row[k] = _add(row.get(k, ZERO), -_dot(axis, jw))
            rows.append(row)
            if qd is not None:
                wi, _, ali, _ = g.rates(li, qd)
                wj, _, alj, _ = g.rates(lj, qd)
                dw = [_add(x, -y) for x, y in zip(wj, wi)]
                dal = [_add(x, -y) for x, y in zip(alj, ali)]
                daxis = _vadd(_cross(_cross(wj, u), v), _cross(u, _cross(wi, v)))
                rates.append(_add(_dot(daxis, dw), _dot(axis, dal)))
    return rows, rates


def _base_point(pose) -> tuple[list, list]:
    T = pose.sym_matrix()
    return [T[r, 3] for r in range(3)], [[T[r, c] for c in range(3)] for r in range(3)]


def _planar(v, n):
    s = _dot(v, n)
    return [_add(x, -_mul(s, y)) for x, y in zip(v, n)]


def _angle(u, v, n):
    """The rotation about n carrying u's direction to v's (both in the plane normal to n)."""
    return sp.atan2(_dot(_cross(u, v), n), _dot(u, v))


def four_bar_angles(g: Geometry, fb, signs: tuple[int, int], steps: Steps) -> tuple[sp.Expr, sp.Expr]:
    """The passive angles (q_p1, q_p2) of a planar four-bar (``fb``: kinematics.four_bar.FourBar, its
    p1, p2, side and branch) from ``g``, the frames at q_p1 = q_p2 = 0: two circles meet (the module
    docstring of kinematics/four_bar.py). ``signs``: +1 or -1, each passive axis along or against p1's."""
    loop = g.model.loops[0]
    li, lj = loop.link_i - 1, loop.link_j - 1
    Pi = g.point(li, loop.frame_i)[0] if li >= 0 else _base_point(loop.frame_i)[0]
    Pj = g.point(lj, loop.frame_j)[0] if lj >= 0 else _base_point(loop.frame_j)[0]
    A, n = g.axis(fb.p1)
    B = g.axis(fb.p2)[0]
    s = steps

    def sub(x, y):
        return [_add(a, -b) for a, b in zip(x, y)]

    def norm(v):
        return sp.sqrt(_dot(v, v))
    on_i = fb.p1 in set(g.path(li))        # the side of p1 (both passive joints' side when same_side)
    near, far = (Pi, Pj) if on_i else (Pj, Pi)
    if fb.same_side:   # X = B on circle(A, |B - A|) and circle(far cut point, |near cut point - B|)
        c1, c2, X = A, far, B
        r1 = s.one("qp", "r1", norm(_planar(sub(B, A), n)))
        r2 = s.one("qp", "r2", norm(_planar(sub(near, B), n)))
    else:              # X = the cut point on circle(A, |near - A|) and circle(B, |far - B|)
        c1, c2, X = A, B, near
        r1 = s.one("qp", "r1", norm(_planar(sub(near, A), n)))
        r2 = s.one("qp", "r2", norm(_planar(sub(far, B), n)))
    e = s.vec("qp", "e", _planar(sub(c2, c1), n))                 # the centres' offset in the plane
    d = s.one("qp", "dc", norm(e))
    a = s.one("qp", "ac", (r1**2 - r2**2 + d**2) / (2 * d))
    h = s.one("qp", "hc", sp.sqrt(r1**2 - a**2))                   # imaginary: the bars do not reach
    u = [x / d for x in e]
    v = _cross(n, u)
    branch = s.one("qp", "branch", sp.Integer(int(fb.branch)), keep=True)
    lift = _dot(sub(X, c1), n)
    T = s.vec("qp", "X", [c1[k] + a * u[k] + branch * h * v[k] + lift * n[k] for k in range(3)])
    if fb.same_side:   # p1 carries B to X; p2 then turns the near cut point onto the far one
        t1 = s.one("qp", "th1", _angle(sub(B, A), sub(T, A), n))
        t2 = _angle(sub(near, B), sub(far, T), n) - t1
    else:
        t1 = _angle(sub(near, A), sub(T, A), n)
        t2 = _angle(sub(far, B), sub(T, B), n)
    return signs[0] * t1, signs[1] * t2
