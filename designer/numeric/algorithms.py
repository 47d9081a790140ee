"""The recursive algorithms, written once over any scalar type (floats, numpy arrays, tape values).

Vectors are 3-tuples, matrices tuples of rows; quantities of body i are in
joint frame i (see :mod:`designer.numeric.model`), where the joint axis is
z = (0, 0, 1), so a joint torque is the z component of the moment (revolute)
or force (prismatic) it carries. Plain tuples, not numpy arrays: a 3-vector in
numpy costs about a microsecond per operation, a float product 30 ns, and on a
:class:`~designer.trace.Tape` the constants of the model fold away.

- :func:`rnea`: inverse dynamics, recursive Newton-Euler (Luh, Walker & Paul)
- :func:`crba`: mass matrix, composite rigid bodies (Walker & Orin)
- :func:`ldl_solve`: M x = b by M = L D L^T, returning the pivots D for the singularity check
- :func:`forward`: q'' = M^-1 (tau - h - G)
- :func:`energy`: kinetic and potential energy
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..trace import Trig, cross, dot
from .model import ArmModel

__all__ = ["rnea", "crba", "ldl_solve", "forward", "energy"]

ZERO = (0.0, 0.0, 0.0)


def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def _scale(k, a):
    return (k * a[0], k * a[1], k * a[2])


def _mv(A, v):
    return (dot(A[0], v), dot(A[1], v), dot(A[2], v))


def _mtv(A, v):
    return (A[0][0] * v[0] + A[1][0] * v[1] + A[2][0] * v[2],
            A[0][1] * v[0] + A[1][1] * v[1] + A[2][1] * v[2],
            A[0][2] * v[0] + A[1][2] * v[1] + A[2][2] * v[2])


class _Joints:
    """Per-state joint terms: cos/sin of each revolute joint and each joint frame's offset p_i."""

    def __init__(self, model: ArmModel, q: Sequence, trig: Trig):
        self.model = model
        self.cs = [trig(q[i]) if model.revolute[i] else None for i in range(model.n)]
        self.p = [model.r[i] if model.revolute[i]
                  else _add(model.r[i], _scale(q[i], (model.E[i][0][2], model.E[i][1][2], model.E[i][2][2])))
                  for i in range(model.n)]

    def down(self, i: int, v):
        """A vector of frame i-1 in the axes of joint frame i: Rz(q)^T E^T v."""
        w = _mtv(self.model.E[i], v)
        cs = self.cs[i]
        if cs is None:
            return w
        c, s = cs
        return (c * w[0] + s * w[1], c * w[1] - s * w[0], w[2])

    def up(self, i: int, v):
        """A vector of joint frame i in the axes of frame i-1: E Rz(q) v."""
        cs = self.cs[i]
        if cs is not None:
            c, s = cs
            v = (c * v[0] - s * v[1], s * v[0] + c * v[1], v[2])
        return _mv(self.model.E[i], v)


def outward(jt: _Joints, i: int, w, dw, a, qd: Sequence, qdd: Sequence):
    """(w, dw, a) of body i in its joint axes from those of its predecessor (serial and tree RNEA)."""
    model = jt.model
    p = jt.p[i]
    # acceleration of the new origin as a point of the previous body, then in joint axes
    a = jt.down(i, _add(a, _add(cross(dw, p), cross(w, cross(w, p)))))
    w, dw = jt.down(i, w), jt.down(i, dw)
    if model.revolute[i]:
        dw = (dw[0] + w[1] * qd[i], dw[1] - w[0] * qd[i], dw[2] + qdd[i])  # + w x qd z + qdd z
        w = (w[0], w[1], w[2] + qd[i])
    else:
        # Coriolis 2 w x qd z, and the joint's own acceleration
        a = (a[0] + 2.0 * w[1] * qd[i], a[1] - 2.0 * w[0] * qd[i], a[2] + qdd[i])
    return w, dw, a


def body_wrench(model: ArmModel, i: int, w, dw, a):
    """(force, moment about the joint frame's origin) that body i needs for its motion."""
    c, m, I = model.com[i], model.mass[i], model.inertia[i]
    ac = _add(a, _add(cross(dw, c), cross(w, cross(w, c))))
    # moment about the COM, then about the joint frame's origin
    F = _scale(m, ac)
    return F, _add(_add(_mv(I, dw), cross(w, _mv(I, w))), cross(c, F))


def rnea(model: ArmModel, q: Sequence, qd: Sequence, qdd: Sequence, gravity: bool, trig: Trig) -> list:
    """Joint torques tau(q, qd, qdd), with the gravity torques when ``gravity``."""
    jt = _Joints(model, q, trig)
    w, dw = ZERO, ZERO
    a = _scale(-1.0, model.gravity) if gravity else ZERO  # gravity as an upward acceleration of the base
    forces, moments = [], []
    for i in range(model.n):
        w, dw, a = outward(jt, i, w, dw, a, qd, qdd)
        F, mo = body_wrench(model, i, w, dw, a)
        forces.append(F)
        moments.append(mo)
    tau = [0.0] * model.n
    f, n_ = ZERO, ZERO
    for i in reversed(range(model.n)):
        f, n_ = _add(forces[i], f), _add(moments[i], n_)
        tau[i] = n_[2] if model.revolute[i] else f[2]
        f_up = jt.up(i, f)
        f, n_ = f_up, _add(jt.up(i, n_), cross(jt.p[i], f_up))
    return tau


def _rotate_sym(jt: _Joints, i: int, S):
    """(E Rz) S (E Rz)^T of a symmetric S; as (R (R S)^T) since S = S^T."""
    cols = [jt.up(i, (S[0][k], S[1][k], S[2][k])) for k in range(3)]   # R S, by columns
    RS_T = cols                                                          # rows of (R S)^T
    out = [jt.up(i, (RS_T[0][k], RS_T[1][k], RS_T[2][k])) for k in range(3)]  # columns of R (R S)^T
    return tuple(tuple(out[k][j] for k in range(3)) for j in range(3))


def composites(model: ArmModel) -> tuple[list, list, list]:
    """The composite body of each link alone in its joint frame: (mass, first moment m c, inertia
    about the origin); :func:`absorb` adds each subtree to its parent (serial and tree CRBA)."""
    mass = list(model.mass)
    first = [_scale(m, c) for m, c in zip(model.mass, model.com)]
    rot = []
    for m, c, I in zip(model.mass, model.com, model.inertia):
        cc = dot(c, c)
        rot.append(tuple(tuple(I[j][k] + m * ((cc if j == k else 0.0) - c[j] * c[k]) for k in range(3))
                         for j in range(3)))
    return mass, first, rot


def unit_wrench(model: ArmModel, i: int, mass: list, first: list, rot: list):
    """(f, mo, M_ii): the wrench (force, moment about the origin) that gives subtree i a unit joint
    acceleration, and the diagonal entry of M."""
    h, Io = first[i], rot[i]
    if model.revolute[i]:
        f, mo = (-h[1], h[0], 0.0), (Io[0][2], Io[1][2], Io[2][2])
        return f, mo, mo[2]
    f, mo = (0.0, 0.0, mass[i]), (h[1], -h[0], 0.0)
    return f, mo, f[2]


def absorb(jt: _Joints, i: int, parent: int, mass: list, first: list, rot: list) -> None:
    """Add the composite body of subtree i to that of its ``parent`` (in place)."""
    # Io' = R Io R^T - p hr^T - hr p^T + 2 (hr.p) 1 - m (p p^T - |p|^2 1)
    p, m = jt.p[i], mass[i]
    hr = jt.up(i, first[i])
    RIo = _rotate_sym(jt, i, rot[i])
    hp, pp = dot(hr, p), dot(p, p)
    old = rot[parent]
    new = [[0.0] * 3 for _ in range(3)]
    for j in range(3):
        for k in range(j, 3):  # symmetric: the upper triangle, mirrored
            new[j][k] = new[k][j] = (old[j][k] + RIo[j][k] - p[j] * hr[k] - hr[j] * p[k] - m * p[j] * p[k]
                                     + ((2.0 * hp + m * pp) if j == k else 0.0))
    rot[parent] = tuple(tuple(row) for row in new)
    first[parent] = _add(first[parent], _add(hr, _scale(m, p)))
    mass[parent] = mass[parent] + m


def crba(model: ArmModel, q: Sequence, trig: Trig) -> list[list]:
    """M(q), n x n, symmetric (both triangles filled with the same values)."""
    jt = _Joints(model, q, trig)
    n = model.n
    mass, first, rot = composites(model)
    M = [[0.0] * n for _ in range(n)]
    for i in reversed(range(n)):
        f, mo, M[i][i] = unit_wrench(model, i, mass, first, rot)
        for j in range(i, 0, -1):
            f_up = jt.up(j, f)
            f, mo = f_up, _add(jt.up(j, mo), cross(jt.p[j], f_up))
            M[j - 1][i] = M[i][j - 1] = mo[2] if model.revolute[j - 1] else f[2]
        if i == 0:
            break
        absorb(jt, i, i - 1, mass, first, rot)
    return M


def ldl_solve(M: Sequence[Sequence], b: Sequence) -> tuple[list, list]:
    """(x, d): the solution of M x = b and the pivots of M = L D L^T (all > 0 when M is positive definite)."""
    n = len(b)
    L = [[0.0] * n for _ in range(n)]
    Ld = [[0.0] * n for _ in range(n)]  # L[j][k] d[k], formed once: one product less per term
    d = [0.0] * n
    for j in range(n):
        dj = M[j][j]
        for k in range(j):
            dj = dj - L[j][k] * Ld[j][k]
        d[j] = dj
        inv = 1.0 / dj
        for i in range(j + 1, n):
            s = M[i][j]
            for k in range(j):
                s = s - L[i][k] * Ld[j][k]
            Ld[i][j] = s
            L[i][j] = s * inv
    y = list(b)
    for i in range(n):
        for k in range(i):
            y[i] = y[i] - L[i][k] * y[k]
    x = [y[i] / d[i] for i in range(n)]
    for i in reversed(range(n)):
        for k in range(i + 1, n):
            x[i] = x[i] - L[k][i] * x[k]
    return x, d


def forward(model: ArmModel, q: Sequence, qd: Sequence, tau: Sequence, trig: Trig,
            gravity: bool = True, armature: Mapping[int, Any] | None = None) -> tuple[list, list]:
    """(q'', pivots of M): q'' = M^-1 (tau - h - G), or M^-1 (tau - h) without ``gravity``; ``armature``
    {joint: inertia} adds to M's diagonal (a rotor's reflected inertia N^2 Jm)."""
    zero = [0.0] * model.n
    bias = rnea(model, q, qd, zero, gravity, trig)
    M = crba(model, q, trig)
    for i, extra in (armature or {}).items():
        M[i][i] = M[i][i] + extra
    return ldl_solve(M, [t - b for t, b in zip(tau, bias)])


def energy(model: ArmModel, q: Sequence, qd: Sequence, trig: Trig,
           parent: Sequence[int] | None = None) -> tuple[Any, Any]:
    """(kinetic, potential); the potential is zero with every COM at the base origin. ``parent``: each body's
    predecessor (0-based, -1 the base) for a tree of links (:mod:`.tree_algorithms`); the link before by default."""
    jt = _Joints(model, q, trig)
    # per body: angular velocity, velocity of the frame origin, gravity in its axes, g . (origin) in base coordinates
    state: list = []
    base = (ZERO, ZERO, model.gravity, 0.0)
    kinetic, potential = 0.0, 0.0
    for i in range(model.n):
        par = i - 1 if parent is None else parent[i]
        w, v, g, height = base if par < 0 else state[par]
        p = jt.p[i]
        v = jt.down(i, _add(v, cross(w, p)))
        height = height + dot(g, p)
        w, g = jt.down(i, w), jt.down(i, g)
        if model.revolute[i]:
            w = (w[0], w[1], w[2] + qd[i])
        else:
            v = (v[0], v[1], v[2] + qd[i])
        state.append((w, v, g, height))
        c, m, I = model.com[i], model.mass[i], model.inertia[i]
        vc = _add(v, cross(w, c))
        kinetic = kinetic + 0.5 * (m * dot(vc, vc) + dot(w, _mv(I, w)))
        potential = potential - m * (height + dot(g, c))
    return kinetic, potential
