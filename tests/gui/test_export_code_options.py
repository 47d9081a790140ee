"""Export > code with the options ``codegen`` has: base parameters (``--parameters base``) and the
drive terms (``--drives``). The window writes the command's files, in its worker process (the GUI
thread stays free, Cancel stops it), and the Python with base parameters is Pinocchio's rnea."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from designer.cli import main
from designer.gui.export_options import CodeOptions, CodeOptionsDialog
from designer.project import load_project
from tests.support import robot_path
from tests.support.windows import open_window

pin = pytest.importorskip("pinocchio")

# drive data on joints 1 and 3 of the three-link PUMA (joint 2 without: its columns are left out)
DRIVES = {0: {"gear_ratio": 62.6, "motor_inertia": 2.0e-4, "viscous": 1.48, "coulomb": 0.4},
          2: {"gear_ratio": 53.7, "motor_inertia": 2.0e-4, "viscous": 1.38, "coulomb": 0.25}}


@pytest.fixture
def project(tmp_path) -> Path:
    doc = json.loads(robot_path("puma560_three_link").read_text(encoding="utf-8"))
    doc["version"] = 2   # drive data is a version-2 field
    for j, drive in DRIVES.items():
        doc["links"][j]["drive"] = drive
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture
def window(qtbot, tmp_path, project):
    return open_window(qtbot, tmp_path, project)


def _tree(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}


def _export(qtbot, window, lang: str, target: Path, options: CodeOptions) -> None:
    from designer.gui import export
    with qtbot.waitSignal(window.exported, timeout=120000):
        assert export.export_code(window, lang, target, options)
        # the job runs in the worker process: the GUI thread returns at once and keeps serving events
        assert window.export_jobs.busy


@pytest.mark.parametrize("lang", ["c", "python", "matlab"])
def test_base_parameter_export_is_the_commands_output(qtbot, window, project, tmp_path, lang):
    """No derivation needed (base parameters come from the model); the same files as
    ``codegen --parameters base --drives`` on the same project."""
    gui, cli = tmp_path / "gui", tmp_path / "cli"
    gui.mkdir()
    cli.mkdir()
    name = {"c": "arm.c", "python": "arm.py", "matlab": "m"}[lang]
    _export(qtbot, window, lang, gui / name, CodeOptions("base", drives=True))
    assert main(["codegen", str(project), "--lang", lang, "--parameters", "base", "--drives",
                 "--out", str(cli / name), "--quiet"]) == 0
    gui_files = _tree(gui / name) if lang == "matlab" else _tree(gui)
    cli_files = _tree(cli / name) if lang == "matlab" else _tree(cli)
    assert gui_files == cli_files
    text = "".join(gui_files.values())
    assert "Ia1" in text and "fv3" in text and "fv2" not in text   # drive parameters of joints 1 and 3 only
    assert "drive terms added" in text


def test_standard_parameters_with_drives_are_the_commands_output(qtbot, window, project, tmp_path):
    """The equations on display with the drive terms: ``codegen --drives``."""
    with qtbot.waitSignal(window.derivation.derivationFinished, timeout=120_000):
        window.derivation.start()
    _export(qtbot, window, "python", tmp_path / "gui.py", CodeOptions("standard", drives=True))
    assert main(["codegen", str(project), "--lang", "python", "--drives", "--out", str(tmp_path / "cli.py"),
                 "--quiet"]) == 0
    text = (tmp_path / "gui.py").read_text(encoding="utf-8")
    assert text == (tmp_path / "cli.py").read_text(encoding="utf-8") and "Ia3" in text


def _module(path: Path) -> dict:
    scope: dict = {}
    exec(path.read_text(encoding="utf-8"), scope)  # our own output: numpy only
    return scope


def test_python_with_base_parameters_is_pinocchios_rnea(qtbot, window, tmp_path):
    from designer.model.drives import drive_arrays
    from designer.kinematics import NumericArm
    from tests.support.pin_reference import pin_model
    _export(qtbot, window, "python", tmp_path / "rigid.py", CodeOptions("base"))
    _export(qtbot, window, "python", tmp_path / "driven.py", CodeOptions("base", drives=True))
    rigid, driven = _module(tmp_path / "rigid.py"), _module(tmp_path / "driven.py")
    model = load_project(robot_path("puma560_three_link"))
    pm = pin_model(NumericArm.from_model(model))
    data = pm.createData()
    reflected, viscous, coulomb = drive_arrays(window.document.model)
    assert reflected[1] == 0 and reflected[0] == pytest.approx(62.6 ** 2 * 2e-4)
    rng = np.random.default_rng(12)
    for _ in range(6):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, 3))
        ref = pin.rnea(pm, data, q, qd, qdd).copy()
        tol = 1e-10 * max(1.0, np.abs(ref).max())
        np.testing.assert_allclose(rigid["tau"](q, qd, qdd), ref, atol=tol)
        np.testing.assert_allclose(rigid["gravity"](q), pin.computeGeneralizedGravity(pm, data, q), atol=tol)
        M = pin.crba(pm, data, q)   # its upper triangle
        np.testing.assert_allclose(rigid["mass_matrix"](q), np.triu(M) + np.triu(M, 1).T, atol=tol)
        drive = reflected * qdd + viscous * qd + coulomb * np.sign(qd)
        np.testing.assert_allclose(driven["tau"](q, qd, qdd), ref + drive, atol=tol)


def test_an_export_in_progress_is_cancelled_and_the_window_is_unchanged(qtbot, tmp_path):
    """The six-link PUMA's base-parameter code takes seconds in the worker process: Cancel ends it
    and nothing is written."""
    from designer.gui import export
    window = open_window(qtbot, tmp_path, robot_path("puma560"))
    before = window.document.model
    assert export.export_code(window, "c", tmp_path / "arm.c", CodeOptions("base"))
    with qtbot.waitSignal(window.export_jobs.ended, timeout=120_000) as ended:
        window.export_jobs.cancel()
    assert ended.args[1] == "cancelled" and not window.export_jobs.busy
    assert not (tmp_path / "arm.c").exists() and window.document.model is before


def test_a_failed_write_is_reported_in_the_window(qtbot, window, tmp_path, monkeypatch):
    """The files cannot be written (their folder is a file): a message box names the path; the
    document is untouched."""
    from designer.gui import export
    seen: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: seen.append(text))
    before = window.document.model
    blocked = tmp_path / "file"
    blocked.write_text("x")
    with qtbot.waitSignal(window.export_jobs.ended, timeout=120000):
        assert export.export_code(window, "c", blocked / "arm.c", CodeOptions("base"))
    assert len(seen) == 1 and str(blocked) in seen[0] and window.document.model is before


def test_the_dialog_offers_drives_only_with_drive_data(qtbot, window):
    dialog = CodeOptionsDialog(window.document.model, "C", CodeOptions("base", True))
    qtbot.addWidget(dialog)
    assert dialog.options() == CodeOptions("base", True)
    dialog.standard.click()
    dialog.drives.click()
    assert dialog.options() == CodeOptions("standard", False)
    bare = CodeOptionsDialog(load_project(robot_path("planar_two_link")), "C", CodeOptions("base", True))
    qtbot.addWidget(bare)
    assert not bare.drives.isEnabled() and bare.options() == CodeOptions("base", False)


def test_without_equations_the_dialog_offers_the_base_parameters_and_says_why_not_the_standard(qtbot, window,
                                                                                               monkeypatch):
    """Export > C before a derivation: the options dialog greys the standard parameters with the reason and
    chooses the base ones (they need no derivation), instead of asking and then saying "Derive the equations
    first"."""
    from designer.gui import export
    monkeypatch.setattr(QMessageBox, "information", lambda *a: pytest.fail(f"a late message: {a[2]}"))
    seen = []

    def look():
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, CodeOptionsDialog)
        seen.append((dialog.standard.isEnabled(), dialog.standard.text(), dialog.options().parameters))
        dialog.reject()
    QTimer.singleShot(200, look)
    assert window.derivation.current_equations()[0] is None
    assert not export.export_code(window, "c", None)
    assert seen and not seen[0][0] and "derive the equations first" in seen[0][1] and seen[0][2] == "base"


def test_the_menu_asks_the_options_and_remembers_them(qtbot, window, tmp_path, monkeypatch):
    """Export > code without a path: the options dialog, then the file dialog; the choice is kept for
    the next export."""
    from PySide6.QtWidgets import QFileDialog

    from designer.gui import export
    target = tmp_path / "menu.py"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))

    def choose():
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, CodeOptionsDialog)
        dialog.base.click()
        dialog.drives.setChecked(True)
        dialog.accept()
    QTimer.singleShot(200, choose)
    with qtbot.waitSignal(window.exported, timeout=120000):
        assert export.export_code(window, "python", None)
    assert "Ia1" in target.read_text(encoding="utf-8")
    from designer.gui.export_options import _remembered
    assert _remembered(window.settings) == CodeOptions("base", True)


def test_a_four_bars_base_parameter_export(qtbot, tmp_path, monkeypatch):
    """A closed chain without a closed form: Export > code with base parameters writes the compact form's
    base-parameter code (before: refused in a message box, the loop does not close linearly), the
    command's file, and its tau is the numeric projection's (designer.numeric.closed.ClosedDynamics)."""
    from designer.gui import export
    from designer.numeric.closed import ClosedDynamics
    seen: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: seen.append(text))
    path = robot_path("four_bar")
    window = open_window(qtbot, tmp_path, path)
    with qtbot.waitSignal(window.export_jobs.ended, timeout=120000):
        assert export.export_code(window, "python", tmp_path / "gui.py", CodeOptions("base"))
    assert not seen, seen
    assert main(["codegen", str(path), "--lang", "python", "--parameters", "base", "--quiet",
                 "--out", str(tmp_path / "cli.py")]) == 0
    text = (tmp_path / "gui.py").read_text(encoding="utf-8")
    assert text == (tmp_path / "cli.py").read_text(encoding="utf-8")
    code, cd = _module(tmp_path / "gui.py"), ClosedDynamics(load_project(path))
    rng = np.random.default_rng(3)
    for _ in range(3):
        qa, qda, qdda = rng.uniform(-0.6, 0.6, 1), rng.normal(size=1), rng.normal(size=1)
        np.testing.assert_allclose(code["tau"](qa, qda, qdda), cd.tau(qa, qda, qdda), rtol=1e-9, atol=1e-9)
