"""Compile symbolic equations of motion into fast numeric functions.

:func:`compile_equations` substitutes the parameter values, runs
:func:`sympy.cse` on a *flat* list of the entries of each quantity (the upper
triangle of M; the n entries of G, h and tau) and writes one Python function
per quantity from the result. ``lambdify(cse=True)`` is not used because it
silently skips common-subexpression elimination on nested outputs (sympy
1.14: M(q) over 100,000 states took 16 s that way, 0.075 s from a flat list).
Each function is generated twice: with ``math`` for a single state (Python
floats are the fastest there) and with ``numpy`` for arrays of states, where constant entries broadcast into the output.
The generated source is kept in :attr:`CompiledDynamics.source` and is
visible to :func:`inspect.getsource`.
"""

from __future__ import annotations

import itertools
import linecache
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from collections.abc import Callable, Mapping

import numpy as np
import sympy as sp
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.pycode import PythonCodePrinter

from ..dynamics.results import Equations
from ..model import MissingParameterError

__all__ = ["CompiledDynamics", "compile_equations"]

_counter = itertools.count()

#: rows per block in the vectorised functions: temporaries of this size stay in the CPU cache
BLOCK = 2048
#: significant digits kept of the numbers in the equations: a derivation in floating point leaves
#: near-duplicates like 0.00040432 and 0.000404319999999995 that would hide common subexpressions
DIGITS = 14


def _round_floats(e: sp.Expr) -> sp.Expr:
    floats = e.atoms(sp.Float)
    return e.xreplace({f: sp.Float(float(f"{float(f):.{DIGITS}g}")) for f in floats}) if floats else e


def _horner(e: sp.Expr) -> sp.Expr:
    """Nested (Horner) form of ``e`` as a polynomial in its sines, cosines and symbols.

    The derivations leave M and G as expanded sums of trigonometric products;
    nesting them saves about a quarter of the operations (PUMA 560: 338 -> ~260).
    """
    if not e.free_symbols:
        return e
    funcs = sorted(e.atoms(sp.sin, sp.cos), key=sp.default_sort_key)
    placeholders = {f: sp.Dummy(f"t{k}") for k, f in enumerate(funcs)}
    try:
        nested = sp.horner(sp.expand(e.xreplace(placeholders)))
    except sp.PolynomialError:
        return e
    return nested.xreplace({v: k for k, v in placeholders.items()})


def _prune(replacements: list, reduced: list) -> list:
    """The replacements (in order) that ``reduced`` needs, directly or through other replacements."""
    need: set = set().union(*(e.free_symbols for e in reduced))
    keep = []
    for sym, value in reversed(replacements):
        if sym in need:
            keep.append((sym, value))
            need |= value.free_symbols
    return keep[::-1]


def _emit(name: str, args: dict[str, list[sp.Symbol]], replacements: list, reduced: list, printer) -> str:
    """Source of ``def name(q, qd, qdd): ... return (e0, e1, ...)``, one line per subexpression."""
    lines = [f"def {name}({', '.join(args)}):"]
    for vec, syms in args.items():
        for k, s in enumerate(syms):
            lines.append(f"    {s.name} = {vec}[{k}]")
    for sym, value in replacements:
        lines.append(f"    {sym.name} = {printer.doprint(value)}")
    outs = ", ".join(printer.doprint(e) for e in reduced)
    lines.append(f"    return ({outs}{',' if len(reduced) == 1 else ''})")
    return "\n".join(lines) + "\n"


def _build(name: str, source: str) -> Callable:
    filename = f"<designer-compiled-{next(_counter)}-{name}>"
    # register the text so that inspect.getsource and tracebacks can show it
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, Any] = {"math": math, "numpy": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


@dataclass(frozen=True)
class CompiledDynamics:
    """Numeric M, G, h and tau of one arm, compiled from its symbolic equations.

    Single-state methods take sequences of n floats and return arrays; the
    ``*_many`` methods take arrays of shape (N, n) and return (N, n, n) or (N, n).
    """

    n: int
    method: str
    parameters: Mapping[str, float]
    source: Mapping[str, str]
    _parts: Mapping[str, tuple] = field(repr=False)  # per quantity: (replacements, reduced) after CSE
    _scalar: Mapping[str, Callable] = field(repr=False)
    _vector: Mapping[str, Callable] = field(repr=False)

    @cached_property
    def operations(self) -> dict[str, int]:
        """Operation count (sympy's count_ops) after CSE per quantity; M counts its upper triangle."""
        return {name: int(sum(sp.count_ops(v) for _, v in repl) + sum(sp.count_ops(e) for e in red))
                for name, (repl, red) in self._parts.items()}

    @property
    def _triu(self) -> tuple[np.ndarray, np.ndarray]:
        return np.triu_indices(self.n)

    def _one(self, v, name: str) -> list[float]:
        a = np.asarray(v, dtype=float)
        if a.shape != (self.n,):
            raise ValueError(f"{name}: expected {self.n} values, got shape {a.shape}")
        return a.tolist()

    def _many(self, v, name: str) -> tuple[np.ndarray, int]:
        a = np.asarray(v, dtype=float)
        if a.ndim != 2 or a.shape[1] != self.n:
            raise ValueError(f"{name}: expected an array of shape (N, {self.n}), got {a.shape}")
        return np.ascontiguousarray(a.T), a.shape[0]

    # single state ------------------------------------------------------------------
    def M(self, q) -> np.ndarray:
        """Mass matrix M(q), (n, n)."""
        out = np.empty((self.n, self.n))
        vals = self._scalar["M"](self._one(q, "q"))
        i, j = self._triu
        out[i, j] = vals
        out[j, i] = vals
        return out

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
    def _evaluate(self, name: str, arrays: list[np.ndarray], width: int, places=None) -> np.ndarray:
        """(N, width) entries of quantity ``name``, in blocks of rows small enough to stay in cache.

        ``places[k]`` lists the output columns of the k-th value (default: column k).
        """
        N = arrays[0].shape[1]
        out = np.empty((N, width))
        fn = self._vector[name]
        block = np.empty((width, min(N, BLOCK)))
        for start in range(0, N, BLOCK):
            stop = min(N, start + BLOCK)
            rows = block[:, :stop - start]
            values = fn(*(a[:, start:stop] for a in arrays))
            if places is None:
                for k, v in enumerate(values):
                    rows[k] = v  # constant entries broadcast
            else:
                for cols, v in zip(places, values):
                    for c in cols:
                        rows[c] = v
            out[start:stop] = rows.T
        return out

    def _states(self, *named) -> list[np.ndarray]:
        arrays = [self._many(v, name)[0] for name, v in named]
        counts = [a.shape[1] for a in arrays]
        if len(set(counts)) > 1:
            raise ValueError(f"{', '.join(n for n, _ in named)}: row counts differ ({', '.join(map(str, counts))})")
        return arrays

    def M_many(self, Q) -> np.ndarray:
        """M at each row of Q (N, n): (N, n, n)."""
        n = self.n
        places = [(i * n + j,) if i == j else (i * n + j, j * n + i) for i, j in zip(*self._triu)]
        return self._evaluate("M", self._states(("Q", Q)), n * n, places).reshape(-1, n, n)

    def G_many(self, Q) -> np.ndarray:
        """G at each row of Q (N, n): (N, n)."""
        return self._evaluate("G", self._states(("Q", Q)), self.n)

    def h_many(self, Q, QD) -> np.ndarray:
        """h at each pair of rows of Q and QD (N, n): (N, n)."""
        return self._evaluate("h", self._states(("Q", Q), ("QD", QD)), self.n)

    def tau_many(self, Q, QD, QDD) -> np.ndarray:
        """tau at each triple of rows of Q, QD, QDD (N, n): (N, n)."""
        return self._evaluate("tau", self._states(("Q", Q), ("QD", QD), ("QDD", QDD)), self.n)


def compile_equations(eq: Equations, values: Mapping[str, float] | None = None,
                      horner: tuple[str, ...] = ()) -> CompiledDynamics:
    """Compile the M, G, h and tau of ``eq`` for numeric evaluation.

    Parameters
    ----------
    eq : Equations
        A symbolic result of any method.
    values : dict, optional
        Parameter values overriding the model's defaults.
    horner : tuple of str
        Quantities ("M", "G") to rewrite in nested polynomial form before CSE: fewer
        operations per evaluation for a few seconds more compile time on a 6-link arm
        (worth it for many states; too slow for h and tau of large arms).

    Raises
    ------
    MissingParameterError
        When a symbol other than the joint variables has no value; it names them all.
    """
    model = eq.model
    n = model.n
    q, qd, qdd = list(model.q), list(model.qd), list(model.qdd)
    known = set(q) | set(qd) | set(qdd)
    M = sp.Matrix(eq.mass_matrix)
    quantities = {
        "M": [M[i, j] for i in range(n) for j in range(i, n)],
        "G": list(sp.Matrix(eq.gravity)),
        "h": list(sp.Matrix(eq.coriolis)),
        "tau": list(sp.Matrix(eq.tau)),
    }
    params = set().union(*(sp.sympify(e).free_symbols for exprs in quantities.values() for e in exprs)) - known
    given = dict(model.parameter_values)
    given.update(values or {})
    missing = [s.name for s in params if s.name not in given]
    if missing:
        raise MissingParameterError(missing)
    subs = {s: sp.Float(given[s.name], 17) for s in params}
    signature = {"M": {"q": q}, "G": {"q": q}, "h": {"q": q, "qd": qd}, "tau": {"q": q, "qd": qd, "qdd": qdd}}
    scalar_printer = PythonCodePrinter({"fully_qualified_modules": True})
    vector_printer = NumPyPrinter({"fully_qualified_modules": True})
    # one CSE over every quantity (tau shares most of its terms with M, h and G), then each
    # function keeps only the subexpressions it needs
    names = list(quantities)
    unknown = set(horner) - set(names)
    if unknown:
        raise ValueError(f"horner: unknown quantities {sorted(unknown)}")
    flat = []
    for name in names:
        for e in quantities[name]:
            e = _round_floats(sp.sympify(e).xreplace(subs))
            flat.append(_horner(e) if name in horner else e)
    replacements, reduced = sp.cse(flat, symbols=sp.numbered_symbols("_x"), order="none")
    scalar, vector, source, parts = {}, {}, {}, {}
    start = 0
    for name in names:
        mine = reduced[start:start + len(quantities[name])]
        start += len(mine)
        needed = _prune(replacements, mine)
        parts[name] = (needed, mine)
        src = _emit(f"{name}_one", signature[name], needed, mine, scalar_printer)
        vsrc = _emit(f"{name}_many", signature[name], needed, mine, vector_printer)
        scalar[name], vector[name] = _build(f"{name}_one", src), _build(f"{name}_many", vsrc)
        source[name] = vsrc
    return CompiledDynamics(n=n, method=getattr(eq.method, "value", str(eq.method)),
                            parameters={s.name: float(given[s.name]) for s in params},
                            source=source, _parts=parts, _scalar=scalar, _vector=vector)
