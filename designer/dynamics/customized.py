"""Customized symbolic Newton-Euler and composite-rigid-body algorithms (after Khalil & Kleinfinger).

The expressions are built scalar by scalar, never expanded, and every product by a structural
0 or +-1 is skipped, so twists of 0 or +-pi/2 make the link rotations permutations with signs
and cost nothing. ``sympy.cse`` then finds the shared pieces. The results are meant for code
generation and operation counts; :func:`~designer.dynamics.derive` gives the forms for reading.

Both DH conventions are handled as one chain of "joint frames": frame j' is fixed to link j at
its joint, with the joint along z_j'. In the modified convention j' is frame j. In the standard
convention j' is frame j-1 turned by theta_j and shifted by d_j; link j's inertial data (given in
frame j) are moved to frame j' once, through the constant offset Trans_x(a_j) Rot_x(alpha_j).

tau: the Newton-Euler recursion with the body terms about each centre of mass (the parameters
come as m, c, I_c, so no conversion is paid), the link's U = [wd x] + [w x]^2 formed once and
used for both the next origin and the centre of mass, its w_i w_j products again in the inertial
moment I wd + w x (I w), grouped by inertia entry (Khalil's K), and its diagonal carried to the
next link where a twist of 0 or +-pi/2 makes w_x^2 + w_y^2 the parent's. M: the composite rigid body algorithm on
the standard inertial parameters (m, MS = m c, J about the joint-frame origin, formed once per
link), the composite inertia turned about z in ten operations, then M_ij = S_i . (wrench of the
composite j carried back to joint i). Both were checked against Pinocchio (tests/dynamics).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from sympy.core.parameters import distribute

from ..jobs import NEVER, CancelToken
from ..model.manipulator import Convention, Manipulator

__all__ = ["custom_tau", "custom_mass_matrix"]

ZERO, ONE = sp.S.Zero, sp.S.One
_IDENTITY = [[ONE, ZERO, ZERO], [ZERO, ONE, ZERO], [ZERO, ZERO, ONE]]


def _mul(*xs):
    """Product skipping structural ones; 0 if a factor is a structural 0."""
    out = []
    for x in xs:
        if x == 0:
            return ZERO
        if x != 1:
            out.append(x)
    return sp.Mul(*out) if out else ONE


def _add(*xs):
    return sp.Add(*[x for x in xs if x != 0])


def _dot(a, b):
    return _add(*[_mul(x, y) for x, y in zip(a, b)])


def _cross(a, b):
    return [_add(_mul(a[1], b[2]), -_mul(a[2], b[1])), _add(_mul(a[2], b[0]), -_mul(a[0], b[2])),
            _add(_mul(a[0], b[1]), -_mul(a[1], b[0]))]


def _vadd(*vs):
    return [_add(*c) for c in zip(*vs)]


def _matvec(m, v):
    return [_dot(row, v) for row in m]


def _tmatvec(m, v):
    return [_dot([m[0][k], m[1][k], m[2][k]], v) for k in range(3)]


def _sym3(J):
    """The full symmetric 3x3 from the six entries (xx, yy, zz, xy, xz, yz)."""
    xx, yy, zz, xy, xz, yz = J
    return [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]


def _rotx(alpha):
    ca, sa = sp.cos(alpha), sp.sin(alpha)
    return [[ONE, ZERO, ZERO], [ZERO, ca, -sa], [ZERO, sa, ca]]


@dataclass
class _Joint:
    """Joint j in the chain of joint frames: frame j' relative to (j-1)'."""

    revolute: bool
    R: list        # rotation j' -> (j-1)'
    P: list        # origin of j' in (j-1)'
    bodies: list   # [(m, c, I_c or None)] in frame j'
    theta: object  # R = Rot_x(alpha) Rot_z(theta)
    alpha: object


def _bodies(model: Manipulator, j: int, offset_R, offset_p) -> list:
    """[(m, c, I_c or None)] of link j (0-based) and its loads, COM and inertia in the joint frame."""
    link = model.links[j]
    found = [(link.mass, list(link.com), link.inertia.matrix())]
    found += [(p.mass, list(p.position), None) for p in model.point_masses_on(j + 1)]
    out = []
    for mass, com, I in found:
        if I is not None and I.is_zero_matrix:
            I = None
        if mass == 0 and I is None:
            continue
        c = _vadd(_matvec(offset_R, com), offset_p)
        if I is not None:
            Ir = [[I[r, k] for k in range(3)] for r in range(3)]
            if offset_R != _IDENTITY:
                A = [_matvec(Ir, offset_R[k]) for k in range(3)]  # columns of I R^T
                Ir = [[_dot(offset_R[r], A[k]) for k in range(3)] for r in range(3)]
            I = Ir
        out.append((mass, c, I))
    return out


def _standard_parameters(bodies: list):
    """(m, MS, J) of the bodies: mass, first moment m c and inertia about the origin."""
    m, MS, J = ZERO, [ZERO] * 3, [ZERO] * 6
    for mass, c, I in bodies:
        ms = [_mul(mass, x) for x in c]
        # I_c + m (|c|^2 1 - c c^T), written with ms = m c
        Jo = [_add(_mul(ms[1], c[1]), _mul(ms[2], c[2])), _add(_mul(ms[0], c[0]), _mul(ms[2], c[2])),
              _add(_mul(ms[0], c[0]), _mul(ms[1], c[1])), -_mul(ms[0], c[1]), -_mul(ms[0], c[2]),
              -_mul(ms[1], c[2])]
        if I is not None:
            Jo = [_add(x, y) for x, y in zip(Jo, [I[0][0], I[1][1], I[2][2], I[0][1], I[0][2], I[1][2]])]
        m = _add(m, mass)
        MS = _vadd(MS, ms)
        J = [_add(x, y) for x, y in zip(J, Jo)]
    return m, MS, J


def _chain(model: Manipulator) -> list[_Joint]:
    standard = model.convention is Convention.STANDARD
    out = []
    for j, link in enumerate(model.links):
        theta, d = link.joint_values(model.q[j])
        if standard:
            prev = model.links[j - 1] if j else None
            alpha, a = (prev.alpha, prev.a) if prev else (ZERO, ZERO)
            off_R, off_p = _rotx(link.alpha), [link.a, ZERO, ZERO]
        else:
            alpha, a = link.alpha, link.a
            off_R, off_p = _IDENTITY, [ZERO] * 3
        ct, st = sp.cos(theta), sp.sin(theta)
        ca, sa = sp.cos(alpha), sp.sin(alpha)
        R = [[ct, -st, ZERO], [_mul(ca, st), _mul(ca, ct), -sa], [_mul(sa, st), _mul(sa, ct), ca]]
        P = [a, -_mul(sa, d), _mul(ca, d)]
        out.append(_Joint(link.is_revolute, R, P, _bodies(model, j, off_R, off_p), theta, alpha))
    return out


def _u_matrix(w, wd, xy2=None):
    """U = [wd x] + [w x][w x], so that U v = wd x v + w x (w x v) (Khalil's form, reused twice).

    ``xy2``: w_x^2 + w_y^2 when already known (see :func:`_planar_square`)."""
    sq = [_mul(x, x) for x in w]
    xy, xz, yz = _mul(w[0], w[1]), _mul(w[0], w[2]), _mul(w[1], w[2])
    return [[-_add(sq[1], sq[2]), _add(xy, -wd[2]), _add(xz, wd[1])],
            [_add(xy, wd[2]), -_add(sq[0], sq[2]), _add(yz, -wd[0])],
            [_add(xz, -wd[1]), _add(yz, wd[0]), -_add(sq[0], sq[1]) if xy2 is None else xy2]]


def _planar_square(jt, U_prev):
    """w_x^2 + w_y^2 of joint j's frame read from the parent's U, or None.

    Turning about z keeps w_x^2 + w_y^2, and the joint rate adds to w_z only; so it is that of the
    parent's w turned by Rot_x(alpha): the parent's w_x^2 + w_y^2 (alpha 0 or pi) or w_x^2 + w_z^2
    (alpha +-pi/2), minus the diagonal of U the parent already formed. Spares the sum of squares
    that the rotation by theta makes (cos^2 + sin^2) qd^2, which CSE cannot see."""
    if U_prev is None:
        return None
    if sp.sin(jt.alpha) == 0:
        return U_prev[2][2]
    if sp.cos(jt.alpha) == 0:
        return U_prev[1][1]
    return None


def custom_tau(model: Manipulator, token: CancelToken = NEVER, qd=None, qdd=None) -> sp.Matrix:
    """tau(q, qd, qdd): customized recursive Newton-Euler in joint frames, unexpanded.

    ``qd``, ``qdd``: values to use instead of the joint-rate symbols (zeros give G and h
    directly, cheaper than substituting into the shared graph afterwards).
    """
    with distribute(False):  # -(a + b) stays one negated sum, which cse can share
        return _tau(model, token, model.qd if qd is None else qd, model.qdd if qdd is None else qdd)


def base_motion(model: Manipulator) -> tuple[list, list, list]:
    """(w, wd, vd) of frame 0: at rest, its acceleration -g carrying gravity (frame-0 axes)."""
    return [ZERO] * 3, [ZERO] * 3, [-sp.sympify(g) for g in model.gravity_frame0]


def link_step(jt, w: list, wd: list, vd: list, U, qd, qdd) -> tuple[list, list, list]:
    """One joint of the outward recursion: (w, wd, vd) of joint j's frame from its parent's (w, wd, vd, U)."""
    # acceleration of the origin of j' in (j-1)' axes, then in j' axes
    a_prev = _vadd(vd, _matvec(U, jt.P)) if U is not None else vd
    w0, wd0, vd = _tmatvec(jt.R, w), _tmatvec(jt.R, wd), _tmatvec(jt.R, a_prev)
    if jt.revolute:
        w = [w0[0], w0[1], _add(w0[2], qd)]
        wd = [_add(wd0[0], _mul(qd, w0[1])), _add(wd0[1], -_mul(qd, w0[0])), _add(wd0[2], qdd)]
    else:
        w, wd = w0, wd0
        vd = [_add(vd[0], _mul(2, qd, w0[1])), _add(vd[1], -_mul(2, qd, w0[0])), _add(vd[2], qdd)]
    return w, wd, vd


def link_wrench(bodies, w: list, wd: list, vd: list, U) -> tuple[list, list]:
    """(F, N): inertial force and moment about the joint-frame origin of a link's bodies (m, c, I_c)."""
    Fj, Mj = [ZERO] * 3, [ZERO] * 3
    for m, c, I in bodies:  # about the COM: no inertia transfer needed
        f = [_mul(m, x) for x in _vadd(vd, _matvec(U, c))]
        Mj = _vadd(Mj, _cross(c, f))
        if I is not None:
            Mj = _vadd(Mj, _inertia_moment(I, w, wd))
        Fj = _vadd(Fj, f)
    return Fj, Mj


def _inertia_moment(I, w: list, wd: list) -> list:
    """I wd + w x (I w) grouped by inertia entry (Khalil's K): the products w_i w_j are those U
    holds, the differences of inertia entries depend on the parameters only (one per link, and free
    for numbers); 15 products and 15 sums for a full inertia instead of 24 and 15."""
    xx, yy, zz, xy, xz, yz = I[0][0], I[1][1], I[2][2], I[0][1], I[0][2], I[1][2]
    sq = [_mul(x, x) for x in w]
    p01, p02, p12 = _mul(w[0], w[1]), _mul(w[0], w[2]), _mul(w[1], w[2])
    return [_add(_mul(xx, wd[0]), _mul(xy, _add(wd[1], -p02)), _mul(xz, _add(wd[2], p01)),
                 _mul(yz, _add(sq[1], -sq[2])), _mul(_add(zz, -yy), p12)),
            _add(_mul(xy, _add(wd[0], p12)), _mul(yy, wd[1]), _mul(yz, _add(wd[2], -p01)),
                 _mul(xz, _add(sq[2], -sq[0])), _mul(_add(xx, -zz), p02)),
            _add(_mul(xz, _add(wd[0], -p12)), _mul(yz, _add(wd[1], p02)), _mul(zz, wd[2]),
                 _mul(xy, _add(sq[0], -sq[1])), _mul(_add(yy, -xx), p01))]


def _same(kind: str, j: int, values: list) -> list:
    return values


def _tau(model: Manipulator, token: CancelToken, qd_all, qdd_all, name=_same) -> sp.Matrix:
    """``name(kind, j, values)`` may replace each intermediate vector by named symbols (the report)."""
    chain = _chain(model)
    n = model.n
    w, wd, vd = base_motion(model)
    F, Mo = [], []
    U = None
    for j, jt in enumerate(chain):
        token.check()
        qd, qdd = sp.sympify(qd_all[j]), sp.sympify(qdd_all[j])
        w, wd, vd = link_step(jt, w, wd, vd, U, qd, qdd)
        w, wd, vd = name("w", j, w), name("wd", j, wd), name("vd", j, vd)
        U = name("U", j, _u_matrix(w, wd, _planar_square(jt, U)))
        Fj, Mj = link_wrench(jt.bodies, w, wd, vd, U)
        F.append(name("F", j, Fj))
        Mo.append(name("N", j, Mj))
    tau = [ZERO] * n
    f, nm = [ZERO] * 3, [ZERO] * 3
    for j in range(n - 1, -1, -1):
        token.check()
        if j + 1 < n:
            nxt = chain[j + 1]
            Rf = _matvec(nxt.R, f)
            nm = _vadd(Mo[j], _matvec(nxt.R, nm), _cross(nxt.P, Rf))
            f = _vadd(F[j], Rf)
        else:
            f, nm = F[j], Mo[j]
        f, nm = name("f", j, f), name("n", j, nm)
        tau[j] = name("tau", j, [nm[2] if chain[j].revolute else f[2]])[0]
    return sp.Matrix(tau)


def _rotz_inertia(theta, J):
    """Rot_z(theta) J Rot_z(theta)^T in ten operations.

    With q = s (xx - yy) + 2 c xy: xx' = xx - s q, yy' = yy + s q, xy' = c q - xy.
    """
    xx, yy, zz, xy, xz, yz = J
    c, s = sp.cos(theta), sp.sin(theta)
    q = _add(_mul(s, _add(xx, -yy)), _mul(2, c, xy))
    w = _mul(s, q)
    return [_add(xx, -w), _add(yy, w), zz, _add(_mul(c, q), -xy),
            _add(_mul(c, xz), -_mul(s, yz)), _add(_mul(s, xz), _mul(c, yz))]


def _transform_inertia(jt, m, MS, J):
    """Standard inertial parameters of a body given in frame j', expressed in (j-1)'."""
    R, P = jt.R, jt.P
    s = _matvec(R, MS)
    MS2 = _vadd(s, [_mul(m, x) for x in P])
    Rx = _rotx(jt.alpha)
    Jm = _sym3(_rotz_inertia(jt.theta, J))
    A = [_matvec(Jm, Rx[k]) for k in range(3)]  # columns of J Rx^T
    RJR = [[_dot(Rx[r], A[k]) for k in range(3)] for r in range(3)]
    # J' = R J R^T + [(s.P) 1 - s P^T] + [(MS'.P) 1 - P MS'^T]
    sp_, Mp = _dot(s, P), _dot(MS2, P)
    idx = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)]
    J2 = []
    for r, k in idx:
        diag = _add(sp_, Mp) if r == k else ZERO
        J2.append(_add(RJR[r][k], diag, -_mul(s[r], P[k]), -_mul(P[r], MS2[k])))
    return MS2, J2


def custom_mass_matrix(model: Manipulator, token: CancelToken = NEVER, params: list | None = None) -> sp.Matrix:
    """M(q): composite rigid body algorithm in joint frames, unexpanded. ``params``: per joint
    (m, MS, J as xx yy zz xy xz yz) in the joint frame instead of the model's (base parameters)."""
    with distribute(False):
        return _mass_matrix(model, token, params)


def _mass_matrix(model: Manipulator, token: CancelToken, params: list | None = None) -> sp.Matrix:
    chain = _chain(model)
    n = model.n
    comp: list = [None] * n  # (m, MS, J) of the composite body j..n-1, filled from the tip inwards
    for j in range(n - 1, -1, -1):
        token.check()
        m, MS, J = _standard_parameters(chain[j].bodies) if params is None else params[j]
        if j + 1 < n:
            mc, MSc, Jc = comp[j + 1]
            MSt, Jt = _transform_inertia(chain[j + 1], mc, MSc, Jc)
            m, MS, J = _add(m, mc), _vadd(MS, MSt), [_add(x, y) for x, y in zip(J, Jt)]
        comp[j] = (m, MS, J)
    M = [[ZERO] * n for _ in range(n)]
    for j in range(n):
        token.check()
        m, MS, J = comp[j]
        # wrench needed to give joint j a unit acceleration, the composite body at rest
        if chain[j].revolute:
            f, nm = [-MS[1], MS[0], ZERO], [J[4], J[5], J[2]]
        else:
            f, nm = [ZERO, ZERO, m], [MS[1], -MS[0], ZERO]
        M[j][j] = nm[2] if chain[j].revolute else f[2]
        for i in range(j - 1, -1, -1):
            nxt = chain[i + 1]
            Rf = _matvec(nxt.R, f)
            nm = _vadd(_matvec(nxt.R, nm), _cross(nxt.P, Rf))
            f = Rf
            M[i][j] = M[j][i] = nm[2] if chain[i].revolute else f[2]
    return sp.Matrix(M)
