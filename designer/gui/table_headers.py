"""The DH table's column headers, by convention: the main window's table (:mod:`designer.gui.dh_table`) and the
start's first look (:mod:`designer.gui.opening`, which shows the table before sympy loads) write the same."""

from __future__ import annotations

from ..model.kinds import Convention

__all__ = ["DH_HEADERS"]

DH_HEADERS = {
    Convention.STANDARD: ["name", "joint", "a_i", "α_i", "d_i", "θ_i", "mass"],
    Convention.MODIFIED: ["name", "joint", "a_(i-1)", "α_(i-1)", "d_i", "θ_i", "mass"],
}
