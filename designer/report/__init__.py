"""Equations reports: JSON for programs; LaTeX, Markdown and self-contained HTML for people.

    >>> text = render(eq, "latex")   # eq: designer.dynamics.Equations

:func:`designer.report.entries.iter_entries` gives the entries in display
order with their labels and operation counts (shared with the GUI's viewer).
"""

from __future__ import annotations

from enum import Enum

from ..dynamics.results import Equations, Form
from .entries import Entry, iter_entries, matrix_names, operation_count

__all__ = ["ReportFormat", "render", "Entry", "iter_entries", "matrix_names", "operation_count", "SUFFIX"]


class ReportFormat(str, Enum):
    JSON = "json"
    LATEX = "latex"
    MARKDOWN = "markdown"
    HTML = "html"


SUFFIX = {ReportFormat.JSON: ".json", ReportFormat.LATEX: ".tex", ReportFormat.MARKDOWN: ".md",
          ReportFormat.HTML: ".html"}


def render(eq: Equations, fmt: ReportFormat | str = ReportFormat.JSON, *, title: str | None = None) -> str:
    """The equations ``eq`` as a document in format ``fmt`` (json, latex, markdown or html).

    Parameters
    ----------
    eq:
        A derivation's result.
    fmt:
        The output format.
    title:
        Document title (default "Equations of motion: <model name>"); ignored by JSON.
    """
    fmt = ReportFormat(fmt)
    if eq.form is Form.COMPACT:  # the graphs are never printed whole: the named recursion instead
        from .recursive_report import render_recursive
        return render_recursive(eq, fmt.value, title)
    if fmt is ReportFormat.JSON:
        from .json_report import render_json
        return render_json(eq)
    if fmt is ReportFormat.LATEX:
        from .latex_report import render_latex
        return render_latex(eq, title)
    if fmt is ReportFormat.MARKDOWN:
        from .markdown_report import render_markdown
        return render_markdown(eq, title)
    from .html_report import render_html
    return render_html(eq, title)
