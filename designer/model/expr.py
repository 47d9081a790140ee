"""Safe expression parser: text to sympy through a whitelist over Python's ``ast``.

Project files come from strangers, so no text is ever handed to ``eval``,
``sympify`` or ``parse_expr`` (they execute Python). Only numbers, names,
``+ - * / **``, unary signs, parentheses, ``pi`` and the functions in
:data:`FUNCTIONS` are accepted, and the cost of a hostile text is bounded by
its length, its nesting depth and the size of integer exponents.
"""

from __future__ import annotations

import ast
import keyword
import math
import re
import warnings
from functools import lru_cache
from numbers import Real

import sympy as sp
from sympy.printing.str import StrPrinter

from ..errors import DesignerError

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
# numbers beyond 10**MAX_MAGNITUDE are not doubles; they would turn into inf in numeric work
MAX_MAGNITUDE = 300

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
_BAD_CHAR = re.compile(r"[^\t\x20-\x7e]")
JOINT_NAME_RE = re.compile(r"^q(d|dd)?[0-9]+$")
# Python keywords ("lambda", "in", "None") cannot stand in an expression, so they are no names either.
RESERVED_NAMES = (frozenset(FUNCTIONS) | frozenset(CONSTANTS) | {"t", "E", "I", "oo", "zoo", "nan"}
                  | frozenset(keyword.kwlist))


class ExpressionError(DesignerError):
    """A text that is not an allowed expression; ``str()`` says what and where."""

    def __init__(self, message: str, where: str = ""):
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


@lru_cache(maxsize=4096)
def symbol(name: str) -> sp.Symbol:
    """The one sympy symbol used for ``name`` everywhere (real-valued)."""
    return sp.Symbol(name, real=True)


#: words that mean a value that is not a finite number, in any case: never a parameter name
NOT_FINITE_WORDS = frozenset({"nan", "inf", "infinity"})


def is_valid_name(name: str) -> bool:
    """A parameter name: Python-style identifier, not reserved, not a joint variable."""
    return (bool(NAME_RE.match(name)) and name not in RESERVED_NAMES and name.lower() not in NOT_FINITE_WORDS
            and not JOINT_NAME_RE.match(name))


_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}


def _short(value: sp.Expr) -> str:
    """A number for a message: 1.845e+19, not twenty digits."""
    text = str(value)
    if len(text) <= 16:
        return text
    if value.is_number:
        return str(sp.Float(value.evalf(), 4)).replace("E", "e")
    return text[:16] + "..."


def _check_real(value: sp.Expr, what) -> None:
    """Refuse what sympy made infinite (tan(pi/2), 0**-x) or complex (sqrt(-exp(a))).

    ``what()`` names the culprit; it is called only for the message (printing is costly).
    """
    if value.has(sp.zoo, sp.oo, sp.nan):
        raise ExpressionError(f"{what()} is infinite")
    if value.has(sp.I):
        raise ExpressionError(f"{what()} is not a real number")


def _check_size(value: sp.Expr) -> sp.Expr:
    """``value`` unless it is a plain number too large to be a double (1e300*1e300)."""
    if value.is_Number and not value.is_zero and abs(value) > sp.Integer(10) ** MAX_MAGNITUDE:
        raise ExpressionError(f"number too large ({_short(value)})")
    return value


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
            return self.chain(node, depth)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        raise ExpressionError(f"{_describe(node)} is not allowed")

    def chain(self, node: ast.expr, depth: int) -> sp.Expr:
        """``a + b - c * d / e ...``: a long flat sum or product is not deep nesting.

        Python nests such chains down the left operand; walking that spine in a
        loop keeps the depth limit for real parentheses and builds each run of
        terms with one ``Add``/``Mul`` (linear, where pairwise sums are quadratic).
        """
        ops = []
        while isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Pow):
            if type(node.op) not in _BINOPS:
                raise ExpressionError(f"operator '{_OPS.get(type(node.op), type(node.op).__name__)}' is not allowed")
            ops.append((type(node.op), node.right))
            node = node.left
        negative = False
        if ops and ops[-1][0] in (ast.Mult, ast.Div):
            # ``-(a + b)/c`` is (-1)*(a + b)/c, as sympy prints it: negating the sum first
            # would distribute the sign (-a - b)/c, equal but not the same expression, so a
            # saved model would not read back identical.
            while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
                negative ^= isinstance(node.op, ast.USub)
                node = node.operand
                depth += 1
        acc = self.convert(node, depth + 1)
        terms: list[sp.Expr] = [sp.Integer(-1), acc] if negative else [acc]
        additive = None  # whether ``terms`` are summands (True) or factors (False)
        for op, right_node in reversed(ops):
            right = self.convert(right_node, depth + 1)
            is_add = op in (ast.Add, ast.Sub)
            if additive is not None and is_add != additive:
                terms = [_check_size(sp.Add(*terms) if additive else sp.Mul(*terms))]
            additive = is_add
            if op is ast.Sub:
                right = -right
            elif op is ast.Div:
                if right == 0:
                    raise ExpressionError("division by zero")
                right = 1 / right
                _check_real(right, lambda: "a division")
            terms.append(right)
        if additive is None:
            return acc
        return _check_size(sp.Add(*terms) if additive else sp.Mul(*terms))

    def name(self, name: str) -> sp.Expr:
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name in FUNCTIONS:
            raise ExpressionError(f"function '{name}' used without arguments")
        if not NAME_RE.match(name):
            raise ExpressionError(f"invalid name '{name}'")
        if name.lower() in NOT_FINITE_WORDS:   # nan was 'a reserved name', inf a new parameter
            raise ExpressionError(f"'{name}' is not a finite number: every value must be finite")
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
                raise ExpressionError(f"exponent {_short(exponent)} is larger than {MAX_EXPONENT} in size")
            if base.is_number:
                # estimate before computing: (10**30)**64 nested a few times would never finish
                b = complex(base.evalf())
                if b == 0:
                    if value.real < 0:
                        raise ExpressionError("division by zero")
                elif math.log10(abs(b)) * value.real > MAX_MAGNITUDE:
                    raise ExpressionError(f"number too large (({_short(base)})**({_short(exponent)}))")
                if b.real < 0 and not exponent.is_integer:
                    raise ExpressionError("negative number to a fractional power is not real "
                                          f"(({_short(base)})**({_short(exponent)}))")
        if base == 0 and not (exponent.is_number and exponent.is_nonnegative):
            raise ExpressionError(f"0**({_short(exponent)}) is not defined for every value")
        result = base**exponent
        # sympy folds (x**64)**64 into x**4096, which expands without end
        if result.is_Pow and result.exp.is_number and abs(complex(result.exp.evalf())) > MAX_EXPONENT:
            raise ExpressionError(f"exponent {_short(result.exp)} is larger than {MAX_EXPONENT} in size")
        _check_real(result, lambda: f"({_short(base)})**({_short(exponent)})")
        return _check_size(result)

    def call(self, node: ast.Call, depth: int) -> sp.Expr:
        if not isinstance(node.func, ast.Name):
            called = {ast.Call: "calling what a call gives", ast.Constant: "calling a value"}.get(type(node.func))
            raise ExpressionError(f"{called or _describe(node.func)} is not allowed "
                                  f"(only {', '.join(FUNCTIONS)} can be called)")
        fname = node.func.id
        if fname not in FUNCTIONS:
            raise ExpressionError(f"unknown function '{fname}'")
        if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
            raise ExpressionError(f"function '{fname}' takes exactly one argument")
        arg = self.convert(node.args[0], depth + 1)
        # Only numbers: asking sympy about the sign of a long symbolic sum costs too much for
        # hostile text; sqrt(-a**2 - 1) is caught by validation with the parameter values.
        if fname == "sqrt" and arg.is_number and arg.is_negative:
            raise ExpressionError("square root of a negative number")
        if fname == "exp" and arg.is_number and complex(arg.evalf()).real > MAX_MAGNITUDE * math.log(10):
            # exp(exp(exp(100))) would make sympy's evaluation run for ever
            raise ExpressionError(f"number too large (exp({arg}))")
        result = FUNCTIONS[fname](arg)
        _check_real(result, lambda: f"{fname}({_short(arg)})")
        return result


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
    if isinstance(node, ast.UnaryOp):
        return f"operator '{ {ast.Not: 'not', ast.Invert: '~'}.get(type(node.op), type(node.op).__name__)}'"
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
        return _check_value(_Converter(allow_joint_names).convert(tree.body, 0))
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
