"""The recursive form as a report (``derive --form compact``): named assignments per link, in the
order they evaluate, as OpenSYMORO prints the customized Newton-Euler algorithm.

A 7-joint arm gives about 190 short lines: a few pages, where its expanded closed form would
run to millions of terms.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import cast
import json

import sympy as sp

from ..dynamics.recursive_form import KINDS, RecursiveForm
from ..dynamics.results import Equations
from .printing import for_display, to_latex, to_text

__all__ = ["render_recursive"]


def _groups(rf: RecursiveForm) -> list[tuple[str, list]]:
    """[(heading, assignments)] forward pass by link, then backward pass by link."""
    forward = {"w", "wd", "vd", "U", "F", "N"}
    out: list = []
    for label, kinds in (("forward", forward), ("backward", set(KINDS) - forward)):
        links: dict = {}
        for a in rf.assignments:
            if a.kind in kinds:
                links.setdefault(a.link, []).append(a)
        order = sorted(links) if label == "forward" else sorted(links, reverse=True)
        out += [(f"Link {j} ({label} pass)", links[j]) for j in order]
    return out


#: a closed chain's projection steps (dynamics/closed_compact.py): the heading of each run of them
_CLOSED_HEADINGS = {"T0": "Link frames in frame 0, passive joints at 0", "qp": "Loop closure: passive positions",
                    "T": "Link frames in frame 0",
                    "J": "Loop Jacobian (independent rows) and the LU factors of J_p",
                    "W": "W_p = d q_p / d q_a = -J_p^-1 J_a", "qdp": "Passive rates qd_p = W_p qd_a",
                    "V": "Link velocities and accelerations at zero joint accelerations (frame 0)",
                    "Jd": "Rate term J' qd", "qddp": "Passive accelerations qdd_p = W_p qdd_a + b"}


def _closed_groups(rf: RecursiveForm) -> list[tuple[str, list]]:
    """A closed chain's steps: the projection's runs in evaluation order, then the tree's recursion by link."""
    out: list = []
    for a in rf.assignments:
        if a.kind not in _CLOSED_HEADINGS:
            continue
        heading = _CLOSED_HEADINGS[a.kind]
        if out and out[-1][0] == heading:
            out[-1][1].append(a)
        else:
            out.append((heading, [a]))
    tree = replace(rf, assignments=tuple(a for a in rf.assignments if a.kind not in _CLOSED_HEADINGS))
    return out + _groups(tree)


def _parameters(eq: Equations) -> list[str]:
    from ..dynamics.closed_compact import ClosedCompact, parameter_names
    return parameter_names(cast(ClosedCompact, eq.extras["closed_compact"]))


def _short(expr) -> str:
    """Text with floats to six significant digits (the JSON keeps them all)."""
    expr = for_display(expr)
    floats = expr.atoms(sp.Float)
    expr = expr.xreplace({f: sp.Float(f"{float(f):.6g}", 15) for f in floats}) if floats else expr
    return to_text(expr, ordered=False)


def _legend(rf: RecursiveForm, closed: bool = False) -> list[tuple[str, str]]:
    if not closed:
        return list(KINDS.items())
    from ..dynamics.closed_compact import CLOSED_KINDS
    tree = dict(KINDS, f="force on link j from its parent", n="moment on link j from its parent",
                tau="torque (revolute) or force (prismatic) of the tree's joint j (named taut)")
    present = {a.kind for a in rf.assignments}
    return [(k, v) for k, v in (*CLOSED_KINDS.items(), *tree.items()) if k in present]


def render_recursive(eq: Equations, fmt: str, title: str | None = None) -> str:
    """``eq``'s recursive form (``eq.extras["recursive"]``) as json, latex, markdown or html."""
    rf = cast(RecursiveForm, eq.extras["recursive"])
    model = eq.model
    title = title or f"Equations of motion (recursive form): {model.name or 'arm'}"
    notes = list(cast("Iterable[str]", eq.extras.get("angles_read", ())))
    closed = "closed_compact" in eq.extras
    groups = _closed_groups(rf) if closed else _groups(rf)
    legend = _legend(rf, closed)
    if fmt == "json":
        doc = {"format": "manipulator-designer-equations", "form": "compact", "model": model.name,
               "method": eq.method.value, "n": model.n, "convention": model.convention.value,
               "angles_read": notes, "legend": dict(legend),
               "assignments": [{"name": a.symbol.name, "value": to_text(a.value, ordered=False), "kind": a.kind,
                                "link": a.link} for a in rf.assignments],
               "tau": [to_text(t) for t in rf.tau],
               "symbols": {"q": [s.name for s in model.q], "qd": [s.name for s in model.qd],
                           "qdd": [s.name for s in model.qdd],
                           "parameters": _parameters(eq) if closed else model.symbol_names()}}
        return json.dumps(doc, indent=1) + "\n"
    intro = ("Customized recursive Newton-Euler algorithm in joint frames; every line uses only "
             "joint variables, parameters and names defined above it.")
    if closed:
        intro = ("Closed chain: the loop closure and the projection onto the actuated joints q1.."
                 f"q{model.n}, then the customized recursive Newton-Euler algorithm on the spanning tree "
                 "(passive joints qp<i>, qdp<i>, qddp<i> with the tree's index i; the tree's torques taut<j>); "
                 "every line uses only joint variables, parameters and names defined above it.")
    from .document import Block, Bullets, Code, Document, Formulas, Heading, Para
    from .writing import write
    blocks: list[Block] = [Para((intro,)), *([Bullets(tuple((n,) for n in notes))] if notes else []),
                           Bullets(tuple((Code(k), f": {v}") for k, v in legend))]
    for heading, items in groups:   # as the right sides name them
        blocks += [Heading(2, (heading,), numbered=False),
                   Formulas((), tuple((a.symbol.name, to_latex(a.symbol), a.value, _short(a.value), "")
                                      for a in items))]
    blocks += [Heading(2, ("Joint torques",), numbered=False),
               Formulas((), tuple((f"tau{j}", rf"\tau_{{{j}}}", t, to_text(t), "")
                                  for j, t in enumerate(rf.tau, start=1)))]
    return write(Document(title, "", "", "", tuple(blocks)), fmt)
