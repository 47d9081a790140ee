"""``python -m designer design-report PROJECT --out FILE``: the design report without the window.

The window's File > Export > Design report adds its figures (the 3D view, the coupling plots, the
simulation, the Explore map); this command writes the tables a designer hands on: the DH and parameter
tables and, for a closed chain, its tree, loops, M_a, G_a and the cut-joint forces at ``--q``
(report/tables.py closed_chain_tables). HTML, or PDF by the suffix of ``--out``.
"""

from __future__ import annotations

import re

from .common import UserError, load_model
from .ranges import FINITE


def register(sub) -> None:
    p = sub.add_parser("design-report", help="the design report (tables; a closed chain's M_a, G_a, cut-joint "
                                             "forces) as HTML or PDF")
    p.add_argument("project")
    p.add_argument("--out", required=True, metavar="FILE", help="FILE.html or FILE.pdf")
    p.add_argument("--q", nargs="+", metavar="Q",
                   help="the pose of a closed chain's numbers: every joint's value or the actuated joints' "
                        "(rad or m; default all zero)")
    p._negative_number_matcher = re.compile(r"^-[^-]")   # "-pi/2" is a joint value
    p.set_defaults(func=cmd_design_report)


def cmd_design_report(args) -> int:
    from ..model.mechanism import actuated_indices
    from ..report.design_report import write_design_report
    model = load_model(args.project)
    pose = None
    if args.q:
        sizes = {model.n, len(actuated_indices(model))}
        if len(args.q) not in sizes:
            raise UserError(f"--q: give {' or '.join(str(s) for s in sorted(sizes))} joint values, not {len(args.q)}")
        pose = [FINITE.parse(t, f"--q[{k}]") for k, t in enumerate(args.q, start=1)]
    review = None
    if model.requirements.items:   # the design review (designer/review), a section of the report
        from ..review import review as review_of
        review = [o.as_dict() for o in review_of(model, strict=False, project=args.project)]   # its catalogs: cost
    try:
        summary = write_design_report(args.out, model, [], None, None, pose, review)
    except OSError as exc:
        raise UserError(f"{args.out}: cannot write: {exc.strerror or exc}") from None
    print(summary)
    return 0
