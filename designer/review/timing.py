"""The cycle's timing made time-optimal for the drives (docs/project-format.md, ``"timing": "time-optimal"``).

The waypoints are joined by straight lines in joint space, each a rest-to-rest move; along each line the path
parametrization s(t) is made time-optimal by TOPP-RA (the ``toppra`` package: reachability analysis over a grid of
the path) under every joint's torque limit, ``|tau_i| <= T_i`` with tau the arm's inverse dynamics (gravity, the
payload, Coriolis) plus the rotors' reflected inertia N^2 Jm qdd (as :func:`designer.explore.sizing.size_motors`
computes it), and speed limit ``|qd_i| <= V_i`` where given. The motion is sampled at the grid's points: along a
line ``q = a + s (b - a)``, ``qd = (b - a) sd``, ``qdd = (b - a) sdd``, the times from the trapezoid rule in s
(``dt = 2 ds / (sd_k + sd_k+1)``), where TOPP-RA's constraints are imposed.
"""

from __future__ import annotations

import numpy as np

from ..errors import DesignerError

__all__ = ["TimingError", "time_optimal_cycle", "time_optimal_path", "path_pieces", "GRID"]

#: grid points of each line (a segment's samples)
GRID = 101
#: the limits are imposed this much inside (relative), so that the solution's round-off (1e-15 relative) never
#: puts a sample over a rating: a requirement ``torque_load <= 1`` holds on the time-optimal cycle
SLACK = 1e-9


class TimingError(DesignerError):
    """No time-optimal timing: a limit missing, or a waypoint where the arm cannot even hold itself."""


def _inverse_dynamics(arm, gear, rotor):
    from ..explore.sizing import _torque
    reflected = np.asarray(gear, float) ** 2 * np.asarray(rotor, float)

    def tau(q, qd, qdd):
        return _torque(arm, q, qd, qdd) + reflected * qdd
    return tau


def _torque_constraint(tau, limit):
    """TOPP-RA's joint torque constraint with the coefficients from one batch inverse dynamics each over the grid
    (toppra's own calls its inverse dynamics once per grid point)."""
    from toppra.constraint import DiscretizationType
    from toppra.constraint import JointTorqueConstraint

    class _Batch(JointTorqueConstraint):
        def compute_constraint_params(self, path, gridpoints):
            from toppra.constraint.linear_constraint import canlinear_colloc_to_interpolate
            p, ps, pss = path(gridpoints), path(gridpoints, 1), path(gridpoints, 2)
            zero = np.zeros_like(p)
            c = tau(p, zero, zero)
            a = tau(p, zero, ps) - c
            b = tau(p, ps, pss) - c
            dof = path.dof
            F = np.vstack([np.eye(dof), -np.eye(dof)])
            g = np.concatenate([self.tau_lim[:, 1], -self.tau_lim[:, 0]])
            return canlinear_colloc_to_interpolate(a, b, c, F, g, None, None, gridpoints, identical=True)

    lim = np.asarray(limit, float)
    return _Batch(None, np.column_stack([-lim, lim]), np.zeros(len(lim)),
                  discretization_scheme=DiscretizationType.Interpolation)


def _constraints(arm, n, torque_limit, speed_limit, gear, rotor):
    from toppra.constraint import JointVelocityConstraint
    gear = np.ones(n) if gear is None else np.broadcast_to(np.asarray(gear, float), (n,))
    rotor = np.zeros(n) if rotor is None else np.broadcast_to(np.asarray(rotor, float), (n,))
    T = np.broadcast_to(np.asarray(torque_limit, float), (n,))
    if not np.all(np.isfinite(T)) or np.any(T <= 0):
        raise TimingError("time-optimal timing needs every joint's torque limit, positive")
    constraints = [_torque_constraint(_inverse_dynamics(arm, gear, rotor), T * (1 - SLACK))]
    if speed_limit is not None:
        V = np.broadcast_to(np.asarray(speed_limit, float), (n,)) * (1 - SLACK)
        constraints.append(JointVelocityConstraint(np.column_stack([-V, V])))
    return constraints


def _retime(paths, constraints, grids, what):
    """Each of ``paths`` (toppra paths over s in [0, 1], rest at both ends) timed as fast as ``constraints``
    allow on its grid, joined: along a path q = p(s), qd = p'(s) sd, qdd = p''(s) sd^2 + p'(s) sdd."""
    import toppra
    from toppra.algorithm import TOPPRA

    from ..explore.sizing import Trajectory
    toppra.setup_logging("CRITICAL")
    first = paths[0](np.zeros(1))
    n = first.shape[1]
    ts, qs, qds, qdds = [np.zeros(1)], [first], [np.zeros((1, n))], []
    for k, (path, grid) in enumerate(zip(paths, grids), start=1):
        s = np.linspace(0.0, 1.0, grid)
        algo = TOPPRA(constraints, path, gridpoints=s)
        algo.compute_parameterization(0.0, 0.0)
        data = algo.problem_data
        sd, sdd = data.sd_vec, data.sdd_vec
        if sd is None or sdd is None or np.any(np.isnan(sd)) or np.any(np.isnan(sdd)):
            raise TimingError(f"no time-optimal timing {what(k)}: the drives' torque limits cannot hold the arm "
                              "somewhere along it")
        sd = np.maximum(sd, 0.0)
        sd[0] = sd[-1] = 0.0
        dt = 2 * np.diff(s) / np.maximum(sd[:-1] + sd[1:], 1e-300)
        t = ts[-1][-1] + np.concatenate([[0.0], np.cumsum(dt)])
        # a grid point's acceleration: the stage's u_k (the last point keeps the last stage's), as TOPP-RA imposes
        acc = np.concatenate([sdd, sdd[-1:]])
        p, ps, pss = path(s), path(s, 1), path(s, 2)
        ts.append(t[1:])
        qs.append(p[1:])
        qds.append((ps * sd[:, None])[1:])
        qdds.append(pss * (sd**2)[:, None] + ps * acc[:, None])
    qdd = np.vstack([qdds[0][:1], *[q[1:] for q in qdds]])
    return Trajectory(np.concatenate(ts), np.vstack(qs), np.vstack(qds), qdd)


def time_optimal_cycle(arm, waypoints, torque_limit, speed_limit=None, gear=None, rotor=None, grid: int = GRID):
    """The fastest motion through ``waypoints`` (rest at each) within ``torque_limit`` (n,) on the joint side and
    ``speed_limit`` (n,) or None, as a :class:`~designer.explore.sizing.Trajectory` sampled at the grid's points
    (``grid`` per line, a line's first sample the previous one's last)."""
    import toppra
    wp = np.asarray(waypoints, float)
    n = wp.shape[1]
    constraints = _constraints(arm, n, torque_limit, speed_limit, gear, rotor)
    paths = []
    for k, (a, b) in enumerate(zip(wp[:-1], wp[1:]), start=1):
        d = b - a
        if not np.any(d):
            raise TimingError(f"cycle.waypoints: waypoints {k} and {k + 1} are the same pose")
        paths.append(toppra.SimplePath(np.array([0.0, 1.0]), np.vstack([a, b]), np.vstack([d, d])))
    return _retime(paths, constraints, [grid] * len(paths), lambda k: f"from waypoint {k} to {k + 1}")


#: a trajectory file's path turns by more than this (rad) between two consecutive steps: a corner, where the
#: re-timed motion comes to rest (a path with a corner cannot be followed at a speed other than zero)
CORNER = np.radians(10.0)
#: grid points of a re-timed piece of a file's path: GRID, or one per sample of the piece up to this many
MAX_GRID = 1001


def path_pieces(q) -> list[np.ndarray]:
    """The samples ``q`` (m, n) of a trajectory file's path cut where it rests: repeated poses dropped (a dwell),
    the path split at its corners (the direction turning by more than :data:`CORNER` from one step to the next,
    a reversal among them); each piece (k, n), k >= 2, runs from rest to rest."""
    q = np.asarray(q, float)
    steps = np.diff(q, axis=0)
    length = np.linalg.norm(steps, axis=1)
    scale = max(float(np.max(np.abs(q))), 1.0) if q.size else 1.0
    keep = np.concatenate([[True], length > 1e-12 * scale])
    q = q[keep]
    if len(q) < 2:
        raise TimingError("cycle.trajectory: the file's path does not move (every sample the same pose), so there "
                          "is nothing to re-time")
    steps = np.diff(q, axis=0)
    unit = steps / np.linalg.norm(steps, axis=1)[:, None]
    turn = np.arccos(np.clip(np.sum(unit[:-1] * unit[1:], axis=1), -1.0, 1.0))
    cuts = [0, *(np.flatnonzero(turn > CORNER) + 1).tolist(), len(q) - 1]
    return [q[a:b + 1] for a, b in zip(cuts[:-1], cuts[1:])]


def time_optimal_path(arm, q, torque_limit, speed_limit=None, gear=None, rotor=None):
    """A trajectory file's path (its samples ``q``, (m, n)) re-timed as fast as the drives allow: cut into pieces
    that run from rest to rest (:func:`path_pieces`); each piece a cubic spline through its samples in the chord
    length (a straight line when it has two), rest at its ends, timed by TOPP-RA as :func:`time_optimal_cycle`
    times a line. The file's own times, speeds and accelerations are not used, only its poses in order."""
    import toppra
    pieces = path_pieces(q)
    n = pieces[0].shape[1]
    constraints = _constraints(arm, n, torque_limit, speed_limit, gear, rotor)
    paths, grids = [], []
    for piece in pieces:
        chord = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(piece, axis=0), axis=1))])
        s = chord / chord[-1]
        if len(piece) == 2:
            d = piece[1] - piece[0]
            paths.append(toppra.SimplePath(s, piece, np.vstack([d, d])))
        else:
            paths.append(toppra.SplineInterpolator(s, piece))
        grids.append(int(min(max(GRID, len(piece)), MAX_GRID)))
    return _retime(paths, constraints, grids,
                   lambda k: f"along the file's path (piece {k} of {len(paths)}, from rest to rest; "
                             f"from pose {', '.join(f'{v:g}' for v in pieces[k - 1][0])})")
