"""The equations as a Markdown document: tables for the arm, ``$$`` display math for the entries.

Inline math is ``$...$`` and display math ``$$...$$`` with an ``aligned``
block for long entries, which GitHub, GitLab, pandoc and most editors render.
"""

from __future__ import annotations

from ..dynamics.results import Equations
from ..model.expr import symbol
from ..model.manipulator import Convention
from .document import METHOD_TITLE, SIMPLIFY_TEXT, form_latex, sections, vector_definitions_latex
from .latex_report import continuation, entry_latex_lines
from ..dynamics.closed_nonlinear import NUMERIC_CLOSURE
from .loop_section import LOOP_INTRO, loop_items
from .printing import to_latex
from .tables import dh_rows, inertia_cells, mass_rows, parameter_rows

__all__ = ["render_markdown"]


def _esc(text: str) -> str:
    """Plain text safe in Markdown paragraphs and table cells."""
    for ch in "\\`*_[]<>|#":
        text = text.replace(ch, "\\" + ch)
    return text


def _m(expr) -> str:
    return "$" + to_latex(expr).replace("|", r"\vert ") + "$"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out + [""]


def _inertia(entries) -> str:
    kind, cells = inertia_cells(entries)
    if kind == "zero":
        return "0"
    if kind == "diag":
        return "$\\mathrm{diag}(" + ", ".join(to_latex(c) for c in cells) + ")$"
    names = ("xx", "yy", "zz", "xy", "xz", "yz")
    return ", ".join(f"{k}: {_m(c)}" for k, c in zip(names, cells))


def _arm(eq: Equations) -> list[str]:
    model = eq.model
    modified = model.convention is Convention.MODIFIED
    conv = ("modified (Craig): frame *i* at joint *i*; row *i* holds $a_{i-1}$ and $\\alpha_{i-1}$"
            if modified else "standard: frame *i* at the distal end of link *i*")
    a, alpha = ("$a_{i-1}$", "$\\alpha_{i-1}$") if modified else ("$a_i$", "$\\alpha_i$")
    out = ["## The arm", "", f"{model.n} links, Denavit-Hartenberg convention {conv}.", "",
           "### Denavit-Hartenberg parameters", ""]
    out += _table(["*i*", "link", "joint", a, alpha, "$d_i$", "$\\theta_i$"],
                  [[str(r.index), _esc(r.name), "revolute" if r.joint == "R" else "prismatic",
                    _m(r.a), _m(r.alpha), _m(r.d), _m(r.theta)] for r in dh_rows(model)])
    out += ["### Masses", "", "Centre of mass and inertia about it, in the axes of link frame *i*.", ""]
    out += _table(["*i*", "mass", "centre of mass", "inertia"],
                  [[str(r.index), _m(r.mass), "$(" + ", ".join(to_latex(c) for c in r.com) + ")$",
                    _inertia(r.inertia)] for r in mass_rows(model)])
    if model.point_masses:
        out += ["### Point masses", ""]
        out += [f"- {_m(p.mass)} on link {p.link} at $(" + ", ".join(to_latex(c) for c in p.position) + ")$"
                for p in model.point_masses]
        out.append("")
    out += ["### Gravity", "", "Gravitational acceleration in the base frame: $("
            + ", ".join(to_latex(g) for g in model.gravity_frame0) + ")^T$", ""]
    params = parameter_rows(model)
    if params:
        out += ["### Parameters", ""]
        out += _table(["symbol", "name", "default value"],
                      [[_m(symbol(name)), f"`{name}`", f"{value:g}" if value is not None else "symbolic"]
                       for name, value in params])
    return out


def _display(label: str, lines: list[str]) -> list[str]:
    if len(lines) == 1:
        return ["$$", f"{label} = {lines[0]}", "$$", ""]
    rows = [f"{label} &= {lines[0]}"] + [continuation(line) for line in lines[1:]]
    return ["$$", r"\begin{aligned}", " \\\\\n".join(rows), r"\end{aligned}", "$$", ""]


def _loops(eq: Equations) -> list[str]:
    items = loop_items(eq)
    if not items:
        return []
    out = ["## Loop quantities", "", _esc(LOOP_INTRO), ""]
    for sym, value, kind in items:
        if value is None:
            out += [f"{_m(sym)} ({kind}): {NUMERIC_CLOSURE}.", ""]
        else:
            out += [f"*{kind}*", ""] + _display(to_latex(sym), entry_latex_lines(value))
    return out


def render_markdown(eq: Equations, title: str | None = None) -> str:
    """A Markdown document of the equations of ``eq``."""
    model = eq.model
    title = title or f"Equations of motion: {model.name or 'unnamed arm'}"
    secs = sections(eq)
    out = [f"# {_esc(title)}", "",
           f"*{METHOD_TITLE.get(eq.method, eq.method.value)}; "
           f"{SIMPLIFY_TEXT.get(eq.simplify.value, eq.simplify.value)}. Made by Manipulator Designer.*", ""]
    if model.description:
        out += [_esc(model.description), ""]
    out += _arm(eq)
    out += _loops(eq)
    out += ["## Equations of motion", "", "$$", form_latex(eq), "$$", ""]
    defs = vector_definitions_latex(eq)
    if defs:
        out += ["$$", r"\begin{aligned}", " \\\\\n".join(defs), r"\end{aligned}", "$$", ""]
    out += ["Joint positions $q_i$, velocities $\\dot{q}_i$, accelerations $\\ddot{q}_i$.", ""]
    out += _table(["matrix", "size", "non-zero entries", "operations"],
                  [[f"${s.info.latex}$", f"{s.shape[0]} × {s.shape[1]}", str(len(s.shown) + len(s.mirrors)),
                    str(s.ops)] for s in secs])
    out += ["Operations: `sympy.count_ops` of the distinct entries, before common-subexpression elimination. "
            "Numbers are shown to 6 significant digits (the JSON export keeps full precision).", ""]
    for sec in secs:
        out += [f"### ${sec.info.latex}$: {_esc(sec.info.description)}", "",
                f"Size {sec.shape[0]} × {sec.shape[1]}." + (" Symmetric." if sec.info.symmetric else ""), ""]
        for entry in sec.shown:
            out += _display(entry.latex_label, entry_latex_lines(entry.expr))
        if sec.mirrors:
            out += ["By symmetry: " + ", ".join(f"${e.latex_label} = {p.latex_label}$" for e, p in sec.mirrors)
                    + ".", ""]
        if sec.zeros:
            out += (["Zero: " + ", ".join(f"${e.latex_label}$" for e in sec.zeros) + ".", ""]
                    if sec.shown or sec.mirrors else ["All entries are zero.", ""])
    return "\n".join(out)
