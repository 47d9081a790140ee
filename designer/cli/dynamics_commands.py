"""Commands that derive equations of motion: derive (reports) and codegen (C, Python, MATLAB)."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import cast

from ..dynamics.results import Equations, Form, Method, SimplifyMode
from .common import UserError, load_model, write_output
from .progress import add_quiet, job_bar

_FORMATS = ("json", "latex", "markdown", "html")
_BY_SUFFIX = {".json": "json", ".tex": "latex", ".md": "markdown", ".markdown": "markdown", ".html": "html",
              ".htm": "html"}


def register(sub) -> None:
    methods = [m.value for m in Method]
    p = sub.add_parser("derive", help="derive the equations of motion and write them as JSON, LaTeX, Markdown "
                                      "or HTML")
    p.add_argument("project")
    p.add_argument("--method", choices=methods, default=Method.LAGRANGE.value,
                   help="lagrange: M, B, C, G; newton-euler: tau; dalembert: D, H, G (default lagrange)")
    p.add_argument("--simplify", choices=[s.value for s in SimplifyMode], default=SimplifyMode.FAST.value,
                   help="simplification (default fast)")
    p.add_argument("--form", choices=[f.value for f in Form], default=Form.AUTO.value,
                   help="closed: expanded matrices of --method; compact: the recursive form (named "
                        "intermediate variables per link, any arm in about a second); auto (default): closed "
                        "when the expanded tau is estimated within --max-terms terms and the expansion finishes "
                        "within --time-limit seconds, else compact")
    add_budget_options(p)
    p.add_argument("--format", choices=_FORMATS, default=None,
                   help="output format (default: from the --out suffix, else json; an unknown suffix is refused)")
    p.add_argument("--base-parameters", action="store_true",
                   help="add a section on the base inertial parameters: each as its grouping formula of the "
                        "standard ones, and the dropped (unidentifiable) parameters")
    p.add_argument("--elastic", action="store_true",
                   help="add the elastic-joint coupling terms (springs, motor equations) from the drive data's "
                        "stiffness (docs/elastic.md)")
    p.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    add_quiet(p)
    p.set_defaults(func=cmd_derive)

    p = sub.add_parser("codegen", help="generate C, Python or MATLAB code for tau, M, G, the bias h, the Coriolis "
                                       "matrix and the regressor (common subexpressions eliminated)")
    p.add_argument("project")
    p.add_argument("--lang", choices=["c", "python", "matlab"], required=True,
                   help="c: a .c source and a .h header (with --out X.c, X.h next to it); python: a numpy module; "
                        "matlab: one .m function per quantity, vectorised over columns (--out DIRECTORY)")
    p.add_argument("--parameters", choices=["standard", "base"], default="standard",
                   help="base: tau, M, G with the base inertial parameters as inputs (see 'regressor --base')")
    p.add_argument("--header", metavar="FILE", help="C: write the header here")
    p.add_argument("--form", choices=["compact", "derived"], default=None,
                   help="compact (default): recursive customized Newton-Euler and composite-rigid-body forms, "
                        "fewest operations (PUMA 560: tau 707, M 433 after CSE); derived: the expressions of "
                        "--method with --simplify. A closed chain: its closed form by default where its loops "
                        "close linearly, else (and with --form compact) the tree's recursion and the projection")
    # with --form derived, lagrange by default: on the PUMA 560 its tau needs 3318 operations, newton-euler's 5152
    p.add_argument("--method", choices=methods, default=Method.LAGRANGE.value,
                   help="derivation used with --form derived (default lagrange)")
    p.add_argument("--simplify", choices=[s.value for s in SimplifyMode], default=SimplifyMode.FAST.value)
    add_budget_options(p)   # for --form derived
    p.add_argument("--prefix", help="C function name prefix (default: from the model name)")
    p.add_argument("--drives", action="store_true",
                   help="add the project's drive terms: N^2 Jm on the diagonal of M, N^2 Jm qdd and viscous and "
                        "Coulomb friction in tau (default: rigid bodies only; the header says which)")
    p.add_argument("--elastic", action="store_true",
                   help="also the elastic-joint forward dynamics (elastic_forward) from the drive data's stiffness "
                        "(C or Python; docs/elastic.md)")
    p.add_argument("--functions", metavar="LIST",
                   help="only these, comma-separated: tau, mass_matrix (M), gravity (G), bias (h), "
                        "coriolis_matrix (C), regressor (Y); default all")
    p.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    add_quiet(p)
    p.set_defaults(func=cmd_codegen)


def add_budget_options(p) -> None:
    """--max-terms and --time-limit: when a closed form is derived at all (derive, eval, torques)."""
    p.add_argument("--max-terms", type=int, default=None, metavar="N",
                   help="largest estimated term count of an expanded tau_i to derive in closed form "
                        "(default 1e9: the estimate is an upper bound, 10 to 1000 times the true count)")
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="give up a closed form that takes longer (default: 30 for --form auto, which then gives "
                        "the recursive form; none for --form closed; 0: no limit)")


def derive_closed(args, model, progress, form: Form) -> Equations:
    """The derivation ``--method``, ``--simplify``, ``--max-terms`` and ``--time-limit`` ask for
    (a UserError saying which limit stopped a closed form and how to raise it)."""
    from ..dynamics import derive  # imported here: the CLI starts fast for other commands

    from ..dynamics.engine import AUTO_LIMIT
    from ..dynamics.size import ClosedFormTooSlow, ExpansionTooLarge

    limit = getattr(args, "max_terms", None) or AUTO_LIMIT
    seconds = getattr(args, "time_limit", None)   # None: the form's default (derive_job)
    seconds = math.inf if seconds == 0 else seconds
    try:
        return derive(model, Method(args.method), SimplifyMode(args.simplify), progress, form=form,
                      max_terms=limit, time_limit=seconds)
    except ExpansionTooLarge as exc:
        raise UserError(f"{args.project}: {exc.args[0].replace('; show the recursive form instead?', '')}; "
                        f"use --form compact for the recursive form, or --max-terms to raise the limit") from None
    except ClosedFormTooSlow as exc:
        raise UserError(f"{args.project}: {exc.args[0].replace('; show the recursive form instead?', '')}; "
                        f"use --form compact for the recursive form, or --time-limit to wait longer") from None


def _derive(args, progress) -> Equations:
    model = load_model(args.project, closed=True)
    if not model.is_serial:
        return _closed_derive(args, model, progress)
    form = getattr(args, "form", Form.AUTO.value)
    form = Form.CLOSED.value if form == "derived" else form  # codegen --form derived: the closed forms
    try:
        return derive_closed(args, model, progress, Form(form))
    except (ValueError, ArithmeticError) as exc:
        raise UserError(f"{args.project}: cannot derive the equations: {exc}") from None


def _compact(args, progress) -> Equations:
    """The compact recursive graphs alone, for ``codegen --form compact`` (no report, no closed form)."""
    from ..dynamics.engine import compact_equations_job
    from ..jobs import run

    model = load_model(args.project, closed=True)
    if not model.is_serial:   # code generation: the closed forms are what a closed chain has
        return _closed_derive(args, model, progress, codegen=True)
    from ..codegen.files import graphs_for
    need = graphs_for(getattr(args, "only", None))  # codegen --functions: only the graphs those read
    try:
        return run(compact_equations_job(model, Method(args.method), need=need), progress)
    except (ValueError, ArithmeticError) as exc:
        raise UserError(f"{args.project}: cannot derive the equations: {exc}") from None


def _closed_derive(args, model, progress, codegen: bool = False) -> Equations:
    """A closed chain's equations in the actuated coordinates (dynamics/engine.py closed_chain_job): the
    closed form (--form closed, auto: of a linear closure, or in named loop quantities for a four-bar or
    a general loop), the compact form with the projection as steps (--form compact; auto when the closed
    form does not finish within --time-limit). Code generation: the closed form of a linear closure,
    else the compact form."""
    from ..dynamics.engine import closed_chain_job
    from ..errors import DesignerError
    from ..jobs import NEVER, run
    from ..model import MissingParameterError
    form = getattr(args, "form", Form.AUTO.value)
    if codegen:   # codegen --form compact given: the compact form even where a closed form exists
        form = Form.COMPACT if getattr(args, "compact_asked", False) else Form.AUTO
    else:
        form = Form(Form.CLOSED.value if form == "derived" else form)
    try:
        seconds = getattr(args, "time_limit", None)
        eq = run(closed_chain_job(model, Method(args.method), SimplifyMode(args.simplify), NEVER, form,
                                  nonlinear=not codegen, time_limit=math.inf if seconds == 0 else seconds,
                                  max_terms=getattr(args, "max_terms", None)), progress)
    except (DesignerError, MissingParameterError, ValueError, ArithmeticError) as exc:
        hint = "; use --form compact" if form is Form.CLOSED else ""
        text = str(exc).replace("; show the recursive form instead?", "")
        raise UserError(f"{args.project}: cannot derive the equations: {text}{hint}") from None
    return eq


def cmd_derive(args) -> int:
    from ..jobs import Progress
    from ..report import render

    fmt = args.format
    if fmt is None and args.out and Path(args.out).suffix.lower() not in _BY_SUFFIX:
        # writing JSON into report.pdf or eqs.txt would only be found out when the file is opened
        suffix = Path(args.out).suffix
        raise UserError(f"--out {args.out}: " + (f"unknown suffix '{suffix}'" if suffix else "no suffix")
                        + f" (known: {', '.join(_BY_SUFFIX)}); or choose the format with --format")
    if fmt is None:
        fmt = _BY_SUFFIX[Path(args.out).suffix.lower()] if args.out else "json"
    with job_bar(args.quiet, desc="derive") as progress:
        eq = _derive(args, progress)
        _note_fallback(eq)
        progress(Progress(f"writing {fmt}"))  # seconds for a six-link arm
        text = render(eq, fmt)
        if args.base_parameters:
            progress(Progress("base parameters"))
            closed = cast("dict | None", eq.extras.get("closed_chain"))   # its tree, not the actuated carrier
            text = _with_base_parameters(text, fmt, closed["mechanism"] if closed else eq.model, args.project)
        if args.elastic:
            from ..dynamics.elastic import with_elastic_section
            try:
                text = with_elastic_section(text, eq.model, fmt)
            except ValueError as exc:
                raise UserError(f"{args.project}: derive --elastic: {exc}") from None
    write_output(text, args.out)
    return 0


def _note_fallback(eq: Equations) -> None:
    """Say on standard error why --form auto gave the recursive form (the output says which form)."""
    too_large, too_slow = eq.extras.get("too_large"), eq.extras.get("too_slow")
    if eq.extras.get("no_closed_form"):
        why = f"no closed form ({eq.extras['no_closed_form']})"
    elif too_large:
        entry, terms, limit = cast("tuple[str, int, int]", too_large)
        why = f"the expanded {entry} has about {terms:.2g} terms (--max-terms {limit:,})"
    elif too_slow:
        seconds, stage = cast("tuple[float, str]", too_slow)
        why = f"the closed form did not finish within {seconds:g} s (--time-limit; it had reached {stage})"
    else:
        return
    sys.stderr.write(f"note: {why}: the recursive form is given instead\n")


def _with_base_parameters(text: str, fmt: str, model, where: str) -> str:
    from ..identification.base_params import base_parameters
    from ..model import MissingParameterError
    from ..report.identification import with_base_parameters
    from ..kinematics.closure import ClosureError
    try:
        if not model.is_serial:
            from ..identification.closed_base import closed_base_parameter_set
            return with_base_parameters(text, fmt, model, closed_base_parameter_set(model))
        return with_base_parameters(text, fmt, model, base_parameters(model))
    except (MissingParameterError, ValueError, ClosureError) as exc:
        raise UserError(f"{where}: cannot find the base parameters: {exc}") from None


def cmd_codegen(args) -> int:
    from .control_commands import codegen_control

    args.compact_asked = args.form == "compact"   # a closed chain's compact form, asked for by name
    args.form = args.form or "compact"
    with job_bar(args.quiet, desc="codegen") as progress:
        return codegen_control(args, _compact if args.form == "compact" else _derive, progress)
