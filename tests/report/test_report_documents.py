"""LaTeX, Markdown and HTML reports: complete, escaped, every entry present, HTML offline and well-formed."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
import sympy as sp

from designer.dynamics.results import Method
from designer.report import render
from designer.report.document import sections

from tests.support.report_equations import awkward_three_link, robmat_double_pendulum, six_link_diagonal

ALLOWED_PACKAGES = {"amsmath", "amssymb", "geometry", "longtable"}  # all in texlive-latex-base


def _labels(eq):
    secs = sections(eq)
    shown = [e for s in secs for e in s.shown]
    mirrors = [m for s in secs for m in s.mirrors]
    zeros = [e for s in secs for e in s.zeros]
    return shown, mirrors, zeros


@pytest.mark.parametrize("make", [robmat_double_pendulum, awkward_three_link, six_link_diagonal])
def test_latex_document_has_everything(make):
    eq = make()
    tex = render(eq, "latex")
    assert tex.startswith(r"\documentclass") and tex.rstrip().endswith(r"\end{document}")
    packages = set()
    for group in re.findall(r"\\usepackage(?:\[[^\]]*\])?\{([^}]*)\}", tex):
        packages |= {p.strip() for p in group.split(",")}
    assert packages <= ALLOWED_PACKAGES
    shown, mirrors, zeros = _labels(eq)
    for e in shown:
        assert f"{e.latex_label} &= " in tex, e.label
    for e, p in mirrors:
        assert f"${e.latex_label} = {p.latex_label}$" in tex
    for e in zeros:
        assert f"${e.latex_label}$" in tex
    # the DH table comes before the equations and has a row per link
    assert tex.index("Denavit--Hartenberg parameters") < tex.index("Equations of motion}")
    assert len(re.findall(r"^\d+ & .* & (revolute|prismatic) & ", tex, re.M)) == eq.n
    body = tex.replace(r"\{", "").replace(r"\}", "")
    assert body.count("{") == body.count("}")


def test_latex_escapes_text_and_keeps_symbols_readable():
    tex = render(awkward_three_link(), "latex")
    assert r"Awkward \& odd\_name \#3" in tex and r"a \% test \$ of $\{$escaping$\}$" in tex
    assert r"\dot{q}_{1}" in tex and r"\beta" in tex
    tex = render(robmat_double_pendulum(Method.NEWTON_EULER), "latex")
    assert r"\dot{q}_{1}" in tex and r"\ddot{q}_{2}" in tex
    assert not re.search(r"qd+\d", tex)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
@pytest.mark.parametrize("make", [robmat_double_pendulum, awkward_three_link, six_link_diagonal])
def test_latex_compiles_without_overfull_lines(make, tmp_path):
    (tmp_path / "eq.tex").write_text(render(make(), "latex"), encoding="utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "eq.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    log = (tmp_path / "eq.log").read_text(errors="replace")
    assert run.returncode == 0, log[-2000:]
    assert (tmp_path / "eq.pdf").stat().st_size > 1000
    assert "Overfull \\hbox" not in log  # long entries were broken across lines


@pytest.mark.parametrize("make", [robmat_double_pendulum, awkward_three_link])
def test_markdown_tables_and_entries(make):
    eq = make()
    md = render(eq, "markdown")
    lines = md.splitlines()
    header = next(i for i, l in enumerate(lines) if l.startswith("| *i* | link | joint"))
    rows = []
    for l in lines[header + 2:]:
        if not l.startswith("|"):
            break
        rows.append(l)
    assert len(rows) == eq.n and all(r.count(" | ") == 6 for r in rows)
    assert md.count("$$") % 2 == 0
    shown, mirrors, zeros = _labels(eq)
    for e in shown:
        assert re.search(re.escape(e.latex_label) + r" &?= ", md), e.label
    for e in zeros:
        assert f"${e.latex_label}$" in md


def _html_tree(page: str) -> ET.Element:
    assert page.startswith("<!DOCTYPE html>")
    return ET.fromstring(page[len("<!DOCTYPE html>"):])


@pytest.mark.parametrize("make", [robmat_double_pendulum, awkward_three_link])
def test_html_is_well_formed_offline_and_counts_operations(make):
    eq = make()
    page = render(eq, "html")
    root = _html_tree(page)  # raises on a malformed page or an undefined entity
    assert root.tag == "html"
    assert "http" not in page and "<script" not in page and "<link" not in page and "url(" not in page
    assert not any(el.get("src") for el in root.iter())
    shown, mirrors, zeros = _labels(eq)
    rows = {tr.get("id"): tr for tr in root.iter("tr") if tr.get("id")}
    assert set(rows) == {e.label for e in shown}
    for e in shown:
        ops = [td for td in rows[e.label] if td.get("class") == "ops"][0].text
        assert ops == f"{sp.count_ops(e.expr)} ops"
        assert rows[e.label].find(".//math") is not None
    dh = [t for t in root.iter("table") if t.get("class") == "dh"][0]
    assert len(dh.findall(".//tr")) == eq.n + 1


def test_html_shows_dotted_joint_symbols():
    page = render(robmat_double_pendulum(Method.NEWTON_EULER), "html")
    # q-dot and q-double-dot: accents over q with a subscript; never the raw names
    assert '<mover accent="true"><mi>q</mi><mo>&#729;</mo></mover>' in page
    assert '<mover accent="true"><mi>q</mi><mo>&#168;</mo></mover>' in page
    body = page.split("<h2>Equations of motion</h2>")[1]
    assert "<mi>qd</mi>" not in body and "qdd" not in body


def test_documents_round_floats_json_keeps_them():
    from designer.model import symbol
    from designer.report.printing import to_latex, to_mathml, to_text

    x = symbol("x")
    e = sp.Float(0.0295520206661341) * x + sp.Float(1.0) * x**2 + sp.Float(8.7332192545e-5)
    assert to_latex(e) == r"x^{2} + 0.029552 x + 8.73322 \cdot 10^{-5}"
    assert "<mn>0.029552</mn>" in to_mathml(e) and "1.0" not in to_mathml(e)
    assert sp.sympify(to_text(e), locals={"x": x}) == e
