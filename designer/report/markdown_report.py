"""The equations as a Markdown document: tables for the arm, ``$$`` display math for the entries.

The document is :func:`designer.report.document.equations_document`'s blocks; this module only writes
them. Inline math is ``$...$`` and display math ``$$...$$`` with an ``aligned`` block for long entries,
which GitHub, GitLab, pandoc and most editors render.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..dynamics.closed_nonlinear import NUMERIC_CLOSURE
from ..dynamics.results import Equations
from .document import (Block, Bullets, Code, Definitions, Dims, Document, Entries, Formula, Formulas, Heading,
                       InertiaCell, Para, Span, Table, Var, equations_document)
from .latex_report import continuation, entry_latex_lines, join_spans
from .printing import to_latex

__all__ = ["render_markdown", "markdown_blocks"]


def _esc(text: str) -> str:
    """Plain text safe in Markdown paragraphs and table cells (an underscore inside a word, W_p, is safe)."""
    for ch in "\\`*[]<>|#":
        text = text.replace(ch, "\\" + ch)
    return re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", text)


def _math(latex: str) -> str:
    return "$" + latex.replace("|", r"\vert ") + "$"


def _inertia(cell: InertiaCell) -> str:
    return ", ".join(f"{k}: {_math(to_latex(c))}" for k, c in zip(("xx", "yy", "zz", "xy", "xz", "yz"), cell.entries))


def text_markdown(text: Iterable[Span]) -> str:
    return join_spans(text, _esc, _math, {Var: lambda v: f"*{v.name}*", Code: lambda c: f"`{c.text}`",
                                          Dims: lambda d: f"{d.rows} × {d.cols}", InertiaCell: _inertia})


def _display(label: str, lines: list[str]) -> list[str]:
    if len(lines) == 1:
        return ["$$", f"{label} = {lines[0]}", "$$", ""]
    rows = [f"{label} &= {lines[0]}"] + [continuation(line) for line in lines[1:]]
    return ["$$", r"\begin{aligned}", " \\\\\n".join(rows), r"\end{aligned}", "$$", ""]


def _block(block: Block) -> list[str]:
    if isinstance(block, Heading):
        return ["#" * block.level + " " + text_markdown(block.text), ""]
    if isinstance(block, Para):
        return [text_markdown(block.text), ""]
    if isinstance(block, Table):
        out = ["| " + " | ".join(text_markdown(h) for h in block.header) + " |",
               "|" + "|".join("---" for _ in block.header) + "|"]
        return out + ["| " + " | ".join(text_markdown(c) for c in row) + " |" for row in block.rows] + [""]
    if isinstance(block, Bullets):
        return ["- " + text_markdown(item) for item in block.items] + [""]
    if isinstance(block, Formula):
        out = ["$$", block.latex, "$$", ""]
        if block.definitions:
            out += ["$$", r"\begin{aligned}", " \\\\\n".join(block.definitions), r"\end{aligned}", "$$", ""]
        return out
    if isinstance(block, Entries):
        return [line for e in block.entries for line in _display(e.latex_label, entry_latex_lines(e.expr))]
    if isinstance(block, Definitions):
        out = []
        for sym, value, kind in block.items:
            if value is None:
                out += [f"{_math(to_latex(sym))} ({kind}): {NUMERIC_CLOSURE}.", ""]
            else:
                out += [f"*{kind}*", ""] + _display(to_latex(sym), entry_latex_lines(value))
        return out
    if isinstance(block, Formulas):
        if not block.header:
            return ["```", *(f"{name} = {text}" for name, _, _, text, _ in block.rows), "```", ""]
        return _block(Table(tuple((h,) for h in block.header),
                            tuple(((name,), (Code(text),), (value,)) for name, _, _, text, value in block.rows), "lll"))
    raise TypeError(f"no Markdown for {type(block).__name__}")


def markdown_blocks(blocks: Iterable[Block]) -> list[str]:
    """The lines of ``blocks`` in a Markdown document."""
    return [line for block in blocks for line in _block(block)]


def markdown_document(doc: Document) -> str:
    out = [f"# {_esc(doc.title)}", ""]
    if doc.method:
        out += [f"*{doc.method}; {doc.simplify}. Made by Manipulator Designer.*", ""]
    if doc.description:
        out += [_esc(doc.description), ""]
    return "\n".join(out + markdown_blocks(doc.blocks))


def render_markdown(eq: Equations, title: str | None = None) -> str:
    """A Markdown document of the equations of ``eq``."""
    return markdown_document(equations_document(eq, title))
