"""GUI tests keep their QSettings (last folder, 3D view options, window layout) in a temporary folder
under a test organisation name, so nothing leaks into the user's settings or from one test to another."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import QMessageBox


@pytest.fixture(scope="module", autouse=True)
def gui_thread_collector(qapp):
    """As in the application (designer.gui.app.start): garbage collected in the GUI thread only, never
    in a worker thread that would then destroy widgets (designer/gui/collector.py); automatic again
    after the module, for the tests of the core."""
    from designer.gui.collector import collect_in_gui_thread, stop_collecting
    yield collect_in_gui_thread()
    stop_collecting()


@pytest.fixture(autouse=True)
def private_settings(tmp_path):
    old = (QSettings.defaultFormat(), QCoreApplication.organizationName(), QCoreApplication.applicationName())
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "qsettings"))
    QCoreApplication.setOrganizationName("DesignerTests")
    QCoreApplication.setApplicationName("designer-tests")
    yield tmp_path / "qsettings"
    QSettings.setDefaultFormat(old[0])
    QCoreApplication.setOrganizationName(old[1])
    QCoreApplication.setApplicationName(old[2])


class Boxes:
    """Records the message boxes (title, text) instead of showing them."""

    def __init__(self, monkeypatch):
        self.shown: list[tuple[str, str, str]] = []
        for kind in ("critical", "information", "warning"):
            monkeypatch.setattr(QMessageBox, kind, self._record(kind))
        monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: pytest.fail(f"unexpected question {a[1:3]}"))

    def _record(self, kind):
        def show(parent, title, text, *args, **kwargs):
            self.shown.append((kind, title, text))
            return QMessageBox.StandardButton.Ok
        return show

    def of(self, kind: str) -> list[str]:
        return [text for k, _title, text in self.shown if k == kind]


@pytest.fixture
def boxes(monkeypatch):
    return Boxes(monkeypatch)


@pytest.fixture
def make_arm_view(qtbot):
    """Makes a 3D view (ArmView) of a size, shown and exposed, closed with the test."""
    def make(width: int = 480, height: int = 360):
        from designer.gui.view3d import ArmView
        view = ArmView()
        view.resize(width, height)
        qtbot.addWidget(view)
        view.show()
        qtbot.waitExposed(view)
        return view
    return make


@pytest.fixture
def window(qtbot, tmp_path, boxes):
    """A main window with its own settings and recovery folder, message boxes recorded (the import
    and export dialog tests)."""
    from designer.gui.main_window import MainWindow
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w, before_close_func=lambda win: win.document.undo_stack.setClean())
    return w
