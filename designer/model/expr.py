"""Safe expression parser: text to sympy through a whitelist over Python's ``ast``.

Project files come from strangers, so no text is ever handed to ``eval``,
``sympify`` or ``parse_expr`` (they execute Python). The text is checked by
:mod:`designer.model.expr_tree` (no sympy there: the one whitelist of numbers, names,
``+ - * / **``, unary signs, parentheses, ``pi`` and the functions in
:data:`FUNCTIONS`, bounded by length, nesting depth and the size of exponents and
values), and the checked tree is built here in sympy; ``expr_tree.evaluate`` is its
float back end.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import sympy as sp
from sympy.printing.str import StrPrinter

from .expr_tree import (
    BOUNDED_FUNCTIONS,
    CONSTANT_NAMES,
    FUNCTION_NAMES,
    JOINT_NAME_RE,
    MAX_DEPTH,
    MAX_EXPONENT,
    MAX_LENGTH,
    MAX_MAGNITUDE,
    NAME_RE,
    NOT_FINITE_WORDS,
    RESERVED_NAMES,
    Call,
    Chain,
    Constant,
    ExpressionError,
    Name,
    Negate,
    Node,
    Num,
    Power,
    check,
    check_call,
    check_power,
    check_size,
    check_value,
    is_valid_name,
)

__all__ = [
    "ExpressionError",
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_LENGTH",
    "RESERVED_NAMES",
    "is_valid_name",
    "parse_expr",
    "symbol",
    "to_expr",
    "format_expr",
    # the checker's (expr_tree.py) names, re-exported as this module had them
    "JOINT_NAME_RE",
    "MAX_MAGNITUDE",
    "NAME_RE",
    "NOT_FINITE_WORDS",
]

_SYMPY_FUNCTIONS = {"sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "sqrt": sp.sqrt, "exp": sp.exp}
_SYMPY_CONSTANTS = {"pi": sp.pi}
#: the checker's functions and constants in sympy
FUNCTIONS = {name: _SYMPY_FUNCTIONS[name] for name in FUNCTION_NAMES}
CONSTANTS = {name: _SYMPY_CONSTANTS[name] for name in CONSTANT_NAMES}


@lru_cache(maxsize=4096)
def symbol(name: str) -> sp.Symbol:
    """The one sympy symbol used for ``name`` everywhere (real-valued)."""
    return sp.Symbol(name, real=True)


def _short(value: sp.Expr) -> str:
    """A number for a message: 1.845e+19, not twenty digits."""
    text = str(value)
    if len(text) <= 16:
        return text
    if value.is_number:
        return str(sp.Float(value.evalf(), 4)).replace("E", "e")
    return text[:16] + "..."


def _check_real(value: sp.Expr, what: Callable[[], str]) -> None:
    """Refuse what sympy made infinite (tan(pi/2), 0**-x) or complex (sqrt(-exp(a))).

    ``what()`` names the culprit; it is called only for the message (printing is costly).
    """
    if value.has(sp.zoo, sp.oo, sp.nan):
        raise ExpressionError(f"{what()} is infinite")
    if value.has(sp.I):
        raise ExpressionError(f"{what()} is not a real number")


def _sized(value: sp.Expr) -> sp.Expr:
    """``value`` unless it is a plain number too large to be a double (1e300*1e300)."""
    if value.is_Number:
        check_size(value, lambda: _short(value))
    return value


def _number(value: int | float) -> sp.Expr:
    return sp.Integer(value) if isinstance(value, int) else sp.Float(value)


class _Builder:
    """The sympy back end: a checked tree (expr_tree.check) as a sympy expression.

    The checker has applied the rules to every part without names; sympy folds further (``b - b`` is 0,
    ``(x**64)**64`` is x**4096), so the same rules (expr_tree.check_power, check_call, check_size) are
    applied here to what sympy makes a number where the checker could not, and sympy's infinities and
    imaginary unit are refused."""

    def build(self, node: Node) -> sp.Expr:
        if isinstance(node, Num):
            return _number(node.value)
        if isinstance(node, Name):
            return symbol(node.name)
        if isinstance(node, Constant):
            return CONSTANTS[node.name]
        if isinstance(node, Negate):
            return -self.build(node.operand)
        if isinstance(node, Chain):
            return self.chain(node)
        if isinstance(node, Power):
            return self.power(node)
        if isinstance(node, Call):
            return self.call(node)
        raise TypeError(f"not a checked expression: {node!r}")

    def chain(self, node: Chain) -> sp.Expr:
        """Each run of terms of the same kind becomes one ``Add``/``Mul`` (linear, where pairwise sums
        are quadratic)."""
        acc = self.build(node.first)
        terms: list[sp.Expr] = [sp.Integer(-1), acc] if node.negative else [acc]
        additive = None  # whether ``terms`` are summands (True) or factors (False)
        for op, right_node in node.steps:
            right = self.build(right_node)
            is_add = op in "+-"
            if additive is not None and is_add != additive:
                terms = [_sized(sp.Add(*terms) if additive else sp.Mul(*terms))]
            additive = is_add
            if op == "-":
                right = -right
            elif op == "/":
                if right == 0:
                    raise ExpressionError("division by zero")
                right = 1 / right
                _check_real(right, lambda: "a division")
            terms.append(right)
        if additive is None:
            return acc
        return _sized(sp.Add(*terms) if additive else sp.Mul(*terms))

    def power(self, node: Power) -> sp.Expr:
        base = self.build(node.base)
        exponent = self.build(node.exponent)
        if ((node.exponent.const is None and exponent.is_number)
                or (node.base.const is None and base.is_number)):
            # sympy knows a value where the checker saw names (b - b is 0): the checker's rules on it
            e = complex(exponent.evalf()) if exponent.is_number else None
            b = complex(base.evalf()) if base.is_number else None
            check_power(b, e, bool(exponent.is_integer),
                        lambda which: _short(base if which == "base" else exponent))
        result = base**exponent
        # sympy folds (x**64)**64 into x**4096, which expands without end
        if result.is_Pow and result.exp.is_number and abs(complex(result.exp.evalf())) > MAX_EXPONENT:
            raise ExpressionError(f"exponent {_short(result.exp)} is larger than {MAX_EXPONENT} in size")
        _check_real(result, lambda: f"({_short(base)})**({_short(exponent)})")
        return _sized(result)

    def call(self, node: Call) -> sp.Expr:
        fname = node.function
        arg = self.build(node.arg)
        # Only numbers: asking sympy about the sign of a long symbolic sum costs too much for
        # hostile text; sqrt(-a**2 - 1) is caught by validation with the parameter values.
        if fname in BOUNDED_FUNCTIONS and node.arg.const is None and arg.is_number:
            # sympy knows a value where the checker saw names: the checker's rules on it
            check_call(fname, complex(arg.evalf()).real, lambda: str(arg))
        result = FUNCTIONS[fname](arg)
        _check_real(result, lambda: f"{fname}({_short(arg)})")
        return result


def parse_expr(text: str, where: str = "", *, allow_joint_names: bool = False) -> sp.Expr:
    """Parse expression text into sympy, or raise :class:`ExpressionError`.

    The text is checked by :func:`designer.model.expr_tree.check` (the one whitelist and its bounds; its
    parameters are these), and the checked tree built in sympy.
    """
    return _built(check(text, where, allow_joint_names=allow_joint_names), where)


def _built(tree: Node, where: str) -> sp.Expr:
    try:
        return _check_value(_Builder().build(tree))
    except ExpressionError as exc:
        raise ExpressionError(exc.message, where) from None
    except RecursionError:
        raise ExpressionError("expression too deeply nested", where) from None


def _check_value(expr: sp.Expr) -> sp.Expr:
    """A constant expression must come out as a finite real double (exp(400)**2 does not)."""
    if expr.is_number and not expr.is_Number:
        value = complex(expr.evalf())
        if not (math.isfinite(value.real) and math.isfinite(value.imag)):
            raise ExpressionError(f"number too large ({expr})")
        if abs(value.imag) > 1e-12 * max(1.0, abs(value.real)):
            raise ExpressionError(f"not a real number ({expr})")
    return expr


def to_expr(value, where: str = "", *, allow_joint_names: bool = False) -> sp.Expr:
    """A JSON value (number or expression text) or a sympy expression as a sympy expression."""
    if isinstance(value, sp.Basic):
        return value
    if not isinstance(value, str):
        tree = check_value(value, where)
        assert isinstance(tree, Num)
        return _number(tree.value)
    return _built(check_value(value, where, allow_joint_names=allow_joint_names), where)


def format_expr(expr: sp.Expr):
    """A sympy expression as a JSON value: a number when numeric, else text our parser reads back."""
    expr = sp.sympify(expr)
    if expr.is_Integer:
        return int(expr)
    if expr.is_Float:
        return float(expr)
    if expr.is_Rational:
        # keep exact fractions exact: "1/3"
        return str(expr)
    return _printed(expr)


@lru_cache(maxsize=4096)
def _printed(expr: sp.Expr) -> str:
    """The text of a symbolic expression, kept: the window prints the same cells again at every refresh (opening
    the tube arm printed 111 of them three times over on the GUI thread, 40 ms)."""
    return _ExactPrinter({"order": "none"}).doprint(expr)


class _ExactPrinter(StrPrinter):
    """sympy's text form, with floats in the shortest form that reads back to the same double."""

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_Abs(self, expr):
        # sqrt(x**2) of a real x is Abs(x) in sympy; write it in the words the parser knows
        return f"sqrt(({self._print(expr.args[0])})**2)"

    def _print_Exp1(self, expr):
        return "exp(1)"  # sympy writes "E", which the parser reserves
