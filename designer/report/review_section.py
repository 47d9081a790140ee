"""The design review as report rows: the outcomes of :func:`designer.review.review` as plain data (each
``Outcome.as_dict()``), so the report needs nothing above it; the caller (the window, the command line) runs
the review and passes them in."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

__all__ = ["REVIEW_HEADER", "review_rows", "review_summary", "review_notes"]

REVIEW_HEADER = ["#", "requirement", "value", "bound", "margin", "result", "worst where"]


def _number(value, digits: int = 4) -> str:
    if value is None:
        return "-"
    if not math.isfinite(value):
        return str(value)
    return f"{value:.{digits}g}"


def review_rows(outcomes: Sequence[Mapping]) -> list[list[str]]:
    """One row of text per requirement reviewed (the columns of :data:`REVIEW_HEADER`)."""
    rows = []
    for o in outcomes:
        label = (f"{o['name']}: " if o.get("name") else "") + f"{o['metric']} at {o['where']}"
        unit = "" if o.get("unit") in ("1", "", None) else o["unit"]
        rel = o.get("relative_margin")
        margin = _number(o.get("margin")) + ("" if rel is None or not math.isfinite(rel) else f" ({100 * rel:+.1f} %)")
        result = "cannot evaluate" if o.get("error") else ("pass" if o["passed"] else "FAIL")
        rows.append([str(o["requirement"]), label, f"{_number(o.get('value'))} {unit}".strip(),
                     f"{o['bound']} {o['limit']:g}", margin, result, o.get("error") or o.get("worst_where", "")])
    return rows


def review_summary(outcomes: Sequence[Mapping]) -> str:
    return f"{sum(bool(o['passed']) for o in outcomes)} of {len(outcomes)} requirement(s) pass"


def review_notes(outcomes: Sequence[Mapping]) -> list[str]:
    """What the values rest on, each said once with the requirements it concerns: the cycle's timing (time-optimal,
    quintic moves, a file), what a deflection includes."""
    notes: dict[str, list[str]] = {}
    for o in outcomes:
        if o.get("note"):
            notes.setdefault(o["note"], []).append(str(o["requirement"]))
    return [f"note (requirement{'s' if len(ks) > 1 else ''} {', '.join(ks)}): {note}" for note, ks in notes.items()]
