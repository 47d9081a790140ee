"""Natural frequencies with the links' own bending: elastic joints plus virtual joints along each beam.

Which model, and why. The links made as parts (``model/parts.py``) are Euler-Bernoulli beams whose
compliance at the tool ``numeric/beams.py`` integrates exactly. For their vibration we use the
virtual-joint method (lumped flexibility): each beam is cut into ``segments`` equal slices, and the
flexibility of slice k is lumped into a six-component virtual joint at the slice's midpoint p_k, a
small twist (translation, rotation) whose compliance is the slice's own,

    C_k = integral over the slice of X(s)^T S X(s) ds,    X carrying a wrench at p_k to the section at s,

with S the section's compliance (1/EA, 1/GJ, 1/EI1, 1/EI2) as in ``beams.py`` (2-point Gauss, exact).
Every wrench that loads the slice from outboard passes p_k, so the sum over the slices, carried to
the tool, is the beam's integral itself: the static tool compliance of this model equals
``beams_compliance`` for any number of segments (a test checks it), while the mass is lumped into
half-slices on either side of each virtual joint (midpoint rule), so the frequencies converge to
the continuous beam's as the segments multiply (second order; the test measures a cantilever with a
tip mass against the Euler-Bernoulli frequency equation). A beam finite-element model would converge
faster per degree of freedom, but it needs a floating-frame formulation to join the rigid chain;
the virtual joints are twists about points of the same chain, so the mass matrix is the plain
sum over rigid bodies of J^T diag(m, I) J that the rest of the project uses, and the consistency with
beams.py holds by construction.

The modal problem at a pose (motors locked, gravity's stiffness left out as in ``modes.py``): the
coordinates are the elastic joints' deflections and the virtual joints' twists, scaled by the square
root of their compliance, u = C^(-1/2) x, so the stiffness is the identity and

    A(q) = G^T G,  G = W^(1/2) J C^(1/2),    eigenvalues mu = 1/w^2

(J the bodies' Jacobians over those coordinates, W their masses and inertias). A rigid direction
(E infinite) has a zero compliance column and drops out, so an infinitely stiff link gives the
rigid-link frequency exactly. The strain energy of a mode, 1/2 |u|^2, splits by coordinate group:
the share in the gearboxes and in each link's bending.

Cost: 6 coordinates per segment and link; the PUMA-sized frequency maps are timed in
benchmarks/bench_elastic.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kinematics.numeric import NumericArm, dh_frames
from ..model.manipulator import Convention
from .joints import ElasticJoints

__all__ = ["FlexModel", "FlexModes", "FlexField", "flex_model", "flex_modes", "flex_mode_field",
           "lowest_flex_frequency", "flex_tool_compliance", "SEGMENTS"]

#: default slices per beam: a bare cantilever's first bending frequency comes out 0.2 % above the
#: Euler-Bernoulli value with 4 (0.8 % with 2, 0.03 % with 8; less with a tip mass): tests/numeric/test_flex_modes.py
SEGMENTS = 4
TWO_PI = 2.0 * np.pi
CHUNK = 256   # poses per block
#: 2-point Gauss-Legendre nodes and weights on [-1, 1] (once: numpy's leggauss costs 3 ms a call under load)
GAUSS2 = tuple(zip(*np.polynomial.legendre.leggauss(2)))


def _skew(v: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _psd_sqrt(C: np.ndarray) -> np.ndarray:
    w, V = np.linalg.eigh(0.5 * (C + C.T))
    return (V * np.sqrt(np.clip(w, 0.0, None))) @ V.T


@dataclass(frozen=True)
class FlexModel:
    """What does not change with the pose. Coordinates in chain order (base to tip), so that each moves
    everything a later one moves (the nesting the composite-body sum needs): an elastic joint (one
    column, scaled by 1/sqrt(k)), or a virtual joint (six columns: ``vj_sqrt`` (6, 6), the square root of
    its compliance in link axes, at ``vj_pos`` in link ``vj_link``'s frame). ``joint_cols``/``vj_cols``
    are their first columns; ``col_level`` the chain position of each column; ``groups`` its group
    ("joints" or "link i") for the strain-energy split. Bodies (links without a beam, half-slices of the
    beams, point masses) with ``body_link`` (its frame), ``body_pos`` (COM, link frame), ``body_mass``,
    ``body_inertia`` (about the COM, link axes) and ``body_level``: the last coordinate level moving it
    (-1: none)."""

    n: int
    joint_index: np.ndarray
    joint_scale: np.ndarray
    joint_cols: np.ndarray
    vj_link: np.ndarray
    vj_pos: np.ndarray
    vj_sqrt: np.ndarray
    vj_cols: np.ndarray
    col_level: np.ndarray
    body_link: np.ndarray
    body_pos: np.ndarray
    body_mass: np.ndarray
    body_inertia: np.ndarray
    body_level: np.ndarray
    groups: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.col_level)


@dataclass(frozen=True)
class FlexModes:
    """``frequency`` (..., k) Hz ascending; ``joint_shape`` (..., n, k) the joints' part of each mode (largest
    joint component 1, zero where a mode does not move the joints); ``energy`` (..., k, groups) the share of
    each mode's strain energy per group (``groups``)."""

    frequency: np.ndarray
    joint_shape: np.ndarray
    energy: np.ndarray
    groups: tuple[str, ...]


def _slice_compliance(beam, a: float, b: float, p: np.ndarray) -> np.ndarray:
    """C (6, 6), link axes, of the beam between a and b (arc length) at the point p: [dt; dth] = C [F; M_p]."""
    S = beam.section_compliance()
    u = (beam.end - beam.start) / beam.length
    C = np.zeros((6, 6))
    for t, w in GAUSS2:
        s = a + (b - a) * (t + 1) / 2
        X = np.eye(6)
        X[3:, :3] = _skew(p - (beam.start + u * s))
        C += w * (b - a) / 2 * X.T @ S @ X
    return C


class _Builder:
    """Collects coordinates and bodies link by link, base outwards."""

    def __init__(self):
        self.level = -1
        self.joints: list[tuple[int, float, int]] = []           # (joint, 1/sqrt(k), column)
        self.vjs: list[tuple[int, np.ndarray, np.ndarray, int]] = []   # (link, point, sqrt(C), column)
        self.col_level: list[int] = []
        self.groups: list[str] = []
        self.bodies: list[tuple[int, np.ndarray, float, np.ndarray, int]] = []

    def coordinate(self, columns: int, group: str) -> int:
        self.level += 1
        self.col_level += [self.level] * columns
        self.groups += [group] * columns
        return len(self.col_level) - columns

    def body(self, link: int, pos, mass: float, inertia, level: int | None = None) -> None:
        self.bodies.append((link, np.asarray(pos, float), float(mass), np.asarray(inertia, float),
                            self.level if level is None else level))


def flex_model(arm: NumericArm, joints: ElasticJoints, segments: int = SEGMENTS) -> FlexModel:
    """The bodies and coordinates of ``arm`` with the elastic ``joints`` and its beams cut in ``segments``."""
    if segments < 1:
        raise ValueError("segments: at least 1 per beam")
    beams = {b.index: b for b in arm.beams}
    loads: dict[int, list] = {}
    for link, m, pos in arm.point_masses:
        loads.setdefault(link, []).append((m, np.asarray(pos, float)))
    elastic = set(joints.elastic.tolist())
    out = _Builder()
    for i in range(arm.n):
        if i in elastic:
            out.joints.append((i, 1.0 / np.sqrt(joints.stiffness[i]), out.coordinate(1, "joints")))
        beam = beams.get(i)
        if beam is None:
            out.body(i, arm.com[i], arm.mass[i], arm.inertia[i])
            for m, pos in loads.get(i, ()):
                out.body(i, pos, m, np.zeros((3, 3)))
            continue
        L, mu = beam.length, beam.mass_per_length
        u = (beam.end - beam.start) / L
        perp = np.eye(3) - np.outer(u, u)
        # the part's inertia is the prism's: a section term proportional to L plus mu L^3/12 across
        per_length = (arm.inertia[i] - mu * L ** 3 / 12 * perp) / L
        h = L / segments
        first = out.level
        # point masses along the beam: moved by the virtual joints before them
        along = [(m, pos, float(np.dot(pos - beam.start, u))) for m, pos in loads.get(i, ())]
        for k in range(segments):
            p = beam.start + u * (k + 0.5) * h
            out.vjs.append((i, p, _psd_sqrt(_slice_compliance(beam, k * h, (k + 1) * h, p)),
                            out.coordinate(6, f"link {i + 1}")))
        for k in range(2 * segments):   # half-slices: the k-th lies beyond virtual joints 0 .. (k - 1) // 2
            out.body(i, beam.start + u * (k + 0.5) * h / 2, mu * h / 2,
                     per_length * h / 2 + mu * (h / 2) ** 3 / 12 * perp, first + (k + 1) // 2)
        for m, pos, s in along:
            out.body(i, pos, m, np.zeros((3, 3)), first + int(np.clip(np.floor(s / h + 0.5), 0, segments)))
    b = out.bodies
    return FlexModel(
        arm.n, np.array([j for j, _, _ in out.joints], int), np.array([s for _, s, _ in out.joints], float),
        np.array([c for _, _, c in out.joints], int), np.array([v[0] for v in out.vjs], int),
        np.array([v[1] for v in out.vjs], float).reshape(-1, 3),
        np.array([v[2] for v in out.vjs], float).reshape(-1, 6, 6), np.array([v[3] for v in out.vjs], int),
        np.array(out.col_level, int), np.array([x[0] for x in b], int), np.array([x[1] for x in b]).reshape(-1, 3),
        np.array([x[2] for x in b]), np.array([x[3] for x in b]).reshape(-1, 3, 3), np.array([x[4] for x in b], int),
        tuple(out.groups))


def _twists(fm: FlexModel, arm: NumericArm, T: np.ndarray) -> np.ndarray:
    """(N, D, 6): column d moves a point x of what it carries by v + w x x and turns it by w; rows (v, w)."""
    N = T.shape[0]
    X = np.zeros((N, fm.size, 6))
    if len(fm.joint_index):
        k = fm.joint_index + (0 if arm.convention is Convention.STANDARD else 1)
        Tk = T[:, k]
        z, o = Tk[..., :3, 2], Tk[..., :3, 3]
        rev = arm.revolute[fm.joint_index][None, :, None]
        X[:, fm.joint_cols, :3] = np.where(rev, np.cross(o, z), z) * fm.joint_scale[None, :, None]
        X[:, fm.joint_cols, 3:] = np.where(rev, z, 0.0) * fm.joint_scale[None, :, None]
    if len(fm.vj_link):
        Tv = T[:, fm.vj_link + 1]
        R, p0 = Tv[..., :3, :3], Tv[..., :3, 3]
        p = np.einsum("nkij,kj->nki", R, fm.vj_pos) + p0                 # (N, V, 3)
        t = np.swapaxes(R @ fm.vj_sqrt[:, :3, :], -1, -2)                # (N, V, 6, 3): column l's translation
        r = np.swapaxes(R @ fm.vj_sqrt[:, 3:, :], -1, -2)                # and rotation, base axes
        cols = (fm.vj_cols[:, None] + np.arange(6)).ravel()
        X[:, cols, :3] = (t - np.cross(r, p[:, :, None, :])).reshape(N, -1, 3)
        X[:, cols, 3:] = r.reshape(N, -1, 3)
    return X


def _mass_matrix(fm: FlexModel, arm: NumericArm, q: np.ndarray) -> np.ndarray:
    """A (N, D, D) over poses q (N, n): the mass matrix in the scaled coordinates (unit stiffness), by
    composite bodies: entry (d, e) is X_d^T I_c X_e with I_c the spatial inertia of everything the later of
    the two moves (coordinates are nested along the chain)."""
    T = dh_frames(arm, q)
    X = _twists(fm, arm, T)
    Tb = T[:, fm.body_link + 1]
    R, p0 = Tb[..., :3, :3], Tb[..., :3, 3]
    c = np.einsum("nbij,bj->nbi", R, fm.body_pos) + p0                    # (N, B, 3)
    Ic = R @ fm.body_inertia @ np.swapaxes(R, -1, -2)
    m = fm.body_mass[None, :, None, None]
    cx = np.zeros(c.shape + (3,))
    cx[..., 0, 1], cx[..., 0, 2], cx[..., 1, 2] = -c[..., 2], c[..., 1], -c[..., 0]
    cx = cx - np.swapaxes(cx, -1, -2)
    # spatial inertia of a body for the twist (v, w) at the base origin: KE = 1/2 |v + w x c|^2 m + 1/2 w^T Ic w
    S = np.empty(c.shape[:2] + (6, 6))
    S[..., :3, :3] = m * np.eye(3)
    S[..., :3, 3:] = -m * cx
    S[..., 3:, :3] = m * cx
    S[..., 3:, 3:] = Ic - m * cx @ cx
    levels = fm.col_level.max(initial=-1) + 1
    carried = (fm.body_level[:, None] >= np.arange(levels)[None, :]).astype(float)   # (B, levels)
    composite = np.einsum("nbij,bl->nlij", S, carried)                   # (N, levels, 6, 6)
    # I_c(level of e) X_e, a level's (at most six) columns at once
    slot = np.arange(len(fm.col_level)) - np.searchsorted(fm.col_level, fm.col_level)
    Xl = np.zeros((len(q), levels, 6, 6))
    Xl[:, fm.col_level, slot] = X
    Y = (Xl @ composite)[:, fm.col_level, slot]                          # (N, D, 6); composite is symmetric
    later = fm.col_level[:, None] <= fm.col_level[None, :]
    P = X @ np.ascontiguousarray(np.swapaxes(Y, -1, -2))                # P[d, e] = X_d . Y_e: right for d before e
    return np.where(later, P, np.swapaxes(P, -1, -2))


def _group_names(fm: FlexModel) -> tuple[str, ...]:
    """The coordinate groups ("joints", "link 2", ...) in their first order."""
    return tuple(sorted(set(fm.groups), key=fm.groups.index))


def _lowest(fm: FlexModel, A: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(frequency (..., k) Hz, U (..., D, k) the modes in the scaled coordinates, energy (..., k, groups) their
    strain energy's share per group) of the ``count`` lowest modes of A (..., D, D), lowest first."""
    mu, U = np.linalg.eigh(A)
    mu, U = mu[..., ::-1][..., :count], U[..., ::-1][..., :count]     # largest 1/w^2: lowest first
    with np.errstate(divide="ignore"):
        freq = 1.0 / (TWO_PI * np.sqrt(np.clip(mu, 0.0, None)))
    share = np.stack([np.sum(U[..., [g == name for g in fm.groups], :] ** 2, axis=-2) for name in _group_names(fm)],
                     -1)
    return freq, U, share


def _joint_part(fm: FlexModel, U: np.ndarray, n: int) -> np.ndarray:
    """(..., n, k) the joints' deflection (rad or m) of the modes U (..., D, k): 1/sqrt(k) u, zero at a rigid joint."""
    V = np.zeros(U.shape[:-2] + (n, U.shape[-1]))
    V[..., fm.joint_index, :] = U[..., fm.joint_cols, :] * fm.joint_scale[:, None]
    return V


def flex_modes(arm: NumericArm, joints: ElasticJoints, q, segments: int = SEGMENTS, count: int = 6) -> FlexModes:
    """The lowest ``count`` modes at poses q (..., n) with the links' bending (module docstring)."""
    fm = flex_model(arm, joints, segments)
    q = np.asarray(q, float)
    lead, flat = q.shape[:-1], q.reshape(-1, arm.n)
    freq, shape, energy = [], [], []
    names = _group_names(fm)
    for s in range(0, len(flat), CHUNK):
        f, U, share = _lowest(fm, _mass_matrix(fm, arm, flat[s:s + CHUNK]), count)
        freq.append(f)
        energy.append(share)
        V = _joint_part(fm, U, arm.n)
        big = np.take_along_axis(V, np.abs(V).argmax(axis=-2)[..., None, :], axis=-2)
        shape.append(np.divide(V, big, out=np.zeros_like(V), where=big != 0))
    k = min(count, fm.size)
    return FlexModes(np.concatenate(freq).reshape(lead + (k,)), np.concatenate(shape).reshape(lead + (arm.n, k)),
                     np.concatenate(energy).reshape(lead + (k, len(names))), names)


@dataclass(frozen=True)
class FlexField:
    """The modes at one pose with what they do to the links' centre lines, for drawing them: ``frequency`` (k,)
    Hz ascending, ``energy`` (k, groups) and ``groups`` as :class:`FlexModes`; ``joint_shape`` (n, k) the joints'
    part (rad or m) and ``displacement`` (P, 3, k) that of the points ``points`` (P, 3) (frame 0), both on one
    scale per mode (the largest point displacement 1), so that a drawn arm and its drawn centre lines move
    together. ``beams`` (L,) the bending links (0-based) and ``slices`` (L + 1,) where each one's points start
    and end in ``points``: link beams[l]'s centre line from its start through its half-slices to its end."""

    frequency: np.ndarray
    joint_shape: np.ndarray
    displacement: np.ndarray
    points: np.ndarray
    beams: np.ndarray
    slices: np.ndarray
    energy: np.ndarray
    groups: tuple[str, ...]


def flex_mode_field(arm: NumericArm, joints: ElasticJoints, q, segments: int = SEGMENTS, count: int = 6) -> FlexField:
    """:class:`FlexField` at one pose q (n,): the modes of :func:`flex_modes` and how each moves the beams' centre
    lines. A point of link i at level l (beyond the coordinates of levels <= l) moves by the sum over those
    coordinates d of (v_d + w_d x p) u_d, u the mode in the scaled coordinates."""
    fm = flex_model(arm, joints, segments)
    q = np.asarray(q, float).reshape(1, arm.n)
    T = dh_frames(arm, q)
    X = _twists(fm, arm, T)[0]                                            # (D, 6)
    freq, U, energy = _lowest(fm, _mass_matrix(fm, arm, q)[0], count)
    k = U.shape[-1]
    beams = {b.index: b for b in arm.beams}
    links = np.array(sorted(beams), int)
    pts, lev, slices = [], [], [0]
    for i in links:
        beam, first = beams[int(i)], int(fm.col_level[fm.vj_cols[fm.vj_link == i][0]]) - 1
        u, h = (beam.end - beam.start) / beam.length, beam.length / segments
        along = [beam.start] + [beam.start + u * (j + 0.5) * h / 2 for j in range(2 * segments)] + [beam.end]
        levels = [first] + [first + (j + 1) // 2 for j in range(2 * segments)] + [first + segments]
        Ti = T[0, i + 1]
        pts += [Ti[:3, :3] @ p + Ti[:3, 3] for p in along]
        lev += levels
        slices.append(len(pts))
    P = np.array(pts, float).reshape(-1, 3)
    moves = (fm.col_level[None, :] <= np.array(lev, int)[:, None]).astype(float)        # (P, D)
    per = X[None, :, :3] + np.cross(X[None, :, 3:], P[:, None, :])                     # (P, D, 3)
    D = np.einsum("pd,pdc,dk->pck", moves, per, U)                                     # (P, 3, k)
    V = _joint_part(fm, U, arm.n)
    big = np.linalg.norm(D, axis=1).max(axis=0) if len(P) else np.zeros(k)
    scale = np.divide(1.0, big, out=np.zeros(k), where=big > 0)
    return FlexField(freq, V * scale, D * scale, P, links, np.array(slices, int), energy, _group_names(fm))


def lowest_flex_frequency(arm: NumericArm, joints: ElasticJoints, q, segments: int = SEGMENTS) -> np.ndarray:
    """(...,) the lowest natural frequency in Hz with the links' bending; inf with nothing elastic."""
    fm = flex_model(arm, joints, segments)
    q = np.asarray(q, float)
    flat = q.reshape(-1, arm.n)
    if fm.size == 0:
        return np.full(q.shape[:-1], np.inf)
    out = np.empty(len(flat))
    for s in range(0, len(flat), CHUNK):
        A = _mass_matrix(fm, arm, flat[s:s + CHUNK])
        ok = np.isfinite(A).all(axis=(-2, -1))
        mu = np.full(len(A), np.nan)
        if ok.any():
            mu[ok] = np.linalg.eigvalsh(A[ok])[:, -1]
        with np.errstate(divide="ignore"):
            out[s:s + CHUNK] = 1.0 / (TWO_PI * np.sqrt(mu))
    return out.reshape(q.shape[:-1])


def flex_tool_compliance(arm: NumericArm, joints: ElasticJoints, q, segments: int = SEGMENTS) -> np.ndarray:
    """(6, 6) the tool's compliance of this model at one pose q: sum over the coordinates of the tool's
    displacement columns, C = J_u J_u^T (unit stiffness in u); equals J K^-1 J^T + beams_compliance."""
    fm = flex_model(arm, joints, segments)
    T = dh_frames(arm, np.asarray(q, float)[None, :])
    X = _twists(fm, arm, T)[0]
    tool = (T[0, -1] @ arm.tool)[:3, 3]
    Ju = np.concatenate([X[:, :3] + np.cross(X[:, 3:], tool), X[:, 3:]], axis=-1).T   # (6, D): all move the tool
    return Ju @ Ju.T
