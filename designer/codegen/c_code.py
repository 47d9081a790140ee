"""C99 source (one .c file, no header needed) for tau, M, G and h.

Each function takes pointers to q, qd, qdd (as its form needs), the
parameter array p and the output array; it returns nothing. Declare what you
call, e.g. ``void arm_tau(const double *q, const double *qd, const double *qdd,
const double *p, double *out);``. Compiles cleanly with ``gcc -Wall -Wextra
-Werror -std=c99``; link with ``-lm``.
"""

from __future__ import annotations

import re

import sympy as sp
from sympy.printing.c import C99CodePrinter, get_math_macros

from .plan import CodeFunction, CodePlan, NamedSymbols

__all__ = ["emit_c", "c_identifier", "signature", "prepare_function", "prepared_functions", "prepare_prototypes"]


class _Printer(NamedSymbols, C99CodePrinter):
    """C99 with our variable names and small integer powers as products."""

    printer_settings = {"precision": 17, "order": "none"}

    def expression(self, expr) -> str:
        """``doprint(expr)`` for one expression without its per-call set-up (a walk for
        UnevaluatedExpr, an assignment wrapper, code formatting), which took half the time of
        printing the PUMA 560's CSE'd equations; the same text (a single line needs no indenting)."""
        self._not_supported: set = set()
        self._number_symbols: set = set()
        text = self._print(expr)
        if self._not_supported or self._number_symbols or "\n" in text:
            return self.doprint(expr)  # comments and declarations: the full path
        return text

    def _print_Pow(self, expr):
        base, exp = expr.args
        if exp.is_Integer and 2 <= abs(int(exp)) <= 4:
            b = self.parenthesize(base, 100)  # always bracket compound bases
            prod = "*".join([b] * abs(int(exp)))
            return f"({prod})" if exp > 0 else f"(1.0/({prod}))"
        return super()._print_Pow(expr)


def c_identifier(text: str, fallback: str = "arm") -> str:
    """A C identifier from free text (a model name)."""
    ident = re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_").lower()
    if not ident:
        return fallback
    return f"{fallback}_{ident}" if ident[0].isdigit() else ident


def _function(func: CodeFunction, prefix: str, name: str | None = None, p: str = "p") -> list[str]:
    """The C function of ``func``, named ``<prefix>_<name>`` (default its own name); ``p``: the name of the
    parameter array (``pp`` for the prepared parameters, :func:`prepared_functions`)."""
    name = name or func.name
    args = [f"const double *{a}" for a in func.args] + [f"const double *{p}", "double *out"]
    printer = _Printer(func.variable_names())
    shape = f"{func.shape[0]} x {func.shape[1]}, row-major" if func.shape[1] > 1 else f"{func.size} values"
    out = [f"/* {func.doc}; out: {shape} */",
           f"void {prefix}_{name}({', '.join(args)})", "{"]
    used = {arr for _, arr, _ in func.joints} | ({p} if func.params or func.prepared else set())
    out += [f"    (void){a};" for a in (*func.args, p) if a not in used]  # unused input, on purpose
    out += [f"    const double {s.name} = {arr}[{k}];" for s, arr, k in func.joints]
    out += [f"    const double p_{s.name} = {p}[{k}];" for s, k in func.params]
    out += [f"    const double {s.name} = {p}[{k}];" for s, k in func.prepared]
    out += [f"    const double {t.name} = {printer.expression(e)};" for t, e in func.temps]
    for targets, expr in func.outputs:
        value = printer.expression(sp.sympify(expr))
        if len(targets) == 1:
            out.append(f"    out[{targets[0]}] = {value};")
        else:
            out.append(f"    out[{targets[0]}] = out[{targets[1]}] = {value};")
    out += ["}", ""]
    return out


def signature(prefix: str, func: CodeFunction, name: str | None = None, p: str = "p") -> str:
    args = ", ".join([f"const double *{a}" for a in func.args] + [f"const double *{p}", "double *out"])
    return f"void {prefix}_{name or func.name}({args})"


def prepared_functions(plan: CodePlan, func: CodeFunction, prefix: str, defaults: str | None = None) -> list[str]:
    """``func`` as C when it reads prepared values: ``<prefix>_<name>_prepared`` taking the prepared
    parameters ``pp`` (from ``<prefix>_prepare``), the work per call, and ``<prefix>_<name>`` taking ``p``,
    which prepares them on the stack first (the same result, the parameter-only work paid at each call).
    ``defaults``: the statement put first in the wrapper (``p == NULL`` handling)."""
    size = len(plan.parameters) + plan.prepare.size if plan.prepare is not None else len(plan.parameters)
    per_call = _function(func, prefix, f"{func.name}_prepared", "pp")
    per_call[0] = (f"/* {func.doc}, from the prepared parameters pp ({prefix}_prepare: the parameters, then "
                   f"{size - len(plan.parameters)} values of them alone): the work per call */")
    reads = ", ".join(func.args)
    wrapper = [f"/* {func.doc}: prepares p, then {prefix}_{func.name}_prepared */", signature(prefix, func), "{",
               *([f"    {defaults}"] if defaults else []),
               f"    double pp[{size}];",
               f"    {prefix}_prepare(p, pp);",
               f"    {prefix}_{func.name}_prepared({reads}, pp, out);",
               "}", ""]
    return per_call + wrapper


def prepare_function(plan: CodePlan, prefix: str, defaults: str | None = None) -> list[str]:
    """``<prefix>_prepare(p, pp)``: pp = the parameters, then the values that depend on them alone."""
    func = plan.prepare
    assert func is not None
    k = len(plan.parameters)
    lines = _function(func, prefix, "prepare", "p")
    lines[0] = (f"/* {func.doc}: pp holds the {k} parameters, then {func.size} values of them alone "
                f"({k + func.size} in all) */")
    lines[1] = f"void {prefix}_prepare(const double *p, double *pp)"
    body = [line.replace("    out[", f"    pp[{k} + ", 1) if line.startswith("    out[") else line for line in lines]
    at = body.index("{") + 1
    first = [f"    {defaults}"] if defaults else []
    if k:
        first += ["    int i;", f"    for (i = 0; i < {k}; i++) pp[i] = p[i];"]
    body[at:at] = first
    return body


def prepare_prototypes(plan: CodePlan, prefix: str) -> list[str]:
    """The prototypes of the prepare step and of the per-call functions (empty without a prepare step)."""
    if plan.prepare is None:
        return []
    return [f"void {prefix}_prepare(const double *p, double *pp);",
            *(signature(prefix, f, f"{f.name}_prepared", "pp") + ";" for f in plan.functions if f.prepared)]


def emit_c(plan: CodePlan, prefix: str | None = None) -> str:
    """The C source of ``plan``; functions are named ``<prefix>_tau`` etc."""
    prefix = c_identifier(prefix or plan.model_name)
    params = "\n".join(f" *   p[{k}] = {name}" + (f"  (default {value:g})" if value is not None else "")
                       for k, (name, value) in enumerate(plan.parameters)) or " *   (none)"
    head = [
        "/*",
        f" * Equations of motion of {plan.model_name or 'an arm'} ({plan.method}, simplify {plan.simplify}),",
        " * generated by Manipulator Designer. Common subexpressions eliminated.",
        f" * n = {plan.n} joints: q, qd, qdd are arrays of {plan.n} (rad or m, per s, per s^2).",
        " * Parameters p:",
        params,
        " * Functions:",
        *(f" *   void {prefix}_{f.name}({', '.join(f'const double *{a}' for a in f.args)}, const double *p, "
          f"double *out);" for f in plan.functions),
        " */",
        "#include <math.h>",
        "",
    ]
    body = []
    for f in plan.functions:
        body += [f"void {prefix}_{f.name}({', '.join(f'const double *{a}' for a in f.args)}, const double *p, "
                 "double *out);"]
    body += prepare_prototypes(plan, prefix)
    body.append("")
    if plan.prepare is not None:
        body += prepare_function(plan, prefix)
    for f in plan.functions:
        body += prepared_functions(plan, f, prefix) if f.prepared else _function(f, prefix)
    return "\n".join(head + _macros("\n".join(body)) + body)


def _macros(body: str) -> list[str]:
    """Definitions of the math.h constants (M_PI, M_SQRT2 ...) the body uses; strict C99 lacks them."""
    values: dict[str, sp.Float] = {}
    for expr, name in get_math_macros().items():
        value = sp.N(expr, 21)
        if value.is_Float:  # some keys are codegen functions (Sqrt) that do not evaluate
            values.setdefault(name, value)
    out = []
    for name in sorted(set(re.findall(r"\bM_[A-Z0-9_]+\b", body)) & set(values)):
        out += [f"#ifndef {name}", f"#define {name} {values[name]}", "#endif"]
    return out + [""] if out else []
