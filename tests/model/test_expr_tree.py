"""The expression checker without sympy (designer/model/expr_tree.py): its float back end against sympy's,
computed apart, the hostile texts it refuses, and that it imports no sympy."""

from __future__ import annotations

import ast
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from designer.model.expr import parse_expr, symbol, to_expr
from designer.model.expr_tree import (
    MAX_DEPTH,
    MAX_LENGTH,
    ExpressionError,
    check,
    check_value,
    evaluate,
    value_of,
)
from tests.model.test_expr import HOSTILE
from tests.support import ROBOTS, ROOT

MODULE = ROOT / "designer" / "model" / "expr_tree.py"


def _sympy_value(expr: sp.Expr, values: dict[str, float]) -> complex | None:
    """sympy's value of ``expr`` at ``values`` (30 digits, apart from any float of ours); None where sympy
    says it is infinite or undefined."""
    point = {symbol(n): sp.Float(v, 30) for n, v in values.items()}
    out = expr.evalf(30, subs=point)
    if out.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        return None
    return complex(out)


def _agrees(text, values: dict[str, float], where: str) -> None:
    """``evaluate`` equals sympy's value to 1e-12 relative, or refuses where sympy's is infinite or complex."""
    expr = to_expr(text, where)
    expected = _sympy_value(expr, values)
    tree = check_value(text, where)
    if expected is None or abs(expected.imag) > 1e-12 * max(1.0, abs(expected.real)):
        with pytest.raises(ExpressionError):
            evaluate(tree, values, where)
        return
    if not math.isfinite(expected.real) or abs(expected.real) > 1e308:
        with pytest.raises(ExpressionError, match="too large"):
            evaluate(tree, values, where)
        return
    try:
        got = evaluate(tree, values, where)
    except ExpressionError as exc:
        # sympy's algebra may leave out a step the text takes: (sqrt(-a))**2 is -a to sympy, a square root of
        # a negative number to floats; the text, read by sympy without simplifying, must hold such a step
        assert "negative" in str(exc) and _has_unreal_step(text, values), (where, text, str(exc), expected)
        return
    # 1e-12 relative, or more where the text itself magnifies the rounding of its inputs (L1*2.75 - pi near
    # zero): sympy's own values at inputs moved by a unit of the last place measure that
    rng = random.Random(text)
    moved = [_sympy_value(expr, {n: v * (1 + rng.choice((-1, 1)) * 2.3e-16) for n, v in values.items()})
             for _ in range(2 if values else 0)]
    spread = max((math.inf if m is None else abs(m - expected) for m in moved), default=0.0)
    assert abs(got - expected.real) <= max(1e-12 * abs(expected.real), 100 * spread, 1e-300), \
        (where, text, got, expected, spread)


def _has_unreal_step(text: str, values: dict[str, float]) -> bool:
    """Whether a power or root of ``text``, read by sympy as written (evaluate=False), is not real at ``values``."""
    from sympy.parsing.sympy_parser import parse_expr as sympy_parse   # test texts are ours, not a file's

    written = sympy_parse(text, local_dict={n: symbol(n) for n in values}, evaluate=False)
    point = {symbol(n): v for n, v in values.items()}
    for sub in sp.preorder_traversal(written):
        if isinstance(sub, sp.Pow):
            value = complex(sub.evalf(30, subs=point))
            if abs(value.imag) > 1e-12 * max(1.0, abs(value.real)):
                return True
    return False


# -- every number and expression of the bundled robots ---------------------------------------------------

def _leaves(value, where: str):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{where}[{i}]")
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        yield where, value


ROBOT_FILES = sorted(ROBOTS.glob("*.json"))


@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.stem)
def test_robot_values_evaluate_as_sympy_does(path: Path):
    data = json.loads(path.read_text())
    values = {name: value_of(v, {}, f"parameters.{name}") for name, v in data.get("parameters", {}).items()}
    compared = 0
    for where, leaf in _leaves(data, path.stem):
        try:
            expr = to_expr(leaf, where)
        except ExpressionError as exc:
            # a text the sympy parser refuses (a joint type "R" is fine, "q1" is not): the checker refuses
            # it with the same message
            with pytest.raises(ExpressionError) as info:
                check_value(leaf, where)
            assert str(info.value) == str(exc)
            continue
        if not {s.name for s in expr.free_symbols} <= set(values):
            continue        # a word of the format ("R", a link's name), not a value
        _agrees(leaf, values, where)
        compared += 1
    assert compared > 10, path


# -- random well-formed texts -----------------------------------------------------------------------------

NAMES = ("a", "b", "L1", "m_2")


def _random_text(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice([str(rng.randint(0, 12)), rng.choice(["0.5", "0.25", "1.5", "0.1", "2.75", "1e-3"]),
                           rng.choice(NAMES), rng.choice(NAMES), "pi"])
    kind = rng.randrange(6)
    if kind == 0:
        return f"({_random_text(rng, depth - 1)}) {rng.choice('+-*/')} ({_random_text(rng, depth - 1)})"
    if kind == 1:
        parts = [_random_text(rng, depth - 1) for _ in range(rng.randint(2, 4))]
        text = parts[0]
        for part in parts[1:]:
            text += f" {rng.choice('+-*/')} {part}"
        return text
    if kind == 2:
        return f"{rng.choice(['sin', 'cos', 'tan', 'sqrt', 'exp'])}({_argument(rng)})"
    if kind == 3:
        exponent = rng.choice(["2", "3", "-1", "0.5", "1.5", "-2", rng.choice(NAMES), _random_text(rng, 1)])
        return f"({_random_text(rng, depth - 1)})**{exponent}" if exponent[0] != "-" else \
            f"({_random_text(rng, depth - 1)})**({exponent})"
    if kind == 4:
        return f"-({_random_text(rng, depth - 1)})"
    return f"{_random_text(rng, depth - 1)}"


def _argument(rng: random.Random) -> str:
    """A function's argument of moderate size: cos(exp(12)) in floats is cos of a number 3e-11 off, so its
    value is not the exact one to 1e-12 (float arithmetic, not the evaluator, is then the limit)."""
    def leaf():
        return rng.choice([str(rng.randint(0, 12)), rng.choice(["0.5", "0.25", "1.5", "0.1", "2.75"]),
                           rng.choice(NAMES), "pi"])
    if rng.random() < 0.5:
        return leaf()
    return f"{leaf()} {rng.choice('+-*/')} {leaf()}"


def _random_cases(n: int, seed: int):
    rng = random.Random(seed)
    for _ in range(n):
        values = {name: rng.uniform(0.3, 1.7) for name in NAMES}
        yield _random_text(rng, 4), values


@pytest.mark.parametrize("seed", range(4))
def test_random_texts_evaluate_as_sympy_does(seed: int):
    accepted = refused = 0
    for text, values in _random_cases(100, seed):
        try:
            to_expr(text, "f")
        except ExpressionError as exc:
            # what the sympy parser refuses is refused by the checker, or by the float evaluation when sympy
            # saw it only by folding names away (b - b is 0), except the rules about every value of the names
            # (0**a with a symbolic a, sympy's x**4096): at these values the float one is right
            try:
                evaluate(check(text, "f"), values, "f")
            except ExpressionError:
                pass
            else:
                assert "for every value" in str(exc) or "larger than" in str(exc), (text, str(exc))
            refused += 1
            continue
        _agrees(text, values, "f")
        accepted += 1
    assert accepted > 50, (accepted, refused)


# -- evaluate's own refusals -------------------------------------------------------------------------------

@pytest.mark.parametrize("text, values, fragment", [
    ("a + x", {"a": 1.0}, "'x' has no value"),
    ("1/(a - b)", {"a": 2.0, "b": 2.0}, "division by zero"),
    ("sqrt(a - b)", {"a": 1.0, "b": 2.0}, "square root of a negative number"),
    ("a**0.5", {"a": -4.0}, "not real"),
    ("exp(a)", {"a": 1000.0}, "too large"),
    ("a*a*a", {"a": 1e200}, "too large"),
    ("b**a", {"a": -1.0, "b": 0.0}, "division by zero"),
    ("a", {"a": float("nan")}, "not a finite number"),
])
def test_evaluate_says_what(text, values, fragment):
    with pytest.raises(ExpressionError) as info:
        value_of(text, values, "links[3].d")
    assert str(info.value).startswith("links[3].d: ") and fragment in str(info.value), str(info.value)


def test_check_once_evaluate_often():
    # sqrt(L1**2 + h**2) is a right triangle's hypotenuse: 3-4-5 and 5-12-13
    tree = check("sqrt(L1**2 + h**2)")
    assert evaluate(tree, {"L1": 3.0, "h": 4.0}) == 5.0
    assert evaluate(tree, {"L1": 5.0, "h": 12.0}) == 13.0
    assert value_of(0.4318) == 0.4318 and value_of("pi/2") == math.pi / 2


# -- hostile and invalid texts: refused by the checker with the parser's message ---------------------------

#: what sympy alone sees, by folding names away: the checker cannot, the float evaluation refuses at values
SYMPY_FOLDS = {
    "a/(b - b)": "division by zero",
    "((a + b)**64)**64": "too large",            # sympy's x**4096; at a + b = 2, 2**4096 is not a double
    "sqrt(-exp(a))": "square root of a negative number",
}

MORE_HOSTILE = [
    ("10**10**10", "exponent"),
    ("a" * 5000, "longer than"),
    ("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), "nested"),
    ("inf", "not a finite number"),
    ("Infinity", "not a finite number"),
    ("q1 + 1", "joint variable"),
    ("qdd2", "joint variable"),
    ("[i for i in a]", "comprehension"),
    ("a.real", "attribute access"),
    ("(lambda: 1)()", "lambda"),
    ("sin(a, b)", "exactly one argument"),
    ("ln(a)", "unknown function 'ln'"),
    ("\u00e9", "U+00E9"),
]


@pytest.mark.parametrize("text, fragment", [*HOSTILE, *MORE_HOSTILE])
def test_checker_refuses_hostile_text(text, fragment):
    if text in SYMPY_FOLDS:
        tree = check(text, "links[2].a")
        with pytest.raises(ExpressionError) as info:
            evaluate(tree, {"a": 0.7, "b": 1.3}, "links[2].a")
        fragment = SYMPY_FOLDS[text]
    else:
        with pytest.raises(ExpressionError) as info:
            check(text, "links[2].a")
    message = str(info.value)
    assert message.startswith("links[2].a: ") and fragment in message, message
    assert info.value.where == "links[2].a"
    assert len(text) > MAX_LENGTH or len(message) < 300, message


def test_sympy_folds_are_refused_by_the_sympy_parser_too():
    for text, fragment in HOSTILE:
        if text in SYMPY_FOLDS:
            with pytest.raises(ExpressionError, match=fragment):
                parse_expr(text)


def test_json_values():
    assert value_of(3) == 3.0 and value_of(2.5) == 2.5
    for bad, fragment in [(None, "null"), (True, "true/false"), ([1], "list"), ({}, "object"),
                          (float("nan"), "not finite"), (float("inf"), "not finite"), (10**40, "too large")]:
        with pytest.raises(ExpressionError, match=fragment):
            value_of(bad, {}, "mass")


# -- no sympy -----------------------------------------------------------------------------------------------

def test_module_imports_only_the_standard_library_and_errors():
    # read from its import statements: the module itself, whatever its package's __init__ does
    tree = ast.parse(MODULE.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or "") if node.level else (node.module or "").split(".")[0])
    outside = {name for name in imported if name not in sys.stdlib_module_names}
    assert outside == {"..errors"}, outside


_NO_SYMPY = """
import sys, types
sys.modules["sympy"] = None            # import sympy now fails
{setup}
from designer.model.expr_tree import value_of
print(value_of("sqrt(L1**2 + h**2)", {{"L1": 3, "h": 4}}))
assert not any(m == "sympy" or m.startswith("sympy.") for m, v in sys.modules.items() if v is not None)
"""


def _run_without_sympy(setup: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _NO_SYMPY.format(setup=setup)], capture_output=True,
                          text=True, cwd=ROOT)


def test_module_and_its_imports_run_without_sympy():
    # the package designer.model's __init__ replaced by an empty package: the module and what it imports
    setup = ("import designer\n"
             "pkg = types.ModuleType('designer.model'); pkg.__path__ = [designer.__path__[0] + '/model']\n"
             "sys.modules['designer.model'] = pkg")
    out = _run_without_sympy(setup)
    assert out.returncode == 0 and out.stdout.strip() == "5.0", out.stderr


def test_package_import_without_sympy():
    out = _run_without_sympy("")
    assert out.returncode == 0 and out.stdout.strip() == "5.0", out.stderr
