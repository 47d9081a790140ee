"""Record an algorithm written over plain numbers as straight-line Python code.

The numeric algorithms (:mod:`designer.numeric.algorithms`) are written once,
over any scalar type with ``+ - * /``: run on floats they compute; run on the
:class:`Var` of a :class:`Tape` they write themselves down as one assignment
per operation (Pinocchio's idea of templating the algorithm on its scalar, as
its code generator does). On the tape the model's constants are folded
(``0 * x``, ``1 * x``, ``x + 0``), repeated operations are shared, and the
result is a flat function without loops or calls, one binary operation a line,
so neither the compiler nor the interpreter nests deeper than one level,
however long the arm. The same source runs on Python floats (``math``) for one
state, the fastest way for arrays of six, and on numpy arrays for many.

:meth:`Tape.c_source` writes the same lines as C for :mod:`designer.numeric.native`.

It is the second Python code writer beside :mod:`designer.codegen.python_code`, and stays one: that
one prints sympy expressions after CSE, this one records float operations while the algorithm runs,
so the numeric layer builds an arm's code in milliseconds without loading sympy's derivations
(``test_numeric_layer_does_not_load_the_symbolic_dynamics``). Both load through :func:`load_source`.

It sits below every layer that traces (kinematics traces a mechanism's loop terms, :mod:`designer.kinematics.tree`;
the numeric layer its dynamics) and imports nothing of the project.
"""

from __future__ import annotations

import itertools
import linecache
import math
import re
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["Tape", "Var", "Scalar", "Trig", "build", "load_source", "dot", "cross"]

#: x -> (cos x, sin x): how an algorithm written over any scalar takes its angles (math's on floats, a tape's calls)
Trig = Callable[[Any], tuple[Any, Any]]


def dot(a, b):
    """a . b of two 3-vectors over any scalar (floats, numpy columns, a tape's variables)."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    """a x b of two 3-vectors over any scalar, as a tuple: the algorithms traced on a :class:`Tape` share it."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])

#: the deepest nesting of operations in one generated line
DEPTH = 4
_NAME = re.compile(r"\bv\d+\b")  # the names the tape gives its lines


class Var:
    """A value on a :class:`Tape`, named by the line that computes it."""

    __slots__ = ("tape", "name")

    def __init__(self, tape: Tape, name: str):
        self.tape = tape
        self.name = name

    def __add__(self, other: Scalar) -> Scalar:
        return self.tape.add(self, other)

    __radd__ = __add__

    def __sub__(self, other: Scalar) -> Scalar:
        return self.tape.add(self, -other)

    def __rsub__(self, other: Scalar) -> Scalar:
        return self.tape.add(-self, other)

    def __mul__(self, other: Scalar) -> Scalar:
        return self.tape.mul(self, other)

    __rmul__ = __mul__

    def __truediv__(self, other: Scalar) -> Scalar:
        if isinstance(other, Var):
            return self.tape.binary("/", self, other)
        return self.tape.mul(self, 1.0 / other)

    def __rtruediv__(self, other: Scalar) -> Scalar:
        return self.tape.binary("/", other, self)

    def __neg__(self) -> Scalar:
        return self.tape.neg(self)

    def __repr__(self) -> str:
        return self.name


Scalar = float | Var


def _text(x: Scalar) -> str:
    if isinstance(x, Var):
        return x.name
    return repr(float(x)) if x >= 0 else f"({float(x)!r})"


class Tape:
    """The lines an algorithm run on :class:`Var` values has written, and their inputs."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._memo: dict[tuple, Var] = {}
        self._negated: dict[str, Var] = {}
        self._scaled: dict[str, tuple[float, Var]] = {}  # v = k * w with a constant k

    def input(self, name: str) -> Var:
        return Var(self, name)

    def _line(self, key: tuple, text: str) -> Var:
        found = self._memo.get(key)
        if found is None:
            found = Var(self, f"v{len(self.lines)}")
            self.lines.append(f"{found.name} = {text}")
            self._memo[key] = found
        return found

    def binary(self, op: str, a: Scalar, b: Scalar) -> Var:
        return self._line((op, _text(a), _text(b)), f"{_text(a)} {op} {_text(b)}")

    def neg(self, a: Var) -> Scalar:
        back = self._negated.get(a.name)
        if back is not None:
            return back
        if a.name in self._scaled:  # -(k w) is (-k) w: the sign folds into the constant
            k, w = self._scaled[a.name]
            return self.mul(w, -k)
        out = self._line(("neg", a.name), f"-{a.name}")
        self._negated[out.name] = a
        return out

    def add(self, a: Scalar, b: Scalar) -> Scalar:
        if not isinstance(a, Var):
            a, b = b, a
        if not isinstance(a, Var):
            return a + b
        if not isinstance(b, Var) and b == 0.0:
            return a
        # x + (-y) is written x - y; the operands of + in a fixed order, so that x + y meets y + x
        if isinstance(b, Var) and b.name in self._negated:
            return self.binary("-", a, self._negated[b.name])
        if a.name in self._negated and isinstance(b, Var):
            return self.binary("-", b, self._negated[a.name])
        if not isinstance(b, Var) and b < 0:
            return self.binary("-", a, -b)
        x, y = sorted((a, b), key=_text)
        return self.binary("+", x, y)

    def mul(self, a: Scalar, b: Scalar) -> Scalar:
        if not isinstance(a, Var):
            a, b = b, a
        if not isinstance(a, Var):
            return a * b
        if not isinstance(b, Var):
            if b == 0.0:
                return 0.0
            if b == 1.0:
                return a
            if a.name in self._negated:  # k (-w) is (-k) w
                return self.mul(self._negated[a.name], -b)
            if a.name in self._scaled:  # k (k' w) is (k k') w
                k, w = self._scaled[a.name]
                return self.mul(w, k * b)
            if b == -1.0:
                return self.neg(a)
            out = self.binary("*", a, b)
            self._scaled[out.name] = (float(b), a)
            return out
        x, y = sorted((a, b), key=_text)
        return self.binary("*", x, y)

    def call(self, fn: str, a: Scalar) -> Scalar:
        if not isinstance(a, Var):
            return getattr(math, fn)(a)
        return self._line((fn, a.name), f"{fn}({a.name})")

    def source(self, name: str, args: Sequence[str], inputs: Sequence[Sequence[Var]], outputs: Sequence[Scalar]) -> str:
        """``def name(*args): ... return (outputs)``; ``inputs[k]`` are unpacked from argument k."""
        body = [f"def {name}({', '.join(args)}):"]
        for arg, names in zip(args, inputs):
            if names:
                body.append(f"    {', '.join(v.name for v in names)}, = {arg}")
        body += [f"    {line}" for line in _inline(_paired(self._needed(outputs)), outputs)]
        body.append(f"    return ({', '.join(_text(o) for o in outputs)},)")
        return "\n".join(body) + "\n"

    def c_source(self, name: str, args: Sequence[str], inputs: Sequence[Sequence[Var]],
                 outputs: Sequence[Scalar]) -> str:
        """The same function in C: ``static void name(const double *arg..., double *out)``.

        One ``const double`` a line, in the tape's order (the compiler does the register allocation
        and pairs cos and sin of one angle); ``out[k]`` receives output k. The operations and their
        order are those of :meth:`source`, so the two agree to rounding (``-ffp-contract=off``).
        """
        params = ", ".join([f"const double *restrict {a}" for a in args] + ["double *restrict out"])
        body = [f"static void {name}({params})", "{"]
        for arg, names in zip(args, inputs):
            body += [f"    const double {v.name} = {arg}[{k}];" for k, v in enumerate(names)]
        for line in self._needed(outputs):
            target, text = line.split(" = ", 1)
            body.append(f"    const double {target} = {_c_text(text)};")
        body += [f"    out[{k}] = {_c_text(_text(o))};" for k, o in enumerate(outputs)]
        body.append("}")
        return "\n".join(body) + "\n"

    def operations(self, outputs: Sequence[Scalar]) -> int:
        """How many operations the outputs take."""
        return len(self._needed(outputs))

    def _needed(self, outputs: Sequence[Scalar]) -> list[str]:
        """The lines the outputs depend on, in order (a traced branch may leave dead ones)."""
        need = {o.name for o in outputs if isinstance(o, Var)}
        keep = []
        for line in reversed(self.lines):
            target, text = line.split(" = ", 1)
            if target in need:
                keep.append(line)
                need.update(_NAME.findall(text))
        return keep[::-1]


_NONFINITE = re.compile(r"\b(inf|nan)\b")


def _c_text(text: str) -> str:
    """A tape line's right side in C (its operators, calls and float literals are C's already)."""
    return _NONFINITE.sub(lambda m: "INFINITY" if m.group(1) == "inf" else "NAN", text)


_TRIG = re.compile(r"(cos|sin)\((\w+)\)")
_PAIR = re.compile(r"(\w+), (\w+) = cos_sin\((\w+)\)")


def _paired(lines: list[str]) -> list[str]:
    """The cos(x) and sin(x) lines of one x as one ``c, s = cos_sin(x)`` line where the first was."""
    found: dict[str, dict[str, tuple[int, str]]] = {}
    for k, line in enumerate(lines):
        target, text = line.split(" = ", 1)
        m = _TRIG.fullmatch(text)
        if m:
            found.setdefault(m.group(2), {})[m.group(1)] = (k, target)
    out = list(lines)
    drop = set()
    for arg, pair in found.items():
        if len(pair) == 2:
            (kc, c), (ks, s) = pair["cos"], pair["sin"]
            out[min(kc, ks)] = f"{c}, {s} = cos_sin({arg})"
            drop.add(max(kc, ks))
    return [line for k, line in enumerate(out) if k not in drop]


def _cos_sin_arrays(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cos(a), sin(a) from t = tan(a/2), exact to about 2e-16 absolute: numpy's tan is vectorised,
    its float64 cos and sin are not (together about 3x faster; the same as the generated modules')."""
    t = np.tan(0.5 * a)
    tt = t * t
    u = 1.0 / (1.0 + tt)
    return (1.0 - tt) * u, (t + t) * u


def _inline(lines: list[str], outputs: Sequence[Scalar]) -> list[str]:
    """The lines with each value used once written into its user, nested at most :data:`DEPTH` deep.

    A statement per operation costs a store and a load more than a nested expression (about a
    third of the time of a line); the bound keeps every line far from any parser's limit.
    """
    uses: dict[str, int] = {o.name: 2 for o in outputs if isinstance(o, Var)}  # outputs stay named
    for line in lines:
        for name in _NAME.findall(line.split(" = ", 1)[1]):
            uses[name] = uses.get(name, 0) + 1
    pending: dict[str, tuple[str, int]] = {}
    out = []
    for line in lines:
        target, text = line.split(" = ", 1)
        depth = 1

        def put(match: re.Match) -> str:
            nonlocal depth
            found = pending.pop(match.group(0), None)
            if found is None:
                return match.group(0)
            depth = max(depth, found[1] + 1)
            return f"({found[0]})"

        text = _NAME.sub(put, text)
        if uses.get(target, 0) == 1 and depth < DEPTH:
            pending[target] = (text, depth)
        else:
            out.append(f"{target} = {text}")
    return out


def build(name: str, source: str, vectorised: bool) -> Callable:
    """Compile ``source`` defining ``name``, with sin/cos from numpy (arrays) or math (floats)."""
    if not vectorised:  # on floats two math calls in line are faster than a helper's call
        source = _PAIR.sub(r"\1, \2 = cos(\3), sin(\3)", source)
    lib = np if vectorised else math
    # a constant beyond the float range (a length of 1e308 squared) is written as repr gives it: inf
    namespace = {"sin": lib.sin, "cos": lib.cos, "cos_sin": _cos_sin_arrays, "inf": math.inf, "nan": math.nan}
    return getattr(load_source(source, f"numeric-{name}", namespace), name)


_counter = itertools.count()


def load_source(source: str, tag: str, namespace: Mapping[str, Any] | None = None) -> ModuleType:
    """A module made by running ``source`` (file name ``<designer-TAG-k>``), with ``namespace``'s names defined
    before it runs: the one exec for both code writers of the numeric layer (the tape's lines and the compiled
    equations of :mod:`designer.numeric.compiled`). The text is registered with :mod:`linecache` under a unique
    file name, so that ``inspect.getsource`` and tracebacks show the generated lines."""
    filename = f"<designer-{tag}-{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = ModuleType(filename)
    module.__file__ = filename
    module.__dict__.update(namespace or {})
    exec(compile(source, filename, "exec"), module.__dict__)
    return module
