"""The Arm menu's Linearize and Identification dialogs: the numbers are the core's, bad input is
reported in the dialog, the jobs run on the worker pool."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QSettings

from designer.cli import main as cli_main
from designer.control import linearize
from designer.gui.control_dialogs import IdentificationDialog, LinearizeDialog
from designer.gui.main_window import MainWindow
from designer.kinematics import NumericArm
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def test_linearize_dialog_shows_the_core_model(qtbot):
    model = load_project(ROBOTS / "planar_two_link.json")
    dialog = LinearizeDialog(model, [0.3, -0.5])
    qtbot.addWidget(dialog)
    lm, dm = dialog.models
    ref = linearize(NumericArm.from_model(model), [0.3, -0.5])
    assert np.allclose(lm.A, ref.A) and np.allclose(dm.Ad, ref.discretize(0.001).Ad)
    assert "eigenvalues of A" in dialog.text.toPlainText() and not dialog.error.text()
    dialog.dt.setText("-2")
    dialog.compute()
    assert "sample time" in dialog.error.text() and dialog.models[0] is lm  # the last good model stays
    dialog.dt.setText("0.01")
    dialog.qd.setText("1, 2, 3")
    dialog.compute()
    assert "qd" in dialog.error.text()


def test_identification_dialog_table_and_condition_numbers(qtbot, tmp_path):
    model = load_project(ROBOTS / "scara.json")
    dialog = IdentificationDialog(model)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.bp is not None, timeout=120_000)
    assert dialog.table.rowCount() == dialog.bp.count == 8
    assert dialog.table.item(0, 0).text() == dialog.bp.names[0]
    dialog.excite()
    qtbot.waitUntil(lambda: "generated" in dialog.condition.text(), timeout=120_000)
    assert 1.0 <= dialog.excitation.condition < 1e6
    csv = tmp_path / "traj.csv"
    assert cli_main(["regressor", str(ROBOTS / "scara.json"), "--base", "--excite", "--excite-out", str(csv)]) == 0
    dialog.load_csv(str(csv))   # computed in a worker, as a closed chain's
    qtbot.waitUntil(lambda: "computing" not in dialog.condition.text(), timeout=120_000)
    assert "200 samples" in dialog.condition.text()
    bad = tmp_path / "bad.csv"
    bad.write_text("q1,q2\n1,2\n")
    dialog.load_csv(str(bad))
    assert "missing column" in dialog.condition.text()


def test_the_arm_menu_offers_both(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(load_project(ROBOTS / "double_pendulum.json"), settings=settings,
                        recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window)
    actions = [a for m in window.menuBar().actions() if m.menu() for a in m.menu().actions()]
    texts = [a.text() for a in actions]
    assert "&Linearize at this pose…" in texts and "&Identification (base parameters)…" in texts
    next(a for a in actions if a.text().startswith("&Linearize")).trigger()
    assert isinstance(window.control_dialog, LinearizeDialog) and window.control_dialog.models is not None
    window.control_dialog.close()
