"""The small things of issue 20, item 12: the shortcuts list's order, the user guide's images and contents
list, Copy LaTeX's confirmation, legends that leave the curves visible, empty Simulate plots, and Undo after
crash recovery."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, QSettings, Qt
from PySide6.QtGui import QImageReader, QKeySequence
from PySide6.QtWidgets import QMessageBox

from designer.gui import help as help_windows
from designer.gui.main_window import MainWindow
from designer.gui.projects import Recovery
from designer.project import load_project, save_project
from tests.gui.test_equations_view import robmat_double_pendulum
from tests.support.windows import open_window

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, ROBOTS / "double_pendulum.json")


def test_shortcuts_read_chords_first_and_a_keyboards_own_key_last(qtbot):
    keys = [QKeySequence("Ctrl+Shift+Z"), QKeySequence(Qt.Key.Key_Redo), QKeySequence("Ctrl+Y")]
    assert help_windows.shortcut_text(keys) == "Ctrl+Y, Ctrl+Shift+Z (or the Redo key)"
    assert help_windows.shortcut_text([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")]) == \
        "Ctrl+Y, Ctrl+Shift+Z"
    assert help_windows.shortcut_text([QKeySequence("F1")]) == "F1"
    assert help_windows.shortcut_text([QKeySequence(Qt.Key.Key_Undo)]) == "The Undo key"


def test_the_shortcuts_dialog_never_lists_a_bare_key_name_between_chords(qtbot, window):
    dialog = window.show_shortcuts()
    qtbot.addWidget(dialog)
    redo = next(r for r in dialog.rows() if r[1] == "Redo")
    assert redo[2].startswith("Ctrl+Y, Ctrl+Shift+Z")
    assert ", Redo," not in redo[2]


def test_the_user_guide_fits_the_screenshot_to_the_pane_and_shows_every_title(qtbot, window):
    window.show_user_guide("README.md")
    docs = window.docs_window
    qtbot.waitExposed(docs)
    docs.resize(900, 650)
    qtbot.wait(50)
    natural = QImageReader(str(help_windows.guide_root() / "docs" / "screenshot.png")).size().width()
    room = docs.browser.viewport().width()
    widths = _image_widths(docs.browser.document())
    assert widths and natural > room                 # the screenshot is wider than the pane ...
    assert 0 < max(widths) <= room                    # ... and shown no wider than the pane
    metrics = docs.list.fontMetrics()
    longest = max(metrics.horizontalAdvance(t) for t, _ in docs.pages)
    assert docs.list.viewport().width() >= longest    # no title cut off


def _image_widths(document) -> list[float]:
    widths = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                widths.append(fmt.toImageFormat().width())
            it += 1
        block = block.next()
    return widths


def test_copy_latex_says_what_it_copied(qtbot, window):
    view = window.derivation.view
    view.set_equations(robmat_double_pendulum())
    view.select_row(0)
    view.copy_latex_button.click()
    assert window.statusBar().currentMessage() == "Copied M_11 to the clipboard as LaTeX"
    view.copy_text_button.click()
    assert window.statusBar().currentMessage() == "Copied M_11 to the clipboard as text"


def _covered(plot: pg.PlotItem) -> int:
    """Data points under the legend's rectangle."""
    rect = plot.legend.mapRectToScene(plot.legend.boundingRect())
    box = plot.vb
    count = 0
    for item in plot.listDataItems():
        x, y = item.getData()
        for px, py in zip(x, y):
            if rect.contains(box.mapViewToScene(QPointF(float(px), float(py)))):
                count += 1
    return count


def test_empty_simulate_plots_show_the_duration_in_plain_seconds(window):
    panel = window.simulate
    x_range, y_range = panel.q_plot.vb.viewRange()
    assert x_range[0] == pytest.approx(0, abs=0.1) and x_range[1] == pytest.approx(panel.duration.value(), rel=0.1)
    assert y_range == pytest.approx([-1, 1])
    for plot in (panel.q_plot, panel.tau_plot, panel.e_plot):
        assert not plot.getAxis("bottom").autoSIPrefix and not plot.getAxis("left").autoSIPrefix
    assert "x0.001" not in panel.e_plot.getAxis("bottom").labelString()


def test_recovery_is_one_undoable_step(qtbot, tmp_path, monkeypatch):
    project = tmp_path / "arm.json"
    saved = load_project(ROBOTS / "double_pendulum.json")
    save_project(saved, project)
    edited = saved.with_parameter("L1", 3.0)
    crashed = Recovery(tmp_path / "recovery", pid=2**22 + 12345)     # above Linux's pid limit: never alive
    crashed.write(edited, project, "")
    window = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    assert window.offer_recovery()
    doc = window.document
    assert doc.model == edited and doc.dirty and doc.path == project
    assert window.undo_action.isEnabled()
    window.undo_action.trigger()
    assert doc.model == saved and not doc.dirty                     # back to the file on disk
    window.redo_action.trigger()
    assert doc.model == edited and doc.dirty


def test_recovery_of_an_untitled_project_undoes_to_what_was_shown(qtbot, tmp_path, monkeypatch):
    edited = load_project(ROBOTS / "double_pendulum.json").with_parameter("L1", 3.0)
    Recovery(tmp_path / "recovery", pid=2**22 + 12346).write(edited, None, "")
    window = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    before = window.document.model
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    assert window.offer_recovery()
    assert window.document.model == edited and window.document.dirty
    window.undo_action.trigger()
    assert window.document.model == before


def test_explore_plot_legends_follow_their_curves(qtbot):
    from designer.gui.explore.plots import PlotBox
    box = PlotBox(lambda: ([], []))
    qtbot.addWidget(box)
    box.resize(500, 320)
    box.add_legend()
    box.show()
    qtbot.waitExposed(box)
    t = np.linspace(0, 1, 300)
    for k in range(3):
        box.plot.plot(t, t + 0.02 * k, pen=k, name=f"joint {k + 1}")   # rising through the top right
    qtbot.waitUntil(lambda: _covered(box.plot) == 0, timeout=120_000)


def test_the_first_controls_a_user_points_at_say_what_they_do(window):
    """Fit, Derive, the alpha_i header and Convention each carry a tooltip (they had none, or only on a
    neighbour): hovering is how a new user learns the window."""
    from PySide6.QtWidgets import QLabel
    bar = window.arm_view.toolbar
    (fit,) = [a for a in bar.actions() if a.text() == "Fit"]
    assert bar.widgetForAction(fit).toolTip().strip()
    assert window.derivation.derive_button.toolTip().strip()
    table = window.dh_table
    model = table.view.model()
    alpha = [k for k in range(model.columnCount()) if model.headerData(k, Qt.Orientation.Horizontal).startswith("α")]
    assert alpha and "twist" in model.headerData(alpha[0], Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    (label,) = [w for w in table.findChildren(QLabel) if w.text() == "Convention:"]
    assert label.toolTip().strip() and table.convention.toolTip().strip()
