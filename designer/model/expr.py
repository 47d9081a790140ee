"""Safe expression parser: text to sympy through a whitelist over Python's ``ast``.

Project files come from strangers, so no text is ever handed to ``eval``,
``sympify`` or ``parse_expr`` (they execute Python). Only numbers, names,
``+ - * / **``, unary signs, parentheses, ``pi`` and the functions in
:data:`FUNCTIONS` are accepted, and the cost of a hostile text is bounded by
its length, its nesting depth and the size of integer exponents.
"""

from __future__ import annotations

import ast
import math
import re
from functools import lru_cache
from numbers import Real

import sympy as sp
from sympy.printing.str import StrPrinter

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
]

MAX_LENGTH = 2000
MAX_DEPTH = 40
MAX_EXPONENT = 64

FUNCTIONS = {
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "sqrt": sp.sqrt,
    "exp": sp.exp,
}
CONSTANTS = {"pi": sp.pi}

NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
# q1, qd1, qdd1 are the joint variables of the equations (project-format.md).
JOINT_NAME_RE = re.compile(r"^q(d|dd)?[0-9]+$")
RESERVED_NAMES = frozenset(FUNCTIONS) | frozenset(CONSTANTS) | {"t", "E", "I", "oo", "nan"}


class ExpressionError(ValueError):
    """A text that is not an allowed expression; ``str()`` says what and where."""

    def __init__(self, message: str, where: str = ""):
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


@lru_cache(maxsize=4096)
def symbol(name: str) -> sp.Symbol:
    """The one sympy symbol used for ``name`` everywhere (real-valued)."""
    return sp.Symbol(name, real=True)


def is_valid_name(name: str) -> bool:
    """A parameter name: Python-style identifier, not reserved, not a joint variable."""
    return bool(NAME_RE.match(name)) and name not in RESERVED_NAMES and not JOINT_NAME_RE.match(name)


_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}


def _number(value) -> sp.Expr:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExpressionError(f"not a number: {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ExpressionError(f"number is not finite: {value!r}")
        if value == int(value) and abs(value) < 2**53:
            return sp.Integer(int(value))
        return sp.Float(value)
    if abs(value) > 10**30:
        raise ExpressionError("integer too large")
    return sp.Integer(value)


class _Converter:
    def __init__(self, allow_joint_names: bool):
        self.allow_joint_names = allow_joint_names

    def convert(self, node: ast.AST, depth: int) -> sp.Expr:
        if depth > MAX_DEPTH:
            raise ExpressionError(f"nested more than {MAX_DEPTH} levels deep")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
                return _number(node.value)
            raise ExpressionError(f"only numbers are allowed, not {type(node.value).__name__} {node.value!r}")
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.convert(node.operand, depth + 1)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                return self.power(node, depth)
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise ExpressionError(f"operator '{_OPS.get(type(node.op), type(node.op).__name__)}' is not allowed")
            left = self.convert(node.left, depth + 1)
            right = self.convert(node.right, depth + 1)
            if op is _BINOPS[ast.Div] and right == 0:
                raise ExpressionError("division by zero")
            return op(left, right)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        raise ExpressionError(f"{_describe(node)} is not allowed")

    def name(self, name: str) -> sp.Expr:
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name in FUNCTIONS:
            raise ExpressionError(f"function '{name}' used without arguments")
        if not NAME_RE.match(name):
            raise ExpressionError(f"invalid name '{name}'")
        if name in RESERVED_NAMES:
            raise ExpressionError(f"'{name}' is a reserved name")
        if JOINT_NAME_RE.match(name) and not self.allow_joint_names:
            raise ExpressionError(f"'{name}' is a joint variable and cannot be used here")
        return symbol(name)

    def power(self, node: ast.BinOp, depth: int) -> sp.Expr:
        base = self.convert(node.left, depth + 1)
        exponent = self.convert(node.right, depth + 1)
        if exponent.is_number:
            value = complex(exponent.evalf())
            if abs(value) > MAX_EXPONENT:
                raise ExpressionError(f"exponent {exponent} is larger than {MAX_EXPONENT} in size")
        if base == 0 and exponent.is_number and exponent.is_negative:
            raise ExpressionError("division by zero")
        return base**exponent

    def call(self, node: ast.Call, depth: int) -> sp.Expr:
        if not isinstance(node.func, ast.Name):
            raise ExpressionError(f"{_describe(node.func)} cannot be called")
        fname = node.func.id
        if fname not in FUNCTIONS:
            raise ExpressionError(f"unknown function '{fname}'")
        if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
            raise ExpressionError(f"function '{fname}' takes exactly one argument")
        arg = self.convert(node.args[0], depth + 1)
        if fname == "sqrt" and arg.is_number and arg.is_negative:
            raise ExpressionError("square root of a negative number")
        return FUNCTIONS[fname](arg)


_OPS = {ast.FloorDiv: "//", ast.Mod: "%", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|",
        ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}


def _describe(node: ast.AST) -> str:
    kinds = {
        ast.Attribute: "attribute access", ast.Subscript: "indexing", ast.Lambda: "a lambda",
        ast.ListComp: "a comprehension", ast.GeneratorExp: "a comprehension",
        ast.SetComp: "a comprehension", ast.DictComp: "a comprehension", ast.Compare: "a comparison",
        ast.BoolOp: "a logical operator", ast.IfExp: "a conditional", ast.List: "a list",
        ast.Tuple: "a tuple", ast.Dict: "a dict", ast.Set: "a set", ast.JoinedStr: "a string",
        ast.NamedExpr: "an assignment", ast.Await: "await", ast.Starred: "unpacking",
    }
    return kinds.get(type(node), f"'{type(node).__name__}'")


def parse_expr(text: str, where: str = "", *, allow_joint_names: bool = False) -> sp.Expr:
    """Parse expression text into sympy, or raise :class:`ExpressionError`.

    Parameters
    ----------
    text:
        The expression, e.g. ``"L1/2 + 0.1*cos(pi/6)"``.
    where:
        The field the text comes from (``"links[2].a"``), prefixed to error messages.
    allow_joint_names:
        Accept ``q1``, ``qd1``, ``qdd1`` as names (for equations read back, not for model data).
    """
    if not isinstance(text, str):
        raise ExpressionError(f"expected text, got {type(text).__name__}", where)
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression longer than {MAX_LENGTH} characters", where)
    stripped = text.strip()
    if not stripped:
        raise ExpressionError("empty expression", where)
    # Cheap nesting bound before ast.parse, whose own recursion could be driven deep.
    level = deepest = 0
    for ch in stripped:
        if ch in "([{":
            level += 1
            deepest = max(deepest, level)
        elif ch in ")]}":
            level -= 1
    if deepest > MAX_DEPTH:
        raise ExpressionError(f"nested more than {MAX_DEPTH} levels deep", where)
    try:
        tree = ast.parse(stripped, mode="eval")
    except SyntaxError as exc:
        col = f" at column {exc.offset}" if exc.offset else ""
        raise ExpressionError(f"syntax error{col} in '{stripped}'", where) from None
    except (ValueError, RecursionError, MemoryError):
        raise ExpressionError(f"cannot read '{stripped[:40]}'", where) from None
    try:
        return _Converter(allow_joint_names).convert(tree.body, 0)
    except ExpressionError as exc:
        raise ExpressionError(exc.message, where) from None
    except RecursionError:
        raise ExpressionError("expression too deeply nested", where) from None


def to_expr(value, where: str = "", *, allow_joint_names: bool = False) -> sp.Expr:
    """A JSON value (number or expression text) or a sympy expression as a sympy expression."""
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, str):
        return parse_expr(value, where, allow_joint_names=allow_joint_names)
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ExpressionError(f"expected a number or an expression, got {_json_type(value)}", where)
    try:
        return _number(float(value) if not isinstance(value, int) else value)
    except ExpressionError as exc:
        raise ExpressionError(exc.message, where) from None


def _json_type(value) -> str:
    if value is None:
        return "null"
    return {bool: "true/false", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


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
    return _ExactPrinter({"order": "none"}).doprint(expr)


class _ExactPrinter(StrPrinter):
    """sympy's text form, with floats in the shortest form that reads back to the same double."""

    def _print_Float(self, expr):
        return repr(float(expr))
