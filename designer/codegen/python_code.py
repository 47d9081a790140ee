"""A standalone Python module (needs only numpy) for tau, M, G and the bias h (and, from the
command line, the Coriolis matrix and the regressor).

The functions take one state (q of length n) or many at once (q of shape
(n, N), results of shape (n, N) or (n, n, N)), and the parameters p in
``PARAMETERS`` order, or None for the project's defaults.
"""

from __future__ import annotations

import sympy as sp
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.pycode import PythonCodePrinter

from .plan import CodeFunction, CodePlan, NamedSymbols

__all__ = ["emit_python", "FLAVOURS"]

#: numpy: one state or arrays of states; math: one state only, Python floats (several times
#: faster per call than numpy scalars; the app uses it for single states)
FLAVOURS = ("numpy", "math")


class _Printer(NamedSymbols, NumPyPrinter):
    printer_settings = {"fully_qualified_modules": True, "order": "none"}


class _MathPrinter(NamedSymbols, PythonCodePrinter):
    printer_settings = _Printer.printer_settings


def _reads_and_temps(func: CodeFunction, printer, pairs: bool = False) -> list[str]:
    """The body's first lines: joint and parameter reads, then the CSE temporaries.

    ``pairs`` (numpy): a cosine and a sine of the same angle that are both temporaries are
    computed together by ``_cos_sin``, where the first of them is.
    """
    lines = ([f"    {s.name} = {arr}[{k}]" for s, arr, k in func.joints]
             + [f"    p_{s.name} = p[{k}]" for s, k in func.params]
             + [f"    {s.name} = p[{k}]" for s, k in func.prepared])
    trig: dict = {}
    if pairs:
        for k, (_, e) in enumerate(func.temps):
            if isinstance(e, (sp.cos, sp.sin)):
                trig.setdefault(e.args[0], {})[type(e)] = k
    partner: dict[int, tuple | None] = {}
    for angle, found in trig.items():
        if len(found) == 2:
            c, s = found[sp.cos], found[sp.sin]
            partner[min(c, s)] = (c, s, angle)
            partner[max(c, s)] = None
    for k, (t, e) in enumerate(func.temps):
        pair = partner.get(k, ())
        if k not in partner:
            lines.append(f"    {t.name} = {printer.doprint(e)}")
        elif pair is not None:
            c, s, angle = pair
            lines.append(f"    {func.temps[c][0].name}, {func.temps[s][0].name} = _cos_sin({printer.doprint(angle)})")
    return lines


def _math_function(func: CodeFunction) -> list[str]:
    printer = _MathPrinter(func.variable_names())
    out = [f"def {func.name}({', '.join(func.args)}, p=None):",
           f'    """{func.doc[0].upper() + func.doc[1:]}: {func.size} floats, row-major (one state)."""',
           "    p = _prepared(p)" if func.prepared else "    p = _params(p)"]
    out += _reads_and_temps(func, printer)
    out.append(f"    out = [0.0] * {func.size}")
    out += _writes(func, printer)
    return out + ["    return out", "", ""]


def _writes(func: CodeFunction, printer) -> list[str]:
    """The nonzero outputs into ``out``: each value once, the entries that repeat it (M's lower triangle) copied."""
    out = []
    for targets, expr in func.outputs:
        if expr == 0:
            continue
        out.append(f"    out[{targets[0]}] = {printer.doprint(sp.sympify(expr))}")
        out += [f"    out[{t}] = out[{targets[0]}]" for t in targets[1:]]
    return out


def _function(func: CodeFunction) -> list[str]:
    printer = _Printer(func.variable_names())
    rows, cols = func.shape
    one, many = (f"({rows},)", f"({rows}, N)") if cols == 1 else (f"({rows}, {cols})", f"({rows}, {cols}, N)")
    out = [f"def {func.name}({', '.join(func.args)}, p=None, out=None):",
           f'    """{func.doc[0].upper() + func.doc[1:]}: shape {one}, or {many} for N states.',
           "",
           f"    out: optional array of shape ({rows * cols},) or ({rows * cols}, N) to write into (no allocation),",
           "    holding zeros or an earlier result of this function (entries that are always 0 are not written).",
           '    """',
           "    p = _prepared(p)" if func.prepared else "    p = _params(p)",
           f"    {func.args[0]} = numpy.asarray({func.args[0]}, dtype=float)",
           f"    shape = {func.args[0]}.shape[1:]"]
    for a in func.args[1:]:
        out.append(f"    {a} = numpy.asarray({a}, dtype=float)")
    out += _reads_and_temps(func, printer, pairs=True)
    out.append(f"    if out is None:\n        out = numpy.zeros(({rows * cols},) + shape)")
    out += _writes(func, printer)
    if cols > 1:
        out.append(f"    return out.reshape(({rows}, {cols}) + shape)")
    else:
        out.append("    return out")
    return out + ["", ""]


def _prepare_function(plan: CodePlan, func: CodeFunction, printer) -> list[str]:
    """``prepare(p)``: the parameters followed by the values that depend on them alone."""
    out = ["class Prepared(tuple):",
           '    """Parameters with the values computed from them alone appended (what prepare returns)."""',
           "",
           "",
           "def prepare(p=None):",
           f'    """The parameters p (PARAMETERS order, None for DEFAULTS) followed by the {func.size} values that',
           "    depend on them alone (grouped inertial parameters, their differences, products of lengths and",
           "    masses). Every function accepts the result as p and then skips that work: prepare once per",
           '    parameter set, call many times. A plain p is prepared at each call."""',
           "    p = _params(p)"]
    out += _reads_and_temps(func, printer)
    out.append(f"    values = [0.0] * {func.size}")
    out += [line.replace("out[", "values[", 1) for line in _writes(func, printer)]
    return out + ["    return Prepared(tuple(p) + tuple(values))", "", "",
                  "def _prepared(p):",
                  "    if isinstance(p, Prepared):",
                  "        return p",
                  "    if p is None and _DEFAULT is not None:",
                  "        return _DEFAULT",
                  "    return prepare(p)",
                  "", ""]


def emit_python(plan: CodePlan, flavour: str = "numpy") -> str:
    """The source of a Python module for ``plan``; ``flavour`` in :data:`FLAVOURS`."""
    if flavour not in FLAVOURS:
        raise ValueError(f"flavour: {flavour!r}, expected one of {', '.join(FLAVOURS)}")
    names = tuple(name for name, _ in plan.parameters)
    defaults = tuple(value for _, value in plan.parameters)
    head = [
        f'"""Equations of motion of {plan.model_name or "an arm"} ({plan.method}, simplify {plan.simplify}).',
        "",
        "Generated by Manipulator Designer; common subexpressions eliminated. "
        + ("Needs only numpy." if flavour == "numpy" else "Needs only the standard library."),
        f"n = {plan.n} joints: q, qd, qdd have {plan.n} entries (rad or m, per s, per s^2)"
        + (f", or shape ({plan.n}, N) for N states at once." if flavour == "numpy" else "; one state per call."),
        "p: parameter values in PARAMETERS order, None for DEFAULTS.",
        "",
        "Functions:",
        *(f"  {f.name}({', '.join(f.args)}, p): {f.doc}" for f in plan.functions),
        '"""',
        "",
        "import math" if flavour == "math" else "import numpy",
        "",
        f"N_JOINTS = {plan.n}",
        f"PARAMETERS = {names!r}",
        f"DEFAULTS = {defaults!r}",
        "",
        "",
        "def _params(p):",
        "    if p is None:",
        "        missing = [n for n, v in zip(PARAMETERS, DEFAULTS) if v is None]",
        "        if missing:",
        "            raise ValueError('no default value for parameter(s): ' + ', '.join(missing))",
        "        return DEFAULTS",
        "    if isinstance(p, Prepared):",
        "        return p",
        "    if len(p) != len(PARAMETERS):",
        "        raise ValueError(f'{len(PARAMETERS)} parameter values needed ({\", \".join(PARAMETERS)}), '",
        "                         f'{len(p)} given')",
        "    return p",
        "",
        "",
    ]
    if flavour == "numpy":
        head += [
            "def _cos_sin(a):",
            '    """cos(a), sin(a) from t = tan(a/2) (exact to about 2e-16 absolute): numpy\'s tan is',
            '    vectorised, its cos and sin mostly are not (together about 3x faster on arrays)."""',
            "    t = numpy.tan(0.5 * a)",
            "    tt = t * t",
            "    u = 1.0 / (1.0 + tt)",
            "    return (1.0 - tt) * u, (t + t) * u",
            "",
            "",
        ]
    prepare = plan.prepare
    if prepare is not None:
        names_of = prepare.variable_names()
        head += _prepare_function(plan, prepare, _Printer(names_of) if flavour == "numpy" else _MathPrinter(names_of))
    else:
        head += ["class Prepared(tuple):",
                 '    """What prepare returns: the parameters (nothing here depends on them alone)."""',
                 "", "",
                 "def prepare(p=None):",
                 '    """The parameters p (None: DEFAULTS); nothing to compute from them alone in this module."""',
                 "    return Prepared(_params(p))", "", ""]
    body = []
    for f in plan.functions:
        body += _function(f) if flavour == "numpy" else _math_function(f)
    tail = []
    if prepare is not None:
        tail = ["", "", "# the prepared defaults, once (None when some parameter has no default)",
                "_DEFAULT = None if None in DEFAULTS else prepare()"]
    return "\n".join(head + body).rstrip() + "\n" + ("\n".join(tail) + "\n" if tail else "")
