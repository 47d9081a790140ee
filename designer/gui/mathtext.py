"""Moved to the headless core: :mod:`designer.report.typeset` (kept importable here for the viewer)."""

from __future__ import annotations

from ..report.typeset import (MAX_LINES, entry_stats, latex_lines, latex_of, render_lines, stats_many, typeset,
                              typeset_many)

__all__ = ["latex_of", "latex_lines", "render_lines", "typeset", "entry_stats", "typeset_many", "stats_many",
           "MAX_LINES"]
