"""The expression checker without sympy: text to a checked tree, and the tree's value in floats.

Project files come from strangers, so no text is ever handed to ``eval``. :func:`check` reads a text
through a whitelist over Python's ``ast``: only numbers, names, ``+ - * / **``, unary signs,
parentheses, ``pi`` and the functions in :data:`FUNCTION_NAMES`; the cost of a hostile text is bounded
by its length, its nesting depth, the size of constant exponents and of constant values. The result is
a small tree of :class:`Node` objects whose name-free parts are already folded to numbers (exact
integers and fractions where the text is exact, floats otherwise).

Two back ends read the same tree: :func:`evaluate` (floats, here: the window's first look at a project
needs no sympy) and ``designer.model.expr`` (sympy, for the equations). The rules a value must keep
(:func:`check_power`, :func:`check_call`, :func:`check_size`) are written once here and applied by the
checker to the folded numbers and by the sympy back end to what sympy folds further (``b - b`` is 0).

This module imports only the standard library and ``designer.errors`` (tests/model/test_expr_tree.py).
"""

from __future__ import annotations

import ast
import keyword
import math
import re
import warnings
from collections.abc import Callable, Mapping
from fractions import Fraction
from numbers import Real

from ..errors import DesignerError

__all__ = [
    "BOUNDED_FUNCTIONS", "CONSTANT_NAMES", "Call", "Chain", "Constant", "ExpressionError", "FUNCTION_NAMES",
    "JOINT_NAME_RE", "MAX_DEPTH", "MAX_EXPONENT", "MAX_LENGTH", "MAX_MAGNITUDE", "NAME_RE", "NOT_FINITE_WORDS",
    "Name", "Negate", "Node", "Num", "Power", "RESERVED_NAMES", "check", "check_call", "check_number",
    "check_power", "check_size", "check_value", "evaluate", "is_valid_name", "json_type", "value_of",
]

MAX_LENGTH = 2000
MAX_DEPTH = 40
MAX_EXPONENT = 64
# numbers beyond 10**MAX_MAGNITUDE are not doubles; they would turn into inf in numeric work
MAX_MAGNITUDE = 300
_LIMIT = 10**MAX_MAGNITUDE

#: the functions a text may call, in the order the messages list them
FUNCTION_NAMES = ("sin", "cos", "tan", "sqrt", "exp")
#: the named constants a text may use
CONSTANT_NAMES = ("pi",)

NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
# q1, qd1, qdd1 are the joint variables of the equations (project-format.md).
JOINT_NAME_RE = re.compile(r"^q(d|dd)?[0-9]+$")
_BAD_CHAR = re.compile(r"[^\t\x20-\x7e]")
# Python keywords ("lambda", "in", "None") cannot stand in an expression, so they are no names either;
# t, E, I, oo, zoo, nan mean time or sympy's constants in the equations.
RESERVED_NAMES = (frozenset(FUNCTION_NAMES) | frozenset(CONSTANT_NAMES) | {"t", "E", "I", "oo", "zoo", "nan"}
                  | frozenset(keyword.kwlist))
#: words that mean a value that is not a finite number, in any case: never a parameter name
NOT_FINITE_WORDS = frozenset({"nan", "inf", "infinity"})

#: a folded value: exact (int, Fraction) where the text is, else a float
Number = int | Fraction | float


class ExpressionError(DesignerError):
    """A text that is not an allowed expression; ``str()`` says what and where."""

    def __init__(self, message: str, where: str = ""):
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


def is_valid_name(name: str) -> bool:
    """A parameter name: Python-style identifier, not reserved, not a joint variable."""
    return (bool(NAME_RE.match(name)) and name not in RESERVED_NAMES and name.lower() not in NOT_FINITE_WORDS
            and not JOINT_NAME_RE.match(name))


# -- the tree ---------------------------------------------------------------------------------------------

class Node:
    """A checked expression. ``const`` is its value when it holds no name (folded by the checker), else None."""

    __slots__ = ("const",)

    def __init__(self, const: Number | None):
        self.const = const


class Num(Node):
    """A number of the text or of a JSON value: an int, or a float that is not a whole number below 2**53."""

    __slots__ = ("value",)

    def __init__(self, value: int | float):
        super().__init__(value)
        self.value = value


class Name(Node):
    """A parameter (or, where allowed, joint variable) name, checked."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        super().__init__(None)
        self.name = name


class Constant(Node):
    """A named constant of :data:`CONSTANT_NAMES` (``pi``)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        super().__init__(math.pi)
        self.name = name


class Negate(Node):
    """``-operand`` (a unary plus leaves no node)."""

    __slots__ = ("operand",)

    def __init__(self, operand: Node, const: Number | None):
        super().__init__(const)
        self.operand = operand


class Chain(Node):
    """``first op1 x1 op2 x2 ...`` of ``+ - * /``, left to right, as Python groups it; ``negative``: the chain
    is a product whose leading sign was taken out of its first factor (``-(a + b)/c`` is (-1)*(a + b)/c)."""

    __slots__ = ("first", "steps", "negative")

    def __init__(self, first: Node, steps: tuple[tuple[str, Node], ...], negative: bool, const: Number | None):
        super().__init__(const)
        self.first = first
        self.steps = steps
        self.negative = negative


class Power(Node):
    """``base ** exponent``."""

    __slots__ = ("base", "exponent")

    def __init__(self, base: Node, exponent: Node, const: Number | None):
        super().__init__(const)
        self.base = base
        self.exponent = exponent


class Call(Node):
    """``function(arg)`` for a function of :data:`FUNCTION_NAMES`."""

    __slots__ = ("function", "arg")

    def __init__(self, function: str, arg: Node, const: Number | None):
        super().__init__(const)
        self.function = function
        self.arg = arg


# -- the rules a value keeps (both back ends) --------------------------------------------------------------

def check_power(base, exponent, exponent_is_integer: bool, shown: Callable[[str], str]) -> None:
    """The bounds of ``base ** exponent`` before it is computed; ``base``, ``exponent``: their values (numbers,
    or complex) where known, else None; ``shown("base")``, ``shown("exponent")``: their text for a message.

    An exponent larger than MAX_EXPONENT in size (x**4096 expands without end), a result beyond
    10**MAX_MAGNITUDE (estimated, not computed: (10**30)**64 nested a few times would never finish),
    0 to a negative or unknown power, a negative number to a power that is not a whole number."""
    if exponent is not None:
        if abs(exponent) > MAX_EXPONENT:
            raise ExpressionError(f"exponent {shown('exponent')} is larger than {MAX_EXPONENT} in size")
        if base is not None:
            if base == 0:
                if exponent.real < 0:
                    raise ExpressionError("division by zero")
            elif _log10_abs(base) * exponent.real > MAX_MAGNITUDE:
                raise ExpressionError(f"number too large (({shown('base')})**({shown('exponent')}))")
            if base.real < 0 and not exponent_is_integer:
                raise ExpressionError("negative number to a fractional power is not real "
                                      f"(({shown('base')})**({shown('exponent')}))")
    if base is not None and base == 0 and not (exponent is not None and exponent.real >= 0):
        raise ExpressionError(f"0**({shown('exponent')}) is not defined for every value")


def _log10_abs(x) -> float:
    """log10 of the size of a nonzero number, a tiny fraction (1/10**2000) included."""
    if isinstance(x, Fraction):
        return math.log10(abs(x.numerator)) - math.log10(x.denominator)
    return math.log10(abs(x))


#: the functions :func:`check_call` bounds
BOUNDED_FUNCTIONS = ("sqrt", "exp")


def check_call(function: str, arg, shown: Callable[[], str]) -> None:
    """The bounds of ``function(arg)`` for an ``arg`` whose (real) value is known: no square root of a negative
    number, no exp beyond 10**MAX_MAGNITUDE (exp(exp(exp(100))) would never finish)."""
    if function == "sqrt" and arg < 0:
        raise ExpressionError("square root of a negative number")
    if function == "exp" and arg > MAX_MAGNITUDE * math.log(10):
        raise ExpressionError(f"number too large (exp({shown()}))")


def check_size(value, shown: Callable[[], str]) -> None:
    """A known value must be a double's size: at most 10**MAX_MAGNITUDE (1e300*1e300 is not)."""
    if value != 0 and abs(value) > _LIMIT:
        raise ExpressionError(f"number too large ({shown()})")


def check_number(value) -> int | float:
    """A JSON number (or one of the text) as the tree holds it: a whole float below 2**53 as an int."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExpressionError(f"not a number: {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ExpressionError(f"number is not finite: {value!r}")
        if value == int(value) and abs(value) < 2**53:
            return int(value)
        return value
    if abs(value) > 10**30:
        raise ExpressionError("integer too large")
    return value


def _is_integer(value) -> bool:
    """Whether a folded value is a whole number exactly (a float other than 0.0 never is: sympy's Float(2.0)
    is not)."""
    return isinstance(value, int) or (isinstance(value, Fraction) and value.denominator == 1) or value == 0


def _exact(value) -> bool:
    return isinstance(value, (int, Fraction))


# -- float arithmetic (the checker's folding and evaluate) -------------------------------------------------

def _divide(a: Number, b: Number) -> Number:
    if b == 0:
        raise ExpressionError("division by zero")
    if _exact(a) and _exact(b):
        q = Fraction(a) / Fraction(b)
        return q.numerator if q.denominator == 1 else q
    return a / b


def _power(b: Number, e: Number, shown: Callable[[str], str]) -> Number:
    if b == 0 and e < 0:
        raise ExpressionError("division by zero")
    if e == 0 or (b == 1 and _exact(b)):
        return 1          # exactly, as in sympy: (-2)**(x**0) is -2
    if b == 0:
        return 0
    if _exact(b) and _is_integer(e):
        e = int(e)
        r = b**e if e >= 0 else Fraction(b) ** e
        return r.numerator if isinstance(r, Fraction) and r.denominator == 1 else r
    if b < 0 and not float(e).is_integer():
        raise ExpressionError("negative number to a fractional power is not real "
                              f"(({shown('base')})**({shown('exponent')}))")
    try:
        r = float(b) ** float(e)
    except OverflowError:
        raise ExpressionError(f"number too large (({shown('base')})**({shown('exponent')}))") from None
    if not math.isfinite(r):
        raise ExpressionError(f"number too large (({shown('base')})**({shown('exponent')}))")
    return r


def _function(name: str, x: Number, shown: Callable[[], str], folding: bool = False) -> Number:
    """``name(x)``; ``folding``: x is a part of the text without names, where sympy is exact (sin(pi) is 0)."""
    if x == 0 and _exact(x):
        return 1 if name in ("cos", "exp") else 0
    if name == "sqrt":
        if x < 0:
            raise ExpressionError("square root of a negative number")
        if _exact(x):
            q = Fraction(x)
            n, d = math.isqrt(q.numerator), math.isqrt(q.denominator)
            if n * n == q.numerator and d * d == q.denominator:
                return n if d == 1 else Fraction(n, d)
        return math.sqrt(x)
    v = float(x)
    try:
        r = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "exp": math.exp}[name](v)
    except OverflowError:
        raise ExpressionError(f"number too large ({name}({shown()}))") from None
    if folding and name != "exp" and 1 <= abs(v) <= _PI_RANGE:
        # sympy's sin(pi), cos(pi/2) are exactly 0, cos(pi) -1, tan(pi/4) 1 and tan(pi/2) infinite, where
        # the floats are 1e-16, 6e-17, -1.0, 0.9999999999999999 and 1.6e16: a value within the rounding of
        # the argument of -1, 0 or 1 is taken as that number, and a pole as a pole
        rounding = _ROUNDING * abs(v)
        if name == "tan" and abs(math.cos(v)) <= rounding:
            raise ExpressionError(f"tan({shown()}) is infinite")
        for k in (-1, 0, 1):
            if abs(r - k) <= rounding:
                return k
    return r


#: the relative rounding of a folded argument (a few units of the last place)
_ROUNDING = 1e-15
#: up to which size a folded argument of sin, cos, tan is taken as a multiple of pi within rounding
_PI_RANGE = 1e6


def _combine(op: str, a: Number, b: Number) -> Number:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return _divide(a, b)


# -- the checker ---------------------------------------------------------------------------------------------

_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_OTHER_OPS = {ast.FloorDiv: "//", ast.Mod: "%", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|",
              ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}


def _short_value(value) -> str | None:
    """A folded value for a message when it reads well (a whole number of up to 16 digits), else None."""
    if _is_integer(value) and abs(value) < 10**16:
        return str(int(value))
    return None


def _short_text(text: str) -> str:
    return text if len(text) <= 16 else text[:16] + "..."


class _Checker:
    def __init__(self, text: str, allow_joint_names: bool):
        self.text = text
        self.allow_joint_names = allow_joint_names

    def shown(self, node: ast.AST, value=None) -> str:
        """A part of the text for a message: its value where that is a short whole number, else its text."""
        short = _short_value(value) if value is not None else None
        if short is not None:
            return short
        return _short_text(ast.get_source_segment(self.text, node) or "?")

    def convert(self, node: ast.AST, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise ExpressionError(f"nested more than {MAX_DEPTH} levels deep")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
                return Num(check_number(node.value))
            raise ExpressionError(f"only numbers are allowed, not {type(node.value).__name__} {node.value!r}")
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.convert(node.operand, depth + 1)
            if isinstance(node.op, ast.UAdd):
                return operand
            return Negate(operand, None if operand.const is None else -operand.const)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                return self.power(node, depth)
            return self.chain(node, depth)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        raise ExpressionError(f"{_describe(node)} is not allowed")

    def chain(self, node: ast.expr, depth: int) -> Node:
        """``a + b - c * d / e ...``: a long flat sum or product is not deep nesting.

        Python nests such chains down the left operand; walking that spine in a loop keeps the depth
        limit for real parentheses (and the sympy back end builds each run of terms with one Add/Mul)."""
        top = node
        ops: list[tuple[str, ast.expr]] = []
        while isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Pow):
            op = _OPS.get(type(node.op))
            if op is None:
                raise ExpressionError(f"operator '{_OTHER_OPS.get(type(node.op), type(node.op).__name__)}' "
                                      "is not allowed")
            ops.append((op, node.right))
            node = node.left
        negative = False
        if ops and ops[-1][0] in "*/":
            # ``-(a + b)/c`` is (-1)*(a + b)/c, as sympy prints it: negating the sum first would distribute
            # the sign (-a - b)/c, equal but not the same expression, so a saved model would not read back
            # identical.
            while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
                negative ^= isinstance(node.op, ast.USub)
                node = node.operand
                depth += 1
        first = self.convert(node, depth + 1)
        steps = []
        for op, right_node in reversed(ops):
            right = self.convert(right_node, depth + 1)
            if op == "/" and right.const is not None and right.const == 0:
                raise ExpressionError("division by zero")
            steps.append((op, right))
        acc = None
        if first.const is not None:
            acc = self.fold(top, first.const, negative, steps, exact=False)
            if isinstance(acc, float) and not math.isfinite(acc):
                # sympy's floats do not overflow inside a product (1e200*1e200/1e200): nor do fractions
                exact = self.fold(top, first.const, negative, steps, exact=True)
                if exact is not None:
                    check_size(exact, lambda: self.shown(top))
                    acc = float(exact)
            if acc is not None:
                check_size(acc, lambda: self.shown(top, acc))
        return Chain(first, tuple(steps), negative, acc)

    def fold(self, top: ast.expr, first: Number, negative: bool, steps: list[tuple[str, Node]],
             exact: bool) -> Number | None:
        """The value of a chain without names (None if it has some); each run of sums or products before
        the first name is kept to a double's size (``1e300*1e300 + a`` is refused, as sympy's Mul is)."""
        acc: Number = Fraction(first) if exact else first
        if negative:
            acc = -acc
        additive = None
        for op, right in steps:
            is_add = op in "+-"
            if additive is not None and is_add != additive:
                check_size(acc, lambda: self.shown(top))
            additive = is_add
            if right.const is None:
                if op in "*/" and acc == 0:
                    acc = 0       # sympy's 0*a and 0/a are 0
                    continue
                return None
            acc = _combine(op, acc, Fraction(right.const) if exact else right.const)
        return acc

    def name(self, name: str) -> Node:
        if name in CONSTANT_NAMES:
            return Constant(name)
        if name in FUNCTION_NAMES:
            raise ExpressionError(f"function '{name}' used without arguments")
        if not NAME_RE.match(name):
            raise ExpressionError(f"invalid name '{name}'")
        if name.lower() in NOT_FINITE_WORDS:   # nan was 'a reserved name', inf a new parameter
            raise ExpressionError(f"'{name}' is not a finite number: every value must be finite")
        if name in RESERVED_NAMES:
            raise ExpressionError(f"'{name}' is a reserved name")
        if JOINT_NAME_RE.match(name) and not self.allow_joint_names:
            raise ExpressionError(f"'{name}' is a joint variable and cannot be used here")
        return Name(name)

    def power(self, node: ast.BinOp, depth: int) -> Node:
        base = self.convert(node.left, depth + 1)
        exponent = self.convert(node.right, depth + 1)
        b, e = base.const, exponent.const

        def shown(which: str) -> str:
            return self.shown(node.left, b) if which == "base" else self.shown(node.right, e)

        check_power(b, e, e is not None and _is_integer(e), shown)
        value: Number | None = None
        if e is not None and e == 0:
            value = 1             # sympy's x**0 is 1
        elif b is not None and e is not None:
            value = _power(b, e, shown)
            check_size(value, lambda: self.shown(node, value))
        return Power(base, exponent, value)

    def call(self, node: ast.Call, depth: int) -> Node:
        if not isinstance(node.func, ast.Name):
            called = {ast.Call: "calling what a call gives", ast.Constant: "calling a value"}.get(type(node.func))
            raise ExpressionError(f"{called or _describe(node.func)} is not allowed "
                                  f"(only {', '.join(FUNCTION_NAMES)} can be called)")
        fname = node.func.id
        if fname not in FUNCTION_NAMES:
            raise ExpressionError(f"unknown function '{fname}'")
        if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
            raise ExpressionError(f"function '{fname}' takes exactly one argument")
        arg = self.convert(node.args[0], depth + 1)
        value = None
        if arg.const is not None:
            x = arg.const
            check_call(fname, x, lambda: self.shown(node.args[0], x))
            value = _function(fname, x, lambda: self.shown(node.args[0], x), folding=True)
        return Call(fname, arg, value)


def _finite(value: Number, shown: Callable[[], str]) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ExpressionError(f"number too large ({shown()})")


def _describe(node: ast.AST) -> str:
    kinds = {
        ast.Attribute: "attribute access", ast.Subscript: "indexing", ast.Lambda: "a lambda",
        ast.ListComp: "a comprehension", ast.GeneratorExp: "a comprehension",
        ast.SetComp: "a comprehension", ast.DictComp: "a comprehension", ast.Compare: "a comparison",
        ast.BoolOp: "a logical operator", ast.IfExp: "a conditional", ast.List: "a list",
        ast.Tuple: "a tuple", ast.Dict: "a dict", ast.Set: "a set", ast.JoinedStr: "a string",
        ast.NamedExpr: "an assignment", ast.Await: "await", ast.Starred: "unpacking",
    }
    if isinstance(node, ast.UnaryOp):
        return f"operator '{ {ast.Not: 'not', ast.Invert: '~'}.get(type(node.op), type(node.op).__name__)}'"
    return kinds.get(type(node), f"'{type(node).__name__}'")


def check(text: str, where: str = "", *, allow_joint_names: bool = False) -> Node:
    """Check an expression text and give its tree, or raise :class:`ExpressionError`.

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
    # Python folds look-alike letters (NFKC: fullwidth 'ａ' is 'a', 'ℌ' is 'H'), which would make
    # a name silently mean another; only printable ASCII is allowed.
    bad = _BAD_CHAR.search(stripped)
    if bad:
        ch = bad.group()
        raise ExpressionError(f"character {ch!r} (U+{ord(ch):04X}) at column {bad.start() + 1} is not allowed "
                              "(only ASCII letters, digits, operators and parentheses)", where)
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
        with warnings.catch_warnings():  # "1if" would print a SyntaxWarning on stderr
            warnings.simplefilter("ignore")
            tree = ast.parse(stripped, mode="eval")
    except SyntaxError as exc:
        word = next((w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", stripped) if keyword.iskeyword(w)), None)
        if word:
            raise ExpressionError(f"'{word}' is a reserved word, not a name", where) from None
        col = f" at column {exc.offset}" if exc.offset else ""
        shown = stripped if len(stripped) <= 60 else stripped[:57] + "..."
        raise ExpressionError(f"syntax error{col} in '{shown}'", where) from None
    except (ValueError, RecursionError, MemoryError):
        raise ExpressionError(f"cannot read '{stripped[:40]}'", where) from None
    try:
        return _Checker(stripped, allow_joint_names).convert(tree.body, 0)
    except ExpressionError as exc:
        raise ExpressionError(exc.message, where) from None
    except RecursionError:
        raise ExpressionError("expression too deeply nested", where) from None


def check_value(value, where: str = "", *, allow_joint_names: bool = False) -> Node:
    """A JSON value (a number or an expression text) checked: its tree."""
    if isinstance(value, str):
        return check(value, where, allow_joint_names=allow_joint_names)
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ExpressionError(f"expected a number or an expression, got {json_type(value)}", where)
    try:
        return Num(check_number(float(value) if not isinstance(value, int) else value))
    except ExpressionError as exc:
        raise ExpressionError(exc.message, where) from None


def json_type(value) -> str:
    """What a JSON value is, in a message's words."""
    if value is None:
        return "null"
    return {bool: "true/false", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


# -- the float back end ----------------------------------------------------------------------------------------

def evaluate(tree: Node, values: Mapping[str, float], where: str = "") -> float:
    """The value of a checked tree with ``values`` for its names, as a finite real float.

    A name without a value, a division by zero, a square root of a negative number, a tangent at its
    pole and a result that is not a finite double are an :class:`ExpressionError` saying what (and ``where``).
    """
    try:
        result = float(_value(tree, values))
    except ExpressionError as exc:
        raise ExpressionError(exc.message, where) from None
    except OverflowError:
        raise ExpressionError("number too large", where) from None
    if not math.isfinite(result):
        raise ExpressionError("number too large", where)
    return result


def value_of(value, values: Mapping[str, float] | None = None, where: str = "", *,
             allow_joint_names: bool = False) -> float:
    """A JSON value (number or expression text) as a float with ``values`` for its names: check and evaluate."""
    # {} only for None: an empty mapping may still give values (the glance's zeros for names without one)
    return evaluate(check_value(value, where, allow_joint_names=allow_joint_names),
                    {} if values is None else values, where)


def _shown_float(x) -> Callable[[], str]:
    return lambda: _short_value(x) or _short_text(repr(float(x)))


def _value(node: Node, values: Mapping[str, float]) -> Number:
    if node.const is not None:
        return node.const
    if isinstance(node, Name):
        try:
            v = values[node.name]
        except KeyError:
            raise ExpressionError(f"'{node.name}' has no value") from None
        if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(v):
            raise ExpressionError(f"the value of '{node.name}' is not a finite number: {v!r}")
        return float(v)
    if isinstance(node, Negate):
        return -_value(node.operand, values)
    if isinstance(node, Chain):
        acc = _value(node.first, values)
        if node.negative:
            acc = -acc
        for op, right in node.steps:
            acc = _combine(op, acc, _value(right, values))
        _finite(acc, _shown_float(acc))
        return acc
    if isinstance(node, Power):
        b, e = _value(node.base, values), _value(node.exponent, values)
        return _power(b, e, lambda which: _shown_float(b if which == "base" else e)())
    if isinstance(node, Call):
        x = _value(node.arg, values)
        return _function(node.function, x, _shown_float(x))
    raise TypeError(f"not a checked expression: {node!r}")
