"""What every code emitter writes: the functions, their inputs, and the equations after CSE.

The four standard functions (tau, mass_matrix, gravity, bias; their inputs and outputs: docs/codegen.md)
are the same in every language. Two forms: ``compact`` (default) writes the recursive forms of
:mod:`designer.dynamics.tree` (customized Newton-Euler for tau, composite rigid bodies for M), whatever
method derived ``eq``; ``derived`` writes the derivation's own expressions.

``p`` holds the parameter values in :attr:`CodePlan.parameters` order (the names sorted). Common
subexpressions are eliminated per function with ``sympy.cse`` over the flat list of its entries (on nested
output ``lambdify(cse=True)`` silently eliminates nothing); a symmetric M is computed on its upper triangle."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING, cast

import sympy as sp

from ..dynamics.results import Equations, Form
from ..dynamics.grouping import grouped_parameters
from ..dynamics.standard_ne import standard_tau_steps
from ..dynamics.tree import compact_job
from ..model.angles import exact_angles
from ..model.drives import drive_statement, symbolic_drive_terms
from ..jobs import NEVER, CancelToken, Job, Progress, run
from .bounded import bound_nesting
from .prepare import hoist

if TYPE_CHECKING:
    from ..dynamics.closed_compact import ClosedCompact
from ..graphs.cse import cse_graph, drop_unused, graph_symbols, ordered_assignments, polish

__all__ = ["CodePlan", "CodeFunction", "CodeForm", "plan_code", "plan_code_job", "CLOSED_COMPACT_FUNCTIONS",
           "FUNCTION_ARGS", "plan_function", "compact_tau_function", "temp_prefix", "is_symmetric", "comment_text"]


class CodeForm(str, Enum):
    COMPACT = "compact"   # recursive tree forms: fewest operations
    DERIVED = "derived"   # the derivation's expressions (Lagrange / Newton-Euler / d'Alembert)

FUNCTION_ARGS = {
    "tau": ("q", "qd", "qdd"),
    "mass_matrix": ("q",),
    "gravity": ("q",),
    "bias": ("q", "qd"),
    "prepare": (),
}
_DOC = {
    "tau": "joint torques/forces tau(q, qd, qdd)",
    "mass_matrix": "mass matrix M(q), row-major",
    "gravity": "gravity torques G(q)",
    "bias": "bias torques h(q, qd) = tau(q, qd, 0) - G(q): Coriolis and centrifugal (friction with drives)",
    "prepare": "the values that depend on the parameters alone (grouped inertial parameters, their differences, "
               "products of lengths and masses), computed once per parameter set",
}


class NamedSymbols:
    """Mixin for a sympy code printer: symbols printed by the names of :meth:`CodeFunction.variable_names`,
    the printer made with the class's ``printer_settings``."""

    printer_settings: dict = {}

    def __init__(self, names: dict):
        super().__init__(dict(self.printer_settings))  # type: ignore[call-arg]
        self._names = names

    def _print_Symbol(self, expr):
        return self._names.get(expr, expr.name)


@dataclass(frozen=True)
class CodeFunction:
    """One function to emit.

    ``temps`` are the CSE assignments in order; each output is
    (flat indices it is stored at, expression). ``joints`` and ``params``
    list the inputs the body uses: (symbol, array name, 0-based index).
    """

    name: str
    doc: str
    args: tuple[str, ...]
    size: int
    shape: tuple[int, int]
    temps: tuple[tuple[sp.Symbol, sp.Expr], ...]
    outputs: tuple[tuple[tuple[int, ...], sp.Expr], ...]
    joints: tuple[tuple[sp.Symbol, str, int], ...]
    params: tuple[tuple[sp.Symbol, int], ...]
    #: the values it reads that depend on the parameters alone, (symbol, index in the prepared
    #: parameters: the plan's parameters, then ``prepare``'s outputs), and the function computing them
    prepared: tuple[tuple[sp.Symbol, int], ...] = ()
    prepare: CodeFunction | None = None

    @property
    def operations(self) -> int:
        """``count_ops`` of the body after CSE: the work per call (``prepare``'s is done once per parameter set)."""
        return int(sum(sp.count_ops(e) for _, e in self.temps) + sum(sp.count_ops(e) for _, e in self.outputs))

    @property
    def prepare_operations(self) -> int:
        """``count_ops`` of :attr:`prepare`'s body (0 without one): the work done once per parameter set."""
        return 0 if self.prepare is None else self.prepare.operations

    def variable_names(self) -> dict:
        """The name each symbol the body reads has in emitted code: joints as is, parameters p_NAME, prepared
        values and temporaries as they are named."""
        names = {s: s.name for s, _, _ in self.joints}
        names.update({s: f"p_{s.name}" for s, _ in self.params})
        names.update({s: s.name for s, _ in self.prepared})
        names.update({t: t.name for t, _ in self.temps})
        return names


@dataclass(frozen=True)
class CodePlan:
    """The functions of one derivation and the facts a header comment states."""

    model_name: str
    method: str
    simplify: str
    n: int
    parameters: tuple[tuple[str, float | None], ...]  # (name, default or None)
    functions: tuple[CodeFunction, ...]
    temp_prefix: str

    @property
    def prepare(self) -> CodeFunction | None:
        """What the functions read that depends on the parameters alone, computed once per parameter set
        (outputs at index ``len(parameters)`` on in the prepared parameters); None when nothing is."""
        blocks = [f.prepare for f in self.functions if f.prepare is not None]
        if len(blocks) > 1:
            raise ValueError("more than one function with a prepare step: emitters write one")
        return blocks[0] if blocks else None


def comment_text(text: str, limit: int = 120) -> str:
    """Free text (a model name from a project file) fit for a comment or docstring of generated code:
    one line of printable characters, without what ends a C comment or a Python docstring. A name
    holding a newline and ``import os`` would otherwise put that line into the generated module."""
    text = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    text = text.replace("*/", "* /").replace("/*", "/ *").replace("\\", "/").replace('"', "'")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def temp_prefix(names: set[str], start: str = "x") -> str:
    """A prefix for CSE temporaries that no parameter name can collide with."""
    prefix = start
    while any(n.startswith(prefix) and n[len(prefix):].isdigit() for n in names):
        prefix = "t" + prefix
    return prefix


def is_symmetric(m: sp.Matrix) -> bool:
    n = m.shape[0]
    # structural equality only: expanding two large entries to compare them could take minutes, and
    # every derivation builds M symmetric entry by entry
    return m.shape == (n, n) and all(m[i, j] == m[j, i] for i in range(n) for j in range(i + 1, n))


def plan_function(name: str, mat: sp.Matrix, model, params: dict, prefix: str, refine: int | None = None,
              steps: tuple = (), token: CancelToken = NEVER, inputs: tuple = ()) -> CodeFunction:
    """``steps``: named intermediates ``(symbol, value)`` that ``mat`` reads (see
    :func:`~designer.dynamics.standard_ne.standard_tau_steps`), made temporaries; their symbols
    must not be ``prefix`` + a number. ``inputs``: more values the function reads, ``(symbol, array
    name, index)``, their arrays taken after the first argument (a closed chain's passive positions)."""
    rows, cols = mat.shape
    symbols = sp.numbered_symbols(prefix, real=True)
    if cols > 1 and is_symmetric(mat):
        cells = [((i * cols + j,) if i == j else (i * cols + j, j * cols + i), mat[i, j])
                 for i in range(rows) for j in range(i, cols)]
    else:
        cells = [((i * cols + j,), mat[i, j]) for i in range(rows) for j in range(cols)]
    temps, reduced = cse_graph([v for _, v in steps] + [e for _, e in cells], symbols, refine, token)
    if steps:
        temps = ordered_assignments(list(temps) + [(s, r) for (s, _), r in zip(steps, reduced)])
        reduced = reduced[len(steps):]
    # peephole passes (not on the prepare step: run once, it is not worth their time): PUMA 560 symbolic tau 698 -> 654
    if name != "prepare" and (steps or (refine is None and name == "tau")):
        # operations (on M, G and h they would double a 7-joint plan's time for some 8% fewer)
        token.check()
        temps, reduced = polish(temps, reduced, symbols)
    token.check()
    temps, reduced = bound_nesting(temps, reduced, symbols)
    temps = drop_unused(temps, reduced)
    used = set()
    for e in [*(t for _, t in temps), *reduced]:
        used |= e.free_symbols
    joints = []
    for arr, syms in (("q", model.q), ("qd", model.qd), ("qdd", model.qdd)):
        joints += [(s, arr, k) for k, s in enumerate(syms) if s in used]
    joints += [(s, arr, k) for s, arr, k in inputs if s in used]
    extra = tuple(dict.fromkeys(arr for _, arr, _ in inputs))
    args = FUNCTION_ARGS[name][:1] + extra + FUNCTION_ARGS[name][1:]
    allowed = set(args)
    stray = [s.name for s, arr, _ in joints if arr not in allowed]
    if stray:
        raise ValueError(f"{name} depends on {', '.join(stray)}, which it does not take as input")
    known = {j for j, _, _ in joints} | {t for t, _ in temps}
    missing = sorted(s.name for s in used if s.name not in params and s not in known)
    if missing:
        raise ValueError(f"{name} uses symbols that are not parameters: {', '.join(missing)}")
    used_params = tuple((s, params[s.name]) for s in sorted(used, key=lambda s: s.name) if s.name in params)
    return CodeFunction(name, _DOC[name], args, rows * cols, (rows, cols), tuple(temps),
                        tuple((idx, e) for (idx, _), e in zip(cells, reduced)), tuple(joints), used_params)


def compact_tau_function(built, model, params: dict, prefix: str, drive_tau: sp.Matrix | None = None,
                         token: CancelToken = NEVER) -> CodeFunction:
    """The tau function of the compact form: Khalil's customized Newton-Euler as named steps
    (:func:`~designer.dynamics.standard_ne.standard_tau_steps`) on ``built`` (``model`` with the numbers
    written into the code), plus ``drive_tau``, reading the inertial parameters as Khalil's grouped
    ones in joint frames (:func:`~designer.dynamics.grouping.grouped_parameters`: XXR = XX - YY, ...),
    and every other parameter-only piece (:func:`~designer.codegen.prepare.hoist`), from a
    ``prepare`` step computed once per parameter set (:attr:`CodeFunction.prepare`; with numbers for
    the parameters they are numbers in the code). PUMA 560 with symbolic lengths, g and inertial
    parameters: 494 operations per call (621 computing everything per call)."""
    names = set(params) | {prefix + "0"}
    step_prefix = temp_prefix(names)
    names.add(step_prefix + "0")
    standard_prefix = temp_prefix(names, "s")
    names.add(standard_prefix + "0")
    grouped_prefix = temp_prefix(names, "g")
    names.add(grouped_prefix + "0")
    hoisted_prefix = temp_prefix(names, "k")
    exact = exact_angles(built).model
    standard, slots = grouped_parameters(exact, sp.numbered_symbols(standard_prefix, real=True))
    given = list(standard)
    grouped = sp.numbered_symbols(grouped_prefix, real=True)
    inputs = []
    for slot in slots:
        row = []
        for v in slot:
            if v.args:
                sym = next(grouped)
                given.append((sym, v))
                v = sym
            row.append(v)
        inputs.append(row)
    steps, named = standard_tau_steps(exact, inputs, sp.numbered_symbols(step_prefix, real=True), token)
    mat = named if drive_tau is None else named + drive_tau
    fixed = {s for s, _ in given}
    hoisted, reduced = hoist([v for _, v in steps] + list(mat), lambda s: s.name in params or s in fixed,
                             sp.numbered_symbols(hoisted_prefix, real=True))
    steps = [(s, r) for (s, _), r in zip(steps, reduced)]
    mat = sp.Matrix(reduced[len(steps):])
    every = given + hoisted
    index = dict(params)
    index.update({s.name: len(params) + k for k, (s, _) in enumerate(every)})
    func = plan_function("tau", mat, model, index, prefix, steps=tuple(steps), token=token)
    read = [s for s, k in func.params if k >= len(params)]
    if not read:
        return func
    token.check()
    prepare = plan_function("prepare", sp.Matrix(read), model, params, prefix, steps=tuple(every), token=token)
    return replace(func, params=tuple((s, k) for s, k in func.params if k < len(params)),
                   prepared=tuple((s, len(params) + k) for k, s in enumerate(read)), prepare=prepare)


#: significant digits kept of the numbers substituted by ``values``: a derivation in floating point
#: leaves near-duplicates like 0.00040432 and 0.000404319999999995 that would hide shared terms
DIGITS = 14


def _substitute(mat: sp.Matrix, subs: dict) -> sp.Matrix:
    def one(e):
        e = sp.sympify(e).xreplace(subs)
        floats = e.atoms(sp.Float)
        return e.xreplace({f: sp.Float(float(f"{float(f):.{DIGITS}g}")) for f in floats}) if floats else e
    return mat.applyfunc(one)


def plan_code(eq: Equations, form: CodeForm | str = CodeForm.COMPACT, drives: bool = False,
              values: Mapping[str, float] | None = None, token: CancelToken = NEVER,
              only: Collection[str] | None = None) -> CodePlan:
    """Run CSE on tau, M, G and h of ``eq`` (in ``form``) and say what each function needs.

    ``drives``: add the project's drive terms to M and tau (:mod:`designer.model.drives`).

    ``values``: parameter values to write into the code as numbers (the functions the app
    compiles for itself); those parameters then leave ``p``.

    ``only``: the names (of :data:`BASIC_FUNCTIONS`) to plan; default all four.
    """
    return run(plan_code_job(eq, form, drives, values, token, only), None, token)


#: the functions :func:`plan_code` writes, in order
BASIC_FUNCTIONS = ("tau", "mass_matrix", "gravity", "bias")


def plan_code_job(eq: Equations, form: CodeForm | str = CodeForm.COMPACT, drives: bool = False,
                  values: Mapping[str, float] | None = None, token: CancelToken = NEVER,
                  only: Collection[str] | None = None) -> Job[CodePlan]:
    """:func:`plan_code` as a job: progress per function, ``token`` checked within each step."""
    model = built = eq.model
    form = CodeForm(form)
    if "closed_compact" in eq.extras:   # a closed chain's compact form: its steps (below)
        return (yield from closed_compact_plan_job(eq, drives, values, token, only))
    if "loop_quantities" in eq.extras:
        raise ValueError("a nonlinear loop's closed form reads loop quantities (qp, W, dW): its code is the "
                         "compact form's")
    if "closed_chain" in eq.extras:
        # a closed chain's model carries the actuated joints' names only: the recursive forms of that
        # "arm" would be another machine's; its closed forms are the equations (dynamics/closed_form.py)
        form = CodeForm.DERIVED
    if form is CodeForm.COMPACT:
        # numbers go into the model, not into the shared graph (a substitution there walks every path)
        built = model.numeric(values) if values else model
        if eq.form is Form.COMPACT and not values:  # the derivation's graphs are these forms: not twice
            tau, mass, gravity, bias = eq.tau, eq.mass_matrix, eq.gravity, eq.coriolis
        else:
            yield Progress("recursive form", 0.0, model.name)
            tau, mass, gravity, bias = yield from compact_job(built, token)
        method = "compact recursive forms (customized Newton-Euler, composite rigid bodies)"
    else:
        tau, mass, gravity, bias = eq.tau, eq.mass_matrix, eq.gravity, eq.coriolis
        method = eq.method.value
    if values and form is CodeForm.DERIVED:
        every = set().union(*(m.free_symbols for m in (tau, mass, gravity, bias)))
        subs = {s: sp.Float(values[s.name], 17) for s in every if s.name in values}
        tau, mass, gravity, bias = (_substitute(m, subs) for m in (tau, mass, gravity, bias))
    token.check()
    drive_tau = None
    if drives:
        dM, inertia, friction = symbolic_drive_terms(built)   # h keeps being tau(q, qd, 0) - G
        drive_tau = inertia + friction
        # (a graph not built, for functions not asked for, stays None)
        mass, tau, bias = (None if x is None else x + d for x, d in ((mass, dM), (tau, inertia + friction),
                                                                     (bias, friction)))
    method = "; ".join(filter(None, (method, drive_statement(model, drives))))
    joint_names = {s.name for s in (*model.q, *model.qd, *model.qdd)}
    names = set(built.symbol_names())
    if form is CodeForm.DERIVED:  # the compact forms use the model's symbols only (and walking them is slow)
        for mat in (tau, mass, gravity, bias):
            names |= {s.name for s in mat.free_symbols}
    names -= joint_names
    names -= set(values or ())
    ordered = sorted(names)
    index = {name: k for k, name in enumerate(ordered)}
    defaults = eq.model.parameter_values
    prefix = temp_prefix(names)
    funcs = []
    quantities = tuple((name, mat) for name, mat in zip(BASIC_FUNCTIONS, (tau, mass, gravity, bias))
                       if only is None or name in only)
    for k, (name, mat) in enumerate(quantities):
        yield Progress("common subexpressions", k / len(quantities), name)
        if name == "tau" and form is CodeForm.COMPACT:
            funcs.append(compact_tau_function(built, model, index, prefix, drive_tau, token))
        else:
            funcs.append(plan_function(name, mat, model, index, prefix, token=token))
    simplify = eq.simplify.value if form is CodeForm.DERIVED else "none"
    return CodePlan(comment_text(model.name), method, simplify, model.n,
                    tuple((name, defaults.get(name)) for name in ordered), tuple(funcs), prefix)


# -- a closed chain's compact form ------------------------------------------------------------------
# The code plan of a closed chain's compact form (:mod:`designer.dynamics.closed_compact`).
#
# Each function is the named steps its outputs read (closure, loop Jacobian, W_p, passive rates and
# accelerations, the tree's recursion, the projection), made temporaries, then CSE as for a serial arm.
# Inputs: the actuated q, qd, qdd (q1..q_na); the passive positions are computed in the code (a linear
# closure, a planar four-bar's two circles with the nominal pose's branch), except for a mechanism
# without a closed-form closure: its functions then take ``qp`` after ``q``, the passive joints'
# positions in the tree's order (a closed pose from a numeric solve of the loops, e.g.
# ``designer.kinematics.closure.Closure.solve``), and trust them (they are not checked).
# A pose where a four-bar cannot close (its bars do not reach) gives NaN through the square root.

#: what a closed chain's compact code has (the Coriolis matrix: codegen/compact_coriolis.py; the regressor:
#: dynamics/regressor_form.py)
CLOSED_COMPACT_FUNCTIONS = BASIC_FUNCTIONS + ("coriolis_matrix", "regressor")
_REGRESSOR_DOC = ("joint-torque regressor Y(q, qd, qdd), tau = Y pi with pi the 10 standard parameters per link of "
                  "the tree, every joint's link, passive ones too (m, mx, my, mz, XX, XY, XZ, YY, YZ, ZZ in link "
                  "frame j about its origin){drives}; row-major")
_CORIOLIS_DOC = "Coriolis matrix C(q, qd), h = C(q, qd) qd + friction, dM/dt - 2C skew-symmetric; row-major"


def closure_statement(cc: ClosedCompact) -> str:
    """How the code gets the passive positions (its header says it)."""
    if cc.closure == "input":
        names = ", ".join(s.name for s in cc.inputs)
        return (f"passive positions qp = ({names}) are inputs: a closed pose from a numeric solve of the loops "
                "(no closed-form closure)")
    if cc.closure == "four-bar":
        return ("passive positions from the four-bar's two circles (the nominal pose's branch; NaN where it "
                "cannot close)")
    return "passive positions from the linear closure"


def closed_compact_plan_job(eq: Equations, drives: bool = False, values: Mapping[str, float] | None = None,
                            token: CancelToken = NEVER, only: Collection[str] | None = None) -> Job[CodePlan]:
    """tau, M, G, h of ``eq`` (a closed chain's compact form) as a :class:`CodePlan`; ``values``: parameters
    written into the code as numbers (they leave ``p``)."""
    from ..dynamics.closed_compact import needed_steps, parameter_names
    from ..dynamics.recursive_form import Assignment
    from .compact_drives import COMPACT_DRIVES_STATEMENT, compact_drive_doc, compact_drive_terms
    cc = cast("ClosedCompact", eq.extras["closed_compact"])
    model = cc.carrier
    steps = [(a.symbol, a.value) for a in cc.steps]
    mats = dict(zip(BASIC_FUNCTIONS, (cc.tau, cc.mass_matrix, cc.gravity, cc.bias)))
    # the Coriolis matrix polarizes h's part quadratic in the rates (no friction: codegen/compact_coriolis.py)
    mats["coriolis_matrix"] = cc.bias
    if drives:   # every tree joint's drive data projected by W (codegen/compact_drives.py)
        dM, dtau, dh, rotor = compact_drive_terms(cc)
        added = {"tau": dtau, "mass_matrix": dM, "bias": dh, "coriolis_matrix": rotor}
        mats = {k: m if m is None or k not in added else m + added[k] for k, m in mats.items()}
    drive_doc = ""
    if only and "regressor" in only:   # W^T Y_tree over the same steps (dynamics/regressor_form.py)
        from ..dynamics.regressor_form import compact_regressor
        mats["regressor"] = compact_regressor(cc, drives, token)
        drive_doc = compact_drive_doc(cc) if drives else ""
    if values:
        every = graph_symbols([v for _, v in steps])
        subs = {s: sp.Float(values[s.name], 17) for s in every if s.name in values}
        steps = [(s, _substitute(sp.Matrix([v]), subs)[0]) for s, v in steps]
        every = graph_symbols([e for m in mats.values() if m is not None for e in m])
        subs.update({s: sp.Float(values[s.name], 17) for s in every if s.name in values})
        mats = {k: None if m is None else _substitute(m, subs) for k, m in mats.items()}
    names_read = set(parameter_names(cc))
    if "regressor" in mats:   # geometry only the regressor reads (a massless bar's length): more inputs
        defined = {s for s, _ in steps} | set(cc.inputs) | {*model.q, *model.qd, *model.qdd}
        names_read |= {s.name for s in graph_symbols(list(mats["regressor"])) if s not in defined}
    ordered = sorted(name for name in names_read if name not in (values or {}))
    names = set(ordered)
    index = {name: k for k, name in enumerate(ordered)}
    prefix = temp_prefix(names | {s.name for s, _ in steps})
    inputs = tuple((s, "qp", k) for k, s in enumerate(cc.inputs))
    chosen = [f for f in CLOSED_COMPACT_FUNCTIONS if f in (only or BASIC_FUNCTIONS)]
    funcs = []
    for k, name in enumerate(chosen):
        yield Progress("common subexpressions", k / len(chosen), name)
        mat = mats[name]
        if mat is None:
            raise ValueError(f"{name}: not built")
        pairs = steps
        if name == "coriolis_matrix":
            from .compact_coriolis import compact_coriolis
            more, mat = compact_coriolis(steps, mat, model.qd, token)
            pairs = steps + more
        need = needed_steps([Assignment(s, v, "", 0) for s, v in pairs], list(mat))
        template = {"coriolis_matrix": "bias", "regressor": "tau"}.get(name, name)
        func = plan_function(template, mat, model, index, prefix, steps=tuple(need), token=token, inputs=inputs)
        if name == "coriolis_matrix":
            func = replace(func, name=name, doc=_CORIOLIS_DOC)
        elif name == "regressor":
            func = replace(func, name=name, doc=_REGRESSOR_DOC.format(drives=drive_doc))
        funcs.append(func)
    defaults = eq.model.parameter_values
    method = "compact closed-chain form (the tree's recursive Newton-Euler projected by W); " + closure_statement(cc)
    if drives:
        method += "; " + COMPACT_DRIVES_STATEMENT
    elif cc.tree is not None and drive_statement(cc.tree, False):
        method += "; " + drive_statement(cc.tree, False)
    return CodePlan(comment_text(model.name), method, "none", model.n,
                    tuple((name, defaults.get(name)) for name in ordered), tuple(funcs), prefix)
