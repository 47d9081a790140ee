"""Arm > Animate mode shape on an arm whose links bend (the tube arm): the dialog offers the model with the links'
bending and starts on it, its lowest frequency the read-out's, each mode with its strain-energy shares; animating
one moves the drawn arm by the mode's joint part and draws the links' centre lines bent along it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from designer.gui.mode_dialog import ModeDialog
from designer.gui.modes import BEND, joints_or_none, modes_at
from designer.kinematics.numeric import dh_frames
from designer.numeric.flex_modes import lowest_flex_frequency
from tests.support import robot_path
from tests.support.windows import open_window

pytestmark = pytest.mark.usefixtures("no_dialogs")


def _animate_action(w):
    return next(a for menu in w.menuBar().findChildren(type(w.menuBar().actions()[0].menu()))
                for a in menu.actions() if a.text().startswith("Animate &mode"))


def test_the_dialog_offers_the_links_bending_and_animates_its_lowest_mode(qtbot, tmp_path, monkeypatch):
    w = open_window(qtbot, tmp_path, robot_path("tube_arm"))
    shown = {}

    def pick_first(dialog):
        shown["model"] = dialog.motors.currentData()
        shown["models"] = [dialog.motors.itemData(i) for i in range(dialog.motors.count())]
        shown["modes"] = [dialog.modes.item(i).text() for i in range(dialog.modes.count())]
        dialog.modes.setCurrentRow(0)
        return ModeDialog.DialogCode.Accepted
    monkeypatch.setattr(ModeDialog, "exec", pick_first)
    _animate_action(w).trigger()
    assert shown["model"] == "bending" and shown["models"] == ["locked", "free", "bending"]
    bending = float(re.search(r"mode 1: ([0-9.]+) Hz", shown["modes"][0]).group(1))
    assert re.search(r"\((link \d|gearboxes) \d+ %", shown["modes"][0])
    # the flexible-link model's lowest frequency at the pose, and the read-out's figure
    low = float(lowest_flex_frequency(w.design.arm, joints_or_none(w.design.model), np.asarray(w.design.q)))
    assert bending == pytest.approx(low, rel=5e-4)
    rigid = modes_at(w.design, "locked")
    assert bending < rigid.frequency[0]   # letting the links bend lowers it
    qtbot.waitUntil(lambda: "lowest natural frequency" in w.readout.text(), timeout=60_000)
    assert f"lowest natural frequency {bending:.3g} Hz" in w.readout.text()

    anim = w.mode_animation
    assert anim.running and anim.motors == "bending" and anim.bent.visible()
    assert "links bending" in anim.label.text() and "centre lines" in anim.label.text()
    # the centre lines start at the slider pose on the drawn links: each bending link's first point is its beam's start
    T = dh_frames(w.design.arm, np.asarray(w.design.q)[None])[0]
    base = w.design.arm.base
    for link, start in zip((b.index for b in w.design.arm.beams), anim.line_points[::10]):
        placed = base @ T[link + 1] @ np.append(w.design.arm.beams[[b.index for b in w.design.arm.beams].index(link)]
                                                  .start, 1.0)
        np.testing.assert_allclose(start, placed[:3], atol=1e-12)
    reach = np.linalg.norm(anim.line_moves, axis=1).max()
    assert reach > 0 and anim.bend_mm == pytest.approx(1e3 * reach, rel=1e-12)
    assert BEND * 0.2 < reach < BEND * 10   # a few cm on a metre-sized arm: seen, and small
    anim.stop()
    assert not anim.bent.visible()


def test_an_arm_with_rigid_links_is_not_offered_the_bending(qtbot, tmp_path, monkeypatch):
    w = open_window(qtbot, tmp_path, robot_path("planar_two_link"))
    shown = {}

    def look(dialog):
        shown["models"] = [dialog.motors.itemData(i) for i in range(dialog.motors.count())]
        return ModeDialog.DialogCode.Rejected
    monkeypatch.setattr(ModeDialog, "exec", look)
    _animate_action(w).trigger()
    assert shown["models"] == ["locked", "free"]
    assert isinstance(modes_at(w.design, "bending"), str)   # nothing to list: one line why


def test_each_mode_reads_whole(qtbot, tmp_path):
    """The list is as wide as its longest line (the strain-energy shares were cut at the dialog's default width),
    and each line's tooltip is its text."""
    w = open_window(qtbot, tmp_path, robot_path("tube_arm"))
    dialog = ModeDialog(lambda motors: modes_at(w.design, motors), w, "bending", bending=True)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    lines = [dialog.modes.item(i) for i in range(dialog.modes.count())]
    assert len(lines) >= 3 and all("%" in item.text() for item in lines)
    viewport = dialog.modes.viewport().width()
    for item in lines:
        assert dialog.modes.visualItemRect(item).width() <= viewport
        assert dialog.modes.fontMetrics().horizontalAdvance(item.text()) <= viewport, item.text()
        assert item.toolTip() == item.text()
    assert dialog.modes.horizontalScrollBar().maximum() == 0
