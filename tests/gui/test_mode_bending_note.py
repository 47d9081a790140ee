"""Arm > Animate mode shape on an arm whose links bend (the tube arm): the dialog lists the rigid-link modes
and says so, with the lower frequency of the model with the links' bending that the read-out shows."""

from __future__ import annotations

import re

import numpy as np
import pytest

from designer.gui.mode_dialog import ModeDialog
from designer.gui.modes import bending_note
from designer.numeric.flex_modes import lowest_flex_frequency
from designer.gui.modes import joints_or_none
from tests.support import robot_path
from tests.support.windows import open_window

pytestmark = pytest.mark.usefixtures("no_dialogs")


def test_the_mode_dialog_says_its_list_is_rigid_links_and_gives_the_bending_frequency(qtbot, tmp_path, monkeypatch):
    w = open_window(qtbot, tmp_path, robot_path("tube_arm"))
    shown = {}

    def look(dialog):
        shown["note"] = dialog.note.text() if dialog.note.isVisibleTo(dialog) else ""
        shown["modes"] = [dialog.modes.item(i).text() for i in range(dialog.modes.count())]
        return ModeDialog.DialogCode.Rejected
    monkeypatch.setattr(ModeDialog, "exec", look)
    action = next(a for menu in w.menuBar().findChildren(type(w.menuBar().actions()[0].menu()))
                  for a in menu.actions() if a.text().startswith("Animate &mode"))
    action.trigger()
    assert "links as rigid" in shown["note"]
    bending = float(re.search(r"lowest mode is ([0-9.]+) Hz", shown["note"]).group(1))
    rigid = float(re.search(r"mode 1: ([0-9.]+) Hz", shown["modes"][0]).group(1))
    # computed apart: the flexible-link model at the pose; letting the links bend lowers the frequency
    low = float(lowest_flex_frequency(w.design.arm, joints_or_none(w.design.model), np.asarray(w.design.q)))
    assert bending == pytest.approx(low, rel=5e-3) and bending < rigid
    qtbot.waitUntil(lambda: "lowest natural frequency" in w.readout.text(), timeout=60_000)
    assert f"lowest natural frequency {bending:.3g} Hz" in w.readout.text()   # the read-out's figure


def test_an_arm_with_rigid_links_has_no_note(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, robot_path("planar_two_link"))
    assert bending_note(w.design) == ""
