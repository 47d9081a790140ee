"""Projects in the window: open, save, reopen, title, unsaved-changes prompt, recent files, recovery."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from designer.gui.dh_table import COLUMNS
from designer.gui.main_window import MainWindow
from designer.gui.projects import Recovery, examples
from designer.model import symbol
from designer.project import load_project, save_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
Button = QMessageBox.StandardButton


class Dialogs:
    """Stands in for QMessageBox: records what was asked and gives scripted answers."""

    def __init__(self, monkeypatch):
        self.asked: list[tuple[str, str]] = []
        self.answers: list = []
        self.errors: list[str] = []
        monkeypatch.setattr(QMessageBox, "question", self.question)
        monkeypatch.setattr(QMessageBox, "critical", self.critical)
        monkeypatch.setattr(QMessageBox, "information", self.critical)

    def question(self, parent, title, text, *args, **kwargs):
        self.asked.append((title, text))
        if not self.answers:
            raise AssertionError(f"unexpected question: {title}: {text}")
        return self.answers.pop(0)

    def critical(self, parent, title, text, *args, **kwargs):
        self.errors.append(text)
        return Button.Ok


@pytest.fixture
def dialogs(monkeypatch):
    return Dialogs(monkeypatch)


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "pendulum.json"
    shutil.copy(ROBOTS / "double_pendulum.json", path)
    return path


def make_window(qtbot, tmp_path, **kwargs) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=tmp_path / "recovery", **kwargs)
    # nothing to ask when pytest-qt closes it after the test
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    return window


@pytest.fixture
def window(qtbot, tmp_path, dialogs):
    return make_window(qtbot, tmp_path)


def edit_a2(window, text="L2 + 0.25"):
    window.dh_table.table_model.set_text(1, COLUMNS.index("a"), text)


def test_open_edit_save_reopen_round_trip(qtbot, tmp_path, window, project):
    assert window.open_file(project)
    assert window.document.path == project
    assert window.windowTitle() == "Double pendulum — pendulum.json[*]" and not window.isWindowModified()
    edit_a2(window)
    assert window.isWindowModified()
    out = tmp_path / "saved" / "copy"
    out.parent.mkdir()
    assert window.save_as(out)
    saved = out.with_suffix(".json")
    assert window.document.path == saved and not window.isWindowModified()
    assert window.windowTitle() == "Double pendulum — copy.json[*]"
    reread = load_project(saved)
    assert reread == window.document.model
    assert reread.links[1].a == symbol("L2") + 0.25
    other = make_window(qtbot, tmp_path)
    assert other.open_file(saved)
    assert other.document.model == window.document.model
    assert window.recent.paths()[0] == str(saved.resolve())


def test_save_writes_to_the_open_file(window, project):
    window.open_file(project)
    edit_a2(window, "1.5")
    assert window.save()
    assert float(load_project(project).links[1].a) == 1.5


def test_bad_file_reports_and_keeps_the_current_project(window, tmp_path, dialogs):
    bad = tmp_path / "bad.json"
    doc = json.loads((ROBOTS / "double_pendulum.json").read_text())
    doc["links"][1]["mass"] = "m2 +* 1"
    bad.write_text(json.dumps(doc))
    before = window.document.model
    assert not window.open_file(bad)
    assert dialogs.errors and "links[2].mass" in dialogs.errors[0]
    assert window.document.model == before


def test_unsaved_changes_prompt(window, project, dialogs):
    window.open_file(project)
    edit_a2(window)
    edited = window.document.model
    dialogs.answers = [Button.Cancel]
    window.new_project()                                   # cancelled: nothing lost
    assert dialogs.asked[-1][0] == "Unsaved changes" and "pendulum.json" in dialogs.asked[-1][1]
    assert window.document.model == edited
    dialogs.answers = [Button.Cancel]
    assert not window.close()                              # closing asks too, and can be refused
    other = project.with_name("planar.json")
    shutil.copy(ROBOTS / "planar_two_link.json", other)
    dialogs.answers = [Button.Discard]
    assert window.open_file(other)
    assert window.document.path == other and not window.document.dirty
    assert len(dialogs.asked) == 3
    assert load_project(project) != edited                  # discarded, not saved
    edit_a2(window, "0.75")
    dialogs.answers = [Button.Save]
    assert window.open_example(ROBOTS / "double_pendulum.json")   # "Save" saves, then opens
    assert float(load_project(other).links[1].a) == 0.75
    assert window.document.path is None and "example double_pendulum.json" in window.windowTitle()


def test_examples_menu_lists_the_robots(window):
    titles = [a.text() for a in window.examples_menu.actions()]
    assert len(titles) == len(list(ROBOTS.glob("*.json"))) == len(examples())
    assert any("double_pendulum.json" in t for t in titles)
    # what the menu shows (Qt strips the mnemonic marks): a name with "&" reads as written
    shown = [a.iconText() for a in window.examples_menu.actions()]
    assert any("(Lee, Lee & Nigam)" in t for t in shown), shown


def test_undo_redo_actions_follow_the_stack(window):
    assert not window.undo_action.isEnabled()
    edit_a2(window)
    assert window.undo_action.isEnabled() and "Set a of link 2" in window.undo_action.text()
    window.undo_action.trigger()
    assert not window.document.dirty and window.redo_action.isEnabled()


def test_recovery_after_a_crash_restores_the_edits(qtbot, tmp_path, window, project, dialogs):
    window.open_file(project)
    edit_a2(window, "0.125")
    qtbot.waitUntil(lambda: window.recovery.file.exists(), timeout=120_000)   # the edit-burst autosave
    edited = window.document.model
    # the process "crashes": the window never closes, its recovery file stays behind
    window.autosave_timer.stop()
    window.burst_timer.stop()
    second = make_window(qtbot, tmp_path)
    dialogs.answers = [Button.Yes]
    assert second.offer_recovery()
    assert "did not close cleanly" in dialogs.asked[-1][1] and str(project) in dialogs.asked[-1][1]
    assert second.document.model == edited
    assert second.document.path == project and second.document.dirty
    assert second.save()
    assert not second.recovery.file.exists()
    assert float(load_project(project).links[1].a) == 0.125


def test_recovery_from_a_dead_process_and_declining(qtbot, tmp_path, dialogs):
    model = load_project(ROBOTS / "double_pendulum.json").with_parameter("L1", 3.0)
    dead = Recovery(tmp_path / "recovery", pid=2**22 + 12345)     # above Linux's pid limit: never alive
    dead.write(model, None, "example double_pendulum.json")
    window = make_window(qtbot, tmp_path)
    dialogs.answers = [Button.No]
    assert not window.offer_recovery()
    assert not dead.file.exists()                                # declined: gone for good
    assert window.document.model != model
    dead.write(model, None, "")
    dialogs.answers = [Button.Yes]
    assert window.offer_recovery()
    assert window.document.model.parameter_values["L1"] == 3.0


def test_clean_close_deletes_the_recovery_file(qtbot, tmp_path, window, project, dialogs):
    window.open_file(project)
    edit_a2(window)
    window.autosave()
    assert window.recovery.file.exists()
    dialogs.answers = [Button.Discard]
    assert window.close()
    assert not window.recovery.file.exists()


def test_saved_file_is_written_atomically_over_the_old_one(window, project):
    window.open_file(project)
    edit_a2(window, "2")
    window.save()
    leftovers = [p for p in project.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    save_project(load_project(project), project)        # and it still reads back


def test_dropping_a_project_file_opens_it(window, project):
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(project))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    assert window.document.path == project
    assert window.document.model == load_project(project)


def test_window_layout_is_remembered(qtbot, tmp_path, window):
    window.splitters["main"].setSizes([300, 700, 500])
    sizes = window.splitters["main"].sizes()
    assert window.close()
    again = make_window(qtbot, tmp_path)
    assert again.splitters["main"].sizes() == sizes
