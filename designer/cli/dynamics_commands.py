"""Commands that derive equations of motion: derive (reports) and codegen (C, Python, MATLAB)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from .common import UserError, load_model, write_output
from .derivation import add_budget_options, derive_closed
from .progress import add_quiet, job_bar

if TYPE_CHECKING:
    from ..dynamics.results import Equations, Form

_FORMATS = ("json", "latex", "markdown", "html")
# the values of dynamics.results' Method, SimplifyMode and Form, written out so that building the parser (--help)
# imports no sympy; tests/cli/test_startup.py holds them equal to the enums
METHODS = ("lagrange", "newton-euler", "dalembert")
SIMPLIFY_MODES = ("off", "fast", "full")
FORMS = ("auto", "closed", "compact")
#: codegen's default --time-limit, for the whole run (derivation, common subexpressions, writing): a 7-joint
#: arm's code takes seconds, a closed chain of 19 links' compact code minutes (docs/codegen.md)
CODEGEN_SECONDS = 300.0
_BY_SUFFIX = {".json": "json", ".tex": "latex", ".md": "markdown", ".markdown": "markdown", ".html": "html",
              ".htm": "html"}


def register(sub) -> None:
    methods = list(METHODS)
    p = sub.add_parser("derive", help="derive the equations of motion and write them as JSON, LaTeX, Markdown "
                                      "or HTML")
    p.add_argument("project")
    p.add_argument("--method", choices=methods, default="lagrange",
                   help="lagrange: M, B, C, G; newton-euler: tau; dalembert: D, H, G (default lagrange)")
    p.add_argument("--simplify", choices=SIMPLIFY_MODES, default="fast",
                   help="simplification (default fast)")
    p.add_argument("--form", choices=FORMS, default="auto",
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
    p.add_argument("--method", choices=methods, default="lagrange",
                   help="derivation used with --form derived (default lagrange)")
    p.add_argument("--simplify", choices=SIMPLIFY_MODES, default="fast")
    add_budget_options(p, time_help=f"give up when the code is not written within this many seconds in all "
                                    f"(default {CODEGEN_SECONDS:g}; 0: no limit); a closed chain's closed form is "
                                    f"tried for at most 30 s of them (then its compact form), except with --form "
                                    f"derived, which may take them all")
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


def _derive(args, progress) -> Equations:
    """The equations ``--form`` asks for, a serial arm's or a closed chain's (dynamics.derive decides)."""
    from ..dynamics.results import Form
    model = load_model(args.project)
    form = getattr(args, "form", Form.AUTO.value)
    form = Form(Form.CLOSED.value if form == "derived" else form)  # codegen --form derived: the closed forms
    return _derived(args, form, lambda: derive_closed(args, model, progress, form, getattr(args, "deadline", None)))


def _compact(args, progress) -> Equations:
    """What ``codegen`` writes by default (dynamics.engine.code_equations_job): a serial arm's compact
    recursive graphs alone (no report), a closed chain's closed form where its loops close linearly, else
    its compact form; ``--form compact`` given: the compact form."""
    from ..codegen.files import graphs_for
    from ..dynamics.engine import AUTO_LIMIT, code_equations_job
    from ..dynamics.results import Form, Method, SimplifyMode
    from ..jobs import NEVER, run

    model = load_model(args.project)
    need = graphs_for(getattr(args, "only", None))  # codegen --functions: only the graphs those read
    form = Form.COMPACT if getattr(args, "compact_asked", False) else None
    deadline = getattr(args, "deadline", None)   # codegen's --time-limit, for the whole run
    return _derived(args, form, lambda: run(code_equations_job(
        model, Method(args.method), SimplifyMode(args.simplify), form, need, token=deadline or NEVER,
        max_terms=getattr(args, "max_terms", None) or AUTO_LIMIT), progress, deadline))


def _derived(args, form: Form | None, make: Callable[[], Equations]) -> Equations:
    """``make()``, a failed derivation as one line naming the project."""
    from ..dynamics.results import Form
    from ..errors import DesignerError
    from ..model import MissingParameterError
    try:
        return make()
    except UserError:
        raise
    except (DesignerError, MissingParameterError, ValueError, ArithmeticError) as exc:
        hint = "; use --form compact" if form is Form.CLOSED else ""
        text = str(exc).replace("; show the recursive form instead?", "")
        raise UserError(f"{args.project}: cannot derive the equations: {text}{hint}") from None


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
            from ..report.writing import with_elastic_section
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
        return with_base_parameters(text, fmt, model, base_parameters(model))
    except (MissingParameterError, ValueError, ClosureError) as exc:
        raise UserError(f"{where}: cannot find the base parameters: {exc}") from None


def cmd_codegen(args) -> int:
    """``codegen`` within its --time-limit (:data:`CODEGEN_SECONDS` by default): the derivation and the common
    subexpressions check it in their loops; on expiry one line says where it stopped and what to ask for instead,
    and nothing is written (the files are written at the end)."""
    from ..dynamics.size import Deadline
    from ..jobs import Cancelled
    from .control_commands import codegen_control

    args.compact_asked = args.form == "compact"   # a closed chain's compact form, asked for by name
    args.form = args.form or "compact"
    seconds = CODEGEN_SECONDS if args.time_limit is None else args.time_limit
    args.deadline = Deadline(seconds=None if seconds == 0 else seconds)
    with job_bar(args.quiet, desc="codegen") as bar:
        progress = _Reached(bar)
        try:
            return codegen_control(args, _compact if args.form == "compact" else _derive, progress)
        except Cancelled:
            if not args.deadline.expired:
                raise
    raise UserError(f"{args.project}: codegen did not finish within {seconds:g} s (--time-limit; stopped at "
                    f"{progress.where()}): the mechanism is too large for code in this form; "
                    + _instead(args)) from None


class _Reached:
    """A progress callback that remembers the last step (where a time limit stopped the run)."""

    def __init__(self, feed: Callable):
        self.feed, self.last = feed, None

    def __call__(self, step) -> None:
        self.last = step
        self.feed(step)

    def done(self) -> None:
        """Nothing to finish (the bar goes with its ``with`` block)."""

    def where(self) -> str:
        step = self.last
        return ", ".join(t for t in (step.stage, step.detail) if t) if step is not None else "the start"


def _instead(args) -> str:
    """What to ask for when codegen runs out of time: a smaller job, or the numeric engine."""
    ways = []
    # --form compact helps where the closed form was asked for (--form derived) or is a closed chain's default and
    # was being derived or written; not where the compact form is what ran out (a serial arm's default, a closed
    # chain's after its closed form gave way)
    closed_default = not args.compact_asked and getattr(args, "derived_form", None) != "compact" \
        and not load_model(args.project).is_serial
    if args.form == "derived" or closed_default:
        ways.append("--form compact (a closed chain's recursive form)")
    if not getattr(args, "functions", None):
        ways.append("--functions tau,M,G,h (no Coriolis matrix or regressor)")
    ways.append("the numeric engine ('eval', 'torques', 'simulate') for numbers")
    return "try " + ", or ".join(ways) + "; or --time-limit 0 to wait without limit"
