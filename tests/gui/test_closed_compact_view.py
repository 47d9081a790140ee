"""The Equations tab on a four-bar (a loop that does not close linearly): the closed form asked for, in the
actuated joint and the named loop quantities listed before the matrices that read them (issue 29 item 5)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import sympy as sp

from designer.dynamics.results import Form, Method, SimplifyMode
from designer.jobs import run
from designer.project import load_project
from designer.window_jobs import window_derive_job
from tests.support import ROBOTS


def _window_entries(stem: str, method: Method):
    from designer.gui.equations_view import entries_of
    eq = run(window_derive_job(load_project(ROBOTS / f"{stem}.json"), method, SimplifyMode.FAST))
    return eq, entries_of(eq)


def _same(a, b) -> bool:
    """The same expression up to the printed floats' last digits: equal at random values of every symbol."""
    a, b = sp.sympify(a), sp.sympify(b)
    free = sorted(a.free_symbols | b.free_symbols, key=str)
    rng = np.random.default_rng(5)
    for _ in range(3):
        at = dict(zip(free, rng.uniform(0.3, 1.7, len(free))))
        x, y = complex(a.xreplace(at)), complex(b.xreplace(at))
        if abs(x - y) > 1e-9 * max(1.0, abs(x), abs(y)):
            return False
    return True


def test_the_four_bars_lagrange_entries_are_the_command_lines_and_give_the_numeric_mass():
    """The window's entries equal `derive --method lagrange`'s (another process, the JSON text parsed back),
    and, the loop quantities evaluated in order, M_11 equals ClosedDynamics' M_a at random cranks (the
    closure solved numerically, the tree's mass matrix projected: an independent side)."""
    from designer.numeric.closed import ClosedDynamics
    eq, entries = _window_entries("four_bar", Method.LAGRANGE)
    assert eq.form is Form.CLOSED and "loop_quantities" in eq.extras
    names = [e.matrix for e in entries]
    loops = names.count("loop")
    assert loops > 10 and names[:loops] == ["loop"] * loops   # defined first, in order
    order = [n for n in dict.fromkeys(names) if n in eq.matrices]
    assert order == [n for n in ("M", "B", "C", "G") if n in names] and {"M", "C", "G"} <= set(order)  # B: n = 1
    out = subprocess.run([sys.executable, "-m", "designer", "derive", str(ROBOTS / "four_bar.json"),
                          "--method", "lagrange"], capture_output=True, text=True, timeout=600, check=True).stdout
    doc = json.loads(out)
    syms = {s.name: s for e in entries for s in sp.sympify(e.expr).free_symbols}
    syms.update({e.label: sp.Symbol(e.label, real=True) for e in entries[:loops]})
    cli_loops = doc["loop_quantities"]
    assert [d["symbol"] for d in cli_loops] == [e.label for e in entries[:loops]]
    for d, e in zip(cli_loops, entries[:loops]):
        assert _same(sp.sympify(d["value"], locals=syms), e.expr), e.label

    def flat(x):
        return [y for item in x for y in flat(item)] if isinstance(x, list) else [x]

    mats = [e for e in entries if e.matrix in eq.matrices]
    for name in ("M", "B", "C", "G"):
        cli = flat(doc["matrices"][name]["entries"])
        mine = [e for e in mats if e.matrix == name]
        assert len(cli) == len(mine), name
        for text, e in zip(cli, mine):
            assert _same(sp.sympify(text, locals=syms), e.expr), e.label
    # the independent numeric side
    model = load_project(ROBOTS / "four_bar.json")
    values = {sp.Symbol(k, real=True): v for k, v in model.parameter_values.items() if v is not None}
    dyn = ClosedDynamics(model)
    m11 = next(e for e in mats if e.label.startswith("M"))
    q1 = eq.model.q[0]
    for crank in np.random.default_rng(29).uniform(-np.pi, np.pi, 5):
        known = dict(values)
        known[q1] = float(crank)
        for e in entries[:loops]:
            known[syms[e.label]] = float(sp.sympify(e.expr).xreplace(known))
        assert float(sp.sympify(m11.expr).xreplace(known)) == \
            __import__("pytest").approx(float(dyn.M([crank])[0, 0]), rel=1e-8, abs=1e-12)


def test_newton_euler_and_lees_form_list_the_loop_quantities_too_and_the_palletizer_none():
    for method, mats in ((Method.NEWTON_EULER, ["tau"]), (Method.DALEMBERT, ["D_rot", "D_tra", "H_rot", "H_tra", "G"])):
        eq, entries = _window_entries("four_bar", method)
        names = list(dict.fromkeys(e.matrix for e in entries))
        assert eq.form is Form.CLOSED and names[0] == "loop" and set(mats) <= set(names), (method, names)
    eq, entries = _window_entries("palletizer_parallelogram", Method.LAGRANGE)
    assert eq.form is Form.CLOSED and "loop_quantities" not in eq.extras
    names = list(dict.fromkeys(e.matrix for e in entries))
    assert "loop" not in names and names[:4] == ["M", "B", "C", "G"], names


def test_the_equations_tab_shows_the_four_bars_closed_form_with_its_loop_quantities(qtbot, tmp_path):
    """Issue 29 item 5: "Lagrange-Euler (M, B, C, G)" showed the recursion's steps headed "off simplification"."""
    from designer.gui.main_window import MainWindow
    w = MainWindow(load_project(ROBOTS / "four_bar.json"), recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    panel = w.derivation
    assert Method(panel.method.currentData()) is Method.LAGRANGE
    failed: list = []
    panel.derivationFailed.connect(lambda message, details: failed.append(message))
    with qtbot.waitSignal(panel.derivationFinished, timeout=120_000) as done:
        panel.start()
    eq = done.args[0]
    assert not failed and eq.form is Form.CLOSED
    view = panel.view
    title = view.title.text()
    assert "off simplification" not in title and "compact" not in title
    assert "M, C, G" in title and f"{len(eq.extras['loop_quantities'].items)} loop quantities" in title
    labels = view.visible_labels()
    assert labels[0] == "Rz1_xx" and "detJp" in labels and labels.index("detJp") < labels.index(
        next(x for x in labels if x.startswith("M")))
    view.search.setText("detJp")     # the filter reads the loop quantities' symbols
    qtbot.waitUntil(lambda: 0 < len(view.visible_labels()) < len(labels), timeout=30_000)
    shown = [view.model.entry(r) for r in range(view.entry_count())]
    assert all("detJp" in {s.name for s in sp.sympify(e.expr).free_symbols} for e in shown)
    view.search.setText("")
    view.select_row(labels.index("detJp"))
    assert "detJp" in view.copy_text() and "det" in view.copy_latex().lower()


def test_export_code_of_the_four_bars_closed_form_writes_the_compact_forms_code_and_says_so(qtbot, tmp_path,
                                                                                            monkeypatch):
    """Code generation refuses the nonlinear closed form (its loop quantities): Export > code of the four-bar's
    Lagrange form on display writes the compact form's code, as `codegen` does, with one line saying so; its tau
    is ClosedDynamics' (the numeric projection)."""
    from PySide6.QtWidgets import QMessageBox

    from designer.cli import main
    from designer.gui import export
    from designer.gui.export_options import CodeOptions
    from designer.numeric.closed import ClosedDynamics
    from designer.window_jobs import COMPACT_CODE_NOTE
    from tests.support import robot_path
    from tests.support.windows import open_window
    seen: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: seen.append(text))
    path = robot_path("four_bar")
    window = open_window(qtbot, tmp_path, path)
    with qtbot.waitSignal(window.derivation.derivationFinished, timeout=120_000) as done:
        window.derivation.start()
    assert "loop_quantities" in done.args[0].extras
    with qtbot.waitSignal(window.export_jobs.ended, timeout=120_000):
        assert export.export_code(window, "python", tmp_path / "gui.py", CodeOptions())
    assert not seen, seen
    first, _, rest = (tmp_path / "gui.py").read_text(encoding="utf-8").partition("\n")
    assert first == "# " + COMPACT_CODE_NOTE
    assert main(["codegen", str(path), "--lang", "python", "--quiet", "--out", str(tmp_path / "cli.py")]) == 0
    assert rest == (tmp_path / "cli.py").read_text(encoding="utf-8")
    scope: dict = {}
    exec(rest, scope)   # our own output: numpy only
    cd = ClosedDynamics(load_project(path))
    rng = np.random.default_rng(7)
    for _ in range(3):
        qa, qda, qdda = rng.uniform(-0.6, 0.6, 1), rng.normal(size=1), rng.normal(size=1)
        np.testing.assert_allclose(scope["tau"](qa, qda, qdda), cd.tau(qa, qda, qdda), rtol=1e-9, atol=1e-9)


def test_the_design_reports_equations_include_the_loop_quantities_before_the_matrices():
    """The PDF design report's equation pages and its plain lines define the loop quantities first (the HTML
    report's "Loop quantities" section is the equations report's)."""
    from designer.report.design_report import equation_lines
    from designer.report.pdf_equations import Typeset, equation_items
    eq, entries = _window_entries("four_bar", Method.LAGRANGE)
    labels = [it.label for it in equation_items(eq) if isinstance(it, Typeset) or it.label]
    first_m = next(k for k, x in enumerate(labels) if x.startswith("M"))
    assert "detJp" in labels[:first_m] and labels[0] == "Rz1_xx"
    lines = equation_lines(eq)
    assert lines[0].startswith("Rz1_xx = ") and any(x.startswith("detJp = ") for x in lines)
    assert min(k for k, x in enumerate(lines) if x.startswith("detJp")) < min(
        k for k, x in enumerate(lines) if x.startswith("M"))
