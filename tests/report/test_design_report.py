"""The design report: figures embedded in a self-contained HTML page and in a PDF with one page per
figure, beside the DH table and (when derived) the equations."""

from __future__ import annotations

import base64
import re
import struct
import zlib
from dataclasses import replace

import pytest

from designer.dynamics import derive
from designer.project import load_project
from designer.report.design_report import Figure, design_html, design_pdf, equation_lines
from designer.report.entries import iter_entries
from designer.report.pdf_equations import Plain, Typeset, equation_items
from tests.support import robot_path


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A solid-colour PNG written by hand (independent of any image library)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def puma():
    return load_project(robot_path("puma560"))


def pdf_pages(data: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", data))


def pdf_images(data: bytes) -> int:
    """Image XObjects in a PDF, not counting the soft masks (alpha) that images with transparency carry."""
    images = len(re.findall(rb"/Subtype\s*/Image\b", data))
    masks = len(re.findall(rb"/SMask\s+\d+\s+0\s+R", data))
    return images - masks


def test_html_embeds_each_figure_and_the_dh_table(puma):
    figs = [Figure("3D view", png(30, 20, (200, 10, 10))), Figure("coupling", png(10, 10, (0, 0, 255)), "M12/M11")]
    html = design_html(puma, figs)
    found = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert [base64.b64decode(s) for s in found] == [f.png for f in figs]
    assert "http" not in html.replace("http-equiv", "")        # nothing fetched from the network
    # the DH table: one row per link, with the joint types and link names of the model
    rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]*)</td><td>([RP])</td>", html)
    assert [(int(i), name, j) for i, name, j in rows] == \
        [(k, link.name, link.joint.value) for k, link in enumerate(puma.links, start=1)]
    assert "Figure 2. coupling: M12/M11" in html


def test_html_with_equations_keeps_the_equations_and_adds_the_figures():
    model = load_project(robot_path("planar_two_link"))
    eq = derive(model)
    html = design_html(model, [Figure("view", png(4, 4, (1, 2, 3)))], eq)
    assert html.count("data:image/png;base64,") == 1
    assert html.index("Figures") < html.index("Equations of motion")
    assert "<math" in html and html.rstrip().endswith("</html>")


def test_not_png_is_refused():
    with pytest.raises(ValueError, match="not PNG"):
        Figure("x", b"GIF89a")


def test_pdf_has_a_table_page_a_page_per_figure_and_the_equations(tmp_path):
    model = load_project(robot_path("planar_two_link"))
    eq = derive(model)
    figs = [Figure("a", png(40, 30, (255, 0, 0))), Figure("b", png(40, 30, (0, 255, 0)))]
    path = tmp_path / "r.pdf"
    pages = design_pdf(model, figs, path, eq)
    data = path.read_bytes()
    assert data.startswith(b"%PDF")
    lines = equation_lines(eq)
    assert any(line.startswith("M_11 = ") for line in lines)
    assert pages == pdf_pages(data) >= 2 + len(figs) + 1
    pages_plain = design_pdf(model, [], tmp_path / "plain.pdf")   # the DH and parameters; the links and drives
    assert pages_plain == 2 == pdf_pages((tmp_path / "plain.pdf").read_bytes())


def test_pdf_equations_are_typeset_images_one_per_nonzero_entry(tmp_path):
    model = load_project(robot_path("planar_two_link"))
    eq = derive(model)
    entries = [e for e in iter_entries(eq) if e.expr != 0]
    items = equation_items(eq)
    assert [i.label for i in items] == [e.label for e in entries] and all(isinstance(i, Typeset) for i in items)
    for item in items:   # ink on a transparent ground, black: a rendered formula, not an empty box
        alpha = item.image[..., 3]
        assert 0.01 < (alpha > 0).mean() < 0.6 and not item.image[..., :3].any()
    path = tmp_path / "eq.pdf"
    design_pdf(model, [], path, eq)
    assert pdf_images(path.read_bytes()) == len(entries)
    # with figures: one image more each
    design_pdf(model, [Figure("a", png(40, 30, (255, 0, 0)))], path, eq)
    assert pdf_images(path.read_bytes()) == len(entries) + 1


def test_pdf_equations_past_the_budget_are_one_line_each(tmp_path):
    model = load_project(robot_path("planar_two_link"))
    eq = derive(model)
    items = equation_items(eq, budget=0)
    entries = [e for e in iter_entries(eq) if e.expr != 0]
    # one-line entries are still typeset; the others say their size in one line
    for item in items:
        assert isinstance(item, Typeset) or len(item.lines) == 1
    labels = [i.label for i in items if i.label]
    assert labels == [e.label for e in entries]
    assert all(isinstance(i, Typeset) for i in equation_items(eq))   # all of it within the budget


def test_the_puma_report_is_typeset_and_short(tmp_path):
    """41 pages of sympy text before; now typeset, cut to a few lines an entry, every entry accounted for."""
    model = load_project(robot_path("puma560"))
    eq = derive(model)
    entries = [e for e in iter_entries(eq) if e.expr != 0]
    items = equation_items(eq)
    assert [i.label for i in items if i.label] == [e.label for e in entries]
    typeset = [i for i in items if isinstance(i, Typeset)]
    assert len(typeset) > len(entries) / 2
    for item, entry in zip((i for i in items if i.label), entries):
        if isinstance(item, Plain):     # a size line, with the term count sympy gives
            assert len(item.lines) == 1 and f"{len(entry.expr.as_ordered_terms())} terms" in item.lines[0]
    assert "LaTeX, HTML and text exports" in " ".join(items[0].lines)   # where the full entries are
    path = tmp_path / "puma.pdf"
    pages = design_pdf(model, [], path, eq)
    assert pages == pdf_pages(path.read_bytes()) <= 15
    assert pdf_images(path.read_bytes()) == len(typeset)


def test_reports_are_written_atomically(tmp_path, monkeypatch):
    from matplotlib.backends import backend_pdf
    from designer.report.design_report import write_design_report
    model = load_project(robot_path("planar_two_link"))
    figures = [Figure("a", png(40, 30, (255, 0, 0))), Figure("b", png(40, 30, (0, 255, 0)))]
    path = tmp_path / "r.pdf"
    path.write_bytes(b"%PDF the old report")
    real = backend_pdf.PdfPages.savefig
    calls = []

    def fail_on_second_page(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(self, *args, **kwargs)
    monkeypatch.setattr(backend_pdf.PdfPages, "savefig", fail_on_second_page)
    with pytest.raises(OSError):
        write_design_report(path, model, figures)
    assert path.read_bytes() == b"%PDF the old report"            # untouched, and no temporary file left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.pdf"]
    monkeypatch.setattr(backend_pdf.PdfPages, "savefig", real)
    write_design_report(path, model, figures)
    assert pdf_pages(path.read_bytes()) == 4
    html = tmp_path / "r.html"
    write_design_report(html, model, figures)
    assert html.read_text(encoding="utf-8").rstrip().endswith("</html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.pdf"]


# -- what the arm is made of ---------------------------------------------------------------------------------
def _tube_mass(density: float, D: float, t: float, L: float) -> float:
    """A thin-walled tube's mass from its section, written out here (not the parts module's)."""
    import math
    return density * math.pi / 4 * (D ** 2 - (D - 2 * t) ** 2) * L


def test_the_report_lists_each_links_mass_the_loads_the_total_and_the_drives():
    """The tube arm with its requirements: each tube's mass as the section's closed form gives it from the file's
    numbers, the loads and the drive data as the file writes them (the named stiffness k2 at its value), and the
    total their sum; in the HTML page."""
    import json

    from designer.model.parts import MATERIALS
    from designer.report.tables import design_tables
    path = robot_path("tube_arm_requirements")
    raw = json.loads(path.read_text())
    p = raw["parameters"]
    model = load_project(path)
    tables = {title.split(":")[0].split(" (")[0]: (header, rows) for title, header, rows in design_tables(model)}
    header, rows = tables["Links"]
    lengths = {1: p["d1"], 2: p["L2"], 3: p["L3"]}
    expected = []
    for (k, link), row in zip(enumerate(raw["links"], start=1), rows):
        part = link["part"]
        material = MATERIALS[part["material"]] if isinstance(part["material"], str) else None
        assert material is not None
        D, t = (p[part[key]] for key in ("outer_diameter", "wall"))
        expected.append(_tube_mass(material.density, D, t, lengths[k]))
        assert float(row[header.index("mass")]) == pytest.approx(expected[-1], rel=1e-4), row
        assert material.name in row[header.index("made of")] and part["outer_diameter"] in row[2]
    loads = [pm["mass"] for pm in raw["point_masses"]]
    assert [float(r[1]) for r in tables["Loads"][1]] == pytest.approx(loads)
    links, load, total = (float(c) for c in tables["Total mass"][1][0])
    assert links == pytest.approx(sum(expected), rel=1e-4) and load == pytest.approx(sum(loads))
    assert total == pytest.approx(links + load, rel=1e-4)   # each shown to 5 digits
    header, rows = tables["Drives"]
    for row, link in zip(rows, raw["links"]):
        drive = link["drive"]
        for key, word in (("gear_ratio", "gear ratio"), ("stiffness", "torsional stiffness"),
                          ("rated_torque", "rated torque")):
            column = next(k for k, h in enumerate(header) if h.startswith(word))
            given = drive[key]
            assert float(row[column]) == pytest.approx(p[given] if isinstance(given, str) else given, rel=1e-4)
    assert any("(N·m/rad)" in h for h in header) and not any("N/m)" in h for h in header)   # revolute joints only
    html = design_html(model, [])
    for title in ("Links: mass", "Loads (point masses)", "Total mass", "Drives"):
        assert title in html


def _longer(name: str, n: int):
    """The project ``name`` with its links repeated to ``n`` (parts, drives, parameters and loads kept): long tables."""
    model = load_project(robot_path(name))
    return replace(model, links=(model.links * n)[:n])


class _Pages:
    """Stands for PdfPages: keeps the pages' figures."""

    def __init__(self):
        self.figures = []

    def savefig(self, fig):
        self.figures.append(fig)


def _cells(pages):
    """Per page: [(the table's rows as text, each cell's window box)] after drawing it, and the page's box."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    out = []
    for fig in pages.figures:
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
        tables = []
        for ax in fig.axes:
            for table in ax.tables:
                cells = table.get_celld()
                rows = [[cells[r, c].get_text().get_text() for c in range(1 + max(c for _, c in cells))]
                        for r in range(1 + max(r for r, _ in cells))]
                tables.append((rows, [cell.get_window_extent(renderer) for cell in cells.values()]))
        titles = [t.get_text() for t in fig.texts if t.get_position()[0] == 0.06]   # the tables', left of each
        out.append((fig.bbox, titles, tables))
    return out


def _words(text) -> str:
    return " ".join(str(text).split())   # a cell or title as its words (wrapped at spaces)


@pytest.mark.parametrize("case", [("tube_arm_requirements", None), ("puma560", None),
                                  ("palletizer_parallelogram", None), ("tube_arm_requirements", 6),
                                  ("tube_arm_requirements", 14), ("tube_arm_requirements", 24)])
def test_every_table_of_the_pdf_pages_stays_on_the_page(case):
    """The DH and parameter tables, the links' and drives' tables (long cells: what a link is made of, the inertia,
    the drive headers) and a closed chain's are wrapped to the page's width (they ran off both sides) and go on over
    as many pages as they need, each part under its title and header again (a 14- or 24-link arm's ran off the
    bottom): every cell lies inside the A4 page, and every row is there once."""
    from designer.report.design_report import _dh_table, _table_page, _tables_page
    from designer.report.tables import closed_chain_tables, design_tables
    name, n = case
    model = load_project(robot_path(name)) if n is None else _longer(name, n)
    groups = [("DH table", [_dh_table(model)[0]], _dh_table(model)[1])]
    groups += [(title, [header], rows) for title, header, rows in design_tables(model)]
    pages = _Pages()
    count = _table_page(pages, model, "Design report", None)
    count += _tables_page(pages, design_tables(model), "Links, loads and drives")
    if not model.is_serial:
        closed = closed_chain_tables(model, None, samples=16)
        groups += [(title, [header], rows) for title, header, rows in closed]
        count += _tables_page(pages, closed)
    assert count == len(pages.figures)
    drawn = _cells(pages)
    for page, _, tables in drawn:
        for _, boxes in tables:
            for box in boxes:
                assert page.x0 - 0.5 <= box.x0 and box.x1 <= page.x1 + 0.5, case
                assert page.y0 - 0.5 <= box.y0 and box.y1 <= page.y1 + 0.5, case
    parts = []
    for _, titles, tables in drawn:
        assert len(titles) == len(tables)
        parts += [(_words(title), rows) for title, (rows, _) in zip(titles, tables)]
    for title, (header,), rows in groups:
        mine = [r for text, r in parts if text in (_words(title), _words(title + " (continued)"))]
        assert mine and all([_words(c) for c in part[0]] == [_words(h) for h in header] for part in mine), case
        assert [[_words(c) for c in r] for part in mine for r in part[1:]] == [[_words(c) for c in r] for r in rows]
    if n is not None and n >= 14:   # a long arm's tables go on over pages (24 links: the links' table over two)
        assert len(pages.figures) > 2 and (n < 24 or any(text.endswith("(continued)") for text, _ in parts))


def test_html_tables_keep_their_header_on_every_printed_page():
    """In the HTML a table's header row is its <thead> and its rows the <tbody>, and the print style repeats the
    header at the top of every printed page a long table runs over (a 24-link arm's DH, links and drives)."""
    from designer.report.tables import design_tables
    model = _longer("tube_arm_requirements", 24)
    html = design_html(model, [])
    tables = re.findall(r"<table[^>]*>(.*?)</table>", html, re.S)
    assert len(tables) == 2 + len(design_tables(model))   # the DH table, the parameters, what the arm is made of
    for table in tables:
        head, body = re.fullmatch(r"\s*<thead>(<tr>(?:<th>.*?</th>)+</tr>)</thead>\s*<tbody>(.*)</tbody>\s*", table,
                                  re.S).groups()
        assert "<th>" not in body and "<thead>" not in body
    dh_rows = re.findall(r"<tr>.*?</tr>", re.search(r"<tbody>(.*?)</tbody>", tables[0], re.S).group(1), re.S)
    assert len(dh_rows) == 24
    assert re.search(r"@media print \{ thead \{ display: table-header-group; \}", html)


def test_a_long_design_review_goes_on_over_pages_with_its_failures_shaded():
    """60 requirements (every third failing): the review's table goes on over pages (it was squeezed into one page,
    its rows overlapping), every cell inside the page, every row once, exactly the failing ones shaded."""
    from designer.report.design_report import _review_page
    from designer.report.review_section import review_rows
    outcomes = [{"requirement": k + 1, "name": f"req {k + 1}", "metric": "peak_torque[2]", "where": "cycle",
                 "unit": "N*m", "value": 10.0 + k, "bound": "<=", "limit": 40.0, "margin": 30.0 - k,
                 "relative_margin": (30.0 - k) / 40.0, "passed": k % 3 != 0, "worst_where": "t = 0.5 s"}
                for k in range(60)]
    pages = _Pages()
    assert _review_page(pages, outcomes) == len(pages.figures) > 1
    drawn = _cells(pages)
    rows, shaded = [], []
    for page, _, tables in drawn:
        for cells, boxes in tables:
            for box in boxes:
                assert page.x0 - 0.5 <= box.x0 and box.x1 <= page.x1 + 0.5
                assert page.y0 - 0.5 <= box.y0 and box.y1 <= page.y1 + 0.5
            rows += cells[1:]
    for fig in pages.figures:
        for ax in fig.axes:
            for table in ax.tables:
                cells = table.get_celld()
                shaded += [cells[r, 0].get_facecolor()[:3] != (1.0, 1.0, 1.0)
                           for r in range(1, 1 + max(r for r, _ in cells))]
    assert [_words(r[0]) for r in rows] == [str(k + 1) for k in range(60)]
    assert len(rows) == len(review_rows(outcomes))
    assert shaded == [k % 3 == 0 for k in range(60)]
