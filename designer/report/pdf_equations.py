"""The equations pages of the design report's PDF: each entry typeset by matplotlib's mathtext
(:mod:`designer.report.typeset`, no LaTeX needed) and placed as an image, top to bottom, as many
pages as they need.

A report is read, not searched: the PUMA 560's closed form has entries of hundreds of terms, which
as text filled 41 pages. So an entry is typeset to at most :data:`ENTRY_LINES` lines, ending, when
there is more, with a line saying how many terms it has in all; past :data:`BUDGET_LINES` typeset
lines in the report (mathtext takes a few hundredths of a second a line) an entry gets one line
saying its size. The full entries are in the LaTeX, HTML and text exports, which the pages say.
An entry mathtext cannot parse is written as text, cut the same way.
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
ENTRY_LINES = 6          # typeset lines of one entry at most (then a line with its size): PUMA 560 in 13 pages
BUDGET_LINES = 400       # typeset lines in one report at most (about 10 s of mathtext)
TEXT_WIDTH = 110         # characters of one plain-text line
FULL = "the full entries are in the LaTeX, HTML and text exports (File > Export)"


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


def _terms(expr) -> int:
    return len(sp.Add.make_args(expr))


def _plain(label: str, expr, max_lines: int = ENTRY_LINES) -> Plain:
    text = f"{label} = {sp.sstr(expr)}"
    lines = textwrap.wrap(text, TEXT_WIDTH, subsequent_indent="        ", break_on_hyphens=False) or [text]
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"        ... ({_terms(expr)} terms in all; {FULL})"]
    return Plain(label, lines)


def _summary(label: str, expr) -> Plain:
    return Plain(label, [f"{label}: {_terms(expr)} terms, {sp.count_ops(expr, visual=False)} operations "
                         "(left out here to keep the report short)"])


def _more(expr) -> str:
    """The last typeset line of a cut entry: how many terms the whole entry has."""
    return rf"\quad \ldots\ \mathrm{{({_terms(expr)}\ terms\ in\ all)}}"


def equation_items(eq: Equations, budget: int = BUDGET_LINES) -> list[Typeset | Plain]:
    """The nonzero entries of ``eq``: typeset to at most :data:`ENTRY_LINES` lines each while the budget
    lasts, then one line each with their size; as text where mathtext cannot typeset them.
    When any entry is cut, the first item says so and where the full entries are."""
    from .loop_section import LOOP_INTRO, loop_entries
    loops = loop_entries(eq)   # a nonlinear closed chain's loop quantities, defined before the matrices read them
    items: list[Typeset | Plain] = [Plain("", textwrap.wrap(LOOP_INTRO, TEXT_WIDTH))] if loops else []
    cut = False
    for entry in [*loops, *iter_entries(eq)]:
        if entry.expr == 0:
            continue
        if entry.mirror is not None:   # below the diagonal of a symmetric matrix: its partner's name
            sep = "," if max(entry.mirror) >= 10 else ""
            partner = f"{entry.matrix}_{{{sep.join(map(str, entry.mirror))}}}"
            try:
                items.append(Typeset(entry.label, render_lines([f"{entry.latex_label} = {partner}"], FONT_PT, DPI)))
                continue
            except (ValueError, RuntimeError, KeyError, IndexError):
                pass
        if budget > 0:
            lines = min(ENTRY_LINES, budget)
            try:
                # one line more than allowed comes back as "... (copy as text for the rest)": cut there
                latex = latex_lines(entry.latex_label, entry.expr, max_lines=lines)
                if len(latex) > lines:
                    latex[-1] = _more(entry.expr)
                    cut = True
                items.append(Typeset(entry.label, render_lines(latex, FONT_PT, DPI)))
                budget -= len(latex)
                continue
            except (ValueError, RuntimeError, KeyError, IndexError):
                item = _plain(entry.label, entry.expr)   # mathtext cannot parse it
                cut = cut or item.lines[-1].startswith("        ... (")
                items.append(item)
                budget -= len(item.lines)
                continue
        try:   # past the budget a one-line entry is still typeset (one line each: a bounded cost)
            latex = latex_lines(entry.latex_label, entry.expr, max_lines=1)
            if len(latex) == 1:
                items.append(Typeset(entry.label, render_lines(latex, FONT_PT, DPI)))
                continue
        except (ValueError, RuntimeError, KeyError, IndexError):
            pass
        items.append(_summary(entry.label, entry.expr))
        cut = True
    if cut:
        items.insert(0, Plain("", textwrap.wrap(f"Long entries are shown to their first {ENTRY_LINES} lines, or "
                                                f"by their size past the first {BUDGET_LINES} lines; {FULL}.",
                                                TEXT_WIDTH)))
    return items


class _Pages:
    """A4 pages filled top to bottom: :meth:`room` starts a new page when the next item would not fit."""

    def __init__(self, pdf, heading: str):
        self.pdf, self.heading = pdf, heading
        self.count = 0
        self.fig = self._new()
        self.y = TOP   # inches from the top of the current page

    def _new(self):
        from matplotlib.figure import Figure as Page
        fig = Page(figsize=PAGE)
        fig.text(MARGIN / PAGE[0], 1 - 0.35 / PAGE[1], self.heading + (" (continued)" if self.count else ""),
                 va="top", fontsize=12, weight="bold")
        self.count += 1
        return fig

    def room(self, h: float) -> None:
        if self.y + h > PAGE[1] - BOTTOM and self.y > TOP:   # an item taller than a page gets a page of its own
            self.pdf.savefig(self.fig)
            self.fig = self._new()
            self.y = TOP

    def close(self) -> None:
        self.pdf.savefig(self.fig)


def equation_pages(pdf, heading: str, items: list[Typeset | Plain]) -> int:
    """Lay ``items`` out on A4 pages of ``pdf`` (a matplotlib PdfPages); returns the page count."""
    width_in, height_in = PAGE
    usable_w = width_in - 2 * MARGIN
    pages = _Pages(pdf, heading)
    for item in items:
        if isinstance(item, Typeset):
            rows, cols = item.image.shape[:2]
            h, w = rows / DPI, cols / DPI
            if w > usable_w:   # a wide line is shrunk to the page, never clipped
                h, w = h * usable_w / w, usable_w
            pages.room(h)
            ax = pages.fig.add_axes((MARGIN / width_in, 1 - (pages.y + h) / height_in, w / width_in, h / height_in))
            ax.imshow(item.image, interpolation="antialiased", aspect="auto")
            ax.axis("off")
            pages.y += h + GAP
        else:
            for line in item.lines:
                pages.room(TEXT_STEP)
                pages.fig.text(MARGIN / width_in, 1 - pages.y / height_in, line, va="top", family="monospace",
                               fontsize=TEXT_PT)
                pages.y += TEXT_STEP
            pages.y += GAP
    pages.close()
    return pages.count
