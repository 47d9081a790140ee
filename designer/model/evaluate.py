"""Evaluate a model expression with plain floats, safely.

Substituting numbers into a sympy expression lets sympy evaluate as it
rebuilds: ``exp(exp(exp(100*L)))`` at ``L = 1`` overflows inside mpmath or
runs for a long time. Checks and numeric set-up only need a double, so they
walk the (whitelisted) tree with :mod:`cmath`, where an overflow is an
exception and the cost is one operation per node.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable, Mapping

import sympy as sp

from ..errors import DesignerError
from .manipulator import MissingParameterError

__all__ = ["evaluate", "real_value", "value_of", "NotANumber"]


class NotANumber(DesignerError):
    """The expression has no finite real value at the given parameter values."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


_FUNCS = {sp.sin: cmath.sin, sp.cos: cmath.cos, sp.tan: cmath.tan, sp.exp: cmath.exp}


def _walk(e: sp.Basic, values: Mapping[str, float]) -> complex:
    if e.is_Number or e.is_NumberSymbol:
        return complex(float(e))
    if e.is_Symbol:
        if e.name not in values:
            raise MissingParameterError([e.name])
        return complex(values[e.name])
    if e.is_Add:
        return sum((_walk(a, values) for a in e.args), 0j)
    if e.is_Mul:
        out = 1 + 0j
        for a in e.args:
            out *= _walk(a, values)
        return out
    if e.is_Pow:
        base, exponent = _walk(e.base, values), _walk(e.exp, values)
        if exponent.imag == 0 and exponent.real == int(exponent.real) and base.imag == 0:
            return complex(base.real ** int(exponent.real))  # exact for integer powers, also of negatives
        if base == 0:
            if exponent.real > 0:
                return 0j
            raise ZeroDivisionError
        return base**exponent
    if isinstance(e, sp.Abs):
        return complex(abs(_walk(e.args[0], values)))
    if e.func in _FUNCS:
        return _FUNCS[e.func](_walk(e.args[0], values))
    raise NotANumber(f"cannot evaluate {type(e).__name__}")


def evaluate(expr, values: Mapping[str, float]) -> complex:
    """The value of ``expr`` with ``values`` ({name: number}) for its symbols, as a complex double.

    Raises :class:`~designer.model.MissingParameterError` for a symbol without a value and
    :class:`NotANumber` when the value is infinite or too large for a double.
    """
    try:
        value = _walk(sp.sympify(expr), values)
    except (OverflowError, ZeroDivisionError):
        raise NotANumber("infinite or too large") from None
    except ValueError as exc:  # math domain errors
        if isinstance(exc, (NotANumber, MissingParameterError)):
            raise
        raise NotANumber("not defined") from None
    if not (math.isfinite(value.real) and math.isfinite(value.imag)):
        raise NotANumber("infinite or too large")
    return value


def real_value(expr, values: Mapping[str, float]) -> float:
    """Like :func:`evaluate`, but the value must be real (a tiny rounding imaginary part is dropped)."""
    value = evaluate(expr, values)
    if abs(value.imag) > 1e-9 * max(1.0, abs(value.real)):
        raise NotANumber(f"not a real number ({value.real:.6g}{value.imag:+.6g}i)")
    return value.real


def value_of(model, overrides: Mapping[str, float] | None = None) -> Callable[[object], float]:
    """expr -> :func:`real_value` at the model's parameter values, ``overrides`` replacing some."""
    values = dict(model.parameters)   # (name, value) pairs
    values.update(overrides or {})
    return lambda e: real_value(e, values)
