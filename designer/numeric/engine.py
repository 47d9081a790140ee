"""The numeric engine: the recursive algorithms generated as flat code for one arm.

:class:`ArmDynamics` runs :mod:`designer.numeric.algorithms` once on a
:class:`~designer.trace.Tape` per quantity and compiles the recorded
lines twice: over Python floats for one state (PUMA 560 forward dynamics about
25 us a call, against about 2 ms for numpy's small-array calls) and over numpy
arrays for many states at once, in blocks of rows that stay in the CPU cache.
The same tape is written out as C for one state (:mod:`designer.numeric.native`):
once an arm is hot (:data:`HOT_CALLS`) its single-state calls and the
simulation's right-hand side run as machine code, about ten times as fast.
Christoffel symbols and Jacobians come from the batch engine
(:mod:`designer.numeric.batch`), which computes them from the link Jacobians.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cached_property

import numpy as np

from ..kinematics import NumericArm
from . import algorithms as alg
from .model import ArmModel, arm_model, cached
from .protocol import BatchQuantities, solve_checked, states
from .native import _UNBUILT, HOT_CALLS, CFunction, LazyNative, pivots_check, rhs_function
from ..trace import Tape, build

__all__ = ["ArmDynamics", "arm_dynamics", "inverse_dynamics", "tau_and_inertia", "trusted", "BLOCK", "PIVOT_RATIO",
           "HOT_CALLS"]

#: rows per block in the vectorised functions: temporaries of this size stay in the CPU cache
BLOCK = 2048
#: the ratio of the largest to the smallest LDL pivot is a lower bound of cond(M); above this one
#: (four orders below MAX_CONDITION) the exact condition number decides
PIVOT_RATIO = 1e8


def trusted(x, d) -> bool:
    """Whether a flat LDL^T solve's result ``x`` is taken as it is: its pivots ``d`` all positive and within
    PIVOT_RATIO of each other, and ``x`` finite (a sum of finite numbers is finite: an overflow only takes the
    caller's checked path). Sequences of floats: Python's min and max are cheaper than numpy's on a few values."""
    dmin = min(d)
    return dmin > 0 and max(d) <= PIVOT_RATIO * dmin and math.isfinite(sum(x))

_ARGS = {"M": ("q",), "G": ("q",), "h": ("q", "qd"), "tau": ("q", "qd", "qdd"),
         "qdd": ("q", "qd", "tau"), "qdd_free": ("q", "qd", "tau"), "energy": ("q", "qd")}


def _trace(model: ArmModel, quantity: str) -> tuple[Tape, tuple[str, ...], list[list], list]:
    """``quantity``'s algorithm run on a tape: (tape, argument names, their inputs, the outputs)."""
    tape = Tape()
    n = model.n
    inputs = {a: [tape.input(f"{a}_{i}") for i in range(n)] for a in _ARGS[quantity]}

    def trig(x):
        return tape.call("cos", x), tape.call("sin", x)

    zero = [0.0] * n
    q = inputs["q"]
    if quantity == "M":
        M = alg.crba(model, q, trig)
        out = [M[i][j] for i in range(n) for j in range(i, n)]
    elif quantity == "G":
        out = alg.rnea(model, q, zero, zero, True, trig)
    elif quantity == "h":
        out = alg.rnea(model, q, inputs["qd"], zero, False, trig)
    elif quantity == "tau":
        out = alg.rnea(model, q, inputs["qd"], inputs["qdd"], True, trig)
    elif quantity in ("qdd", "qdd_free"):
        x, d = alg.forward(model, q, inputs["qd"], inputs["tau"], trig, gravity=quantity == "qdd")
        out = x + d
    else:
        out = list(alg.energy(model, q, inputs["qd"], trig))
    names = _ARGS[quantity]
    return tape, names, [inputs[a] for a in names], out


def _record(model: ArmModel, quantity: str) -> tuple[str, int, int]:
    """(source of ``quantity``'s function, its number of outputs and of operations), traced."""
    tape, names, inputs, out = _trace(model, quantity)
    return tape.source(f"{quantity}_of", names, inputs, out), len(out), tape.operations(out)


def _c_functions(model: ArmModel) -> tuple[list[CFunction], str]:
    """The engine's entry points in C, and the traced functions they call (see :mod:`.native`).

    ``dyn_<quantity>`` for M (all n x n entries), G, h, tau, energy and qdd / qdd_free (False where the
    LDL pivots are doubtful); ``rhs_qdd`` and ``rhs_free`` are the simulation's right-hand side
    ``[qd, qdd(q, qd, tau)]`` of y = [q, qd] with tau = tau0 + Kp (target - q) - Kd qd, parameters
    [Kp, Kd, target, tau0] (``rhs_free``: tau beyond gravity compensation).
    """
    n = model.n
    support = [pivots_check(n, PIVOT_RATIO)]
    functions = []
    for quantity in _ARGS:
        try:
            tape, names, inputs, out = _trace(model, quantity)
        except ZeroDivisionError:   # a pivot 0 at every state: every answer is doubtful
            params = ", ".join(f"const double *{a}" for a in _ARGS[quantity])
            support.append(f"static void {quantity}_of({params}, double *out)\n"
                           f"{{ for (int k = 0; k < {2 * n}; k++) out[k] = NAN; }}\n")
        else:
            support.append(tape.c_source(f"{quantity}_of", names, inputs, out))
        args = ", ".join(f"const double *{a}" for a in _ARGS[quantity])
        call = ", ".join(_ARGS[quantity])
        if quantity == "M":
            fill = "".join(f"    out[{i * n + j}] = out[{j * n + i}] = w[{k}];\n"
                           for k, (i, j) in enumerate((i, j) for i in range(n) for j in range(i, n)))
            body = f"    double w[{n * (n + 1) // 2}];\n    M_of(q, w);\n{fill}    return 1;\n"
            width = n * n
        elif quantity in ("qdd", "qdd_free"):
            body = (f"    double w[{2 * n}];\n    {quantity}_of({call}, w);\n    if (!good(w)) return 0;\n"
                    f"    memcpy(out, w, {n} * sizeof(double));\n    return 1;\n")
            width = n
        else:
            body = f"    {quantity}_of({call}, out);\n    return 1;\n"
            width = 2 if quantity == "energy" else n
        functions.append(CFunction(f"dyn_{quantity}", (n,) * len(_ARGS[quantity]), width,
                                   f"static int dyn_{quantity}({args}, double *out)\n{{\n{body}}}\n"))
    for name, quantity in (("rhs_qdd", "qdd"), ("rhs_free", "qdd_free")):
        functions.append(rhs_function(name, f"{quantity}_of", n))
    return functions, "\n".join(support)


def _singular(*args):
    raise ZeroDivisionError("the mass matrix has a zero pivot at every state")


class ArmDynamics(BatchQuantities, LazyNative):
    """M, G, h, tau, forward dynamics and energy of one :class:`NumericArm` over states (..., n).

    Implements :class:`~designer.numeric.protocol.Dynamics`. Build it with :func:`arm_dynamics`
    to share one per arm; each quantity's code is generated on first use (milliseconds).
    """

    def __init__(self, arm: NumericArm):
        self.arm = arm
        self.model = arm_model(arm)
        self.n = self.model.n
        self._code: dict[str, tuple[str, int, int, Callable, Callable]] = {}

    def _c_code(self) -> tuple[list[CFunction], str]:
        """The single-state functions for :attr:`native`: ``dyn_M``, ``dyn_G``, ``dyn_h``, ``dyn_tau``, ``dyn_energy``,
        ``dyn_qdd``, ``dyn_qdd_free``, ``rhs_qdd`` and ``rhs_free`` (see :func:`_c_functions`): float64 arrays in,
        an output array filled, True when the result is good."""
        return _c_functions(self.model)

    def _fn(self, quantity: str, vectorised: bool) -> Callable:
        if quantity not in self._code:
            try:
                source, width, ops = _record(self.model, quantity)
            except ZeroDivisionError:  # an LDL pivot that is 0 at every state: the callers' checked path reports it
                self._code[quantity] = ("# M is singular at every state\n", 2 * self.n, 0, _singular, _singular)
            else:
                name = f"{quantity}_of"
                self._code[quantity] = (source, width, ops, build(name, source, False), build(name, source, True))
        code = self._code[quantity]
        return code[4] if vectorised else code[3]

    def source(self, quantity: str) -> str:
        """The generated Python source of ``quantity`` ("M", "G", "h", "tau", "qdd", "energy")."""
        self._fn(quantity, False)
        return self._code[quantity][0]

    def scalar_function(self, quantity: str) -> Callable:
        """The raw single-state function: lists of floats in, a tuple of floats out (no checks).

        M gives its upper triangle by rows; qdd gives q'' and then the n pivots of M = L D L^T;
        qdd_free is qdd with tau meaning the torque beyond gravity compensation (M^-1 (tau - h)).
        """
        return self._fn(quantity, False)

    def vector_function(self, quantity: str) -> Callable:
        """The raw function over arrays (no checks): a sequence of n values per argument, arrays that broadcast
        together or floats, in; a tuple of outputs (M: its upper triangle by rows) out, each computed at the
        shape of the joints it reads (a grid over two joints: what reads one of them, at that joint's length)."""
        return self._fn(quantity, True)

    def _many(self, quantity: str, arrays: list[np.ndarray]) -> np.ndarray:
        """(N, width) outputs at the rows of the (N, n) arrays, block by block."""
        fn = self._fn(quantity, True)
        width = self._code[quantity][1]
        N = arrays[0].shape[0]
        out = np.empty((width, N))  # outputs by rows: each write is contiguous
        cols = [np.ascontiguousarray(a.T) for a in arrays]
        with np.errstate(divide="ignore", invalid="ignore"):
            for start in range(0, N, BLOCK):
                stop = min(N, start + BLOCK)
                values = fn(*(c[:, start:stop] for c in cols))
                for k, v in enumerate(values):
                    out[k, start:stop] = v  # constant entries broadcast
        return out.T

    def _eval(self, quantity: str, named: tuple) -> tuple[np.ndarray, tuple[int, ...], list[np.ndarray]]:
        arrays = states(self.n, *named)
        lead = arrays[0].shape[:-1]
        if not lead and quantity != "qdd":   # one state's qdd: _qdd_one
            native = self.native_if_hot()
            if native is not None:
                width = self.n * self.n if quantity == "M" else self._width(quantity)
                out = np.empty(width)
                getattr(native, f"dyn_{quantity}")(*(np.ascontiguousarray(a) for a in arrays), out)
                return out, lead, arrays
            return np.array(self._fn(quantity, False)(*(a.tolist() for a in arrays)), dtype=float), lead, arrays
        flat = [a.reshape(-1, self.n) for a in arrays]
        return self._many(quantity, flat), lead, arrays

    def _width(self, quantity: str) -> int:
        return 2 if quantity == "energy" else self.n

    def flat_law(self):
        """The forward dynamics as a law (q, qd, tau, trig, armature) -> qdd that flat code is traced from, and
        the store shared by this arm's engines: ``store(key, make)`` makes a value once (elastic.FlatElastic)."""
        model = self.model

        def serial(q, qd, tau, trig, armature):
            return alg.forward(model, q, qd, tau, trig, True, armature)
        return serial, lambda key, make: cached(self.arm, key, lambda arm: make())

    def M(self, q) -> np.ndarray:
        """Mass matrix (..., n, n) by composite rigid bodies."""
        vals, lead, _ = self._eval("M", (("q", q),))
        n = self.n
        if vals.shape == (n * n,) and not lead and self._native not in (None, _UNBUILT):
            return vals.reshape(n, n)
        out = np.empty((n, n) + vals.shape[:-1])
        for k, (i, j) in enumerate(zip(*np.triu_indices(n))):
            out[i, j] = out[j, i] = vals[..., k]
        return np.moveaxis(out, (0, 1), (-2, -1)).reshape(lead + (n, n))

    def _vector(self, quantity: str, named: tuple) -> np.ndarray:
        vals, lead, _ = self._eval(quantity, named)
        return vals.reshape(lead + (self.n,))

    def G(self, q) -> np.ndarray:
        """Gravity torques (..., n)."""
        return self._vector("G", (("q", q),))

    def h(self, q, qd) -> np.ndarray:
        """Coriolis and centrifugal torques (..., n)."""
        return self._vector("h", (("q", q), ("qd", qd)))

    def tau(self, q, qd, qdd) -> np.ndarray:
        """Inverse dynamics (..., n) by recursive Newton-Euler."""
        return self._vector("tau", (("q", q), ("qd", qd), ("qdd", qdd)))

    def energy(self, q, qd) -> tuple[np.ndarray, np.ndarray]:
        """(kinetic, potential), each of the leading shape (...)."""
        vals, lead, _ = self._eval("energy", (("q", q), ("qd", qd)))
        return vals[..., 0].reshape(lead), vals[..., 1].reshape(lead)

    def qdd(self, q, qd, tau) -> np.ndarray:
        """Forward dynamics q'' = M^-1 (tau - h - G), (..., n), by an LDL^T solve.

        Raises :class:`SingularConfigurationError` (naming q and the condition number of M) at the
        first state where M is singular or its condition number exceeds ``MAX_CONDITION``.
        """
        n = self.n
        if np.ndim(q) == 1 and np.ndim(qd) == 1 and np.ndim(tau) == 1:
            return self._qdd_one(q, qd, tau)
        try:
            vals, lead, (Q, QD, TAU) = self._eval("qdd", (("q", q), ("qd", qd), ("tau", tau)))
        except ZeroDivisionError:  # a zero pivot, one state
            Q, QD, TAU = states(n, ("q", q), ("qd", qd), ("tau", tau))
            return self._checked(Q, QD, TAU)
        x, d = vals[..., :n], vals[..., n:]
        dmin, dmax = d.min(axis=-1), d.max(axis=-1)
        doubtful = ~(dmin > 0) | ~(dmax <= PIVOT_RATIO * dmin) | ~np.isfinite(x).all(axis=-1)
        if np.any(doubtful):
            flat = x.reshape(-1, n).copy()
            rows = np.flatnonzero(np.atleast_1d(doubtful))
            Qf, QDf, TAUf = (a.reshape(-1, n)[rows] for a in (Q, QD, TAU))
            flat[rows] = self._checked(Qf, QDf, TAUf).reshape(-1, n)
            x = flat
        return x.reshape(lead + (n,))

    def _qdd_one(self, q, qd, tau) -> np.ndarray:
        """One state without the array machinery (a third of the cost of a call at n = 6)."""
        n = self.n
        native = self.native_if_hot()
        doubtful = False
        result = np.empty(n)
        if native is not None:
            try:
                if native.dyn_qdd(q, qd, tau, result):
                    return result
                doubtful = True
            except (TypeError, ValueError, BufferError):   # not n contiguous floats each: converted below
                pass
        args = [v.tolist() if type(v) is np.ndarray and v.dtype == float else np.asarray(v, dtype=float).tolist()
                for v in (q, qd, tau)]
        if not len(args[0]) == len(args[1]) == len(args[2]) == n:
            name, v = next((k, v) for k, v in zip(("q", "qd", "tau"), args) if len(v) != n)
            raise ValueError(f"{name}: expected {n} values per state, got shape ({len(v)},)")
        if native is not None and not doubtful:
            if native.dyn_qdd(*(np.array(v) for v in args), result):
                return result
            doubtful = True
        if doubtful:
            return self._checked(*(np.array(v) for v in args))
        try:
            out = self._fn("qdd", False)(*args)
        except ZeroDivisionError:
            out = None
        if out is not None:
            x, d = out[:n], out[n:]
            if trusted(x, d):
                return np.array(x)
        Q, QD, TAU = (np.array(v) for v in args)
        return self._checked(Q, QD, TAU)

    def _checked(self, q, qd, tau) -> np.ndarray:
        return solve_checked(self.M(q), tau - self.h(q, qd) - self.G(q), q)

    # -- from the batch engine --------------------------------------------------------
    @cached_property
    def _batch(self):
        from .batch import BatchDynamics
        return BatchDynamics(self.arm)

    @cached_property
    def operations(self) -> dict[str, int]:
        """Operations (+ - * /, negation, sin, cos) of each generated function."""
        for k in _ARGS:
            self._fn(k, False)
        return {k: self._code[k][2] for k in _ARGS}


def arm_dynamics(arm: NumericArm) -> ArmDynamics:
    """The :class:`ArmDynamics` of ``arm``, one per arm object."""
    return cached(arm, "dynamics", ArmDynamics)


def inverse_dynamics(arm, q, qd, qdd) -> np.ndarray:
    """tau (N, n) over the states' rows: a serial arm's generated code (:func:`arm_dynamics`, an order of magnitude
    faster than the Christoffel route of :meth:`~designer.numeric.batch.Batch.torque`), a closed chain's arm's own
    batch in blocks of :data:`~designer.numeric.batch.CHUNK`."""
    from .batch import CHUNK, own_batch
    q = np.asarray(q, float)
    if not own_batch(arm):
        return arm_dynamics(arm).tau(q, qd, qdd)
    out = np.empty_like(q)
    for s in range(0, len(q), CHUNK):
        out[s:s + CHUNK] = arm.batch(q[s:s + CHUNK]).torque(qd[s:s + CHUNK], qdd[s:s + CHUNK])
    return out


def tau_and_inertia(dyn, q, qd, qdd) -> tuple[np.ndarray, np.ndarray]:
    """(tau, M's diagonal), each (N, n), along the states' rows (a cycle's samples) of the mechanism ``dyn``. A serial
    arm's engine runs its recursive algorithms (RNEA, CRBA) once on the sample columns: a cycle is usually taken
    once per design, and generating and compiling the engine's code for it (what ``dyn.tau`` does on first use,
    about 2.5 ms for the tube arm) costs eight times the arithmetic. Any other mechanism through its own tau,
    following its branch, and M."""
    if not isinstance(dyn, ArmDynamics):
        tau = np.asarray(dyn.following().tau(q, qd, qdd), float)
        return tau, np.diagonal(np.asarray(dyn.M(q), float), axis1=-2, axis2=-1)

    def trig(x):
        return np.cos(x), np.sin(x)
    q, qd, qdd = (np.asarray(a, float) for a in (q, qd, qdd))
    N, n = q.shape
    columns = list(q.T)
    with np.errstate(divide="ignore", invalid="ignore"):
        torques = alg.rnea(dyn.model, columns, list(qd.T), list(qdd.T), True, trig)
        inertia = alg.crba(dyn.model, columns, trig)
    return (np.stack([np.broadcast_to(np.asarray(t, float), (N,)) for t in torques], axis=1),
            np.stack([np.broadcast_to(np.asarray(inertia[j][j], float), (N,)) for j in range(n)], axis=1))
