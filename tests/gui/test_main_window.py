"""The window as a whole: start-up through ``main``, views following the model, derive from the window."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox

from designer.gui import app as gui_app
from designer.gui import projects
from designer.gui.dh_table import COLUMNS
from designer.gui.main_window import MainWindow
from designer.project import load_project
from tests.support.windows import open_window

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


@pytest.fixture
def isolated(monkeypatch, tmp_path):
    """Settings and recovery files of ``main`` go to tmp_path; message boxes are recorded."""
    shown = []
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)   # start() installs its own; put pytest-qt's back
    monkeypatch.setattr(projects, "default_recovery_dir", lambda: tmp_path / "recovery")
    old_format = QSettings.defaultFormat()
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    for name in ("critical", "information", "warning"):
        monkeypatch.setattr(QMessageBox, name, lambda parent, title, text, *a, **k: shown.append(text))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: pytest.fail(f"unexpected question {a[1:3]}"))
    yield shown
    QSettings.setDefaultFormat(old_format)


def run_main(qtbot, argv) -> MainWindow:
    """Start the application as ``main(argv)`` does, without entering its event loop: the placeholder shows,
    the window with its project comes after its first paint (``opened``, waited for here)."""
    app, opening = gui_app.start(argv)
    assert app is QApplication.instance()
    qtbot.addWidget(opening)
    with qtbot.waitSignal(opening.opened, timeout=120_000) as opened:
        pass
    window = opened.args[0]
    assert opening.main_window is window and not opening.isVisible()
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    qtbot.waitExposed(window)
    return window


def test_main_opens_the_puma_without_a_file(qtbot, isolated):
    window = run_main(qtbot, [])
    assert window.document.model == load_project(projects.default_project())
    assert window.document.model.n == 6 and window.document.path is None
    assert "puma560.json" in window.windowTitle()
    assert not isolated


def test_main_with_a_bad_file_says_so_and_still_opens(qtbot, isolated, tmp_path):
    bad = tmp_path / "broken.json"
    doc = json.loads((ROBOTS / "double_pendulum.json").read_text())
    doc["links"][0]["joint"] = "X"
    bad.write_text(json.dumps(doc))
    window = run_main(qtbot, [str(bad)])
    assert len(isolated) == 1 and "broken.json" in isolated[0] and "links[1].joint" in isolated[0]
    assert window.isVisible() and window.document.model.n >= 1   # a window with some arm is up
    # and it is shown: the start fills the views only with the project it opens, so a refused one leaves the
    # new arm the window was built with to be shown, sliders, 3D arm and problems
    n = window.document.model.n
    assert len(window.sliders.values()) == n and window.design.model is window.document.model
    assert window.arm_view.arm is window.design.arm and window.design.arm is not None and window.design.arm.n == n


def test_main_opens_the_given_project(qtbot, isolated):
    window = run_main(qtbot, [str(ROBOTS / "double_pendulum.json")])
    assert window.document.path == ROBOTS / "double_pendulum.json"
    assert window.windowTitle() == "Double pendulum — double_pendulum.json[*]"


def test_main_usage(capsys):
    from designer.launch import main   # main.py and `designer gui` check the arguments there, before Qt
    assert main(["a.json", "b.json"]) == 2
    assert "usage" in capsys.readouterr().err
    assert main(["--help"]) == 0 and "usage" in capsys.readouterr().out


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, ROBOTS / "double_pendulum.json")


def test_edits_reach_the_views_and_the_window_stays_usable(qtbot, window):
    sliders = window.sliders
    assert len(sliders.values()) == 2
    window.dh_table.select_link(1)
    window.dh_table.add_link()
    assert len(sliders.values()) == 3                       # the sliders follow the model
    assert window.inspector.link_index == 2
    window.undo_action.trigger()
    assert len(sliders.values()) == 2


def test_derive_in_the_window_then_edit_marks_stale(qtbot, window):
    with qtbot.waitSignal(window.derivation.derivationFinished, timeout=120_000):
        window.derivation.start()
    eq, stale = window.derivation.current_equations()
    assert eq.model == window.document.model and not stale
    window.dh_table.table_model.set_text(0, COLUMNS.index("mass"), "3")
    assert window.derivation.stale.isVisible()
    assert window.derivation.current_equations()[1]


def test_problem_tab_counts(window):
    index = window.result_tabs.indexOf(window.problems)
    window.dh_table.table_model.set_text(0, COLUMNS.index("mass"), "-2")
    assert window.result_tabs.tabText(index).startswith("Problems (")


def test_export_report_and_code(qtbot, window, tmp_path, monkeypatch):
    from designer.codegen.files import generate_files
    from designer.gui import export
    from designer.report import render
    monkeypatch.setattr(QMessageBox, "information", lambda *a, **k: pytest.fail(f"unexpected: {a[1:3]}"))
    with qtbot.waitSignal(window.derivation.derivationFinished, timeout=120_000) as blocker:
        window.derivation.start()
    eq = blocker.args[0]
    for fmt in ("html", "latex", "markdown"):
        target = tmp_path / f"report.{fmt}"
        with qtbot.waitSignal(window.exported, timeout=120_000):
            assert export.export_report(window, fmt, target)
            # the export's job line shows in the status bar until the file is written
            assert window.export_jobs.busy and window.export_jobs.isVisible()
            if fmt == "html":   # a second export meanwhile waits its turn; the first is not cancelled
                said: list[str] = []
                monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text, *a, said=said:
                                    said.append(text))
                assert not export.export_report(window, "latex", tmp_path / "second.tex")
                assert said and "still running" in said[0] and window.export_jobs.busy
        assert not window.export_jobs.isVisible() and window.export_jobs.progress.format() == "done"
        assert target.read_text(encoding="utf-8") == render(eq, fmt)
    with qtbot.waitSignal(window.exported, timeout=120_000):
        export.export_code(window, "c", tmp_path / "arm")
    for path, text in generate_files(eq, "c", str(tmp_path / "arm.c")).items():   # the source and its header
        assert Path(path).read_text(encoding="utf-8") == text


def test_export_without_equations_says_so(window, monkeypatch):
    from designer.gui import export
    said = []
    monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text, *a: said.append(text))
    assert not export.export_report(window, "html", "/nonexistent/x.html")
    assert said and "Derive the equations first" in said[0]


def test_bad_entry_message_reaches_the_status_bar(window):
    before = window.document.model
    window.dh_table.table_model.set_text(1, COLUMNS.index("d"), "2 +")
    assert window.document.model == before
    assert "link 2, d" in window.statusBar().currentMessage()
    window.inspector.com[2].submit("sqrt(-1)")
    assert "square root of a negative number" in window.statusBar().currentMessage()
    assert window.document.model == before


def test_a_workspace_map_is_drawn_in_the_3d_view(window):
    positions = np.array([[0.5, 0.1, 0.0], [0.2, -0.3, 0.0], [1.1, 0.4, 0.0]])
    window.explore.workspaceMapped.emit(positions, np.array([1.0, 2.0, 3.0]), "gravity[1]")
    assert window.arm_view.workspace_point_count() == 3
    assert window.arm_view.workspace_label == "gravity[1]"


def test_the_views_share_the_open_designs_arm_built_once_per_edit(qtbot, tmp_path):
    w = MainWindow(load_project(ROBOTS / "puma560.json"),
                   settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                   recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    design = w.design
    builds = design.arm_builds
    w.document.apply(w.document.model.with_parameter("m3", 7.5), "Set m3")
    assert design.arm_builds == builds + 1              # one arm for the edit, not one per view
    for view_arm in (w.arm_view.arm, w.coupling.arm, w.simulate.arm):
        assert view_arm is design.arm
    assert design.arm.mass[2] == 7.5
    w.sliders.set_values([0.2, -0.3, 0.4, 0.1, 0.5, -0.6])
    np.testing.assert_allclose(design.q, w.sliders.values())
    np.testing.assert_allclose(w.arm_view.joint_values(), design.q)
    np.testing.assert_allclose(w.coupling.q, design.q)


def test_each_later_tab_shown_first_after_the_start_shows_the_opened_project(qtbot, isolated):
    """Coupling, Explore, Simulate and Requirements are built when first shown (issue 29: the window opens sooner;
    Requirements also once the window shows a project that has some); each, shown for the first time after the
    start, shows the project the start opened: its coupling curve equals
    Pinocchio's mass matrix, the map offers its joints, Simulate offers its elastic joints, the review its
    requirements as the core's own review finds them."""
    from designer.explore.joints import explore_joints
    from designer.kinematics import NumericArm
    from designer.review import review
    from tests.support.pin_reference import pin, pin_model

    window = run_main(qtbot, [str(ROBOTS / "tube_arm_requirements.json")])
    model = window.document.model
    assert model.name == load_project(ROBOTS / "tube_arm_requirements.json").name
    tabs = window.result_tabs
    titles = [tabs.tabToolTip(k).split(":")[0] for k in range(tabs.count())]   # the full names (short titles if narrow)
    assert titles[:6] == ["Equations", "Coupling", "Explore", "Simulate", "Requirements", "Problems"]
    # a project with requirements is reviewed once the window shows, its tab shown or not (the design report
    # takes the outcomes); the other three are not built yet
    qtbot.waitUntil(lambda: len(window.built_panels()) == 1, timeout=60_000)
    panel = window.built_panels()[0]
    assert tabs.indexOf(panel) == titles.index("Requirements") and not panel.isVisible()

    tabs.setCurrentIndex(titles.index("Coupling"))
    assert len(window.built_panels()) == 2
    coupling = window.coupling
    assert tabs.currentWidget() is coupling and coupling.isVisible() and coupling.model is model
    qtbot.waitUntil(lambda: coupling.sweeps["joint"] is not None and bool(coupling.curve_data()), timeout=120_000)
    sweep = coupling.sweeps["joint"]
    i, j = sweep.pair
    swept = int(sweep.x_label.split()[0][1:]) - 1   # "q3 (rad)": the swept joint
    name = f"M_{i + 1}{j + 1}"
    _x, y = coupling.curve_data()[name]
    pm = pin_model(NumericArm.from_model(model))
    data = pm.createData()
    for value, shown in zip(sweep.x[::25], y[::25]):
        q = np.array(coupling.q, float)
        q[swept] = value
        M = pin.crba(pm, data, q)
        assert shown == pytest.approx((np.triu(M) + np.triu(M, 1).T)[i, j], rel=1e-9, abs=1e-12)

    tabs.setCurrentIndex(titles.index("Explore"))
    assert len(window.built_panels()) == 3 and tabs.currentWidget() is window.explore_scroll
    explore = window.explore
    assert explore.isVisible() and explore.model is model
    combo = explore.map_view.joint_x
    assert [combo.itemData(k) for k in range(combo.count())] == list(explore_joints(model).numbers)

    tabs.setCurrentIndex(titles.index("Simulate"))
    simulate = window.simulate
    assert len(window.built_panels()) == 4 and tabs.currentWidget() is simulate and simulate.isVisible()
    assert simulate.model is model
    assert not simulate.elastic.check.isHidden()   # the tube arm's drives have springs: elastic joints offered

    tabs.setCurrentIndex(titles.index("Requirements"))
    assert window.requirements is panel and len(window.built_panels()) == 4
    assert tabs.currentWidget() is panel and panel.isVisible()
    assert panel.table.rowCount() == len(model.requirements.items) > 0
    qtbot.waitUntil(lambda: panel.outcomes is not None and panel.reviewed_model is model and not panel.runner.busy,
                    timeout=120_000)
    expected = review(model, strict=False)   # the core's review, run here in the test's thread
    assert [o.passed for o in panel.outcomes] == [o.passed for o in expected]
    shown = [panel.table.item(r, 4).text() for r in range(panel.table.rowCount())]
    assert [t.startswith("pass") for t in shown] == [o.passed for o in expected]
