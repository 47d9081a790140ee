"""Derived entries are in sympy's canonical form even when a design condition puts a mass in a
denominator (the equation window and the exports print the same M_11)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from designer.dynamics import derive
from designer.explore.conditions import apply_condition, find_conditions
from designer.project import load_project
from designer.report import ReportFormat, render

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


@pytest.fixture(scope="module")
def balanced():
    model = load_project(ROBOTS / "planar_two_link.json")
    result = find_conditions(model, "balanced", None, None)
    assert result.conditions, "the planar arm has a static-balance condition"
    return apply_condition(model, result.conditions[0])


@pytest.mark.parametrize("method", ["lagrange", "newton-euler"])
def test_entries_survive_a_rebuild_unchanged(balanced, method):
    eq = derive(balanced, method, "fast")
    for name, mat in eq.matrices.items():
        for e in mat:
            rebuilt = sp.sympify(sp.srepr(e))   # what a pickled copy (the window's view) holds
            assert sp.srepr(e) == sp.srepr(rebuilt), f"{name}: {sp.sstr(e)} is not canonical"


def test_the_report_prints_the_cancelled_mass(balanced):
    eq = derive(balanced, "lagrange", "fast")
    m11 = eq.matrices["M"][0, 0]
    m1 = sp.Symbol("m1", real=True)
    # no factor m1 left over a power of m1: the term is L1^2 m2^2 / m1
    assert all(sp.Mul.make_args(t).count(m1) == 0 for t in sp.Add.make_args(m11))
    text = render(eq, ReportFormat.LATEX)
    assert r"m_{1} m_{2}^{2}}{m_{1}^{2}}" not in text
