"""The equations as a complete LaTeX document (article class, amsmath; a basic TeX install compiles it).

Long entries are broken into aligned lines by :mod:`designer.report.layout`,
so no line-breaking package (breqn) is needed.
"""

from __future__ import annotations

from ..dynamics.results import Equations
from ..model.expr import symbol
from ..model.manipulator import Convention
from .document import METHOD_TITLE, SIMPLIFY_TEXT, MatrixSection, form_latex, sections, vector_definitions_latex
from .layout import DEFAULT_WIDTH, break_lines, render_lines
from ..dynamics.closed_nonlinear import NUMERIC_CLOSURE
from .loop_section import LOOP_INTRO, loop_items
from .printing import latex_escape, to_latex
from .tables import dh_rows, inertia_cells, mass_rows, parameter_rows

__all__ = ["render_latex", "entry_latex_lines"]

PREAMBLE = r"""\documentclass[a4paper,11pt]{article}
\usepackage{amsmath,amssymb}
\usepackage[margin=2cm]{geometry}
\usepackage{longtable}
\allowdisplaybreaks
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.5ex}
"""


def _m(expr) -> str:
    return "$" + to_latex(expr) + "$"


def entry_latex_lines(expr, width: int = DEFAULT_WIDTH) -> list[str]:
    """LaTeX of an entry, one string per line; continuation lines begin with their sign."""
    return render_lines(break_lines(expr, width), to_latex, open_=r"\bigl(", close=r"\bigr)")


def continuation(line: str) -> str:
    """An aligned continuation row; a row without a leading sign lines up with the signed ones' terms."""
    return (r"&\quad {}" if line.startswith((" + ", " - ")) else r"&\quad \phantom{{}+{}}") + line


def _align_rows(label: str, lines: list[str]) -> list[str]:
    return [f"{label} &= {lines[0]}"] + [continuation(line) for line in lines[1:]]


def _dh_table(eq: Equations) -> list[str]:
    modified = eq.model.convention is Convention.MODIFIED
    a, alpha = (r"a_{i-1}", r"\alpha_{i-1}") if modified else ("a_i", r"\alpha_i")
    out = [r"\begin{longtable}{rllllll}", r"\hline",
           rf"$i$ & link & joint & ${a}$ & ${alpha}$ & $d_i$ & $\theta_i$ \\", r"\hline", r"\endhead"]
    for row in dh_rows(eq.model):
        joint = "revolute" if row.joint == "R" else "prismatic"
        out.append(f"{row.index} & {latex_escape(row.name)} & {joint} & {_m(row.a)} & {_m(row.alpha)} & "
                   f"{_m(row.d)} & {_m(row.theta)} \\\\")
    out += [r"\hline", r"\end{longtable}"]
    return out


def _inertia(entries) -> str:
    kind, cells = inertia_cells(entries)
    if kind == "zero":
        return "0"
    if kind == "diag":
        return r"$\mathrm{diag}(" + ", ".join(to_latex(c) for c in cells) + ")$"
    xx, yy, zz, xy, xz, yz = (to_latex(c) for c in cells)
    # the strut gives the table row the height of the matrix (it would overlap the rules)
    return (r"\rule[-1.1em]{0pt}{2.6em}$\left(\begin{smallmatrix}"
            + rf"{xx} & {xy} & {xz} \\ {xy} & {yy} & {yz} \\ {xz} & {yz} & {zz}" + r"\end{smallmatrix}\right)$")


def _mass_table(eq: Equations) -> list[str]:
    out = [r"\begin{longtable}{rlll}", r"\hline",
           r"$i$ & mass $m_i$ & centre of mass $r_i$ & inertia about the centre of mass $I_i$ \\",
           r"\hline", r"\endhead"]
    for row in mass_rows(eq.model):
        com = "$(" + ", ".join(to_latex(c) for c in row.com) + ")$"
        out.append(f"{row.index} & {_m(row.mass)} & {com} & {_inertia(row.inertia)} \\\\")
    out += [r"\hline", r"\end{longtable}"]
    return out


def _arm(eq: Equations) -> list[str]:
    model = eq.model
    conv = ("modified (Craig): frame $i$ at joint $i$, the $a$ and $\\alpha$ of row $i$ are "
            "$a_{i-1}$ and $\\alpha_{i-1}$" if model.convention is Convention.MODIFIED else
            "standard: frame $i$ at the distal end of link $i$")
    out = [r"\section{The arm}", f"{model.n} links, Denavit--Hartenberg convention {conv}. "
           r"Joint variables $q_i$ appear in $\theta_i$ (revolute) or $d_i$ (prismatic).", "",
           r"\subsection*{Denavit--Hartenberg parameters}", *_dh_table(eq),
           r"\subsection*{Masses}", "Centre of mass and inertia in the axes of link frame $i$.", "",
           *_mass_table(eq)]
    if model.point_masses:
        out.append(r"\subsection*{Point masses}")
        out.append(r"\begin{itemize}")
        for pm in model.point_masses:
            pos = "(" + ", ".join(to_latex(c) for c in pm.position) + ")"
            out.append(rf"\item ${to_latex(pm.mass)}$ on link {pm.link} at ${pos}$")
        out.append(r"\end{itemize}")
    grav = ", ".join(to_latex(g) for g in model.gravity_frame0)
    out += [r"\subsection*{Gravity}", rf"Gravitational acceleration in the base frame: $({grav})^{{T}}$.", ""]
    params = parameter_rows(model)
    if params:
        out += [r"\subsection*{Parameters}", r"\begin{longtable}{ll}", r"\hline",
                r"symbol & default value \\", r"\hline", r"\endhead"]
        for name, value in params:
            shown = f"${value:g}$" if value is not None else "(symbolic, no default)"
            out.append(f"${to_latex(symbol(name))}$ ({latex_escape(name)}) & {shown} \\\\")
        out += [r"\hline", r"\end{longtable}"]
    return out


def _summary(secs: list[MatrixSection]) -> list[str]:
    out = [r"\begin{longtable}{lrrr}", r"\hline",
           r"matrix & size & non-zero entries & operations \\", r"\hline", r"\endhead"]
    for s in secs:
        nonzero = len(s.shown) + len(s.mirrors)
        out.append(rf"${s.info.latex}$ & ${s.shape[0]} \times {s.shape[1]}$ & {nonzero} & {s.ops} \\")
    out += [r"\hline", r"\end{longtable}",
            "Operations: \\texttt{sympy.count\\_ops} of the distinct entries, before common-subexpression "
            "elimination. Numbers are shown to 6 significant digits (the JSON export keeps full precision).", ""]
    return out


def _matrix_section(sec: MatrixSection) -> list[str]:
    rows, cols = sec.shape
    out = [rf"\subsection*{{${sec.info.latex}$: {latex_escape(sec.info.description)}}}",
           rf"Size ${rows} \times {cols}$." + (" Symmetric." if sec.info.symmetric else ""), ""]
    if sec.shown:
        # one environment per matrix: entries aligned on '=', page breaks allowed between lines
        groups = [" \\\\\n".join(_align_rows(e.latex_label, entry_latex_lines(e.expr))) for e in sec.shown]
        out += ["\\begin{align*}", " \\\\[1.2ex]\n".join(groups), "\\end{align*}"]
    if sec.mirrors:
        out += ["", "By symmetry: " + ", ".join(f"${e.latex_label} = {p.latex_label}$" for e, p in sec.mirrors) + "."]
    if sec.zeros:
        if sec.shown or sec.mirrors:
            out += ["", "Zero: " + ", ".join(f"${e.latex_label}$" for e in sec.zeros) + "."]
        else:
            out += ["", "All entries are zero."]
    out.append("")
    return out


def _loops(eq: Equations) -> list[str]:
    items = loop_items(eq)
    if not items:
        return []
    out = [r"\section{Loop quantities}", latex_escape(LOOP_INTRO), r"\begin{align*}"]
    rows = []
    for sym, value, kind in items:
        if value is None:
            rows.append(f"{to_latex(sym)} &: \\text{{{latex_escape(NUMERIC_CLOSURE)}}}")
        else:
            lines = _align_rows(to_latex(sym), entry_latex_lines(value))
            lines[-1] += r"\qquad\text{(" + latex_escape(kind) + ")}"
            rows += lines
    return out + [" \\\\\n".join(rows), r"\end{align*}"]


def render_latex(eq: Equations, title: str | None = None) -> str:
    """A complete LaTeX document of the equations of ``eq``."""
    model = eq.model
    title = title or f"Equations of motion: {model.name or 'unnamed arm'}"
    secs = sections(eq)
    body = [PREAMBLE, rf"\title{{{latex_escape(title)}}}",
            rf"\author{{{latex_escape(METHOD_TITLE.get(eq.method, eq.method.value))}, "
            rf"{latex_escape(SIMPLIFY_TEXT.get(eq.simplify.value, eq.simplify.value))}}}",
            r"\date{Manipulator Designer}", r"\begin{document}", r"\maketitle"]
    if model.description:
        body += [latex_escape(model.description), ""]
    body += _arm(eq)
    body += _loops(eq)
    body += [r"\section{Equations of motion}", r"\begin{equation*}", form_latex(eq), r"\end{equation*}"]
    defs = vector_definitions_latex(eq)
    if defs:
        body += ["with", r"\begin{align*}", " \\\\\n".join(defs), r"\end{align*}"]
    body += ["Joint positions $q_i$, velocities $\\dot{q}_i$, accelerations $\\ddot{q}_i$.", ""]
    body += _summary(secs)
    for sec in secs:
        body += _matrix_section(sec)
    body.append(r"\end{document}")
    return "\n".join(body) + "\n"
