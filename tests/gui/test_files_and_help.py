"""Save As names, the folder dialogs start in, Ctrl+Y, and the Help menu (About, user guide, shortcuts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from designer.gui import help as help_windows
from designer.gui.folders import safe_file_name
from designer.gui.main_window import MainWindow
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(load_project(ROBOTS / "puma560.json"), settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.mark.parametrize("name", ["Puma 560 (Corke / Armstrong)", 'a:b*c?"d<e>|f\\g', "  ..hidden", "\t", ""])
def test_safe_file_names_have_no_separators_or_reserved_characters(name):
    stem = safe_file_name(name)
    assert stem and not set(stem) & set('<>:"/\\|?* \t') and not stem.startswith(".")


def test_save_as_proposes_a_safe_name_in_the_last_folder(window, tmp_path, monkeypatch):
    assert "/" in window.document.model.name   # the PUMA's name has a slash
    asked = []

    def dialog(parent, title, start, filters):
        asked.append(start)
        return str(tmp_path / "chosen" / "puma.json"), filters
    (tmp_path / "chosen").mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    assert window.save_as()
    proposed = Path(asked[0])
    assert proposed.name == safe_file_name(window.document.model.name) + ".json"
    assert "/" not in proposed.name and proposed.parent.is_dir()
    # the next dialog, of any kind, starts where the user saved
    opened = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda p, t, start, f: (opened.append(start), ("", f))[1])
    window.document.undo_stack.setClean()
    window.open_file()
    assert Path(opened[0]) == tmp_path / "chosen"


def test_ctrl_y_redoes(qtbot, window):
    assert QKeySequence("Ctrl+Y") in window.redo_action.shortcuts()
    model = window.document.model
    window.document.apply(model.with_parameter("m2", 1.0), "Set m2")
    window.undo_action.trigger()
    assert window.document.model == model
    with qtbot.waitActive(window):
        window.activateWindow()
    window.dh_table.setFocus()
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert window.document.model.parameter_values["m2"] == 1.0


def test_help_menu_has_about_guide_shortcuts_and_f1(qtbot, window, monkeypatch):
    texts = {action.text().replace("&", "") for menu, action in window.menu_actions() if menu == "Help"}
    assert {"User guide", "Metric definitions", "Keyboard shortcuts", "About Manipulator Designer"} <= texts
    guide = [a for m, a in window.menu_actions() if a.text() == "&User guide"][0]
    assert QKeySequence("F1") in guide.shortcuts()
    shown = []
    monkeypatch.setattr(QMessageBox, "about", lambda parent, title, text: shown.append(text))
    [a for m, a in window.menu_actions() if a.text().startswith("&About")][0].trigger()
    assert "0.1.0" in shown[0] and "Licence" in shown[0] and "sympy" in shown[0] and "pyqtgraph" in shown[0]


def test_the_user_guide_shows_the_shipped_docs(qtbot, window):
    with qtbot.waitActive(window):
        window.activateWindow()
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_F1)
    docs = window.docs_window
    assert docs is not None and docs.isVisible()
    names = {path.name for _title, path in docs.pages}
    assert {"README.md", "metrics.md", "project-format.md"} <= names
    assert "Manipulator Designer" in docs.browser.toPlainText()
    window.show_user_guide("metrics.md")
    assert docs.current_path().name == "metrics.md" and "inertia_locked" in docs.browser.toPlainText()


def test_metric_help_is_one_click_from_the_picker(qtbot, window):
    window.explore.picker.help_button.click()
    assert window.docs_window.current_path().name == "metrics.md"
    picker = window.explore.picker
    picker.set_metric("inertia_locked")
    assert picker.metric_box.currentText().startswith("Effective inertia, others locked")
    assert picker.text() == "inertia_locked"


def test_shortcuts_dialog_lists_the_menu_keys(qtbot, window):
    dialog = window.show_shortcuts()
    qtbot.addWidget(dialog)
    rows = dialog.rows()
    commands = {r[1] for r in rows}
    assert {"Save", "Undo", "Redo", "User guide", "Derive equations"} <= commands
    redo = [r for r in rows if r[1] == "Redo"][0]
    assert "Ctrl+Y" in redo[2]


def test_about_text_names_the_libraries():
    text = help_windows.about_text()
    for lib in help_windows.LIBRARIES:
        assert lib in text


def test_export_and_import_dialogs_start_in_the_last_folder_used(window, tmp_path, monkeypatch):
    """Export MJCF/URDF and Import URDF/MJCF start where the user last opened or saved a file (any dialog),
    not in the program's working folder, and remember the folder they chose."""
    from designer.gui import mjcf_dialogs, urdf_dialogs
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    window.settings.setValue("files/last_folder", str(first))
    asked = []

    def save_dialog(parent, title, start, filters):
        asked.append(Path(start).parent)
        return str(second / "arm.xml"), filters
    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_dialog)
    assert mjcf_dialogs.export_mjcf_file(window)
    assert asked == [first] and (second / "arm.xml").is_file()
    opened = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda p, t, start, f: (opened.append(Path(start)), ("", f))[1])
    window.document.undo_stack.setClean()
    assert urdf_dialogs.import_urdf_file(window) is None   # cancelled in the dialog
    assert opened == [second]
