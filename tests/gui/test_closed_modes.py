"""A closed chain's elastic joints in the window (issue 22): the read-out's lowest frequency and sag, the mode
dialog's list, the mode animation (the loops closed in every frame) and the compliance ellipsoid.

Independent sides: M_a = W^T M_tree W from Pinocchio's CRBA of the spanning tree with W from central
differences of the closure, and the tool Jacobian by differences of the tool point over fresh closures
(tests/explore/test_closed_elastic.py's ``reference``), solved by scipy's eigh; the loops' closure by the
cut joint's two bars meeting (loop_scene.loop_bars). The ``modes`` command's output is compared too: it and
the window call the same core function (explore/closed_elastic.py), so that comparison checks the window's
wiring (its tree pose to the actuated values, the units), not the numbers, which the Pinocchio side checks.
"""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest
import scipy.linalg

from designer.gui import loop_scene
from designer.gui.mode_dialog import ModeDialog
from designer.gui.modes import modes_at
from designer.model import Drive
from designer.project import load_project
from designer.project.io import dumps_project
from tests.explore.test_closed_elastic import reference
from tests.support import robot_path
from tests.support.closed_reference import four_bar
from tests.support.windows import open_window

pytestmark = pytest.mark.usefixtures("no_dialogs")

K = {0: 4e5, 1: 2.5e5, 3: 1.5e5, 5: 2e3}     # the palletizer's actuated links 1, 2, 4, 6 (0-based keys)
QA = np.array([0.2, 0.35, -0.25, 0.4])      # q1, q2, q4, q6


def with_stiffness(model, stiffness=K, rotor=1e-4):
    links = tuple(dataclasses.replace(link, drive=dataclasses.replace(link.drive or Drive(), stiffness=stiffness[i],
                                                                      gear_ratio=80.0, motor_inertia=rotor))
                  if i in stiffness else link for i, link in enumerate(model.links))
    return dataclasses.replace(model, links=links)


def _window(qtbot, tmp_path, model, qa=QA):
    path = tmp_path / "closed.json"
    path.write_text(dumps_project(model))
    w = open_window(qtbot, tmp_path, path)
    q = np.array(w.sliders.values())
    q[w.closed.mechanism.actuated] = qa
    w.sliders.set_values(q)
    assert np.allclose(w.design.q[w.closed.mechanism.actuated], qa)
    return w


def _pinocchio_frequencies(model, qa):
    from designer.explore.joints import explore_arm
    arm = explore_arm(model)
    M, _G, J, _tool = reference(model, arm, qa)
    k = np.array([K[i] for i in arm.cd.act])
    return np.sqrt(scipy.linalg.eigh(np.diag(k), M, eigvals_only=True)) / (2 * np.pi), J, k


def test_the_readout_shows_the_palletizers_lowest_frequency_and_sag(qtbot, tmp_path):
    model = with_stiffness(load_project(robot_path("palletizer_parallelogram")))
    w = _window(qtbot, tmp_path, model)
    f, _J, _k = _pinocchio_frequencies(model, QA)
    text = w.readout.text()
    found = re.search(r"lowest natural frequency ([0-9.e+-]+) Hz\ntool sag ([0-9.e+-]+) mm", text)
    assert found, text
    assert np.isfinite(float(found[1])) and float(found[1]) == pytest.approx(f[0], rel=2e-3)   # shown to 3 digits
    # without stiffness: no frequency words (the model has no elastic joints)
    bare = _window(qtbot, tmp_path, load_project(robot_path("palletizer_parallelogram")))
    assert "frequency" not in bare.readout.text()


def test_the_window_modes_equal_pinocchios_and_the_modes_command(qtbot, tmp_path, capsys):
    from designer.cli import main
    model = with_stiffness(load_project(robot_path("palletizer_parallelogram")))
    w = _window(qtbot, tmp_path, model)
    locked = modes_at(w.design, "locked")
    assert not isinstance(locked, str), locked
    f, _J, _k = _pinocchio_frequencies(model, QA)
    np.testing.assert_allclose(locked.frequency, f, rtol=1e-6)
    assert main(["modes", str(tmp_path / "closed.json"), "--q", *map(str, QA)]) == 0
    out = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(locked.frequency, out["locked"]["frequency_hz"], rtol=1e-12)
    free = modes_at(w.design, "free")
    assert not isinstance(free, str), free
    np.testing.assert_allclose(free.frequency, out["free"]["frequency_hz"], rtol=1e-12)
    # the dialog lists them
    dialog = ModeDialog(lambda motors: modes_at(w.design, motors), w)
    qtbot.addWidget(dialog)
    assert dialog.modes.count() == 4 and dialog.modes.item(0).text() == f"mode 1: {f[0]:.4g} Hz"


def test_the_mode_animation_of_a_closed_chain_closes_the_loops_in_every_frame(qtbot, tmp_path):
    model = with_stiffness(load_project(robot_path("palletizer_parallelogram")))
    w = _window(qtbot, tmp_path, model)
    anim = w.mode_animation
    mech = w.closed.mechanism
    seen = []
    real = w.arm_view.set_joint_values

    def record(q):
        seen.append(np.array(q, float))
        real(q)
    w.arm_view.set_joint_values = record
    for k, motors in ((1, "locked"), (2, "free")):
        assert anim.start(k, motors) == ""
        assert f"mode {k}:" in anim.label.text() and "q4" in anim.label.text() and "q3" not in anim.label.text()
        qtbot.waitUntil(lambda: len(seen) > 8, timeout=120_000)
        anim.stop()
        frames = [q for q in seen if np.abs(q - w.design.q).max() > 1e-3]
        assert frames, "the arm did not move"
        for q in seen:   # every frame drawn: the cut joint's two sides meet, the actuated joints along the mode
            bars = loop_scene.loop_bars(mech.tree, mech.frames(q))
            assert np.abs(bars[:, 0, 1] - bars[:, 1, 1]).max() < 1e-9
            step = (q - w.design.q)[mech.actuated]
            assert abs(step @ anim.shape) >= 0.999 * np.linalg.norm(step) * np.linalg.norm(anim.shape)
        seen.clear()
    assert np.allclose(w.arm_view.joint_values(), w.design.q)


def test_a_mode_past_a_four_bars_reach_stops_in_one_line(qtbot, tmp_path):
    """A four-bar whose crank is posed next to where the loop stops closing: the animation says so in one line
    and stops; nothing crashes and the view goes back to the pose."""
    rng = np.random.default_rng(4)
    model = four_bar(rng, mounted=True)
    act = [i for i, link in enumerate(model.links) if link.actuated]
    model = with_stiffness(model, {i: 50.0 for i in act})   # soft: the mode is mostly the crank
    w = _window(qtbot, tmp_path, model, qa=np.zeros(len(act)))
    mech = w.closed.mechanism
    # walk the crank toward where the loop cannot close, keep the last pose that still does
    last = None
    for a in np.linspace(0.0, 2 * np.pi, 400):
        try:
            mech.closure.solve(np.array([a]), guess=mech.last if last is None else last)
        except loop_scene.ClosureError:
            break
        last_a, last = a, mech.closure.solve(np.array([a]), guess=mech.last if last is None else last)
    else:
        pytest.skip("this four-bar's crank turns all the way round")
    q = np.array(w.sliders.values())
    q[mech.actuated] = last_a
    w.sliders.set_values(q)
    problem = w.mode_animation.start(1, "locked")
    if problem == "":   # the first frame closed: a later one does not
        qtbot.waitUntil(lambda: not w.mode_animation.running, timeout=120_000)
        problem = w.mode_animation.problem
    assert "cannot close" in problem and "\n" not in problem
    assert not w.mode_animation.running and np.allclose(w.arm_view.joint_values(), w.design.q)


def test_the_compliance_ellipsoid_of_a_closed_chain(qtbot, tmp_path):
    model = with_stiffness(load_project(robot_path("palletizer_parallelogram")))
    w = _window(qtbot, tmp_path, model)
    w.stiffness_ellipsoid_action.setChecked(True)
    _f, J, k = _pinocchio_frequencies(model, QA)
    C = J @ np.diag(1 / k) @ J.T
    np.testing.assert_allclose(w.stiffness_ellipsoid.semi_axes, np.linalg.eigvalsh(C), rtol=1e-5,
                               atol=1e-6 * np.abs(C).max())
    # at the tool the 3D view draws (the window's own closed pose and tool frame, in the world)
    placed = w.stiffness_ellipsoid._placed(w.design.model, w.design.arm, w.design.q)
    np.testing.assert_allclose(placed[:3, 3], w.closed.tool(w.design.q)[0][:3, 3], atol=1e-9)


def _random_mechanisms():
    from tests.explore.test_closed_elastic import with_gearboxes
    from tests.support.closed_reference import parallelogram_arm
    from designer.model import Convention
    for seed, convention in ((1, Convention.STANDARD), (2, Convention.MODIFIED)):
        rng = np.random.default_rng(seed)
        yield with_gearboxes(parallelogram_arm(rng, convention, wrist=True), rng)
        yield with_gearboxes(four_bar(rng, convention, mounted=True), rng)
    yield with_gearboxes(load_project(robot_path("acma_sr400")), np.random.default_rng(3))


@pytest.mark.parametrize("model", list(_random_mechanisms()), ids=lambda m: m.name or "random")
def test_the_modes_at_a_closed_tree_pose_are_pinocchios(model):
    """The window's modes_at on the design's tree pose (the passive joints closed), random parallelogram arms and
    mounted four-bars in both conventions and the SR400, against scipy's eigh on Pinocchio's projected CRBA."""
    from designer.design_state import OpenDesign
    from designer.explore.joints import explore_arm
    design = OpenDesign(model)
    arm = explore_arm(model)
    qa = np.random.default_rng(7).uniform(-0.3, 0.3, arm.n)
    design.q = arm.cd.positions(qa)
    M, _G, _J, _tool = reference(model, arm, qa)
    k = np.array([model.links[i].drive.stiffness for i in arm.cd.act])
    f = np.sqrt(scipy.linalg.eigh(np.diag(k), M, eigvals_only=True)) / (2 * np.pi)
    locked = modes_at(design, "locked")
    assert not isinstance(locked, str), locked
    np.testing.assert_allclose(locked.frequency, f, rtol=1e-6)


def test_a_pose_where_the_loops_cannot_close_is_one_line_in_the_window_and_the_cli(tmp_path, capsys):
    """The core's closed_elastic_at refuses it (a ClosureError, one line): the window's read-out words and the
    ``modes`` command both say so; nothing is NaN."""
    from designer.cli import main
    from designer.gui.modes import elastic_pose, elastic_summary
    model = with_stiffness(four_bar(np.random.default_rng(4), mounted=True), {0: 300.0, 1: 100.0})
    path = tmp_path / "bar.json"
    path.write_text(dumps_project(model))
    q_tree = np.zeros(model.n)
    q_tree[1] = 1.0                    # the crank 1 rad from where the loop closes: the bars do not reach
    message = elastic_pose(model, q_tree)
    assert isinstance(message, str) and "cannot close" in message and "\n" not in message
    assert elastic_summary(model, q_tree).startswith("elastic joints: ")
    assert main(["modes", str(path), "--q", "0", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot close" in err and "\n" not in err
