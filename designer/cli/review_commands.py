"""``python -m designer review PROJECT [--format table|json]``: the design review (docs/project-format.md,
"Requirements, version 4").

Every requirement of the project with its value, the bound, the margin, pass or fail and where it is worst
(pose, time, joint). Exit status 0 when every requirement passes, 1 when one fails (so it can gate a design in
CI), 2 on a bad input (a bad project, a requirement that cannot be evaluated: one line naming it).
"""

from __future__ import annotations

import json
import math

from .common import UserError, load_model, write_output


def register(sub) -> None:
    p = sub.add_parser("review", help="the design review: every requirement of the project with its value, bound, "
                                      "margin, pass/fail and where it is worst (exit 1 when one fails)")
    p.add_argument("project")
    p.add_argument("--format", choices=("table", "json"), default="table", help="a table (default) or JSON")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(func=cmd_review)


def review_table(outcomes) -> str:
    """The review as a plain-text table (the design report's rows: report/review_section.py)."""
    from ..report.review_section import REVIEW_HEADER, review_notes, review_rows, review_summary
    data = [o.as_dict() for o in outcomes]
    rows = review_rows(data)
    widths = [max(len(x) for x in col) for col in zip(REVIEW_HEADER, *rows)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in [REVIEW_HEADER, *rows]]
    return "\n".join(lines + [review_summary(data)] + review_notes(data)) + "\n"


def cmd_review(args) -> int:
    from ..review import ReviewError, review
    model = load_model(args.project, closed=True)
    if not model.requirements.items:
        raise UserError(f"{args.project}: the project has no requirements (docs/project-format.md, "
                        "\"Requirements, version 4\")")
    from ..catalog import CatalogError, load_catalog
    try:
        catalog = load_catalog(args.project)   # the bundled catalogs and those beside the project: prices for cost
    except CatalogError as exc:
        raise UserError(f"{args.project}: {exc}") from None
    try:
        outcomes = review(model, catalog=catalog)
    except ReviewError as exc:
        raise UserError(f"{args.project}: {exc}") from None
    if args.format == "json":
        text = json.dumps({"project": args.project, "passed": all(o.passed for o in outcomes),
                           "requirements": [_finite(o.as_dict()) for o in outcomes]}, indent=2) + "\n"
    else:
        text = review_table(outcomes)
    write_output(text, args.out)
    return 0 if all(o.passed for o in outcomes) else 1


def _finite(d):
    """JSON has no inf or NaN: they are written as null (a margin of -inf: a value that is not finite)."""
    if isinstance(d, dict):
        return {k: _finite(v) for k, v in d.items()}
    if isinstance(d, list):
        return [_finite(v) for v in d]
    if isinstance(d, float) and not math.isfinite(d):
        return None
    return d
