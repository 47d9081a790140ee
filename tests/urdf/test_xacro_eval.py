"""The xacro expression evaluator (designer/urdf/xacro_eval.py) on its own.

What it computes is checked against Python's own eval of the same (trusted, test-written) text;
what it refuses, and its cost bounds, against the one-line reasons it gives.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.urdf.xacro_eval import (MAX_DEPTH, MAX_INT_BITS, MAX_SIZE, MAX_TEXT, ExpressionError, Refused,
                                      evaluate, standard_functions)

FUNCTIONS, NAMESPACES = standard_functions()
NAMES = {"a": 3, "b": -2.5, "s": "0.1 0.2 0.3", "l": [1, 2, 3], "d": {"k": {"x": 5}, "y": [4, 5]},
         "flag": True, "empty": "", "pi": math.pi, "e": math.e}   # xacro's table holds the math constants


def ours(text, names=NAMES):
    return evaluate(text, names.__getitem__, FUNCTIONS, NAMESPACES)


def python(text, names=NAMES):
    scope = {**{k: v for k, v in vars(math).items() if not k.startswith("_")}, **names,
             "math": math, "dict": dict, "len": len, "str": str, "float": float, "int": int,
             "min": min, "max": max, "round": round, "sorted": sorted, "bool": bool, "list": list}
    return eval(text, scope)   # the test's own expressions: Python as the independent side


@pytest.mark.parametrize("text", [
    "a * 2 + 1", "-b / 2", "a ** 2 - b ** 3", "a // 2 + a % 2", "(a + b) * 0.5 - 1e-3", "2 ** -2",
    "pi / 2", "-pi", "radians(90)", "sin(pi / 6) + cos(0)", "math.atan2(1, a)", "sqrt(2) * e", "math.tau",
    "a > 2 and b < 0", "not flag or a == 3", "1 < a <= 3", "a != 3", "a in l", "4 not in l", "a is not None",
    "'x' if a > 2 else 'y'", "s.split(' ')[2]", "s.startswith('0.1')", "'A'.lower() + 'b'.upper()",
    "l[0] + l[-1]", "l[1:]", "l[::-1]", "d['k']['x']", "d['y'][1]", "len(l)", "min(l) + max(3, 4)",
    "round(b)", "round(pi, 3)", "int('7') + float('0.5')", "str(a) + 'x'", "bool(empty)",
    "dict(j1=0.0, j2=-1.57)['j2']", "[a, b, 'c']", "(1, 2)[1]", "{'k': a}['k']", "sorted([3, 1, 2])",
    "'%.3f' % pi", "'%s-%d' % ('a', 2)", "'x' * 3", "[0] * 4", "a << 3", "a & 1 | 4 ^ 2", "~a",
    "str(int(a * 10)).zfill(4)", "fabs(b)", "floor(b) + ceil(b)", "hypot(3, 4)",
    "'a,b'.split(',')", "' x '.strip()", "'-'.join(['a', 'b'])", "'abc'.replace('b', 'x')", "empty == ''",
])
def test_values_equal_pythons(text):
    assert ours(text) == python(text)
    assert type(ours(text)) is type(python(text))


def test_dotted_keys_and_python_namespace():
    assert ours("d.k.x") == 5 and ours("d.y[0]") == 4
    assert ours("python.abs(b)") == 2.5 and ours("python.sum(l)") == 6 and ours("python.divmod(7, 2)") == (3, 1)


_numbers = st.one_of(st.integers(-50, 50), st.floats(-100, 100, allow_nan=False).map(lambda x: round(x, 3)))


@st.composite
def _expressions(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return repr(draw(_numbers)) if draw(st.booleans()) else draw(st.sampled_from(["a", "b", "pi"]))
    kind = draw(st.sampled_from(["bin", "un", "cmp", "if", "call"]))
    left, right = draw(_expressions(depth - 1)), draw(_expressions(depth - 1))
    if kind == "bin":
        return f"({left} {draw(st.sampled_from(['+', '-', '*', '/', '//', '%']))} {right})"
    if kind == "un":
        return f"(-{left})"
    if kind == "cmp":
        return f"({left} {draw(st.sampled_from(['<', '<=', '==', '!=', '>', '>=']))} {right})"
    if kind == "if":
        return f"({left} if {draw(_expressions(depth - 1))} else {right})"
    return f"{draw(st.sampled_from(['sin', 'cos', 'atan', 'fabs', 'radians']))}({left})"


@settings(max_examples=300, deadline=None)
@given(_expressions())
def test_random_arithmetic_equals_python(text):
    try:
        expected = python(text)
    except ZeroDivisionError:
        with pytest.raises(ExpressionError, match="division by zero"):
            ours(text)
        return
    got = ours(text)
    assert got == expected or (got != got and expected != expected), text


@pytest.mark.parametrize("text, word", [
    ("[c for c in l]", "list comprehension"),
    ("{c for c in l}", "set comprehension"),
    ("{c: 1 for c in l}", "dict comprehension"),
    ("python.list(c for c in l)", "generator expression"),
    ("[[y for y in [x]] for x in l]", "list comprehension"),
    ("(lambda: 1)()", "lambda"),
    ("(lambda x: x)", "lambda"),
    ("f'{a}'", "f-string"),
    ("f'{().__class__}'", "f-string"),
    ("'{0.__class__}'.format(a)", ".format()"),
    ("'{}'.format(a)", ".format()"),
    ("'%(x)s'.format_map(d)", ".format_map()"),
    ("(x := 1)", ":="),
    ("[*l]", "unpacking"),
    ("{**d}", "unpacking"),
    ("max(*l)", "unpacking"),
    ("{1, 2}", "a set"),
    ("a.real", ".real"),
    ("l.append(1)", ".append()"),
    ("d.get('k')", ".get()"),
    ("().__class__", "__class__"),
    ("d['k'].__class__", "__class__"),
    ("__builtins__", "double underscore"),
    ("__import__('os')", "'__import__'"),
    ("getattr(a, 'real')", "'getattr'"),
    ("python.getattr(a, 'real')", "python.getattr"),
    ("python.vars(a)", "python.vars"),
    ("python.type(a)", "python.type"),
    ("vars()", "'vars'"),
    ("globals()", "'globals'"),
    ("open('/etc/passwd')", "'open'"),
    ("exec('1')", "'exec'"),
    ("eval('1')", "'eval'"),
    ("math", "namespace"),
    ("python", "namespace"),
    ("sin", "used as a value"),
    ("l[0](1)", "calling the result"),
    ("math.factorial(10**6)", "math.factorial"),
    ("a @ a", "MatMult"),
    ("b'x'", "constant"),
    ("1j", "constant"),
    ("...", "constant"),
    ("round(1.5, ndigits=1)", "keyword arguments"),
])
def test_refused_with_the_reason(text, word):
    with pytest.raises(Refused) as info:
        ours(text)
    message = str(info.value)
    assert "refused" in message and word in message and "\n" not in message


def test_a_function_held_in_data_is_never_called():
    """Even when a lookup hands out a container holding a function, it is not a value and is not called."""
    names = {"d": {"f": print, "n": 1}, "g": len}
    for text in ("d['f']", "d.f", "d['f']('x')", "g", "g(d)"):
        with pytest.raises(Refused):
            ours(text, names)
    assert ours("d['n'] + 1", names) == 2


@pytest.mark.parametrize("text, word", [
    ("2 ** 5000", "bits"),
    ("10 ** 10 ** 10", "bits"),
    ("(2 ** 4000) * (2 ** 4000)", "bits"),
    ("1 << 10 ** 6", "bits"),
    ("'ab' * 10 ** 9", "repeating"),
    ("[0] * 10 ** 9", "repeating"),
    ("[[0] * 1000] * 3000", "repeating"),
    ("'%*d' % (10 ** 9, 1)", "width"),
    ("'%0999999999d' % 1", "width"),
    ("'a'.zfill(10 ** 9)", "small integer"),
    ("('a' * 1000000).replace('a', 'aaaaaaaa')", "too long"),
    ("('x' * 1000000).join(['a'] * 500000)", "too long"),
    ("math.prod([2 ** 4000] * 100000)", "math.prod"),
    ("-" * (MAX_DEPTH + 5) + "1", "nested"),
    ("1" + " + 1" * (MAX_TEXT // 4), "longer than"),
])
def test_cost_is_bounded(text, word):
    with pytest.raises(ExpressionError) as info:
        ours(text)
    assert word in str(info.value)


def test_bounds_leave_ordinary_sizes_alone():
    assert ours(f"2 ** {MAX_INT_BITS - 2}") == 2 ** (MAX_INT_BITS - 2)
    assert len(ours(f"'x' * {MAX_SIZE // 2}")) == MAX_SIZE // 2
    assert ours("-" * (MAX_DEPTH // 2) + "1") == (-1) ** (MAX_DEPTH // 2)


@pytest.mark.parametrize("text, word", [
    ("nothing + 1", "name 'nothing' is not defined"),
    ("1 / 0", "division by zero"),
    ("d['nokey']", "no key 'nokey'"),
    ("d.nokey", "no key 'nokey'"),
    ("l[10]", "IndexError"),
    ("1 +", "not an expression"),
    ("math.sqrt(-1)", "math.sqrt()"),
])
def test_failures_name_what_failed(text, word):
    with pytest.raises(ExpressionError) as info:
        ours(text)
    assert word in str(info.value) and "\n" not in str(info.value)
