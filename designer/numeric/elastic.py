"""The elastic-joint model (Spong 1987, the reduced model): a spring between each motor and its link.

Conventions (SI, joint side unless said otherwise). Joint i has its link angle q_i and, when its
drive gives a ``stiffness`` k_i, a motor angle theta_i on the motor side of a gearbox of ratio N_i
(motor turns per joint turn). The spring torque at the joint is

    tau_s = K (theta/N - q) + D (theta'/N - q')

and the equations of motion are

    link side:   M(q) q'' + h(q, q') + G(q) = tau_s                  (elastic joints)
    motor side:  Jm theta'' + tau_s / N     = tau_m                  (Jm the rotor inertia)

A joint without stiffness stays rigid: its motor turns with it (theta = N q), its reflected inertia
N^2 Jm adds to M's diagonal, and its motor torque acts at the joint as N tau_m. The reduced model
takes the rotor's kinetic energy as that of its own spin, 1/2 Jm theta'^2 (Spong's assumption:
the gyroscopic coupling Jm theta' z_i . omega_(i-1) is left out; for the PUMA 560's rotors it is
below 1 % of the motor torque at rated speed); rotor masses belong in the link masses.

The state is y = (q, theta_E, q', theta_E') with E the elastic joints: 2n + 2m numbers, 4n when
every joint is elastic. Inputs are the n motor torques tau_m (motor side).

The link side M, h, G is any engine of the numeric :class:`~designer.numeric.protocol.Dynamics` protocol:
the serial arm's numeric engine by default, or a closed chain's M_a, h_a, G_a in its actuated coordinates
(:class:`~designer.numeric.closed.ClosedDynamics`, the loops closed at every state), whose joints are then
the actuated ones (:func:`elastic_joints`). A closed chain's elastic joints are its actuated ones (the
gearboxes sit at the motors), so Spong's model keeps its form in the actuated coordinates q_a
(docs/elastic.md, "Closed chains").
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import numpy as np

from ..kinematics import NumericArm
from .joints import ElasticJoints, ElasticModelError, elastic_joints
from .engine import PIVOT_RATIO, arm_dynamics, trusted
from .native import CFunction, LazyNative, pivots_check
from .protocol import Dynamics
from ..trace import Tape, build

__all__ = ["ElasticJoints", "ElasticArm", "ElasticDynamics", "ElasticModelError", "elastic_joints", "FlatElastic"]


class FlatElastic(LazyNative):
    """A serial elastic arm's whole right-hand side dy/dt(y, tau_m) as one traced function (:mod:`designer.trace`),
    rigid joints with rotors included: the springs' torques, the forward dynamics with M + diag(N^2 Jm of the rigid
    joints) (:func:`~designer.numeric.algorithms.forward`'s armature), the motors' accelerations. Built as Python
    over floats and as C (:mod:`.native`, entry point ``rhs(y, tau_m, par, dy)``, False when M's pivots are
    doubtful). The joints' numbers are an input, par = [N (n), N^2 Jm of the rigid joints (n), k, d, Jm (m each)],
    so that a changed stiffness or rotor reuses the code; which joints are elastic is part of it."""

    def __init__(self, forward: Callable, n: int, elastic: tuple[int, ...]):
        """``forward(q, qd, tau, trig, armature) -> (q'', M's pivots)`` over a tape's values: the link side's forward
        dynamics with gravity (:func:`~designer.numeric.algorithms.forward` of a serial arm, a linear closure's
        :func:`~designer.numeric.closed_flat.projected_forward`); n its coordinates, ``elastic`` the elastic ones."""
        m = len(elastic)
        self.n, self.m = n, m
        E = list(elastic)
        R = [i for i in range(n) if i not in E]
        tape = Tape()
        y = [tape.input(f"y_{i}") for i in range(2 * (n + m))]
        u = [tape.input(f"u_{i}") for i in range(n)]
        p = [tape.input(f"p_{i}") for i in range(2 * n + 3 * m)]
        q, th, qd, thd = y[:n], y[n:n + m], y[n + m:2 * n + m], y[2 * n + m:]
        N, refl, k, d, Jm = p[:n], p[n:2 * n], p[2 * n:2 * n + m], p[2 * n + m:2 * n + 2 * m], p[2 * n + 2 * m:]
        tau: list = [0.0] * n
        for i in R:
            tau[i] = u[i] * N[i]
        ts = []
        for j, i in enumerate(E):   # tau_s = K (theta/N - q) + D (theta'/N - q'), the operations of ElasticArm.spring
            tau[i] = k[j] * (th[j] / N[i] - q[i]) + d[j] * (thd[j] / N[i] - qd[i])
            ts.append(tau[i])

        def trig(x):
            return tape.call("cos", x), tape.call("sin", x)
        x, pivots = forward(q, qd, tau, trig, {i: refl[i] for i in R})
        thdd = [(u[i] - ts[j] / N[i]) / Jm[j] for j, i in enumerate(E)]
        out = x + pivots + thdd
        args, inputs = ("y", "u", "p"), (y, u, p)
        #: the generated Python: lists of floats in, (q'', M's pivots, theta'') out
        self.python = build("elastic_of", tape.source("elastic_of", args, inputs, out), False)
        size = 2 * (n + m)
        body = (f"    double w[{2 * n + m}];\n    elastic_of(y, u, p, w);\n    if (!good(w)) return 0;\n"
                f"    memcpy(dy, y + {n + m}, {n + m} * sizeof(double));\n"
                f"    memcpy(dy + {n + m}, w, {n} * sizeof(double));\n"
                f"    memcpy(dy + {2 * n + m}, w + {2 * n}, {m} * sizeof(double));\n    return 1;\n")
        self._functions = [CFunction("rhs", (size, n, 2 * n + 3 * m), size,
                                     "static int rhs(const double *y, const double *u, const double *p, double *dy)"
                                     f"\n{{\n{body}}}\n")]
        self._support = pivots_check(n, PIVOT_RATIO) + tape.c_source("elastic_of", args, inputs, out)

    def _c_code(self) -> tuple[list[CFunction], str]:
        return self._functions, self._support


class ElasticArm:
    """Forward dynamics, energy and the state layout of one arm with elastic joints.

    ``dynamics``: the link side, any :class:`~designer.numeric.protocol.Dynamics` (default the serial ``arm``'s
    numeric engine; a closed chain's :class:`~designer.numeric.closed.ClosedDynamics` in its actuated
    coordinates, following a trajectory's branch for a simulation, ``arm`` then unused)."""

    def __init__(self, arm: NumericArm | None, joints: ElasticJoints, dynamics: Dynamics | None = None):
        if dynamics is None:
            assert arm is not None, "a serial arm or a closed chain's link side"
        self.dyn: Dynamics = arm_dynamics(arm) if dynamics is None else dynamics  # type: ignore[arg-type]
        dynamics = self.dyn
        if joints.n != dynamics.n:
            raise ElasticModelError(f"drive data for {joints.n} joints, the arm has {dynamics.n}")
        self.arm, self.joints = arm, joints
        self.n, self.m = dynamics.n, joints.m
        E = joints.elastic
        if np.any(joints.rotor[E] <= 0):
            names = ", ".join(str(i + 1) for i in E if joints.rotor[i] <= 0)
            raise ElasticModelError(f"elastic joint(s) {names}: the motor side needs the rotor inertia "
                                    "(drive data motor_inertia) for the elastic model's dynamics")
        self.E, self.R = E, joints.rigid
        self.k, self.d = joints.stiffness[E], joints.damping[E]
        self.N, self.Jm = joints.gear, joints.rotor[E]
        self.NE = self.N[E]
        self.reflected = joints.reflected
        self._plain = not np.any(self.reflected)   # M itself: the generated forward dynamics applies

    @property
    def size(self) -> int:
        """Length of the state vector, 2 n + 2 m."""
        return 2 * (self.n + self.m)

    def split(self, y):
        """(q, theta, qd, thetad) of states (..., 2n + 2m)."""
        n, m = self.n, self.m
        y = np.asarray(y, dtype=float)
        return y[..., :n], y[..., n:n + m], y[..., n + m:2 * n + m], y[..., 2 * n + m:]

    def spring(self, q, theta, qd, thetad) -> np.ndarray:
        """tau_s (..., m) = K (theta/N - q_E) + D (theta'/N - q'_E)."""
        E = self.E
        return self.k * (theta / self.NE - q[..., E]) + self.d * (thetad / self.NE - qd[..., E])

    def joint_torque(self, q, theta, qd, thetad, tau_m) -> np.ndarray:
        """(..., n) the torque at each joint: the spring at elastic joints, N tau_m at rigid ones."""
        tau = np.asarray(tau_m, dtype=float) * self.N
        tau = np.array(np.broadcast_to(tau, np.shape(q)), dtype=float)
        tau[..., self.E] = self.spring(q, theta, qd, thetad)
        return tau

    def accelerations(self, y, tau_m) -> tuple[np.ndarray, np.ndarray]:
        """(q'', theta'') at states y (..., 2n + 2m) under motor torques tau_m (..., n)."""
        q, th, qd, thd = self.split(y)
        tau = self.joint_torque(q, th, qd, thd, tau_m)
        if self._plain:
            qdd = self.dyn.qdd(q, qd, tau)
        else:
            M = self.dyn.M(q) + np.diag(self.reflected)
            qdd = np.linalg.solve(M, (tau - self.dyn.h(q, qd) - self.dyn.G(q))[..., None])[..., 0]
        tau_s = tau[..., self.E]
        thdd = (np.asarray(tau_m, dtype=float)[..., self.E] - tau_s / self.NE) / self.Jm
        return qdd, thdd

    def derivative(self, y, tau_m) -> np.ndarray:
        """dy/dt at states (..., 2n + 2m)."""
        q, th, qd, thd = self.split(y)
        qdd, thdd = self.accelerations(y, tau_m)
        return np.concatenate([qd, thd, qdd, thdd], axis=-1)

    def energy(self, y) -> np.ndarray | float:
        """Kinetic (links, rotors) plus potential (gravity, springs) energy at states (..., 2n + 2m)."""
        q, th, qd, thd = self.split(y)
        kinetic, potential = self.dyn.energy(q, qd)
        rotors = 0.5 * np.sum(self.Jm * thd ** 2, axis=-1) + 0.5 * np.sum(self.reflected * qd ** 2, axis=-1)
        springs = 0.5 * np.sum(self.k * (th / self.NE - q[..., self.E]) ** 2, axis=-1)
        total = kinetic + potential + rotors + springs
        return float(total) if np.ndim(total) == 0 else total

    def equilibrium(self, q) -> np.ndarray:
        """The state at rest at q: each spring holds its joint's gravity torque, theta = N (q + G/k)."""
        q = np.asarray(q, dtype=float)
        G = self.dyn.G(q)
        th = self.NE * (q[self.E] + G[self.E] / self.k)
        return np.concatenate([q, th, np.zeros(self.n), np.zeros(self.m)])

    def rigid_state(self, q, qd) -> np.ndarray:
        """The state of the motors turning with their links (theta = N q): no spring deflection."""
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        return np.concatenate([q, self.NE * q[self.E], qd, self.NE * qd[self.E]])

    # -- the fast single-state path for the integrators -----------------------------------------
    @cached_property
    def flat(self) -> FlatElastic | None:
        """The whole right-hand side as traced flat code (:class:`FlatElastic`, shared by the elastic arms with the
        same link side and elastic joints) when the link side is a serial arm's engine or a linear closure's (a
        parallelogram); None for a nonlinear closure's."""
        law = getattr(self.dyn, "flat_law", None)   # the engines that have flat code say how it is made
        made = law() if law is not None else None
        if made is None:
            return None
        forward, store = made
        E = tuple(int(i) for i in self.E)
        return store(f"elastic_rhs{E}", lambda: FlatElastic(forward, self.n, E))

    def scalar_rhs(self, tau_of):
        """dy/dt(t, y) on one state for scipy's integrators; ``tau_m = tau_of(t, y_list)`` (n floats). A serial arm's
        runs the traced right-hand side (:class:`FlatElastic`; machine code once hot), every joint rigid or elastic
        alike; a doubtful state (M's pivots, not finite) and a closed chain's link side take the checked numpy way."""
        n, m = self.n, self.m
        flat = self.flat
        par = np.concatenate([self.N, self.reflected, self.k, self.d, self.Jm])
        par_list = par.tolist()
        entry = None

        def checked(t, y, tau_m) -> np.ndarray:
            if not np.all(np.isfinite(y)):
                raise ElasticModelError(f"the state is no longer finite at t = {t:.6g} s")
            qdd, thdd = self.accelerations(y, np.asarray(tau_m, dtype=float))
            return np.concatenate([y[n + m:], qdd, thdd])

        def rhs(t, y):
            nonlocal entry
            s = y.tolist()
            tau_m = tau_of(t, s)
            if flat is None:
                return checked(t, y, tau_m)
            if entry is None:
                native = flat.native_if_hot()
                if native is not None:
                    entry = native.rhs
            if entry is not None:
                dy = np.empty(2 * (n + m))
                try:
                    if entry(y, np.asarray(tau_m, dtype=float), par, dy):
                        return dy
                except (TypeError, ValueError, BufferError):   # not a contiguous float64 state
                    pass
                return checked(t, y, tau_m)
            try:
                out = flat.python(s, tau_m, par_list)
            except ZeroDivisionError:
                return checked(t, y, tau_m)
            if not trusted(out[:n], out[n:2 * n]):
                return checked(t, y, tau_m)
            return np.array(s[n + m:] + list(out[:n]) + list(out[2 * n:]))
        return rhs

    def spring_jacobian(self, q, kp=None, kd=None) -> np.ndarray:
        """d(dy/dt)/dy with the springs, damping and motor-side PD gains (kp, kd at the joint side) and
        M(q), leaving out dM/dq, dh/dq, dG/dq: the stiff part, which is what an implicit integrator's
        Newton iteration needs (for the PUMA 560 with k = 1e4 N m/rad, dG/dq is below 1 % of K)."""
        return self.jacobian_function(kp, kd)(q)

    def jacobian_function(self, kp=None, kd=None):
        """q -> :meth:`spring_jacobian` (q, kp, kd) for an integration: everything but M(q) laid out once, so that a
        call is M(q) (the engine's machine code once hot) and one solve for the link-side rows."""
        n, m, E, NE = self.n, self.m, self.E, self.NE
        kp = np.zeros(n) if kp is None else np.asarray(kp, dtype=float)
        kd = np.zeros(n) if kd is None else np.asarray(kd, dtype=float)
        size = self.size
        J = np.zeros((size, size))
        iq, ith, iqd, ithd = (np.arange(n), n + np.arange(m), n + m + np.arange(n), 2 * n + m + np.arange(m))
        J[iq, iqd] = 1.0
        J[ith, ithd] = 1.0
        # link side: M^-1 d tau / d(q, theta, qd, thetad); a rigid joint's PD (u = N tau_m) acts there
        B = np.zeros((n, size))
        B[E, iq[E]], B[E, ith] = -self.k, self.k / NE
        B[E, iqd[E]], B[E, ithd] = -self.d, self.d / NE
        R = self.R
        B[R, iq[R]], B[R, iqd[R]] = -kp[R], -kd[R]
        # motor side: Jm theta'' = tau_m - tau_s/N with tau_m = (kp (.. - theta/N) - kd theta'/N + ..)/N
        Jm = self.Jm
        J[ithd, iq[E]] = self.k / NE / Jm
        J[ithd, ith] = -(self.k + kp[E]) / NE ** 2 / Jm
        J[ithd, iqd[E]] = self.d / NE / Jm
        J[ithd, ithd] = -(self.d + kd[E]) / NE ** 2 / Jm
        reflected = np.diag(self.reflected)
        dyn = self.dyn

        def jacobian(q) -> np.ndarray:
            out = J.copy()
            out[n + m:2 * n + m] = np.linalg.solve(dyn.M(q) + reflected, B)
            return out
        return jacobian


class ElasticDynamics:
    """Spong's model as a mechanism of its own: the numeric :class:`~designer.numeric.protocol.Dynamics` over
    the n + m coordinates x = (q, theta_E), q the link side's n coordinates, theta_E the m elastic joints' motor
    angles (motor side).

    With the deflection delta = theta_E / N_E - q_E and its rate delta':

        M(x) = blockdiag(M(q) + diag(N^2 Jm of the rigid joints), diag(Jm))
        G(x) = [G(q) - K delta (at q_E);  K delta / N_E]        (gravity and the springs: dV/dx)
        h(x, x') = [h(q, q') - D delta' (at q_E);  D delta' / N_E]   (Coriolis and the dampers)

    so that tau = M x'' + h + G are the generalized forces: N tau_m on a rigid joint's link coordinate, tau_m on an
    elastic joint's motor coordinate, nothing on an elastic joint's link coordinate (a motor torque vector maps
    to them with :meth:`generalized`). The energy adds the rotors' kinetic (1/2 Jm theta'^2, and 1/2 N^2 Jm q'^2
    at a rigid joint) and the springs' potential energy; ``christoffel`` is the link side's (the rotors' inertia is
    constant), the dampers' torques being h's only part outside it. The Jacobians are the link side's with zero
    columns for the motors (their masses belong to the links). The closed chain's extras are the link side's, asked
    at x's link part. ``link``: any engine of the protocol (serial, or a closed chain's in its actuated
    coordinates); ``joints`` its :class:`ElasticJoints` (:func:`elastic_joints` of a project)."""

    def __init__(self, link: Dynamics, joints: ElasticJoints):
        self.link, self.joints = link, joints
        #: the single-state right-hand side and layout the integrators use
        self.model = ElasticArm(None, joints, link)
        self.m = joints.m
        self.n = link.n + joints.m

    # -- the layout --------------------------------------------------------------------------------------
    def _x(self, name: str, x) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if x.ndim == 0 or x.shape[-1] != self.n:
            raise ValueError(f"{name}: expected {self.n} values per state (q, theta), got shape {x.shape}")
        return x

    def _parts(self, x):
        k = self.link.n
        return x[..., :k], x[..., k:]

    def _deflection(self, x) -> np.ndarray:
        q, th = self._parts(x)
        return th / self.model.NE - q[..., self.model.E]

    def _pair(self, link_part: np.ndarray, motor_part: np.ndarray) -> np.ndarray:
        return np.concatenate([link_part, motor_part], axis=-1)

    def generalized(self, tau_m) -> np.ndarray:
        """(..., n + m) the generalized forces of motor torques tau_m (..., n_link): N tau_m at a rigid joint's
        coordinate, tau_m at an elastic joint's motor, zero at its link."""
        tau_m = np.asarray(tau_m, dtype=float)
        a = self.model
        link = tau_m * a.N
        link = np.array(np.broadcast_to(link, tau_m.shape), dtype=float)
        link[..., a.E] = 0.0
        return self._pair(link, tau_m[..., a.E])

    # -- the protocol -----------------------------------------------------------------------------------
    def M(self, x) -> np.ndarray:
        x = self._x("q", x)
        q, _ = self._parts(x)
        k, a = self.link.n, self.model
        out = np.zeros(x.shape[:-1] + (self.n, self.n))
        out[..., :k, :k] = self.link.M(q) + np.diag(a.reflected)
        out[..., k + np.arange(self.m), k + np.arange(self.m)] = a.Jm
        return out

    def G(self, x) -> np.ndarray:
        x = self._x("q", x)
        q, _ = self._parts(x)
        a = self.model
        spring = a.k * self._deflection(x)
        link = np.array(self.link.G(q), dtype=float)
        link[..., a.E] -= spring
        return self._pair(link, spring / a.NE)

    def h(self, x, xd) -> np.ndarray:
        x, xd = np.broadcast_arrays(self._x("q", x), self._x("qd", xd))
        q, _ = self._parts(x)
        qd, _ = self._parts(xd)
        a = self.model
        damper = a.d * self._deflection(xd)
        link = np.array(self.link.h(q, qd), dtype=float)
        link[..., a.E] -= damper
        return self._pair(link, damper / a.NE)

    def tau(self, x, xd, xdd) -> np.ndarray:
        xdd = self._x("qdd", xdd)
        return (self.M(x) @ xdd[..., None])[..., 0] + self.h(x, xd) + self.G(x)

    def qdd(self, x, xd, tau) -> np.ndarray:
        from .protocol import solve_checked
        x, xd, tau = np.broadcast_arrays(self._x("q", x), self._x("qd", xd), self._x("tau", tau))
        return solve_checked(self.M(x), tau - self.h(x, xd) - self.G(x), x)

    def christoffel(self, x) -> np.ndarray:
        x = self._x("q", x)
        k = self.link.n
        out = np.zeros(x.shape[:-1] + (self.n,) * 3)
        out[..., :k, :k, :k] = self.link.christoffel(self._parts(x)[0])
        return out

    def _pad(self, J: np.ndarray) -> np.ndarray:
        return np.concatenate([J, np.zeros(J.shape[:-1] + (self.m,))], axis=-1)

    def com_jacobians(self, x) -> tuple[np.ndarray, np.ndarray]:
        Jv, Jw = self.link.com_jacobians(self._parts(self._x("q", x))[0])
        return self._pad(Jv), self._pad(Jw)

    def tool_jacobian(self, x) -> np.ndarray:
        return self._pad(self.link.tool_jacobian(self._parts(self._x("q", x))[0]))

    def energy(self, x, xd) -> tuple[np.ndarray, np.ndarray]:
        x, xd = np.broadcast_arrays(self._x("q", x), self._x("qd", xd))
        q, _ = self._parts(x)
        qd, thd = self._parts(xd)
        a = self.model
        kinetic, potential = self.link.energy(q, qd)
        kinetic = kinetic + 0.5 * np.sum(a.Jm * thd ** 2, axis=-1) + 0.5 * np.sum(a.reflected * qd ** 2, axis=-1)
        potential = potential + 0.5 * np.sum(a.k * self._deflection(x) ** 2, axis=-1)
        return kinetic, potential

    # -- the closed chain's extras: the link side's -----------------------------------------------------
    @property
    def n_tree(self) -> int:
        return self.link.n_tree

    @property
    def actuated(self) -> tuple[int, ...]:
        return self.link.actuated

    @property
    def tree(self):
        """The link side's tree (a closed chain's; None for a serial arm): its loops, their names and the joints'
        limits, for what is said of a run (numeric/near_singular.py, end_stops.tree_limits)."""
        return getattr(self.link, "tree", None)

    @property
    def arm(self):
        """The link side's arm (a serial engine's, whose joint limits count there)."""
        return self.link.arm  # type: ignore[attr-defined]  # every engine load_dynamics makes has one

    @property
    def pas(self) -> tuple[int, ...]:
        return tuple(getattr(self.link, "pas", ()))

    def terms_at(self, q_tree) -> list:
        """The loops' terms at closed tree poses (the link side's: springs change no loop)."""
        return self.link.terms_at(q_tree)  # type: ignore[attr-defined]  # asked only where tree is not None

    def positions(self, x) -> np.ndarray:
        return self.link.positions(self._parts(self._x("q", x))[0])

    def residual(self, x) -> np.ndarray:
        return self.link.residual(self._parts(self._x("q", x))[0])

    def cut_forces(self, x, xd, xdd):
        return self.link.cut_forces(*(self._parts(self._x(name, v))[0]
                                      for name, v in (("q", x), ("qd", xd), ("qdd", xdd))))

    def following(self, start=None) -> ElasticDynamics:
        link = self.link.following(start)
        return self if link is self.link else ElasticDynamics(link, self.joints)

    # -- states of the integrators' layout ---------------------------------------------------------------
    def equilibrium(self, q) -> np.ndarray:
        """(n + m) the coordinates at rest at link angles q: the springs holding gravity (theta = N (q + G/k))."""
        return self.model.equilibrium(q)[:self.n]
