"""Free-motor modes in the window: the frequency shown and the shape animated are the full elastic model's,
checked against scipy's eigh of the (q, theta/N) mass and stiffness assembled here by hand; the dialog lists
locked and free frequencies; a missing rotor inertia is said."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from PySide6.QtWidgets import QDialogButtonBox
from scipy.linalg import eigh

from designer.gui.mode_dialog import ModeDialog
from designer.gui.modes import modes_at
from designer.model import Drive
from designer.numeric.engine import arm_dynamics
from designer.project import load_project
from designer.project.io import dumps_project
from tests.support import robot_path
from tests.support.windows import open_window

pytestmark = pytest.mark.usefixtures("no_dialogs")

K = np.array([2e3, 1e3])
GEAR, ROTOR = np.array([50.0, 30.0]), np.array([1e-4, 4e-4])
POSE = np.array([0.3, 1.1])


def _window(qtbot, tmp_path, rotor=ROTOR):
    model = load_project(robot_path("planar_two_link"))
    links = tuple(dataclasses.replace(l, drive=Drive(stiffness=K[i], gear_ratio=GEAR[i],
                                                     motor_inertia=None if rotor is None else rotor[i]))
                  for i, l in enumerate(model.links))
    path = tmp_path / "elastic.json"
    path.write_text(dumps_project(dataclasses.replace(model, links=links)))
    w = open_window(qtbot, tmp_path, path)
    w.design.set_pose(POSE)
    return w


def _by_hand(w):
    """Frequencies (Hz) and shapes of [[M, 0], [0, N^2 Jm]] x'' + [[K, -K], [-K, K]] x = 0, the two rigid-body
    modes (free motors: the arm turning as a chain) left out."""
    M = arm_dynamics(w.design.arm).M(POSE)
    Mf = np.block([[M, np.zeros((2, 2))], [np.zeros((2, 2)), np.diag(GEAR ** 2 * ROTOR)]])
    Kd = np.diag(K)
    Kf = np.block([[Kd, -Kd], [-Kd, Kd]])
    w2, V = eigh(Kf, Mf)
    return np.sqrt(w2[2:]) / (2 * np.pi), V[:, 2:]


def test_free_mode_shows_the_elastic_models_frequency_and_moves_links_and_motors_along_its_shape(qtbot, tmp_path):
    w = _window(qtbot, tmp_path)
    f, V = _by_hand(w)
    anim = w.mode_animation
    for k in (1, 2):
        assert anim.start(k, "free") == ""
        assert anim.frequency == pytest.approx(f[k - 1], rel=1e-9)
        assert f"mode {k}: {f[k - 1]:.4g} Hz, motors free" in anim.label.text() and anim.label.isVisible()
        v = V[:, k - 1]
        shown = np.concatenate([anim.shape, anim.motor_shape])
        assert abs(shown @ v) / (np.linalg.norm(shown) * np.linalg.norm(v)) == pytest.approx(1.0, abs=1e-9)
        assert np.abs(anim.shape).max() == pytest.approx(0.15)   # the drawn link side moves 0.15 rad
    # the motors' angles are on the overlay: theta1/N and theta2/N now, in degrees
    text = anim.text(0.5)
    for j, a in zip((1, 2), anim.motor_shape):
        assert f"θ{j}/N {round(np.degrees(0.5 * a), 2) + 0.0:+.2f}°" in text
    qtbot.waitUntil(lambda: np.abs(w.arm_view.joint_values() - POSE).max() > 0.02, timeout=120_000)
    moved = w.arm_view.joint_values() - POSE
    assert abs(moved @ anim.shape) / (np.linalg.norm(moved) * np.linalg.norm(anim.shape)) > 0.999
    anim.stop()
    assert not anim.label.isVisible() and np.allclose(w.arm_view.joint_values(), POSE)
    # with the motors locked the frequencies are K v = w^2 M v's, lower than the free ones (two-mass oscillator)
    locked = np.sqrt(eigh(np.diag(K), arm_dynamics(w.design.arm).M(POSE), eigvals_only=True)) / (2 * np.pi)
    assert anim.start(1, "locked") == "" and anim.frequency == pytest.approx(locked[0], rel=1e-9)
    assert "θ" not in anim.label.text() and np.all(f > locked)
    assert "modes 1 to 2 (motors free" in anim.start(3, "free")


def test_the_dialog_lists_locked_and_free_frequencies(qtbot, tmp_path):
    w = _window(qtbot, tmp_path)
    f, _V = _by_hand(w)
    dialog = ModeDialog(lambda motors: modes_at(w.design, motors), w)
    qtbot.addWidget(dialog)
    dialog.motors.setCurrentIndex(dialog.motors.findData("free"))
    assert [dialog.modes.item(i).text() for i in range(dialog.modes.count())] == [
        f"mode {k}: {x:.4g} Hz" for k, x in enumerate(f, start=1)]
    dialog.modes.setCurrentRow(1)
    assert dialog.choice() == (2, "free")


def test_free_modes_without_rotor_inertia_say_so(qtbot, tmp_path):
    w = _window(qtbot, tmp_path, rotor=None)
    assert "rotor inertia" in w.mode_animation.start(1, "free")
    dialog = ModeDialog(lambda motors: modes_at(w.design, motors), w, "free")
    qtbot.addWidget(dialog)
    assert "rotor inertia" in dialog.message.text() and dialog.modes.count() == 0
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
    dialog.motors.setCurrentIndex(dialog.motors.findData("locked"))
    assert dialog.modes.count() == 2 and dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()


def test_the_arm_menu_asks_in_the_dialog_and_animates_the_free_mode_chosen(qtbot, tmp_path, monkeypatch):
    w = _window(qtbot, tmp_path)
    f, _V = _by_hand(w)

    def accept_free_mode_2(dialog):
        dialog.motors.setCurrentIndex(dialog.motors.findData("free"))
        dialog.modes.setCurrentRow(1)
        return ModeDialog.DialogCode.Accepted
    monkeypatch.setattr(ModeDialog, "exec", accept_free_mode_2)
    action = next(a for menu in w.menuBar().findChildren(type(w.menuBar().actions()[0].menu()))
                  for a in menu.actions() if a.text().startswith("Animate &mode"))
    action.trigger()
    anim = w.mode_animation
    assert anim.running and anim.motors == "free" and anim.k == 2
    assert anim.frequency == pytest.approx(f[1], rel=1e-9)
    assert f"{f[1]:.4g} Hz" in w.statusBar().currentMessage()
    anim.stop()
