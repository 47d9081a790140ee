"""xacro's ``${...}`` and ``$(eval ...)`` expressions, evaluated without Python's ``eval`` (docs/urdf.md).

The standard library only: the xacro worker process (:mod:`designer.urdf.xacro_worker`) loads this
file by its path, without importing the rest of the program.

An expression is parsed into Python's syntax tree (parsing runs nothing) and walked here over a
whitelist: numbers, strings, ``True``/``False``/``None``, lists, tuples and dicts written out,
arithmetic, comparisons, ``and``/``or``/``not``, ``a if c else b``, names (looked up by the caller:
xacro's properties and macro parameters), indexing and slicing, ``d.key`` on a dict (the way xacro
reads YAML data and namespaces), and calls of the functions in :data:`BUILTINS`, the math module's
(:data:`MATH`), the few string methods in :data:`STR_METHODS` and the functions the caller adds
(``load_yaml``...). Every value is plain data (numbers, strings, lists, tuples, dicts); a function,
a module, a class is never a value, so nothing but those listed can be called. Everything else, a
comprehension, a lambda, an f-string, any other attribute or call, is refused with :class:`Refused`.

Cost is bounded: at most :data:`MAX_TEXT` characters and :data:`MAX_DEPTH` levels per expression,
integers of at most :data:`MAX_INT_BITS` bits, strings and containers of at most :data:`MAX_SIZE`
characters or items (``'x' * 10**10`` and ``10**10**10`` are refused before they are computed).
"""

from __future__ import annotations

import ast
import builtins
import math
import re
from typing import NoReturn

__all__ = ["BUILTINS", "MATH", "MAX_DEPTH", "MAX_INT_BITS", "MAX_SIZE", "MAX_TEXT", "STR_METHODS",
           "ExpressionError", "Refused", "evaluate", "standard_functions"]

MAX_TEXT = 5000         # characters in one expression (the longest in the UR, Panda, Kinova, xArm files: 140)
MAX_DEPTH = 60          # nesting of the expression tree
MAX_INT_BITS = 4096     # bits of an integer
MAX_SIZE = 2_000_000    # characters of a string, items (counted through nested containers) of a container


class ExpressionError(Exception):
    """An expression that failed: ``expression`` and ``reason`` (one line)."""

    #: how the expression is shown: xacro's ``${...}``, or ``$(eval ...)`` (:func:`evaluate`'s ``shown``)
    shown = "${{{}}}"

    def __init__(self, expression: str, reason: str, shown: str | None = None):
        self.expression = expression
        self.reason = reason
        if shown is not None:
            self.shown = shown
        super().__init__(f"{self.written()}: {reason}")

    def written(self) -> str:
        return self.shown.format(_short(self.expression))


class Refused(ExpressionError):
    """An expression that uses what the evaluator does not do (a comprehension, a call of something else)."""

    def __init__(self, expression: str, reason: str, shown: str | None = None):
        super().__init__(expression, reason, shown)
        self.args = (f"{self.written()} refused: {reason}",)


def _short(text: str, width: int = 100) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 3] + "..."


_DATA = (bool, int, float, str, type(None), list, tuple, dict)

#: what each kind of refused syntax is called in the message
_WORDS = {
    "ListComp": "a list comprehension", "SetComp": "a set comprehension", "DictComp": "a dict comprehension",
    "GeneratorExp": "a generator expression", "Lambda": "a lambda", "JoinedStr": "an f-string",
    "FormattedValue": "an f-string", "NamedExpr": "an assignment (:=)", "Starred": "unpacking with *",
    "Set": "a set", "Await": "await", "Yield": "yield", "YieldFrom": "yield", "Slice": "a slice here",
}


def _fn_of(names, source) -> dict:
    return {name: getattr(source, name) for name in names}


def _int_arg(value):
    if not isinstance(value, int) or abs(value) > MAX_SIZE:
        raise ValueError(f"{value!r} is not a small integer")
    return value


def _round(number, ndigits=None):
    if ndigits is not None:
        _int_arg(ndigits)
    return round(number, ndigits) if ndigits is not None else round(number)


def _int(value=0, base=None):
    if base is None:
        return int(value)
    return int(value, _int_arg(base))


def _dict(*args, **kwargs):
    return dict(*args, **kwargs)


#: the builtins a xacro expression may call as ``python.NAME`` (the UR, Panda, Kinova and xArm descriptions
#: use dict); :data:`_BARE` also by the bare name
BUILTINS = {**_fn_of(["abs", "all", "any", "bool", "float", "len", "list", "max", "min", "sorted", "str", "sum",
                      "tuple", "divmod"], builtins),
            "int": _int, "round": _round, "dict": _dict}

#: the builtins xacro gives by their bare names (the rest only as ``python.NAME``, as in xacro)
_BARE = ("list", "dict", "len", "str", "float", "int", "bool", "min", "max", "round", "sorted")

#: the math module's functions and constants (factorial, comb, perm and prod left out: unbounded cost)
MATH = {name: value for name, value in vars(math).items()
        if not name.startswith("_") and name not in ("factorial", "comb", "perm", "prod")}


def _replace(s: str, old: str, new: str, count: int = -1) -> str:
    hits = s.count(old) if old else len(s) + 1
    if count >= 0:
        hits = min(hits, count)
    if len(s) + hits * max(0, len(new) - len(old)) > MAX_SIZE:
        raise ValueError("the result would be too long")
    return s.replace(old, new, count)


def _join(sep: str, items) -> str:
    items = list(items)
    if len(sep) * max(len(items) - 1, 0) + sum(len(i) if isinstance(i, str) else 0 for i in items) > MAX_SIZE:
        raise ValueError("the result would be too long")
    return sep.join(items)


def _zfill(s: str, width: int) -> str:
    return s.zfill(_int_arg(width))


#: string methods an expression may call (on a string only): ``xyz.split(' ')[2]`` in the UR files,
#: ``name.startswith('package://')`` in the Kinova files
STR_METHODS = {**_fn_of(["split", "rsplit", "strip", "lstrip", "rstrip", "startswith", "endswith", "lower",
                         "upper", "capitalize", "title", "find", "rfind", "count", "isdigit",
                         "isalpha", "isalnum", "isspace", "splitlines"], str),
               "join": _join, "replace": _replace, "zfill": _zfill}

_FORMAT_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d*)(?:\.(\*|\d*))?[hlL]?[a-zA-Z%]")

#: the syntax an expression may use; anything else anywhere in it is refused before evaluation
_ALLOWED = (ast.Expression, ast.Constant, ast.Name, ast.Load, ast.List, ast.Tuple, ast.Dict, ast.UnaryOp,
            ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Subscript, ast.Slice, ast.Attribute, ast.Call,
            ast.keyword, ast.unaryop, ast.operator, ast.boolop, ast.cmpop)

_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
            ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
            ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b}


def _size(value, budget: int = MAX_SIZE) -> int:
    """Characters of a string, items of a container counted through nested ones (each time it is
    referenced, as ``str`` would print it); stops counting past ``budget``."""
    if isinstance(value, str):
        return len(value)
    if not isinstance(value, (list, tuple, dict)):
        return 1
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            total += len(item) + 1
            stack.extend(dict.keys(item))
            stack.extend(dict.values(item))
        elif isinstance(item, (list, tuple)):
            total += len(item) + 1
            stack.extend(item)
        else:
            total += 1
        if total > budget:
            return total
    return total


class _Walk:
    def __init__(self, text: str, lookup, functions: dict, namespaces: dict):
        self.text = text
        self.lookup = lookup
        self.functions = functions
        self.namespaces = namespaces
        self.depth = 0

    def refuse(self, reason: str) -> NoReturn:
        raise Refused(self.text, reason)

    def data(self, value, what: str):
        if isinstance(value, bool) or type(value) in (int, float, str, type(None)):
            if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
                self.refuse(f"{what}: an integer of more than {MAX_INT_BITS} bits")
            if isinstance(value, str) and len(value) > MAX_SIZE:
                self.refuse(f"{what}: a string longer than {MAX_SIZE} characters")
            return value
        if isinstance(value, _DATA):
            if _size(value) > MAX_SIZE:
                self.refuse(f"{what}: more than {MAX_SIZE} items")
            return value
        self.refuse(f"{what} is a {type(value).__name__}, not a value")

    def run(self, node):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.refuse(f"nested more than {MAX_DEPTH} deep")
        try:
            method = getattr(self, "do_" + type(node).__name__, None)
            if method is None:
                name = type(node).__name__
                self.refuse(_WORDS.get(name, f"Python syntax {name!r} is not part of xacro's expressions here"))
            return method(node)
        finally:
            self.depth -= 1

    # leaves -------------------------------------------------------------------------------------
    def do_Expression(self, node):
        return self.run(node.body)

    def do_Constant(self, node):
        if isinstance(node.value, (bytes, complex)) or node.value is Ellipsis:
            self.refuse(f"the constant {node.value!r}")
        return self.data(node.value, "a constant")

    def do_Name(self, node):
        name = node.id
        if name.startswith("__"):
            self.refuse(f"the name {name!r} (double underscore)")
        if name in self.namespaces:
            self.refuse(f"{name!r} is a namespace of functions, not a value")
        try:
            value = self.lookup(name)
        except KeyError:
            if name in self.functions:
                self.refuse(f"the function {name!r} used as a value (only calls)")
            raise ExpressionError(self.text, f"name {name!r} is not defined") from None
        return self.data(value, f"name {name!r}")

    # containers ---------------------------------------------------------------------------------
    def do_List(self, node):
        return self.data([self.run(e) for e in node.elts], "a list")

    def do_Tuple(self, node):
        return self.data(tuple(self.run(e) for e in node.elts), "a tuple")

    def do_Dict(self, node):
        if any(k is None for k in node.keys):
            self.refuse("unpacking with **")
        return self.data({self.run(k): self.run(v) for k, v in zip(node.keys, node.values)}, "a dict")

    # operators ----------------------------------------------------------------------------------
    def do_UnaryOp(self, node):
        value = self.run(node.operand)
        op = type(node.op)
        if op is ast.Not:
            return not value
        if op is ast.USub:
            return self.data(-value, "a negation")
        if op is ast.UAdd:
            return self.data(+value, "a unary +")
        if op is ast.Invert:
            return self.data(~value, "~")
        self.refuse(f"the operator {op.__name__}")

    def do_BoolOp(self, node):
        value = None
        for operand in node.values:
            value = self.run(operand)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return value

    def do_IfExp(self, node):
        return self.run(node.body) if self.run(node.test) else self.run(node.orelse)

    def do_Compare(self, node):
        left = self.run(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.run(right_node)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def do_BinOp(self, node):
        a, b = self.run(node.left), self.run(node.right)
        op = type(node.op)
        ints = all(isinstance(v, int) for v in (a, b))
        if op is ast.Pow:
            if ints and b > 0 and abs(a) > 1 and math.log2(abs(a)) * b >= MAX_INT_BITS:
                self.refuse(f"{a!r} ** {b!r}: more than {MAX_INT_BITS} bits")
            result = a ** b
            if isinstance(result, complex):
                raise ExpressionError(self.text, f"{a!r} ** {b!r} is not a real number")
            return self.data(result, "a power")
        if op is ast.Mult:
            for seq, count in ((a, b), (b, a)):
                if isinstance(seq, (str, list, tuple)) and isinstance(count, int):
                    if max(count, 0) * max(_size(seq), 1) > MAX_SIZE:
                        self.refuse(f"repeating a {type(seq).__name__} {count} times: more than {MAX_SIZE} "
                                    "characters or items")
            if ints and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
                self.refuse(f"a product of more than {MAX_INT_BITS} bits")
            return self.data(a * b, "a product")
        if op is ast.LShift:
            if ints and b > 0 and a.bit_length() + b > MAX_INT_BITS:
                self.refuse(f"{a!r} << {b!r}: more than {MAX_INT_BITS} bits")
            return self.data(a << b, "a shift")
        if op is ast.Mod and isinstance(a, str):
            for spec in _FORMAT_SPEC.finditer(a):
                for width in spec.groups():
                    if width == "*" or (width and int(width) > 1000):
                        self.refuse("a %-format with a width or precision above 1000")
            return self.data(a % b, "a %-format")
        fn = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Div: lambda: a / b, ast.FloorDiv: lambda: a // b,
              ast.Mod: lambda: a % b, ast.RShift: lambda: a >> b, ast.BitAnd: lambda: a & b,
              ast.BitOr: lambda: a | b, ast.BitXor: lambda: a ^ b}.get(op)
        if fn is None:
            self.refuse(f"the operator {op.__name__}")
        if op is ast.Add and isinstance(a, (str, list, tuple)) and _size(a) + _size(b) > MAX_SIZE:
            self.refuse(f"a sum longer than {MAX_SIZE} characters or items")
        return self.data(fn(), "an arithmetic result")

    # lookups ------------------------------------------------------------------------------------
    def do_Subscript(self, node):
        value = self.run(node.value)
        if not isinstance(value, (str, list, tuple, dict)):
            self.refuse(f"indexing a {type(value).__name__}")
        if isinstance(node.slice, ast.Slice):
            if isinstance(value, dict):
                self.refuse("slicing a dict")
            parts = [None if p is None else self.run(p) for p in (node.slice.lower, node.slice.upper, node.slice.step)]
            return self.data(value[slice(*parts)], "a slice")
        index = self.run(node.slice)
        try:
            return self.data(value[index], "an item")
        except (KeyError, AttributeError):
            raise ExpressionError(self.text, f"no key {index!r}") from None

    def do_Attribute(self, node):
        if node.attr.startswith("_"):
            self.refuse(f"the attribute {node.attr!r}")
        if isinstance(node.value, ast.Name) and node.value.id in self.namespaces:
            space = self.namespaces[node.value.id]
            if node.attr in space:
                return self.data(space[node.attr], f"{node.value.id}.{node.attr}")
            self.refuse(f"{node.value.id}.{node.attr} is not a value it gives")
        value = self.run(node.value)
        if isinstance(value, dict):   # YAML data (xacro's dotted access) and include namespaces
            try:
                return self.data(value[node.attr], f"the key {node.attr!r}")
            except (KeyError, AttributeError, NameError):
                raise ExpressionError(self.text, f"no key {node.attr!r}") from None
        self.refuse(f"the attribute .{node.attr} of a {type(value).__name__} (only keys of a dict, d.key)")

    def do_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name):
            fn = self.functions.get(func.id)
            if fn is None:
                self.refuse(f"calling {func.id!r} (not a function xacro expressions may call here)")
            what = func.id
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.namespaces:
            what = f"{func.value.id}.{func.attr}"
            fn = self.functions.get(what)
            if fn is None:
                self.refuse(f"calling {what!r}")
        elif isinstance(func, ast.Attribute):
            if func.attr not in STR_METHODS:
                self.refuse(f"calling the method .{func.attr}() (only a few string methods)")
            receiver = self.run(func.value)
            if not isinstance(receiver, str):
                self.refuse(f"calling .{func.attr}() of a {type(receiver).__name__} (string methods only)")
            what = f".{func.attr}"
            method = STR_METHODS[func.attr]

            def fn(*args, **kwargs):
                return method(receiver, *args, **kwargs)
        else:
            self.refuse("calling the result of an expression")
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            self.refuse("unpacking arguments with * or **")
        if node.keywords and what not in ("dict", "python.dict"):
            self.refuse(f"keyword arguments to {what}")
        args = [self.run(a) for a in node.args]
        kwargs = {k.arg: self.run(k.value) for k in node.keywords}
        try:
            result = fn(*args, **kwargs)
        except ExpressionError:
            raise
        except (ValueError, TypeError, OverflowError, ZeroDivisionError, KeyError, IndexError) as exc:
            raise ExpressionError(self.text, f"{what}(): {exc}") from None
        return self.data(result, f"the result of {what}()")


def evaluate(text: str, lookup, functions: dict | None = None, namespaces: dict | None = None,
             shown: str | None = None):
    """The value of the expression ``text``.

    ``lookup(name)``: the value of a name (``KeyError`` when undefined); ``functions``: name ->
    callable, the only things called besides :data:`STR_METHODS` (``"math.sin"`` for a call written
    ``math.sin(x)``); ``namespaces``: name -> {constant name: value} for ``math.pi``, and the names
    that are no value themselves; ``shown``: how messages write the expression (``"$(eval {})"``).
    Raises :class:`Refused` for what is not allowed and :class:`ExpressionError` for what fails (an
    undefined name, 1/0)."""
    try:
        return _evaluate(text, lookup, functions, namespaces)
    except ExpressionError as exc:
        if shown is not None and exc.shown != shown:
            raise type(exc)(exc.expression, exc.reason, shown) from None
        raise


def _evaluate(text: str, lookup, functions, namespaces):
    text = str(text).strip()
    if len(text) > MAX_TEXT:
        raise Refused(text, f"longer than {MAX_TEXT} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(text, f"not an expression ({exc.msg})") from None
    except (RecursionError, MemoryError, ValueError):
        raise Refused(text, "nested too deeply to read") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED) or isinstance(node, ast.MatMult):
            name = type(node).__name__
            raise Refused(text, _WORDS.get(name, f"Python syntax {name!r} is not part of xacro's expressions here"))
    walk = _Walk(text, lookup, dict(functions or {}), dict(namespaces or {}))
    try:
        return walk.run(tree)
    except ExpressionError:
        raise
    except RecursionError:
        raise Refused(text, "nested too deeply") from None
    except ZeroDivisionError:
        raise ExpressionError(text, "division by zero") from None
    except (TypeError, ValueError, OverflowError, IndexError, KeyError) as exc:
        raise ExpressionError(text, f"{type(exc).__name__}: {exc}") from None


def standard_functions(extra: dict | None = None) -> tuple[dict, dict]:
    """``(functions, namespaces)`` for :func:`evaluate`: the builtins (also as ``python.NAME``), the math
    functions (also as ``math.NAME``), and ``extra`` (``"xacro.load_yaml"`` and the like)."""
    functions = {k: v for k, v in BUILTINS.items() if k in _BARE}
    functions.update({f"python.{k}": v for k, v in BUILTINS.items()})
    math_functions = {k: v for k, v in MATH.items() if callable(v)}
    functions.update(math_functions)
    functions.update({f"math.{k}": v for k, v in math_functions.items()})
    functions.update(extra or {})
    namespaces: dict[str, dict] = {"math": {k: v for k, v in MATH.items() if not callable(v)}, "python": {}}
    for name in functions:
        space, dot, _ = name.partition(".")
        if dot:
            namespaces.setdefault(space, {})
    return functions, namespaces
