"""A design report a designer can hand on: the arm's tables and figures, with its equations if derived.

The figures arrive as PNG bytes (the window grabs its 3D view and plots; a
script can pass any images), so this module needs no Qt:

    >>> html = design_html(model, [Figure("3D view", png)], eq)
    >>> pages = design_pdf(model, [Figure("3D view", png)], "arm.pdf", eq)

HTML embeds the figures as base64 ``data:`` URLs (one self-contained file,
with the equations as MathML when given; printed, a long table repeats its header row on each page). PDF is
written by matplotlib (no LaTeX): pages with the DH and parameter tables, then with the links (mass, COM,
inertia, what each is made of), the loads, the total mass and the drives, one page per figure, then
the equations typeset by mathtext as images (:mod:`designer.report.pdf_equations`),
as many pages as they need. A table longer than what is left of a page (an arm of 12 links and more) goes on
at the top of the next under its title (continued) and its header again: no row is left out or runs off.
"""

from __future__ import annotations

import base64
import io
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

import sympy as sp

from ..dynamics.results import Equations
from ..model.manipulator import Manipulator
from ..project.atomic import atomic_file, write_atomic
from .tables import design_tables, dh_headers, dh_rows, parameter_rows

__all__ = ["Figure", "design_html", "design_pdf", "write_design_report", "equation_lines", "PNG_SIGNATURE"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PAGE = (8.27, 11.69)       # A4 portrait, inches
LINE_WIDTH = 110           # characters of one equation line


@dataclass(frozen=True)
class Figure:
    """One image of the report: a title, PNG bytes and an optional caption."""

    title: str
    png: bytes
    caption: str = ""

    def __post_init__(self) -> None:
        if not self.png.startswith(PNG_SIGNATURE):
            raise ValueError(f"figure {self.title!r}: not PNG data")


def _title(model: Manipulator, title: str | None) -> str:
    return title or f"Design report: {model.name or 'unnamed arm'}"


def _cell(value) -> str:
    if value is None:
        return ""
    return str(sp.nsimplify(value) if isinstance(value, float) and float(value).is_integer() else value)


def _dh_table(model: Manipulator) -> tuple[list[str], list[list[str]]]:
    a, alpha = dh_headers(model)
    header = ["link", "name", "joint", a, alpha, "d_i", "theta_i"]
    rows = [[str(r.index), r.name, r.joint, _cell(r.a), _cell(r.alpha), _cell(r.d), _cell(r.theta)]
            for r in dh_rows(model)]
    return header, rows


def _parameter_table(model: Manipulator) -> list[list[str]]:
    return [[name, "" if value is None else f"{value:.6g}"] for name, value in parameter_rows(model)]


def equation_lines(eq: Equations, width: int = LINE_WIDTH) -> list[str]:
    """The entries of ``eq`` as plain text, ``label = expression``, wrapped at ``width`` characters."""
    from .entries import iter_entries
    from .loop_section import loop_entries
    out: list[str] = []
    for entry in [*loop_entries(eq), *iter_entries(eq)]:   # a nonlinear loop's quantities before their use
        if entry.expr == 0:
            continue
        text = f"{entry.label} = {sp.sstr(entry.expr)}"
        out += textwrap.wrap(text, width, subsequent_indent="        ", break_on_hyphens=False) or [text]
    return out


def _figures_html(figures: Sequence[Figure]) -> str:
    parts = ['<h2 id="figures">Figures</h2>']
    for k, f in enumerate(figures, start=1):
        data = base64.b64encode(f.png).decode("ascii")
        caption = f"Figure {k}. {f.title}" + (f": {f.caption}" if f.caption else "")
        parts.append(f'<figure><img alt="{escape(f.title)}" style="max-width: 100%" '
                     f'src="data:image/png;base64,{data}"/><figcaption>{escape(caption)}</figcaption></figure>')
    return "\n".join(parts)


def _closed_tables(model: Manipulator, pose) -> list:
    """A closed chain's tree, loops, M_a, G_a and cut-joint forces (tables.closed_chain_tables); none for a
    serial arm."""
    from .tables import closed_chain_tables
    return closed_chain_tables(model, pose)


def _tables_html(model: Manipulator, closed: list, review: Sequence[Mapping] | None) -> str:
    """The design tables as HTML blocks: DH and parameter values, a closed chain's loop tables, the review."""
    from .document import Block, Heading, Para, Table
    from .html_report import html_blocks

    def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:
        return Table(tuple((h,) for h in header), tuple(tuple((c,) for c in row) for row in rows),
                     "l" * len(header), "design")
    header, rows = _dh_table(model)
    blocks: list[Block] = [Heading(2, ("The arm (design tables)",)), table(header, rows),
                           Heading(3, ("Parameter values",)),
                           table(["parameter", "value (SI)"], _parameter_table(model))]
    for t, h, r in design_tables(model):   # what it is made of: links, loads, total mass, drives
        blocks += [Heading(3, (t,)), table(h, r)]
    if closed:
        blocks.append(Heading(2, ("Closed chain",), "closed-chain"))
        for t, h, r in closed:
            blocks += [Heading(3, (t,)), table(h, r)]
    if review:
        from .review_section import REVIEW_HEADER, review_notes, review_rows, review_summary
        blocks += [Heading(2, ("Design review",), "review"), Para((review_summary(review),)),
                   table(REVIEW_HEADER, review_rows(review)), *(Para((note,)) for note in review_notes(review))]
    return "\n".join(html_blocks(blocks))


def design_html(model: Manipulator, figures: Sequence[Figure], eq: Equations | None = None,
                title: str | None = None, pose: Sequence[float] | None = None,
                review: Sequence[Mapping] | None = None) -> str:
    """One self-contained HTML page: the arm's DH and parameter tables (a closed chain's mechanism and
    its numbers at ``pose``), the design review (``review``: each requirement's ``Outcome.as_dict()``,
    designer/review), the figures, the equations if given."""
    block = _tables_html(model, _closed_tables(model, pose), review) + "\n"
    block += (_figures_html(figures) if figures else "") + "\n"
    if eq is not None:
        from . import render   # the dispatcher: every form of the equations has its HTML
        page = render(eq, "html", title=_title(model, title))
        marker = "<h2>Equations of motion</h2>"
        at = page.find(marker)
        at = at if at >= 0 else page.rfind("</body>")
        return page[:at] + block + page[at:]
    from .document import Document
    from .html_report import html_document
    return html_document(Document(_title(model, title), "", "", "Made by Manipulator Designer. Derive the equations "
                                  "to add them here.", ())).replace("</body>", block + "</body>")


def _table_page(pdf, model: Manipulator, title: str, eq: Equations | None) -> int:
    """The DH table and the parameter values (two pairs of columns) under the report's title; their page count."""
    note = f"{model.n} joints, {model.convention.value} DH convention"
    if eq is not None:
        note += f"; equations by {eq.method.value}"
    params = _parameter_table(model)
    half = (len(params) + 1) // 2   # two columns of parameters side by side: the first half, then the second
    paired = [params[k] + (params[k + half] if k + half < len(params) else ["", ""]) for k in range(half)]
    return _tables_page(pdf, [("DH table", *_dh_table(model)),
                              ("Parameter values (SI)", ["parameter", "value"] * 2, paired)], title, note)


def _pdf_table(fig, rect, header: Sequence[str], rows, size: float, fit: bool = False):
    """A table of text in the axes ``rect`` of the page ``fig``, at ``size`` points; ``fit``: columns as wide as
    their text."""
    ax = fig.add_axes(rect)
    ax.axis("off")
    table = ax.table(cellText=rows, colLabels=list(header), loc="upper center", cellLoc="left")
    table.auto_set_font_size(False)
    table.set_fontsize(size)
    if fit:
        table.auto_set_column_width(list(range(len(header))))
    return table


def _figure_page(pdf, k: int, figure: Figure) -> None:
    import matplotlib.image as mpimg
    from matplotlib.figure import Figure as Page
    fig = Page(figsize=PAGE)
    ax = fig.add_axes((0.05, 0.08, 0.9, 0.84))
    ax.imshow(mpimg.imread(io.BytesIO(figure.png), format="png"))
    ax.axis("off")
    fig.text(0.5, 0.96, f"Figure {k}. {figure.title}", ha="center", va="top", fontsize=12, weight="bold")
    if figure.caption:
        fig.text(0.5, 0.05, textwrap.fill(figure.caption, 100), ha="center", va="top", fontsize=9)
    pdf.savefig(fig)


def _wrapped(rows: Sequence[Sequence[str]], width: int) -> tuple[list[list[str]], list[int]]:
    """The cells wrapped at ``width`` characters, and each row's line count."""
    out = [[textwrap.fill(str(c), width, break_on_hyphens=False) for c in row] for row in rows]
    return out, [max((c.count("\n") + 1 for c in row), default=1) for row in out]


#: the band a table page writes in (fractions of the page's height) and the height of one line of 7 pt text
TOP, BOTTOM, LINE = 0.92, 0.04, 0.0125


def _tables_page(pdf, tables, heading: str = "Closed chain", note: str = "") -> int:
    """Pages of (title, header, rows[, the indices of rows to shade]) tables under ``heading`` (and ``note``): a closed
    chain's, what the arm is made of, its DH and parameter values, the design review. Long cells and titles are
    wrapped so that every table stays within the page's width, each row as tall as its lines; a table longer than
    what is left of a page goes on at the top of the next, under the heading, its title (continued) and its header
    again. Returns the number of pages."""
    from matplotlib.figure import Figure as Page
    pages: list = []
    top, fresh = BOTTOM, False   # where the next table goes; whether the page has none yet

    def new_page() -> None:
        nonlocal top, fresh
        fig = Page(figsize=PAGE)
        pages.append(fig)
        fig.text(0.5, 0.96, heading + (" (continued)" if len(pages) > 1 else ""), ha="center", va="top",
                 fontsize=13, weight="bold")
        if note:
            fig.text(0.5, 0.935, note, ha="center", va="top", fontsize=9, color="#555555")
        top, fresh = TOP - (0.01 if note else 0.0), True
    for title, header, rows, *shaded in tables:
        (head,), head_lines = _wrapped([header], 16)
        body, lines = _wrapped(rows, 34)
        heights = [LINE * (n + 0.6) for n in lines]
        start = 0
        while True:   # a part of the table a page, at least its header
            text = textwrap.fill(title + (" (continued)" if start else ""), 110)
            below = 0.016 * (text.count("\n") + 1)
            room = top - below - 0.005 - BOTTOM - LINE * (head_lines[0] + 0.6)
            end = start
            while end < len(body) and sum(heights[start:end + 1]) <= room:
                end += 1
            if end == start and (body or room < 0) and not fresh:
                new_page()   # not even one row here: the table starts (or goes on) on a page of its own
                continue
            end = max(end, min(start + 1, len(body)))   # a row taller than a whole page: alone on it
            part = [LINE * (head_lines[0] + 0.6)] + heights[start:end]
            height = sum(part)
            fig = pages[-1]
            fig.text(0.06, top, text, fontsize=8.5, va="top")
            # widths to fit: the pose column is long, the loop's short
            table = _pdf_table(fig, (0.06, top - below - height - 0.005, 0.88, height), head, body[start:end], 7,
                               fit=True)
            for (r, _c), cell in table.get_celld().items():
                cell.set_height(part[r] / height)
                if r and shaded and start + r - 1 in shaded[0]:
                    cell.set_facecolor("#ffd6d6")
            top, fresh, start = top - below - height - 0.04, False, end
            if start >= len(body):
                break
    for fig in pages:
        pdf.savefig(fig)
    return len(pages)


def _review_page(pdf, review: Sequence[Mapping]) -> int:
    """The design review's table (a requirement that does not pass shaded) over as many pages as it needs."""
    from .review_section import REVIEW_HEADER, review_rows, review_summary
    rows = [[textwrap.shorten(c, 48) for c in row] for row in review_rows(review)]
    failed = {k for k, row in enumerate(rows) if row[5] != "pass"}
    return _tables_page(pdf, [("Requirements", REVIEW_HEADER, rows, failed)], "Design review", review_summary(review))


def design_pdf(model: Manipulator, figures: Sequence[Figure], path: str | Path, eq: Equations | None = None,
               title: str | None = None, pose: Sequence[float] | None = None,
               review: Sequence[Mapping] | None = None) -> int:
    """Write the report as PDF to ``path``; returns its page count.

    Pages: the DH and parameter tables, the links' mass properties and the drives, one per figure, then the equations
    (when given), typeset (plain text for the longest entries).
    """
    import matplotlib
    from matplotlib.backends.backend_pdf import PdfPages

    from .pdf_equations import equation_items, equation_pages
    items = equation_items(eq) if eq is not None else []   # typeset before the file is opened
    closed = _closed_tables(model, pose)
    # written atomically: the PDF takes its name complete, never half-written (a job may take 10 s or fail)
    with matplotlib.rc_context({"pdf.fonttype": 42}), atomic_file(path) as fh:
        with PdfPages(fh, metadata={"Title": _title(model, title), "Creator": "Manipulator Designer"}) as pdf:
            pages = _table_page(pdf, model, _title(model, title), eq)
            pages += _tables_page(pdf, design_tables(model), "Links, loads and drives")
            if closed:
                pages += _tables_page(pdf, closed)
            if review:
                pages += _review_page(pdf, review)
            for k, figure in enumerate(figures, start=1):
                _figure_page(pdf, k, figure)
            pages += len(figures)
            if eq is not None:
                pages += equation_pages(pdf, "Equations of motion", items)
    return pages


def write_design_report(path: str | Path, model: Manipulator, figures: Sequence[Figure],
                        eq: Equations | None = None, title: str | None = None,
                        pose: Sequence[float] | None = None, review: Sequence[Mapping] | None = None) -> str:
    """Write the report to ``path``, PDF when its suffix is ``.pdf``, HTML otherwise; a one-line summary.
    ``pose``: the joint values a closed chain's numbers are given at (every joint, or the actuated ones);
    ``review``: the design review's outcomes as dicts (``Outcome.as_dict()``), a section of their own."""
    path = Path(path)
    if path.suffix.lower() == ".pdf":
        pages = design_pdf(model, figures, path, eq, title, pose, review)
        return f"Wrote {path} ({pages} pages, {len(figures)} figures)"
    write_atomic(path, design_html(model, figures, eq, title, pose, review))
    return f"Wrote {path} ({len(figures)} figures)"
