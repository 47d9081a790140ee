"""The equations pages of the design report's PDF: each entry typeset by matplotlib's mathtext
(:mod:`designer.report.typeset`, no LaTeX needed) and placed as an image, top to bottom, as many
pages as they need.

Typesetting costs a few hundredths of a second a line, so an entry longer than
:data:`ENTRY_LINES` lines, an entry mathtext cannot parse, and everything past
:data:`BUDGET_LINES` typeset lines in all are written as plain text instead:
the report is complete either way, and a six-link arm's report does not take minutes.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np
import sympy as sp

from ..dynamics.results import Equations
from .entries import iter_entries
from .typeset import latex_lines, render_lines

__all__ = ["equation_items", "equation_pages", "Typeset", "Plain", "ENTRY_LINES", "BUDGET_LINES"]

PAGE = (8.27, 11.69)     # A4 portrait, inches
MARGIN = 0.45            # left and right, inches
TOP, BOTTOM = 0.75, 0.5  # room for the heading, and the bottom margin, inches
FONT_PT = 10.0           # size of the typeset equations
DPI = 200                # resolution of their images (sharp when printed)
TEXT_PT = 7.5            # plain-text lines
TEXT_STEP = TEXT_PT * 1.35 / 72   # inches from one plain-text line to the next
GAP = 0.08               # inches between entries
ENTRY_LINES = 24         # longer entries are written as text
BUDGET_LINES = 400       # typeset lines in one report at most
TEXT_WIDTH = 110         # characters of one plain-text line


@dataclass(frozen=True)
class Typeset:
    """An entry as an RGBA image (black on transparent) rendered at :data:`DPI`."""

    label: str
    image: np.ndarray


@dataclass(frozen=True)
class Plain:
    """An entry as wrapped plain text (too long, or not typesettable)."""

    label: str
    lines: list[str]


def _plain(label: str, expr) -> Plain:
    text = f"{label} = {sp.sstr(expr)}"
    return Plain(label, textwrap.wrap(text, TEXT_WIDTH, subsequent_indent="        ", break_on_hyphens=False)
                 or [text])


def equation_items(eq: Equations, budget: int = BUDGET_LINES) -> list[Typeset | Plain]:
    """The nonzero entries of ``eq``, typeset where they fit the limits, as plain text otherwise."""
    items: list[Typeset | Plain] = []
    for entry in iter_entries(eq):
        if entry.expr == 0:
            continue
        if budget > 0:
            try:
                # one line more than allowed comes back as "... (copy as text for the rest)": too long
                latex = latex_lines(entry.latex_label, entry.expr, max_lines=ENTRY_LINES)
                if len(latex) <= min(ENTRY_LINES, budget):
                    items.append(Typeset(entry.label, render_lines(latex, FONT_PT, DPI)))
                    budget -= len(latex)
                    continue
            except (ValueError, RuntimeError, KeyError, IndexError):
                pass   # mathtext cannot parse it: text below
        items.append(_plain(entry.label, entry.expr))
    return items


def equation_pages(pdf, heading: str, items: list[Typeset | Plain]) -> int:
    """Lay ``items`` out on A4 pages of ``pdf`` (a matplotlib PdfPages); returns the page count."""
    from matplotlib.figure import Figure as Page

    width_in, height_in = PAGE
    usable_w = width_in - 2 * MARGIN
    pages = 0
    fig = None
    y = 0.0   # inches from the top of the current page

    def new_page():
        nonlocal fig, y, pages
        if fig is not None:
            pdf.savefig(fig)
        fig = Page(figsize=PAGE)
        fig.text(MARGIN / width_in, 1 - 0.35 / height_in, heading + (" (continued)" if pages else ""),
                 va="top", fontsize=12, weight="bold")
        pages += 1
        y = TOP

    def room(h: float) -> None:
        if fig is None or (y + h > height_in - BOTTOM and y > TOP):
            new_page()

    for item in items:
        if isinstance(item, Typeset):
            rows, cols = item.image.shape[:2]
            h, w = rows / DPI, cols / DPI
            if w > usable_w:   # a wide line is shrunk to the page, never clipped
                h, w = h * usable_w / w, usable_w
            room(h)
            ax = fig.add_axes((MARGIN / width_in, 1 - (y + h) / height_in, w / width_in, h / height_in))
            ax.imshow(item.image, interpolation="antialiased", aspect="auto")
            ax.axis("off")
            y += h + GAP
        else:
            for line in item.lines:
                room(TEXT_STEP)
                fig.text(MARGIN / width_in, 1 - y / height_in, line, va="top", family="monospace",
                         fontsize=TEXT_PT)
                y += TEXT_STEP
            y += GAP
    if fig is not None:
        pdf.savefig(fig)
    return pages
