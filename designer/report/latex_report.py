"""The equations as a complete LaTeX document (article class, amsmath; a basic TeX install compiles it).

The document is :func:`designer.report.document.equations_document`'s blocks; this module only writes
them. Long entries are broken into aligned lines by :mod:`designer.report.layout`, so no line-breaking
package (breqn) is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..dynamics.closed_nonlinear import NUMERIC_CLOSURE
from ..dynamics.results import Equations
from .document import (Block, Bullets, Code, Definitions, Dims, Document, Entries, EntryLabel, Formula, Formulas,
                       Heading,
                       InertiaCell, Math, Para, Span, Sym, Table, Var, Vec, equations_document)
from .layout import DEFAULT_WIDTH, break_lines, render_lines
from .printing import latex_escape, to_latex

__all__ = ["render_latex", "entry_latex_lines", "continuation", "latex_blocks", "sym_latex"]

PREAMBLE = r"""\documentclass[a4paper,11pt]{article}
\usepackage{amsmath,amssymb}
\usepackage[margin=2cm]{geometry}
\usepackage{longtable}
\allowdisplaybreaks
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.5ex}
"""

GREEK = {"alpha", "beta", "gamma", "theta", "tau", "omega"}


def entry_latex_lines(expr, width: int = DEFAULT_WIDTH) -> list[str]:
    """LaTeX of an entry, one string per line; continuation lines begin with their sign."""
    return render_lines(break_lines(expr, width), to_latex, open_=r"\bigl(", close=r"\bigr)")


def continuation(line: str) -> str:
    """An aligned continuation row; a row without a leading sign lines up with the signed ones' terms."""
    return (r"&\quad {}" if line.startswith((" + ", " - ")) else r"&\quad \phantom{{}+{}}") + line


def align_rows(label: str, lines: list[str]) -> list[str]:
    return [f"{label} &= {lines[0]}"] + [continuation(line) for line in lines[1:]]


def sym_latex(s: Sym) -> str:
    """A symbol in math mode: Greek by name, qd/qdd dotted, other names of more than a letter upright."""
    if s.base in ("qd", "qdd"):
        base = (r"\dot{q}" if s.base == "qd" else r"\ddot{q}")
    elif s.base in GREEK:
        base = "\\" + s.base
    else:
        base = s.base if len(s.base) == 1 else r"\mathrm{" + latex_escape(s.base) + "}"
    sub = "" if not s.sub else (f"_{s.sub}" if len(s.sub) == 1 else f"_{{{s.sub}}}")
    sup = f"^{{\\mathrm{{{s.sup}}}}}" if s.sup else ""
    return base + sub + sup


def math_latex(span: Span) -> str | None:
    """The LaTeX (math mode) of a mathematical span; None for text spans (Markdown's renderer shares it)."""
    if isinstance(span, Sym):
        return sym_latex(span)
    if isinstance(span, Math):
        return to_latex(span.expr)
    if isinstance(span, Vec):
        return "(" + ", ".join(to_latex(c) for c in span.items) + ")" + ("^{T}" if span.transposed else "")
    if isinstance(span, Dims):
        return rf"{span.rows} \times {span.cols}"
    if isinstance(span, EntryLabel):
        return span.entry.latex_label + ("" if span.equals is None else f" = {span.equals.latex_label}")
    if isinstance(span, Var):
        return span.name
    return None


def _inertia(cell: InertiaCell) -> str:
    xx, yy, zz, xy, xz, yz = (to_latex(c) for c in cell.entries)
    # the strut gives the table row the height of the matrix (it would overlap the rules)
    return (r"\rule[-1.1em]{0pt}{2.6em}$\left(\begin{smallmatrix}"
            + rf"{xx} & {xy} & {xz} \\ {xy} & {yy} & {yz} \\ {xz} & {yz} & {zz}" + r"\end{smallmatrix}\right)$")


def join_spans(text: Iterable[Span], plain: Callable[[str], str], math: Callable[[str], str],
               special: Mapping[type, Callable[[Any], str]]) -> str:
    """``text`` written out: strings through ``plain``, a span of a type in ``special`` through its function, the
    others as LaTeX mathematics through ``math`` (Markdown writes its text this way too)."""
    return "".join(plain(s) if isinstance(s, str) else special[type(s)](s) if type(s) in special
                   else math(math_latex(s) or "") for s in text)


def text_latex(text: Iterable[Span]) -> str:
    return join_spans(text, latex_escape, lambda m: f"${m}$",
                      {Code: lambda c: r"\texttt{" + latex_escape(c.text) + "}", InertiaCell: _inertia})


def _block(block: Block) -> list[str]:
    if isinstance(block, Heading):
        command = r"\section" if block.level <= 2 else r"\subsection"
        return [command + ("" if block.numbered and block.level <= 2 else "*") + "{" + text_latex(block.text) + "}"]
    if isinstance(block, Para):
        return ["", text_latex(block.text), ""]
    if isinstance(block, Table):
        out = [rf"\begin{{longtable}}{{{block.align}}}", r"\hline",
               " & ".join(text_latex(h) for h in block.header) + r" \\", r"\hline", r"\endhead"]
        out += [" & ".join(text_latex(c) for c in row) + r" \\" for row in block.rows]
        return out + [r"\hline", r"\end{longtable}"]
    if isinstance(block, Bullets):
        return [r"\begin{itemize}"] + [r"\item " + text_latex(item) for item in block.items] + [r"\end{itemize}"]
    if isinstance(block, Formula):
        out = [r"\begin{equation*}", block.latex, r"\end{equation*}"]
        if block.definitions:
            out += ["with", r"\begin{align*}", " \\\\\n".join(block.definitions), r"\end{align*}"]
        return out
    if isinstance(block, Entries):
        # one environment per matrix: entries aligned on '=', page breaks allowed between lines
        groups = [" \\\\\n".join(align_rows(e.latex_label, entry_latex_lines(e.expr))) for e in block.entries]
        return ["\\begin{align*}", " \\\\[1.2ex]\n".join(groups), "\\end{align*}"]
    if isinstance(block, Definitions):
        rows = []
        for sym, value, kind in block.items:
            if value is None:
                rows.append(f"{to_latex(sym)} &: \\text{{{latex_escape(NUMERIC_CLOSURE)}}}")
            else:
                lines = align_rows(to_latex(sym), entry_latex_lines(value))
                lines[-1] += r"\qquad\text{(" + latex_escape(kind) + ")}"
                rows += lines
        return [r"\begin{align*}", " \\\\\n".join(rows), r"\end{align*}"]
    if isinstance(block, Formulas):
        rows = []
        for _name, label, formula, _text, value in block.rows:   # one source line a formula
            lines = align_rows(label, entry_latex_lines(formula))
            lines[-1] += r"\qquad\text{(= " + latex_escape(value) + ")}" if value else ""
            rows.append(" \\\\ ".join(lines))
        return [r"\begin{align*}", " \\\\\n".join(rows), r"\end{align*}"]
    raise TypeError(f"no LaTeX for {type(block).__name__}")


def latex_blocks(blocks: Iterable[Block]) -> list[str]:
    """The lines of ``blocks`` in a LaTeX document's body."""
    return [line for block in blocks for line in _block(block)]


def latex_document(doc: Document) -> str:
    body = [PREAMBLE, rf"\title{{{latex_escape(doc.title)}}}",
            rf"\author{{{latex_escape(doc.method)}, {latex_escape(doc.simplify)}}}" if doc.method else r"\author{}",
            r"\date{Manipulator Designer}", r"\begin{document}", r"\maketitle"]
    if doc.description:
        body += [latex_escape(doc.description), ""]
    body += latex_blocks(doc.blocks)
    body.append(r"\end{document}")
    return "\n".join(body) + "\n"


def render_latex(eq: Equations, title: str | None = None) -> str:
    """A complete LaTeX document of the equations of ``eq``."""
    return latex_document(equations_document(eq, title))
