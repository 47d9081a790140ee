"""A nonlinear closure's hot path as flat code: the loops' Newton step and the projected forward dynamics.

A loop that does not close linearly (a four-bar, a slider-crank, a general loop) has W = d q_tree / d q_a and
its rate term depending on the pose, so :mod:`.closed_flat`'s constant projection does not apply. Here the
loops' residual r, Jacobian J and rate term J' qd, written once over any scalar
(:func:`designer.kinematics.tree.scalar_loop_terms`, which the interpreted closure runs traced too), are recorded on
a :class:`~designer.trace.Tape` with the tree's CRBA and RNEA (:mod:`.tree_algorithms`) as two flat functions of
the tree pose:

- ``newton(q)``: r (m), the Newton step dx = (J_p^T J_p)^-1 J_p^T r on the passive joints (the least-squares
  step of :class:`~designer.kinematics.closure.Closure`: a planar loop's out-of-plane rows are zero) and the
  LDL^T pivots of J_p^T J_p;
- ``fwd(q, qd_a, tau_a)``: with W_p = -(J_p^T J_p)^-1 J_p^T J_a, qd = W qd_a, the passive accelerations at zero
  actuated ones g_p = -(J_p^T J_p)^-1 J_p^T (J' qd), M_a = W^T M W and bias = W^T tau_tree(q, qd, g):
  q_a'' = M_a^-1 (tau_a - bias) and M_a's pivots (``fwd_free``: without gravity).

The C module (:mod:`.native`, built once per mechanism and cached) adds the loop around them: ``close_pose``
runs Newton's iterations from a closed pose (the last state of a following engine, or the nominal pose) to the
closure's own tolerance and one step more (a residual at rounding, as the four-bar's closed form leaves; a pose
closed already is kept as it is), by continuation in steps of at most
:data:`~designer.kinematics.closure.STEP` of the actuated joints as :class:`~designer.kinematics.closure.Closure`
does; ``fwd_close`` closes and solves one
state, and ``rhs_qdd`` / ``rhs_free`` are a simulation's whole right-hand side [qd_a, q_a''] (and the closed
pose reached) under constant torques or a standing PD, as a serial arm's and a linear closure's are. Each
returns False when a state is doubtful: Newton did not converge, J_p^T J_p or M_a is near singular, or a value
is not finite; the caller then takes the interpreted path (:class:`~designer.kinematics.closure.Closure` and
numpy), which gives the same numbers or the closure's own error. The rows of a run (energies, the tree's
torques for the cut forces) come from the same tape over numpy columns. Without a C compiler (:mod:`.native`
says so once) the forward dynamics run as the generated Python and the loops close in numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..kinematics.closure import MAX_NEWTON, STEP, TOL, Closure
from ..kinematics.tree import _PAIRS, TreeArm, scalar_loop_terms
from .algorithms import Trig, energy, ldl_solve
from .engine import PIVOT_RATIO, trusted
from ..trace import Tape, build
from .closed_flat import TracedRows
from .native import CFunction, LazyNative, cached_path, pivots_check
from .tree_algorithms import TreeModel, tree_crba, tree_rnea

__all__ = ["NewtonFlat", "newton_flat", "NEWTON_PIVOT_RATIO"]

#: the most continuation steps one closing takes in C (farther: the interpreted closure)
MAX_STEPS = 10000
#: J_p^T J_p's pivots spread above this: a pose near a dead centre, left to the interpreted closure (which
#: names it when singular, :data:`~designer.kinematics.closure.SINGULAR`)
NEWTON_PIVOT_RATIO = 1e10


def _normal(jac: list, pas: Sequence[int]) -> list[list]:
    """J_p^T J_p (n_p x n_p lists)."""
    return [[sum((r[a] * r[b] for r in jac), 0.0) for b in pas] for a in pas]


def _least_squares(jac: list, pas: Sequence[int], rhs: Sequence) -> tuple[list, list]:
    """((J_p^T J_p)^-1 J_p^T rhs, the pivots): the tape shares the factorization between right-hand sides."""
    return ldl_solve(_normal(jac, pas), [sum((r[a] * x for r, x in zip(jac, rhs)), 0.0) for a in pas])


def newton_step(tree: TreeArm, q: Sequence, trig: Trig) -> list:
    """[r (m), dx (n_p), pivots (n_p)] at the tree pose q: q_p - dx is Newton's next guess."""
    res, jac, _, _ = scalar_loop_terms(tree, q, trig)
    dx, d = _least_squares(jac, tree.passive, res)
    return res + dx + d


def _rates(tree: TreeArm, q: Sequence, qd_a: Sequence, trig: Trig) -> tuple[list, list, list]:
    """(W (n_tree lists of n_a), qd = W qd_a, the tree's accelerations at zero actuated ones) at a closed pose q."""
    act, pas = tree.actuated, tree.passive
    n_tree, n = tree.n, len(act)
    _, jac, _, _ = scalar_loop_terms(tree, q, trig)
    W = [[0.0] * n for _ in range(n_tree)]
    for k, i in enumerate(act):
        W[i][k] = 1.0
    for k, i in enumerate(act):
        col, _ = _least_squares(jac, pas, [-r[i] for r in jac])
        for p, x in zip(pas, col):
            W[p][k] = x
    qd = [sum((w * v for w, v in zip(W[i], qd_a)), 0.0) for i in range(n_tree)]
    _, _, rate, _ = scalar_loop_terms(tree, q, trig, qd)
    g, _ = _least_squares(jac, pas, [-x for x in rate])
    qdd0: list = [0.0] * n_tree
    for p, x in zip(pas, g):
        qdd0[p] = x
    return W, qd, qdd0


def closed_forward(tree: TreeArm, tm: TreeModel, q: Sequence, qd_a: Sequence, tau_a: Sequence, trig: Trig,
                   gravity: bool = True) -> tuple[list, list]:
    """(q_a'', M_a's pivots) at a closed tree pose q (the module text), over any scalar."""
    n_tree, n = tree.n, len(tree.actuated)
    W, qd, qdd0 = _rates(tree, q, qd_a, trig)
    M = tree_crba(tm, q, trig)
    MW = [[sum((M[i][j] * W[j][b] for j in range(n_tree)), 0.0) for b in range(n)] for i in range(n_tree)]
    Ma = [[sum((W[i][a] * MW[i][b] for i in range(n_tree)), 0.0) for b in range(n)] for a in range(n)]
    tau = tree_rnea(tm, q, qd, qdd0, gravity, trig)
    bias = [sum((W[i][a] * tau[i] for i in range(n_tree)), 0.0) for a in range(n)]
    return ldl_solve(Ma, [t - b for t, b in zip(tau_a, bias)])


def _trace(tree: TreeArm, tm: TreeModel, kind: str):
    tape = Tape()
    n_tree, n = tree.n, len(tree.actuated)
    q = [tape.input(f"q_{i}") for i in range(n_tree)]

    def trig(x):
        return tape.call("cos", x), tape.call("sin", x)
    if kind == "newton":
        return tape, (q,), newton_step(tree, q, trig)
    va = [tape.input(f"qd_{i}") for i in range(n)]
    if kind == "energy":
        _, qd, _ = _rates(tree, q, va, trig)
        return tape, (q, va), list(energy(tm, q, qd, trig, tm.parent))
    ta = [tape.input(f"tau_{i}") for i in range(n)]
    if kind == "tree_tau":   # the tree's torques at qd = W qd_a, qdd = W qdd_a + the loops' part (ta: qdd_a)
        W, qd, qdd0 = _rates(tree, q, va, trig)
        qdd = [sum((w * a for w, a in zip(W[i], ta)), qdd0[i]) for i in range(tree.n)]
        return tape, (q, va, ta), tree_rnea(tm, q, qd, qdd, True, trig)
    x, d = closed_forward(tree, tm, q, va, ta, trig, kind == "fwd")
    return tape, (q, va, ta), x + d


class NewtonFlat(TracedRows, LazyNative):
    """A nonlinear closure's Newton step and forward dynamics as traced flat code (C when a compiler is there); its
    :meth:`rows`: "energy" (kinetic, potential) of (q, qd_a), "tree_tau" (the tree's torques) of (q, qd_a, qdd_a),
    at N closed tree poses q (N, n_tree) and actuated rates (N, n)."""

    def __init__(self, tree: TreeArm, tm: TreeModel, size: float):
        self.n_tree, self.n = tree.n, len(tree.actuated)
        self.m = sum(3 + len(_PAIRS[kind]) for *_, kind in tree.loops)
        self.n_p = len(tree.passive)
        self.act, self.pas = tuple(tree.actuated), tuple(tree.passive)
        self.tol = float(TOL * size)   # a Python float: its repr is a C literal
        self.python: dict[str, Callable] = {}
        self._on_disk: bool | None = None
        self._sources: dict[str, str] = {}
        self._vectorised: dict[str, Callable] = {}
        support, functions = [], []
        for name in ("newton", "fwd", "fwd_free", "energy", "tree_tau"):
            tape, inputs, out = _trace(tree, tm, name)
            args = ("q", "qd", "tau")[:len(inputs)]
            self._sources[name] = tape.source(f"{name}_of", args, inputs, out)
            if name in ("energy", "tree_tau"):   # the rows of a run, over numpy columns (:meth:`rows`)
                continue
            self.python[name] = build(f"{name}_of", self._sources[name], False)
            support.append(tape.c_source(f"{name}_of", args, inputs, out))
        support += [pivots_check(self.n, PIVOT_RATIO), self._close_c()]
        n, nt = self.n, self.n_tree
        for fwd in ("fwd", "fwd_free"):
            functions.append(CFunction(fwd, (nt, n, n), 2 * n,
                                       f"static int {fwd}(const double *q, const double *qd, const double *tau, "
                                       f"double *w)\n{{\n    {fwd}_of(q, qd, tau, w);\n    return good(w);\n}}\n"))
        functions.append(CFunction("close_pose", (n, nt), nt,
                                   "static int close_pose(const double *qa, const double *guess, double *q)\n{\n"
                                   f"    memcpy(q, guess, {nt} * sizeof(double));\n"
                                   "    return close_loops(qa, q);\n}\n"))
        for fwd in ("fwd", "fwd_free"):
            functions.append(CFunction(f"{fwd}_close", (n, n, n, nt), 2 * n + nt,
                                       f"static int {fwd}_close(const double *qa, const double *qd, const double *tau, "
                                       "const double *guess, double *w)\n{\n"
                                       f"    double *q = w + {2 * n};\n"
                                       f"    memcpy(q, guess, {nt} * sizeof(double));\n"
                                       "    if (!close_loops(qa, q)) return 0;\n"
                                       f"    {fwd}_of(q, qd, tau, w);\n    return good(w);\n}}\n"))
        for name, fwd in (("rhs_qdd", "fwd_of"), ("rhs_free", "fwd_free_of")):
            functions.append(CFunction(name, (2 * n, 4 * n, nt), 2 * n + nt, self._rhs_c(name, fwd)))
        self._functions, self._support = functions, "\n".join(support)

    def _close_c(self) -> str:
        """C of ``static int close_loops(const double *qa, double *q)``: from the closed pose q to the actuated
        values qa by continuation, as :meth:`Closure.solve` does (steps of at most STEP, Newton's iterations on the
        passive joints at each); 1: closed to the tolerance, 0: doubtful (see the module)."""
        m, n_p = self.m, self.n_p
        act = ", ".join(map(str, self.act))
        pas = ", ".join(map(str, self.pas)) or "0"
        return f"""static int newton_loops(double *q);

static int close_loops(const double *qa, double *q)
{{
    static const int act[{max(self.n, 1)}] = {{{act or "0"}}};
    double from[{max(self.n, 1)}], span = 0.0;
    for (int k = 0; k < {self.n}; k++) {{
        from[k] = q[act[k]];
        double d = fabs(qa[k] - from[k]);
        if (!isfinite(d)) return 0;
        if (d > span) span = d;
    }}
    int steps = span > 0.0 ? (int)ceil(span / {STEP!r}) : 1;
    if (steps > {MAX_STEPS}) return 0;
    for (int s = 1; s <= steps; s++) {{
        for (int k = 0; k < {self.n}; k++)
            q[act[k]] = s == steps ? qa[k] : from[k] + (qa[k] - from[k]) * ((double)s / (double)steps);
        if (!newton_loops(q)) return 0;
    }}
    return 1;
}}

static int newton_loops(double *q)
{{
    static const int pas[{max(n_p, 1)}] = {{{pas}}};
    double w[{m + 2 * n_p}];
    for (int it = 0; it < {MAX_NEWTON}; it++) {{
        newton_of(q, w);
        double err = 0.0;
        for (int r = 0; r < {m}; r++) {{
            if (!isfinite(w[r])) return 0;
            if (fabs(w[r]) > err) err = fabs(w[r]);
        }}
        if (err <= {self.tol!r} && it == 0) return 1;
        double lo = w[{m + n_p}], hi = lo;
        for (int p = 0; p < {n_p}; p++) {{
            double d = w[{m + n_p} + p];
            if (!(d > 0.0)) return 0;
            if (d < lo) lo = d;
            if (d > hi) hi = d;
        }}
        if (!(hi <= {NEWTON_PIVOT_RATIO!r} * lo)) return 0;
        for (int p = 0; p < {n_p}; p++) q[pas[p]] -= w[{m} + p];
        if (err <= {self.tol!r}) return 1;   /* converged: that step polished it (as the four-bar's closed form is) */
    }}
    return 0;
}}
"""

    def _rhs_c(self, name: str, forward: str) -> str:
        n, nt = self.n, self.n_tree
        return (f"static int {name}(const double *y, const double *par, const double *guess, double *dy)\n{{\n"
                f"    double tau[{n}], w[{2 * n}];\n    double *q = dy + {2 * n};\n"
                f"    memcpy(q, guess, {nt} * sizeof(double));\n"
                "    if (!close_loops(y, q)) return 0;\n"
                f"    for (int i = 0; i < {n}; i++)\n"
                f"        tau[i] = par[{3 * n} + i] + par[i] * (par[{2 * n} + i] - y[i]) - par[{n} + i] * y[{n} + i];\n"
                f"    {forward}(q, y + {n}, tau, w);\n    if (!good(w)) return 0;\n"
                f"    memcpy(dy, y + {n}, {n} * sizeof(double));\n"
                f"    memcpy(dy + {n}, w, {n} * sizeof(double));\n    return 1;\n}}\n")

    def _c_code(self) -> tuple[list[CFunction], str]:
        return self._functions, self._support

    def __call__(self, q, qd_a, tau_a, gravity: bool = True, compiled: bool = True) -> np.ndarray | None:
        """q_a'' (n,) at the closed tree pose q, or None when M_a's pivots are doubtful (not positive, spread above
        PIVOT_RATIO, not finite); ``compiled`` False: the generated Python (the same operations)."""
        n = self.n
        native = self._ready() if compiled else None
        args = [np.ascontiguousarray(v, dtype=float) for v in (q, qd_a, tau_a)]
        if native is not None:
            w = np.empty(2 * n)
            if not getattr(native, "fwd" if gravity else "fwd_free")(*args, w):
                return None
            return w[:n]
        try:
            values = list(self.python["fwd" if gravity else "fwd_free"](*(a.tolist() for a in args)))
        except ZeroDivisionError:
            return None
        return np.array(values[:n]) if trusted(values[:n], values[n:]) else None

    def close_forward(self, q_a, qd_a, tau_a, guess, gravity: bool = True) -> tuple[np.ndarray, np.ndarray] | None:
        """(q_a'', the closed tree pose) with the loops closed by Newton from the closed pose ``guess`` nearby, in
        one call of the machine code (when :meth:`_ready`); None without it or at a doubtful state (the module text)."""
        native = self._ready()
        if native is None:
            return None
        w = np.empty(2 * self.n + self.n_tree)
        try:
            ok = getattr(native, "fwd_close" if gravity else "fwd_free_close")(
                *(np.ascontiguousarray(v, dtype=float) for v in (q_a, qd_a, tau_a, guess)), w)
        except (TypeError, ValueError, BufferError):
            return None
        return (w[:self.n], w[2 * self.n:]) if ok else None

    def _ready(self):
        """The machine code when it is at hand (built, or in the disk cache) or this engine is hot, else None: a
        mechanism posed or evaluated by hand right after an edit compiles nothing (a simulation builds it at its
        start, :attr:`native`)."""
        if "_native" in vars(self):
            return self.native
        if self._on_disk is None:   # asked once: the hash of the source is not free
            self._on_disk = cached_path(*self._c_code()).exists()
        return self.native if self._on_disk else self.native_if_hot()

    def close(self, q_a, guess) -> np.ndarray | None:
        """The tree pose closing the loops at q_a by Newton from the closed pose ``guess`` (machine code, when
        :meth:`_ready`); None without it or where it is doubtful."""
        native = self._ready()
        if native is None:
            return None
        q = np.empty(self.n_tree)
        ok = native.close_pose(np.ascontiguousarray(q_a, dtype=float), np.ascontiguousarray(guess, dtype=float), q)
        return q if ok else None


def newton_flat(closure: Closure, tm: TreeModel) -> NewtonFlat | None:
    """The flat code of a nonlinear closure (None for a linear one, or when tracing fails)."""
    if closure.linear is not None or not len(closure.pas):
        return None
    try:
        return NewtonFlat(closure.tree, tm, closure.size)
    except ZeroDivisionError:
        return None
