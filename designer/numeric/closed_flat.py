"""A linear closure's forward dynamics as flat code: one traced function for the simulation's hot path.

For a linear closure (a parallelogram: q_tree = W q_a + c with W constant and integer,
:mod:`designer.kinematics.closure`) the tree's CRBA and RNEA (:mod:`.tree_algorithms`), the projection
M_a = W^T M W, bias_a = W^T tau_tree(q, W qd_a, 0) and the LDL^T solve are run once on a
:class:`~designer.trace.Tape`; the constants of W fold away. The recorded lines are built as
Python over floats and, as for a serial arm (:mod:`.engine`), as C (:mod:`.native`). Outputs: q_a''
and the n_a pivots of M_a (the caller checks them and takes its checked path when doubtful). The C module
also has the simulation's whole right-hand side, ``rhs_qdd`` / ``rhs_free`` (:func:`.native.rhs_function`:
y = [q_a, qd_a] and the law's parameters [Kp, Kd, target, tau0] in, [qd_a, q_a''] out, False when doubtful).
The same tape gives the rows of a run at once (vectorised over numpy arrays): the energies (the tree's
kinetic and potential energy, :func:`~designer.numeric.algorithms.energy` along the parents) and the tree's
joint torques tau_tree(q, W qd_a, W qdd_a) the cut forces are solved from.
A nonlinear closure (W and W' depend on the pose through the loops) has its own flat code,
:mod:`.closed_newton`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .algorithms import energy, ldl_solve
from .engine import PIVOT_RATIO, trusted
from .native import CFunction, LazyNative, pivots_check, rhs_function
from ..trace import Tape, build
from .tree_algorithms import TreeModel, tree_crba, tree_rnea

__all__ = ["FlatForward", "TracedRows", "flat_forward", "projected_forward"]


def _mix(row, v, const=0.0):
    """const + row . v, leaving out the zero entries of a constant row (W's integers fold away on a tape)."""
    out = const
    for w, x in zip(row, v):
        if w != 0.0:
            out = out + float(w) * x
    return out


def _projected_mass(tm: TreeModel, W: np.ndarray, q, trig) -> list[list]:
    """M_a = W^T M(q) W (n x n lists) at the tree pose q."""
    n_tree, n = W.shape
    M = tree_crba(tm, q, trig)
    MW = [[_mix(W[:, k], M[i]) for k in range(n)] for i in range(n_tree)]
    return [[_mix(W[:, j], [MW[i][k] for i in range(n_tree)]) for k in range(n)] for j in range(n)]


def projected_forward(tm: TreeModel, W: np.ndarray, c: np.ndarray, qa, va, ta, trig, gravity: bool = True,
                      armature: Mapping[int, Any] | None = None) -> tuple[list, list]:
    """(q_a'', M_a's pivots) of a linear closure q_tree = W q_a + c at (q_a, qd_a, tau_a), over any scalar (floats or
    a tape's values); ``armature`` {actuated joint: inertia} adds to M_a's diagonal (a rotor's N^2 Jm)."""
    n_tree = W.shape[0]
    q = [_mix(W[i], qa, float(c[i])) for i in range(n_tree)]
    qd = [_mix(W[i], va) for i in range(n_tree)]
    Ma = _projected_mass(tm, W, q, trig)
    for i, extra in (armature or {}).items():
        Ma[i][i] = Ma[i][i] + extra
    tau = tree_rnea(tm, q, qd, [0.0] * n_tree, gravity, trig)
    bias = [_mix(W[:, j], tau) for j in range(W.shape[1])]
    return ldl_solve(Ma, [t - b for t, b in zip(ta, bias)])


def _trace(tm: TreeModel, W: np.ndarray, c: np.ndarray, kind: str):
    """kind "fwd" / "fwd_free": (q_a'' and M_a's pivots) of (q, qd, tau); "mass": M_a (n x n by rows) of q;
    "energy": (kinetic, potential) of (q, qd); "tree_tau": the tree's joint torques (n_tree) of (q, qd, qdd)."""
    tape = Tape()
    n_tree, n = W.shape
    qa = [tape.input(f"q_{i}") for i in range(n)]
    va = [tape.input(f"qd_{i}") for i in range(n)]
    ta = [tape.input(f"tau_{i}") for i in range(n)]

    def trig(x):
        return tape.call("cos", x), tape.call("sin", x)

    q = [_mix(W[i], qa, float(c[i])) for i in range(n_tree)]
    qd = [_mix(W[i], va) for i in range(n_tree)]
    if kind == "energy":
        return tape, (qa, va), list(energy(tm, q, qd, trig, tm.parent))
    if kind == "tree_tau":
        return tape, (qa, va, ta), tree_rnea(tm, q, qd, [_mix(W[i], ta) for i in range(n_tree)], True, trig)
    if kind == "mass":
        Ma = _projected_mass(tm, W, q, trig)
        return tape, (qa,), [Ma[i][j] for i in range(n) for j in range(n)]
    x, d = projected_forward(tm, W, c, qa, va, ta, trig, kind == "fwd")
    return tape, (qa, va, ta), x + d


class TracedRows:
    """The rows of a run from traced sources (``_sources``: name -> the tape's Python), over numpy columns."""

    _sources: dict[str, str]
    _vectorised: dict[str, Callable]

    def rows(self, name: str, *arrays: np.ndarray) -> np.ndarray:
        """(N, width) of ``name`` at the rows of the (N, k) input arrays, all at once (the traced lines over numpy
        columns; a linear closure's "energy": kinetic, potential; "tree_tau": the tree's torques)."""
        fn = self._vectorised.get(name)
        if fn is None:
            fn = self._vectorised[name] = build(f"{name}_of", self._sources[name], True)
        N = arrays[0].shape[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            values = fn(*(np.ascontiguousarray(np.asarray(a, dtype=float).T) for a in arrays))
        return np.stack([np.broadcast_to(v, (N,)) for v in values], axis=1)   # constant outputs broadcast


class FlatForward(TracedRows, LazyNative):
    """q_a'' of a linear closure at one state, from traced flat code (C when a compiler is there)."""

    def __init__(self, tm: TreeModel, W: np.ndarray, c: np.ndarray):
        self.n = W.shape[1]
        self.python: dict[bool, Callable] = {}
        self._sources: dict[str, str] = {}
        functions, support = [], []
        for name in ("fwd", "fwd_free", "mass", "energy", "tree_tau"):
            tape, inputs, out = _trace(tm, W, c, name)
            args = ("q", "qd", "tau")[:len(inputs)]
            self._sources[name] = tape.source(f"{name}_of", args, inputs, out)
            fn = build(f"{name}_of", self._sources[name], False)
            if name == "mass":
                self._mass_python = fn
            elif name in ("fwd", "fwd_free"):
                self.python[name == "fwd"] = fn
            support.append(tape.c_source(f"{name}_of", args, inputs, out))
            params = ", ".join(f"const double *{a}" for a in args)
            functions.append(CFunction(name, (self.n,) * len(args), len(out),
                                       f"static int {name}({params}, double *out)\n{{\n"
                                       f"    {name}_of({', '.join(args)}, out);\n    return 1;\n}}\n"))
        # the simulation's whole right-hand side [qd_a, q_a''] of y = [q_a, qd_a] in one call, as a serial arm's
        functions += [rhs_function("rhs_qdd", "fwd_of", self.n), rhs_function("rhs_free", "fwd_free_of", self.n)]
        support.append(pivots_check(self.n, PIVOT_RATIO))
        self._functions, self._support = functions, "\n".join(support)
        self._vectorised: dict[str, Callable] = {}

    def _c_code(self) -> tuple[list[CFunction], str]:
        return self._functions, self._support

    def mass(self, q_a, compiled: bool = True) -> np.ndarray:
        """M_a (n, n) at the actuated values q_a."""
        native = self.native if compiled else None
        if native is not None:
            out = np.empty(self.n * self.n)
            native.mass(np.ascontiguousarray(q_a, dtype=float), out)
        else:
            out = np.array(self._mass_python(np.asarray(q_a, dtype=float).tolist()))
        return out.reshape(self.n, self.n)

    def __call__(self, q_a, qd_a, tau_a, gravity: bool = True, compiled: bool = True) -> np.ndarray | None:
        """q_a'' (n,), or None when M_a's pivots are doubtful (not positive, spread above PIVOT_RATIO, not finite)."""
        n = self.n
        native = self.native if compiled else None
        if native is not None:
            w = np.empty(2 * n)
            getattr(native, "fwd" if gravity else "fwd_free")(
                *(np.ascontiguousarray(v, dtype=float) for v in (q_a, qd_a, tau_a)), w)
        else:
            try:
                w = np.array(self.python[gravity](*(np.asarray(v, dtype=float).tolist() for v in (q_a, qd_a, tau_a))))
            except ZeroDivisionError:
                return None
        values = w.tolist()
        return w[:n] if trusted(values[:n], values[n:]) else None


def flat_forward(tm: TreeModel, W: np.ndarray, c: np.ndarray) -> FlatForward | None:
    """The flat forward dynamics of a linear closure; None when tracing fails (a pivot 0 at every state)."""
    try:
        return FlatForward(tm, np.asarray(W, dtype=float), np.asarray(c, dtype=float))
    except ZeroDivisionError:
        return None
