"""An ISO 9283-style test cube, its test plane and points, and a path through them for motor sizing.

The corners C1..C8, the test plane C1-C2-C7-C8, the points P1..P5 and the path P1 -> ... -> P5 -> P1 are
defined in docs/metrics.md ("ISO 9283 test cube"). Positions are those of the tool point (the project's
``tool`` frame origin, the last frame's origin when there is none; the point of
:meth:`~designer.kinematics.NumericArm.tool_jacobian`) in frame 0; orientation is free. IK is damped
least squares within the joint limits; joint rates are the minimum-norm qd = J+ xd, qdd its exact
time derivative."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DesignerError
from ..jobs import Job, Progress, run
from ..kinematics import NumericArm
from .sizing import Trajectory

__all__ = ["IKError", "TestCube", "CubePath", "solve_position", "test_cube", "find_test_cube", "cube_path"]

FRACTION = 0.1  # ISO 9283: P2..P5 at (10 +- 2) % of the diagonal from the corners
_SIGNS = np.array([[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1],
                   [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], float)


class IKError(DesignerError):
    """A point the tool cannot reach (within the joint limits, from the seed given)."""


@dataclass(frozen=True)
class TestCube:
    """The cube: centre (m, base frame), edge (m), and a joint solution at the centre (or None)."""

    __test__ = False  # not a pytest class, despite the name

    centre: np.ndarray
    edge: float
    q_centre: np.ndarray | None = None

    def corners(self) -> np.ndarray:
        """(8, 3): C1..C8 (numbering in the module docstring)."""
        return np.asarray(self.centre, float) + 0.5 * self.edge * _SIGNS

    def plane(self) -> np.ndarray:
        """(4, 3): the test plane's corners C1, C2, C7, C8."""
        return self.corners()[[0, 1, 6, 7]]

    def points(self, fraction: float = FRACTION) -> np.ndarray:
        """(5, 3): P1 (the centre) and P2..P5 at ``fraction`` of the diagonal from C1, C2, C7, C8."""
        c1, c2, c7, c8 = self.plane()
        return np.array([np.asarray(self.centre, float), c1 + fraction * (c7 - c1), c2 + fraction * (c8 - c2),
                         c7 + fraction * (c1 - c7), c8 + fraction * (c2 - c8)])


def _bounds(arm: NumericArm) -> tuple[np.ndarray, np.ndarray]:
    lim = np.asarray(arm.limits, float).reshape(arm.n, 2)
    return np.where(np.isnan(lim[:, 0]), -np.inf, lim[:, 0]), np.where(np.isnan(lim[:, 1]), np.inf, lim[:, 1])


def _tool(arm: NumericArm, q) -> np.ndarray:
    return arm.tool_in_base(q)[:3, 3]


def _fmt(p) -> str:
    return "(" + ", ".join(f"{v:.4g}" for v in p) + ") m"


def _dls_step(J, e, lam, q, lo, hi) -> np.ndarray:
    """A damped least-squares step; a joint resting on a limit that the step would push past is
    frozen and the step recomputed with the others (so the solver slides along the limit)."""
    free = np.ones(len(q), bool)
    for _ in range(len(q)):
        Jf = J * free
        dq = Jf.T @ np.linalg.solve(Jf @ Jf.T + lam**2 * np.eye(3), e)
        out = free & (((q <= lo) & (dq < 0)) | ((q >= hi) & (dq > 0)))
        if not out.any():
            break
        free &= ~out
    return dq


def solve_position(arm: NumericArm, target, seed, label: str = "target", tol: float = 1e-10,
                   max_iter: int = 200) -> np.ndarray:
    """Joint values (n,) putting the last frame's origin at ``target`` (3,), starting from ``seed``.

    Damped least squares dq = J^T (J J^T + lam^2 I)^-1 e on the translational rows of the tool
    Jacobian; lam shrinks after a step that lowers the error and grows after one that does not.
    Joints resting on a limit the step would cross are frozen for that step; every step is clipped
    to the joint limits. Raises :class:`IKError` naming ``label`` when the
    residual does not fall below ``tol`` (m).
    """
    lo, hi = _bounds(arm)
    target = np.asarray(target, float)
    q = np.clip(np.asarray(seed, float).copy(), lo, hi)
    e = target - _tool(arm, q)
    err, lam = float(np.linalg.norm(e)), 1e-2
    for _ in range(max_iter):
        if err < tol:
            return q
        J = arm.tool_jacobian(q)[:3]
        while True:
            dq = _dls_step(J, e, lam, q, lo, hi)
            step = np.linalg.norm(dq)
            if step > 0.5:   # keep each step local: the linearisation is poor beyond ~0.5 rad
                dq *= 0.5 / step
            qn = np.clip(q + dq, lo, hi)
            en = target - _tool(arm, qn)
            errn = float(np.linalg.norm(en))
            if errn < err:
                q, e, err, lam = qn, en, errn, max(lam / 3.0, 1e-9)
                break
            lam *= 5.0
            if lam > 1e4:   # no step lowers the error: a local minimum or a limit in the way
                raise IKError(f"{label} at {_fmt(target)}: inverse kinematics does not converge within the "
                              f"joint limits (stuck {err * 1e3:.3g} mm away)")
    if err < tol:
        return q
    raise IKError(f"{label} at {_fmt(target)}: inverse kinematics did not converge within the joint limits "
                  f"({err * 1e3:.3g} mm away after {max_iter} iterations)")


def _walk(arm: NumericArm, start_q, start, goal, label: str, steps: int, max_iter: int) -> np.ndarray:
    """IK along the straight line start -> goal in ``steps`` increments, each seeded by the last."""
    q = start_q
    for k in range(1, steps + 1):
        q = solve_position(arm, start + k / steps * (goal - start), q, label, tol=1e-9, max_iter=max_iter)
    return q


def _reachable(arm: NumericArm, cube: TestCube, q_centre, steps: int = 4, max_iter: int = 40) -> bool:
    """Every corner reached from the centre along straight lines (which pass through P2..P5)."""
    try:
        for k, corner in enumerate(cube.corners()):
            _walk(arm, q_centre, cube.centre, corner, f"C{k + 1}", steps, max_iter)
    except IKError:
        return False
    return True


def default_seed(arm: NumericArm) -> np.ndarray:
    """The middle of each joint's range (0 where a joint has no limits)."""
    lim = np.asarray(arm.limits, float).reshape(arm.n, 2)
    return np.where(np.isnan(lim).any(axis=1), 0.0, lim.mean(axis=1))


def find_test_cube(arm: NumericArm, candidates: int = 32, bisections: int = 8, seed: int = 0) -> Job[TestCube]:
    """Search the largest cube (a job: yields Progress per candidate centre, returns the TestCube).

    Candidate centres are the tool positions at ``candidates`` Sobol samples of the joint ranges
    (:func:`~designer.explore.maps.sample_configurations`), each with its sample as the IK seed.
    For each, the edge is bisected ``bisections`` times on (0, 2 (R - |c|) / sqrt 3], R the largest
    distance of the tool from the base origin over 256 samples (x 1.05): the cube must fit in the
    reach ball. An edge counts as reachable when IK walks from the centre to all eight corners in
    four straight increments within the joint limits (the corner walks pass through P2..P5). A
    candidate that cannot reach the best edge so far is skipped; the candidate with the largest
    reachable edge wins (the first on ties).
    """
    from .maps import sample_configurations
    reach = 1.05 * max(np.linalg.norm(_tool(arm, q)) for q in sample_configurations(arm, 256, seed=seed + 1))
    best = None
    for k, q0 in enumerate(sample_configurations(arm, candidates, seed=seed)):
        c = _tool(arm, q0)
        hi = 2.0 * (reach - np.linalg.norm(c)) / np.sqrt(3.0)
        if best is not None and hi <= best.edge:
            yield Progress("test cube", (k + 1) / candidates, f"candidate {k + 1}: too close to the reach")
            continue
        lo = 0.0 if best is None else best.edge
        if best is not None and not _reachable(arm, TestCube(c, lo), q0):
            yield Progress("test cube", (k + 1) / candidates, f"candidate {k + 1}: no larger cube")
            continue   # cannot beat the best: skip the bisection
        if _reachable(arm, TestCube(c, hi), q0):
            lo = hi
        else:
            for _ in range(bisections):
                mid = 0.5 * (lo + hi)
                if _reachable(arm, TestCube(c, mid), q0):
                    lo = mid
                else:
                    hi = mid
        if lo > 0 and (best is None or lo > best.edge):
            best = TestCube(c, lo, q0)
        yield Progress("test cube", (k + 1) / candidates,
                       f"candidate {k + 1}: best edge {0 if best is None else best.edge:.3g} m")
    if best is None:
        raise IKError("no test cube found: no sampled centre lets the tool reach a cube around it")
    return best


def test_cube(arm: NumericArm, centre=None, edge: float | None = None, seed=None, starts: int = 16,
              **search) -> TestCube:
    """The test cube: the one given (``centre`` (3,), ``edge`` m), or the largest one
    :func:`find_test_cube` finds (``search``: its options).

    A given cube is checked: IK reaches the centre and walks from there to every corner in four
    straight increments within the joint limits. The first start is ``seed`` (default: the middle
    of the joint ranges); when that branch cannot reach the cube, ``starts`` Sobol samples of the
    joint ranges are tried in turn (another elbow or shoulder branch may). The error names the
    point the first start could not reach.
    """
    if centre is None and edge is None:
        return run(find_test_cube(arm, **search))
    if centre is None or edge is None:
        raise ValueError("give both the cube's centre and its edge, or neither (to search the largest)")
    centre = np.asarray(centre, float).reshape(3)
    if not edge > 0:
        raise ValueError(f"cube edge: must be positive, not {edge:g}")
    from .maps import sample_configurations
    first = default_seed(arm) if seed is None else np.asarray(seed, float)
    error = None
    for q_start in [first, *(sample_configurations(arm, starts) if starts > 0 else [])]:
        try:
            q0 = solve_position(arm, centre, q_start, "cube centre P1")
            cube = TestCube(centre, float(edge), q0)
            for k, corner in enumerate(cube.corners()):
                _walk(arm, q0, centre, corner, f"cube corner C{k + 1}", 4, 200)
            return cube
        except IKError as exc:
            error = error or exc
    raise IKError(f"{error} (tried {1 + max(starts, 0)} starting poses)")


@dataclass(frozen=True)
class CubePath:
    """The path P1 -> P2 -> P3 -> P4 -> P5 -> P1: tool position, velocity, acceleration (N, 3) and
    the joint trajectory that realises it; ``knots`` the sample index of each point reached."""

    cube: TestCube
    trajectory: Trajectory
    x: np.ndarray
    xd: np.ndarray
    xdd: np.ndarray
    knots: tuple[int, ...]


def _rate_map(arm: NumericArm, q, label: str) -> np.ndarray:
    """J+ = J^T (J J^T)^-1 of the translational rows: the minimum-norm joint rate for a tool velocity."""
    J = arm.tool_jacobian(q)[:3]
    JJ = J @ J.T
    if np.linalg.cond(JJ) > 1e12:
        raise IKError(f"{label}: the arm is singular there (the tool cannot move in every direction)")
    return J.T @ np.linalg.inv(JJ)


def cube_path(arm: NumericArm, cube: TestCube, speed: float, samples: int = 41, seed=None) -> CubePath:
    """Straight segments P1 -> P2 -> P3 -> P4 -> P5 -> P1, each rest to rest with the quintic
    s(u) = 10u^3 - 15u^4 + 6u^5 over T = 15 L / (8 v) (peak tool speed ``speed`` m/s), sampled at
    ``samples`` states per segment (the shared end states once).

    q: IK at each sample seeded by the previous solution (the first from ``seed``, else the cube's
    q_centre, else the middle of the joint ranges); qd = J+ xd; qdd = J+ xdd + (dJ+/dt) xd with
    dJ+/dt by a central difference along qd. Raises :class:`IKError` naming the segment where the
    tool cannot follow the line, or where it would push a joint past its limit.
    """
    if not speed > 0:
        raise ValueError(f"tool speed: must be positive, not {speed:g}")
    if samples < 3:
        raise ValueError("at least 3 samples per segment")
    pts = cube.points()
    order = [0, 1, 2, 3, 4, 0]
    u = np.linspace(0.0, 1.0, samples)
    s = 10 * u**3 - 15 * u**4 + 6 * u**5
    sd = 30 * u**2 - 60 * u**3 + 30 * u**4
    sdd = 60 * u - 180 * u**2 + 120 * u**3
    ts: list[np.ndarray] = []
    xs, xds, xdds, knots, t0 = [], [], [], [0], 0.0
    for a, b in zip(order, order[1:]):
        d = pts[b] - pts[a]
        T = 15.0 * float(np.linalg.norm(d)) / (8.0 * speed)
        first = 0 if not ts else 1   # the segment's start is the previous one's end
        ts.append(t0 + T * u[first:])
        xs.append(pts[a] + s[first:, None] * d)
        xds.append(sd[first:, None] * d / T)
        xdds.append(sdd[first:, None] * d / T**2)
        t0 += T
        knots.append(knots[-1] + samples - 1)
    t, x, xd, xdd = (np.concatenate(v) for v in (ts, xs, xds, xdds))
    names = [f"P{order[k] + 1} -> P{order[k + 1] + 1}" for k in range(5)]
    seg = np.minimum(np.arange(len(t)) // (samples - 1), 4)
    q0 = seed if seed is not None else (cube.q_centre if cube.q_centre is not None else default_seed(arm))
    lo, hi = _bounds(arm)
    q = np.empty((len(t), arm.n))
    qd, qdd = np.empty_like(q), np.empty_like(q)
    prev = solve_position(arm, x[0], q0, "P1 (cube centre)")
    for k in range(len(t)):
        label = f"segment {names[seg[k]]} at t = {t[k]:.4g} s"
        prev = q[k] = solve_position(arm, x[k], prev, label, tol=1e-10)
        pinv = _rate_map(arm, q[k], label)
        qd[k] = pinv @ xd[k]
        at_limit = (np.isclose(q[k], lo, atol=1e-12) & (qd[k] < 0)) | (np.isclose(q[k], hi, atol=1e-12) & (qd[k] > 0))
        if at_limit.any():
            j = int(np.flatnonzero(at_limit)[0]) + 1
            raise IKError(f"{label}: joint {j} would pass its limit")
        norm = np.linalg.norm(qd[k])
        dpinv = np.zeros((arm.n, 3))
        if norm > 0:
            h = 1e-6 / norm   # a step of 1e-6 in joint space along qd
            dpinv = (_rate_map(arm, q[k] + h * qd[k], label) - _rate_map(arm, q[k] - h * qd[k], label)) / (2 * h)
        qdd[k] = pinv @ xdd[k] + dpinv @ xd[k]
    return CubePath(cube, Trajectory(t, q, qd, qdd), x, xd, xdd, tuple(knots))


test_cube.__test__ = False  # type: ignore[attr-defined]  # a builder, not a pytest test, when imported into a test module
