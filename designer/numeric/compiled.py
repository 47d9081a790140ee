"""Compile equations of motion into fast numeric functions, through the code generator.

:func:`compile_equations` asks :func:`designer.codegen.plan_code` for the plan that
``codegen --lang python`` writes (the compact recursive forms by default, with the parameter
values written in as numbers), emits it with :func:`designer.codegen.python_code.emit_python`
and runs that source: what a user exports is what the app runs. Two flavours of the same plan
are compiled: ``math`` for a single state (Python floats are the fastest there) and ``numpy``
for arrays of states. The generated source is kept in :attr:`CompiledDynamics.source` and is
visible to :func:`inspect.getsource`; it never nests deeper than the emitter's bound, so no
arm is too large for Python's compiler.
"""

from __future__ import annotations

from typing import cast

import inspect
from dataclasses import dataclass, field, replace
from collections.abc import Callable, Mapping

import numpy as np
import sympy as sp

from ..codegen.plan import CodeForm, CodePlan, plan_code
from ..codegen.python_code import emit_python
from ..dynamics.results import Equations
from ..jobs import NEVER, CancelToken
from ..model import MissingParameterError
from ..trace import load_source
from .trigpoly import nested_matrix

__all__ = ["CompiledDynamics", "compile_equations"]


#: rows per block in the vectorised functions: temporaries of this size stay in the CPU cache
BLOCK = 8192
#: significant digits kept of the numbers in derived equations (see codegen.plan.DIGITS)
DIGITS = 14
#: quantity -> generated function
_FUNCTIONS = {"M": "mass_matrix", "G": "gravity", "h": "bias", "tau": "tau"}


def _round_floats(e: sp.Expr) -> sp.Expr:
    floats = e.atoms(sp.Float)
    return e.xreplace({f: sp.Float(float(f"{float(f):.{DIGITS}g}")) for f in floats}) if floats else e


@dataclass(frozen=True)
class CompiledDynamics:
    """Numeric M, G, h and tau of one arm, compiled from its equations.

    Single-state methods take sequences of n floats and return arrays; the
    ``*_many`` methods take arrays of shape (N, n) and return (N, n, n) or (N, n): views of
    arrays stored state-last (each generated output is one contiguous row).
    """

    n: int
    method: str
    parameters: Mapping[str, float]
    source: Mapping[str, str]
    plan: CodePlan = field(repr=False)
    _scalar: Mapping[str, Callable] = field(repr=False)
    _vector: Mapping[str, Callable] = field(repr=False)

    @property
    def operations(self) -> dict[str, int]:
        """Operation count (sympy's count_ops) after CSE per quantity; M counts its upper triangle."""
        by_name = {f.name: f.operations for f in self.plan.functions}
        return {q: by_name[f] for q, f in _FUNCTIONS.items()}

    def _one(self, v, name: str) -> list[float]:
        a = np.asarray(v, dtype=float)
        if a.shape != (self.n,):
            raise ValueError(f"{name}: expected {self.n} values, got shape {a.shape}")
        return a.tolist()

    def _many(self, v, name: str) -> np.ndarray:
        a = np.asarray(v, dtype=float)
        if a.ndim != 2 or a.shape[1] != self.n:
            raise ValueError(f"{name}: expected an array of shape (N, {self.n}), got {a.shape}")
        return np.ascontiguousarray(a.T)

    # single state ------------------------------------------------------------------
    def M(self, q) -> np.ndarray:
        """Mass matrix M(q), (n, n)."""
        return np.array(self._scalar["M"](self._one(q, "q")), dtype=float).reshape(self.n, self.n)

    def G(self, q) -> np.ndarray:
        """Gravity torques G(q), (n,)."""
        return np.array(self._scalar["G"](self._one(q, "q")), dtype=float)

    def h(self, q, qd) -> np.ndarray:
        """Coriolis and centrifugal torques h(q, qd) = tau(q, qd, 0) - G(q), (n,)."""
        return np.array(self._scalar["h"](self._one(q, "q"), self._one(qd, "qd")), dtype=float)

    def tau(self, q, qd, qdd) -> np.ndarray:
        """Inverse dynamics tau(q, qd, qdd), (n,)."""
        return np.array(self._scalar["tau"](self._one(q, "q"), self._one(qd, "qd"), self._one(qdd, "qdd")),
                        dtype=float)

    # many states -------------------------------------------------------------------
    def _evaluate(self, name: str, arrays: list[np.ndarray], width: int) -> np.ndarray:
        """(width, N) entries of quantity ``name``, in blocks of rows small enough to stay in cache.

        Each block is written in place (the generated functions' ``out``): no temporary result,
        no transposed copy; the callers return transposed views.
        """
        N = arrays[0].shape[1]
        out = np.zeros((width, N))
        fn = self._vector[name]
        for start in range(0, N, BLOCK):
            stop = min(N, start + BLOCK)
            fn(*(a[:, start:stop] for a in arrays), out=out[:, start:stop])
        return out

    def _states(self, *named) -> list[np.ndarray]:
        arrays = [self._many(v, name) for name, v in named]
        counts = [a.shape[1] for a in arrays]
        if len(set(counts)) > 1:
            raise ValueError(f"{', '.join(n for n, _ in named)}: row counts differ ({', '.join(map(str, counts))})")
        return arrays

    def M_many(self, Q) -> np.ndarray:
        """M at each row of Q (N, n): (N, n, n)."""
        n = self.n
        return self._evaluate("M", self._states(("Q", Q)), n * n).reshape(n, n, -1).transpose(2, 0, 1)

    def G_many(self, Q) -> np.ndarray:
        """G at each row of Q (N, n): (N, n)."""
        return self._evaluate("G", self._states(("Q", Q)), self.n).T

    def h_many(self, Q, QD) -> np.ndarray:
        """h at each pair of rows of Q and QD (N, n): (N, n)."""
        return self._evaluate("h", self._states(("Q", Q), ("QD", QD)), self.n).T

    def tau_many(self, Q, QD, QDD) -> np.ndarray:
        """tau at each triple of rows of Q, QD, QDD (N, n): (N, n)."""
        return self._evaluate("tau", self._states(("Q", Q), ("QD", QD), ("QDD", QDD)), self.n).T


def _derived_plan(eq: Equations, given: dict, horner: tuple[str, ...], token: CancelToken) -> CodePlan:
    """The plan of the derivation's own expressions, numbers in, M and G optionally nested."""
    subs = {sp.Symbol(k, real=True): sp.Float(v, 17) for k, v in given.items()}
    subs.update({s: sp.Float(given[s.name], 17) for s in eq.model.free_symbols() if s.name in given})

    def prepare(mat, name):
        out = sp.Matrix(mat).applyfunc(lambda e: _round_floats(sp.sympify(e).xreplace(subs)))
        return nested_matrix(out, eq.model.q) if name in horner else out
    numeric = replace(eq, mass_matrix=prepare(eq.mass_matrix, "M"), gravity=prepare(eq.gravity, "G"),
                      coriolis=prepare(eq.coriolis, "h"), tau=prepare(eq.tau, "tau"))
    return plan_code(numeric, CodeForm.DERIVED, token=token)


def compile_equations(eq: Equations, values: Mapping[str, float] | None = None,
                      horner: tuple[str, ...] = (), form: CodeForm | str | None = None,
                      token: CancelToken = NEVER) -> CompiledDynamics:
    """Compile M, G, h and tau of ``eq``'s arm for numeric evaluation.

    Parameters
    ----------
    eq : Equations
        A result of any method (and any form: only its model is needed by default).
    values : dict, optional
        Parameter values overriding the model's defaults.
    horner : tuple of str
        Derived form only: quantities ("M", "G") to rewrite in nested polynomial form before
        CSE (:mod:`~designer.numeric.trigpoly`: angle sums of parallel joints, a searched Horner
        order; PUMA 560 M 171 operations instead of 338, for about a second more compile time).
    form : "compact" or "derived", optional
        compact (default): the recursive forms of ``codegen``, the same for every method and
        never expanded; derived (the default when ``horner`` is given): ``eq``'s own expressions.

    Raises
    ------
    MissingParameterError
        When a symbol other than the joint variables has no value; it names them all.
    """
    model = eq.model
    form = CodeForm(form or (CodeForm.DERIVED if horner else CodeForm.COMPACT))
    closed_compact = eq.extras.get("closed_compact")
    if closed_compact is not None:   # a closed chain's compact form: its steps (codegen.plan)
        form = CodeForm.COMPACT
        if getattr(closed_compact, "inputs", ()):
            raise ValueError("a closed chain whose passive positions are inputs (no closed-form closure) is not "
                             "compiled: its functions take qp too")
    elif "loop_quantities" in eq.extras:
        raise ValueError("a nonlinear loop's closed form reads loop quantities (qp, W, dW): compile its compact "
                         "form (derive --form compact)")
    elif "closed_chain" in eq.extras:   # its closed forms are its equations (see codegen.plan)
        form = CodeForm.DERIVED
    unknown = set(horner) - set(_FUNCTIONS)
    if unknown:
        raise ValueError(f"horner: unknown quantities {sorted(unknown)}")
    given = dict(model.parameter_values)
    given.update(values or {})
    joints = {s.name for s in (*model.q, *model.qd, *model.qdd)}
    if closed_compact is not None:
        from ..dynamics.closed_compact import ClosedCompact, parameter_names
        used = set(parameter_names(cast(ClosedCompact, closed_compact)))
    elif form is CodeForm.COMPACT:
        used = set(model.symbol_names())
    else:
        used = {s.name for m in (eq.mass_matrix, eq.gravity, eq.coriolis, eq.tau) for s in m.free_symbols} - joints
    missing = sorted(name for name in used if name not in given)
    if missing:
        raise MissingParameterError(missing)
    given = {k: float(v) for k, v in given.items() if k in used}
    if form is CodeForm.COMPACT:
        plan = plan_code(eq, CodeForm.COMPACT, values=given, token=token)
    else:
        plan = _derived_plan(eq, given, tuple(horner), token)
    token.check()
    scalar_module = load_source(emit_python(plan, "math"), "compiled-math")
    vector_module = load_source(emit_python(plan), "compiled-numpy")
    scalar = {q: getattr(scalar_module, f) for q, f in _FUNCTIONS.items()}
    vector = {q: getattr(vector_module, f) for q, f in _FUNCTIONS.items()}
    return CompiledDynamics(n=model.n, method=getattr(eq.method, "value", str(eq.method)), parameters=given,
                            source={q: inspect.getsource(f) for q, f in vector.items()}, plan=plan,
                            _scalar=scalar, _vector=vector)
