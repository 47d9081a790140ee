"""How the command line derives a closed form: the budget options (--max-terms, --time-limit) and the one call
of dynamics.derive they lead to, shared by derive, codegen, eval and torques."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .common import UserError
from .ranges import MAX_TERMS, TIME_LIMIT

if TYPE_CHECKING:
    from ..dynamics.results import Equations, Form


def add_budget_options(p, time_help: str | None = None) -> None:
    """--max-terms and --time-limit: when a closed form is derived at all (derive, eval, torques); ``time_help``:
    the --time-limit a command means otherwise (codegen: its whole run)."""
    p.add_argument("--max-terms", type=MAX_TERMS, default=None, metavar="N",
                   help="largest estimated term count of an expanded tau_i to derive in closed form "
                        "(default 1e9: the estimate is an upper bound, 10 to 1000 times the true count)")
    p.add_argument("--time-limit", type=TIME_LIMIT, default=None, metavar="SECONDS",
                   help=time_help or "give up a closed form that takes longer (default: 30 for --form auto, "
                                     "which then gives the recursive form; none for --form closed; 0: no limit)")


def derive_closed(args, model, progress, form: Form, token=None) -> Equations:
    """The derivation ``--method``, ``--simplify``, ``--max-terms`` and ``--time-limit`` ask for
    (a UserError saying which limit stopped a closed form and how to raise it); ``token``: a deadline of the
    whole command (codegen's), which then bounds the derivation instead of ``--time-limit``."""
    from ..dynamics.results import Method, SimplifyMode
    from ..dynamics import derive  # imported here: the CLI starts fast for other commands

    from ..dynamics.engine import AUTO_LIMIT
    from ..dynamics.size import ClosedFormTooSlow, ExpansionTooLarge

    limit = getattr(args, "max_terms", None) or AUTO_LIMIT
    seconds = getattr(args, "time_limit", None) if token is None else None   # None: the form's default (derive_job)
    seconds = math.inf if seconds == 0 else seconds
    try:
        return derive(model, Method(args.method), SimplifyMode(args.simplify), progress, token=token, form=form,
                      max_terms=limit, time_limit=seconds)
    except ExpansionTooLarge as exc:
        raise UserError(f"{args.project}: {exc.args[0].replace('; show the recursive form instead?', '')}; "
                        f"use --form compact for the recursive form, or --max-terms to raise the limit") from None
    except ClosedFormTooSlow as exc:
        raise UserError(f"{args.project}: {exc.args[0].replace('; show the recursive form instead?', '')}; "
                        f"use --form compact for the recursive form, or --time-limit to wait longer") from None
