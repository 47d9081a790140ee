"""A closed-chain project in the window (issue 22): the loop bars close, the passive joints follow
the actuated sliders through the core's closure, a pose that cannot close keeps the last good one
with a message, and the exports that would read its links as a chain refuse it in one line."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from tests.support.closed_reference import four_bar, parallelogram_arm
from designer.gui import loop_scene
from designer.kinematics.closure import Closure
from designer.kinematics.tree import TreeArm
from designer.model import Convention
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
pytestmark = pytest.mark.usefixtures("no_dialogs")


def _random_mechanisms():
    rng = np.random.default_rng(22)
    for convention in (Convention.STANDARD, Convention.MODIFIED):
        yield four_bar(rng, convention)
        yield four_bar(rng, convention, mounted=True)
        yield parallelogram_arm(rng, convention, wrist=True)
    for name in ("palletizer_parallelogram", "acma_sr400", "four_bar"):
        yield load_project(ROBOTS / f"{name}.json")


@pytest.mark.parametrize("model", list(_random_mechanisms()), ids=lambda m: m.name or "random")
def test_the_loop_bars_meet_at_closed_poses_and_not_at_open_ones(model):
    mech = loop_scene.mechanism_of(model)
    assert isinstance(mech, loop_scene.Mechanism), mech
    rng = np.random.default_rng(5)
    met = 0
    for _ in range(6):
        q = np.zeros(mech.tree.n)
        q[mech.actuated] = rng.uniform(-0.4, 0.4, len(mech.actuated))
        try:
            closed = mech.pose(q)
        except loop_scene.ClosureError:
            continue            # a four-bar's crank may not turn that far: the view shows a message
        bars = loop_scene.loop_bars(mech.tree, mech.frames(closed))
        assert np.allclose(bars[:, 0, 1], bars[:, 1, 1], atol=1e-9)     # the cut joint's two sides meet
        met += 1
        # the same actuated values with the passive joints left where they were: the bars part
        opened = closed.copy()
        opened[mech.passive] += 0.3
        apart = loop_scene.loop_bars(mech.tree, mech.frames(opened))
        assert np.linalg.norm(apart[:, 0, 1] - apart[:, 1, 1], axis=-1).max() > 1e-3
    assert met >= 3


def test_a_serial_arm_has_no_mechanism():
    assert loop_scene.mechanism_of(load_project(ROBOTS / "puma560.json")) is None


@pytest.fixture
def window(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    w = MainWindow(load_project(ROBOTS / "palletizer_parallelogram.json"), recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    return w


def test_the_passive_joints_follow_the_actuated_sliders_by_the_core_closure(window):
    model = window.document.model
    closure = Closure(TreeArm.from_model(model))
    passive = list(closure.pas)
    sliders = window.sliders
    assert passive and all(not sliders.sliders[i].isEnabled() for i in passive)
    assert all(sliders.sliders[i].isEnabled() for i in closure.act)
    rng = np.random.default_rng(3)
    for _ in range(4):
        q = np.array(sliders.values())
        q[closure.act] = rng.uniform(-0.6, 0.6, len(closure.act))
        sliders.set_values(q)
        expected = closure.solve(q[closure.act])
        assert np.allclose(window.design.q, expected, atol=1e-9)
        assert np.allclose(window.arm_view.joint_values(), expected, atol=1e-9)
        assert np.allclose(np.array(sliders.values())[passive], expected[passive], atol=1e-6)
        ends = window.arm_view.loop_bar_ends
        assert ends.shape[0] == 1 and np.allclose(ends[:, 0, 1], ends[:, 1, 1], atol=1e-9)
    # the read-out's tool is the closed tree's (its frames, not the links read as a chain)
    T = closure.tree.arm.base @ closure.tree.frames(window.design.q)
    tool = T[-1] @ closure.tree.arm.tool     # the palletizer's wrist: its deepest and last link
    assert f"{tool[0, 3]:.4g}" in window.readout.text()


def test_the_tool_sits_on_the_deepest_link_as_the_core_metrics_take_it(qtbot, tmp_path):
    from designer.explore.joints import explore_arm
    from designer.gui.main_window import MainWindow
    model = load_project(ROBOTS / "acma_sr400.json")
    w = MainWindow(model, recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    arm = explore_arm(model)
    assert w.closed.mechanism.tool_link == arm.tool_link != model.n - 1   # not the parallelogram's bar
    q = np.array(w.sliders.values())
    q[w.closed.mechanism.actuated] = 0.3
    w.sliders.set_values(q)
    point = arm.tool_points(np.full((1, arm.n), 0.3))[0]
    world = (arm.cd.tree.arm.base @ np.append(point, 1.0))[:3]
    assert np.allclose(w.arm_view.parts["tool"][0, :3, 3], world, atol=1e-9)


def _locking_four_bar():
    """A random four-bar whose crank cannot turn half a turn (not a crank-rocker), as the core says."""
    rng = np.random.default_rng(7)
    while True:
        model = four_bar(rng)
        mech = loop_scene.mechanism_of(model)
        if not isinstance(mech, loop_scene.Mechanism):
            continue
        try:
            for angle in np.linspace(0.0, np.pi, 60):
                mech.pose(np.where(np.arange(mech.tree.n) == mech.actuated[0], angle, 0.0))
        except loop_scene.ClosureError:
            return model


def test_a_pose_that_cannot_close_keeps_the_last_good_one_with_its_message(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    w = MainWindow(_locking_four_bar(), recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    w.show()
    mech = w.closed.mechanism
    crank = int(mech.actuated[0])
    good = None
    for angle in np.linspace(0.0, np.pi, 60):       # turn the crank until the four-bar locks
        q = np.array(w.sliders.values())
        q[crank] = angle
        w.sliders.set_values(q)
        if w.closed.problem:
            break
        good = w.design.q.copy()
    assert w.closed.problem, "the four-bar never locked over half a turn of its crank"
    assert "cannot" in w.arm_view.message.text() and w.arm_view.message.isVisible()
    assert np.allclose(w.design.q, good) and np.all(np.isfinite(w.arm_view.joint_values()))
    w.sliders.set_values(np.zeros(len(good)))          # back to a pose that closes: the message goes
    assert not w.closed.problem and not w.arm_view.message.isVisible()


def test_the_coupling_view_follows_a_switch_between_closed_and_serial(window, qtbot):
    # the closed chain's ActuatedArm over its 4 actuated joints, the serial palletizer's 4 joints, and back
    # (tests/gui/test_closed_results.py checks their numbers)
    assert window.coupling.arm.n == 4 and window.coupling.joints.closed
    window.document.apply(load_project(ROBOTS / "palletizer_serial.json"), "serial")
    assert window.coupling.arm.n == 4 and not window.coupling.joints.closed
    window.document.undo_stack.undo()
    assert window.coupling.joints.closed and window.coupling.joints.names == ("q1", "q2", "q4", "q6")
    qtbot.waitUntil(lambda: not window.coupling.runner.busy, timeout=120_000)
    # the Equations tab derives the closed chain in its actuated coordinates (the core's closed form)
    panel = window.derivation
    with qtbot.waitSignal(panel.derivationFinished, timeout=120_000) as done:
        panel.start()
    eq = done.args[0]
    assert eq.mass_matrix.shape == (4, 4) and eq.matrices["M"].shape == (4, 4)   # q1 q2 q4 q6: the actuated joints


def test_the_examples_menu_opens_each_closed_chain_posed_and_drawn(window):
    names = {a.text() for a in window.examples_menu.actions()}
    for stem in ("palletizer_parallelogram", "palletizer_serial", "acma_sr400", "four_bar"):
        assert any(f"({stem}.json)" in n for n in names), names
    for stem, loops in (("acma_sr400", 1), ("four_bar", 1), ("palletizer_serial", 0)):
        window.open_example(ROBOTS / f"{stem}.json")
        assert window.document.model == load_project(ROBOTS / f"{stem}.json")
        assert (window.closed.mechanism is not None) == bool(loops) and not window.closed.problem
        assert not window.arm_view.message.isVisible()
        assert window.arm_view.loop_bar_ends.shape[0] == loops
        if loops:
            ends = window.arm_view.loop_bar_ends
            assert np.allclose(ends[:, 0, 1], ends[:, 1, 1], atol=1e-9)


def test_simulate_lets_a_closed_chain_fall_through_the_core_and_asks_a_move_for_its_target(qtbot, tmp_path):
    """The move itself: tests/gui/test_closed_simulate.py."""
    from designer.gui.main_window import MainWindow
    w = MainWindow(load_project(ROBOTS / "four_bar.json"), recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    sim = w.simulate
    q = np.array(w.sliders.values())
    q[w.closed.mechanism.actuated] = 0.7
    w.sliders.set_values(q)
    sim.duration.setValue(0.5)
    sim.motion.setCurrentText("quintic move")
    assert sim.run() is None and "actuated joint" in sim.status.text() and "\n" not in sim.status.text()
    sim.motion.setCurrentText("passive fall")
    with qtbot.waitSignal(sim.finished, timeout=120_000):
        sim.run()
    result = sim.result
    mech = w.closed.mechanism
    assert result.q.shape[1] == mech.tree.n and "loop residual" in sim.status.text()
    for row in result.q[:: max(1, len(result.q) // 5)]:   # every frame a closed pose of the tree
        assert mech.closure.residual(row) < 1e-8
    e = result.energy   # let go with no friction and no torque: the energy stays (a physical law)
    assert np.ptp(e) < 1e-5 * max(np.abs(e).max(), 1.0)
    assert np.ptp(result.q[:, mech.actuated[0]]) > 1e-3          # and it moved


def test_a_mechanism_that_cannot_close_is_not_drawn_and_comes_back_on_undo(window):
    loops = window.mechanism.loops_model
    loops.set_text(0, 2, "0.1, 0, 0")            # the cut joint 100 mm off on link 5, in the parallelogram's plane:
    assert window.closed.mechanism is not None   # assembled (a warning in the Problems panel), drawn closed
    assert window.arm_view.loop_bar_ends.shape[0] == 1
    window.document.undo_stack.undo()
    loops.set_text(0, 2, "0, 0, 0.1")            # 100 mm out of its plane: no turn of its joints closes it
    assert window.closed.mechanism is None and "100 mm apart at best" in window.closed.problem
    assert not window.arm_view.message.isHidden() and "100 mm" in window.arm_view.message.text()
    assert window.arm_view.arm is None and not window.arm_view.parts and window.readout.text() == ""   # no arm drawn
    window.document.undo_stack.undo()
    assert window.closed.mechanism is not None and not window.closed.problem
    assert window.arm_view.message.isHidden() and window.arm_view.loop_bar_ends.shape[0] == 1


def test_urdf_export_writes_the_spanning_tree_and_says_what_it_dropped(window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox
    from designer.gui.urdf_dialogs import export_urdf_file
    from designer.urdf import import_urdf
    told = []
    monkeypatch.setattr(QMessageBox, "information", lambda _w, title, text: told.append(text))
    monkeypatch.setattr(QMessageBox, "critical", lambda _w, _title, text: pytest.fail(text))
    assert export_urdf_file(window, tmp_path / "a.urdf") is True
    text = (tmp_path / "a.urdf").read_text()
    assert "<mimic" in text
    assert len(told) == 1 and "dropped" in told[0] and "coaxial mimic" in told[0], told
    assert "dropped" in window.statusBar().currentMessage()
    # what was written comes back as the same closed chain
    back = import_urdf(tmp_path / "a.urdf").model
    assert len(back.loops) == len(window.document.model.loops) == 1
    assert sum(not l.actuated for l in back.links) == sum(not l.actuated for l in window.document.model.links)
    # MJCF: the loops as equality constraints, said in the box too
    from designer.gui.mjcf_dialogs import export_mjcf_file
    assert export_mjcf_file(window, tmp_path / "a.xml") is True
    assert "<connect" in (tmp_path / "a.xml").read_text()
    assert len(told) == 2 and "equality constraints" in told[1], told


def test_linearize_works_in_the_actuated_joints(window):
    pytest.importorskip("pinocchio")
    from tests.support.closed_reference import PinMechanism
    from designer.gui.control_dialogs import LinearizeDialog
    rng = np.random.default_rng(11)
    model = parallelogram_arm(rng, Convention.MODIFIED, wrist=True)
    mech = loop_scene.mechanism_of(model)
    q = mech.pose(np.where(np.isin(np.arange(mech.tree.n), mech.actuated), rng.uniform(-0.5, 0.5, mech.tree.n), 0.0))
    dialog = LinearizeDialog(model, q)
    assert not dialog.error.text() and "closed chain" in dialog.text.toPlainText()
    lm, _dm = dialog.models
    na = len(mech.actuated)
    # B's lower block is M_a^-1: the response of Pinocchio's constrained dynamics to a unit actuated torque
    pin = PinMechanism(model)
    zero = np.zeros(mech.tree.n)
    base = pin.constrained(q, zero, zero)[mech.actuated]
    response = np.empty((na, na))
    for k, j in enumerate(mech.actuated):
        tau = zero.copy()
        tau[j] = 1.0
        response[:, k] = pin.constrained(q, zero, tau)[mech.actuated] - base
    assert lm.B.shape == (2 * na, na)
    assert np.allclose(lm.B[na:], response, rtol=1e-6, atol=1e-8)


def test_the_modes_of_a_closed_chain_without_gearboxes_say_so_in_one_line(window):
    problem = window.mode_animation.start(1)   # tests/gui/test_closed_modes.py: with drive stiffness
    assert "no elastic joints" in problem and "\n" not in problem and not window.mode_animation.timer.isActive()


def test_a_passive_joint_past_its_limits_shows_its_value_not_a_clamped_one(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    import dataclasses
    model = load_project(ROBOTS / "palletizer_parallelogram.json")
    links = list(model.links)
    links[2] = dataclasses.replace(links[2], limits=(-0.1, 0.1))    # the passive forearm: +-0.1 rad
    w = MainWindow(dataclasses.replace(model, links=tuple(links)), recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    q = np.array(w.sliders.values())
    q[1], q[3] = 0.5, 0.0                                           # q3 = q4 - q2 = -0.5, past -0.1
    w.sliders.set_values(q)
    assert w.design.q[2] == pytest.approx(-0.5) and w.sliders.values()[2] == pytest.approx(-0.5)


def test_import_dialog_proposes_the_arms_end_of_a_mimic_loop_file(qtbot):
    """The tree of an exported palletizer ends at the tool and at the coupler rod; the plain rule would
    propose the column (where the branches part), a one-joint arm."""
    from designer.gui.urdf_dialogs import ImportDialog
    from designer.urdf.exporter import urdf_text
    from designer.urdf.source import parse_urdf
    tree = parse_urdf(urdf_text(load_project(ROBOTS / "palletizer_parallelogram.json")).encode())
    dialog = ImportDialog(tree, "palletizer.urdf")
    qtbot.addWidget(dialog)
    assert dialog.tip.currentText() == "tool"
    assert "closed chain" in dialog.ends.text()


def test_the_read_out_gives_what_the_cut_joint_carries_holding_the_pose(window):
    """The parallelogram's bearing load holding the slider pose against gravity (the force the design report
    gives and its tests hold to Pinocchio's constraint force), following the sliders."""
    from designer.numeric.closed import ClosedDynamics
    cd = ClosedDynamics(window.document.model)
    sliders = window.sliders
    seen = set()
    for q_a in ([0.0, 0.3, 0.2, 0.0], [0.0, -0.2, 0.6, 0.0]):
        q = np.array(sliders.values())
        q[list(cd.act)] = q_a
        sliders.set_values(q)
        rest = np.zeros(cd.n)
        force = np.linalg.norm(cd.cut_forces(np.array(q_a), rest, rest).force[0])
        assert force > 10.0
        text = window.readout.text()
        shown = re.search(r"cut joint holds ([\d,.]+) N", text)
        assert shown and float(shown.group(1).replace(",", "")) == pytest.approx(force, rel=5e-3, abs=0.5), text
        seen.add(shown.group(1))
    assert len(seen) == 2                                   # it follows the pose


def test_a_four_bar_whose_nominal_pose_does_not_close_opens_assembled_with_a_warning(qtbot, tmp_path):
    """The bundled four-bar with a 20 mm longer coupler (refused before: "The mechanism cannot be posed"): the
    Problems panel has a warning naming the loop and no error, and the view shows the loop closed at the home pose
    with the passive joints where the two circles meet (the crank's tip B at 90 degrees, 0.15 m up; the rocker
    pinned at D = (0.4, 0); the coupler's end C 0.47 m from B and 0.35 m from D, on the upper side)."""
    from designer.gui.main_window import MainWindow
    model = load_project(ROBOTS / "four_bar.json")
    model = model.with_parameters({"L2": 0.47})
    w = MainWindow(model, recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    texts = [w.problems.item(k).text() for k in range(w.problems.count())]
    loop = [t for t in texts if "loops[1]" in t]
    assert len(loop) == 1 and loop[0].startswith("warning:") and "20 mm apart" in loop[0], texts
    assert not any(t.startswith("error") for t in texts), texts
    mech = w.closed.mechanism
    assert isinstance(mech, loop_scene.Mechanism)
    B, D = np.array([0.0, 0.15]), np.array([0.4, 0.0])
    d = np.linalg.norm(D - B)
    a = (0.47**2 - 0.35**2 + d**2) / (2 * d)
    u = (D - B) / d
    C = B + a * u + np.sqrt(0.47**2 - a**2) * np.array([-u[1], u[0]])
    T = mech.tree.frames(w.design.q)
    assert np.allclose(T[2][:2, 3], C, atol=1e-9)          # the coupler's end (frame 2, standard DH)
    assert np.allclose(w.design.q[mech.actuated], 0.0)
    ends = w.arm_view.loop_bar_ends
    assert ends.shape[0] == 1 and np.allclose(ends[:, 0, 1], ends[:, 1, 1], atol=1e-9)


def test_the_explore_panel_sweeps_the_four_bar_s_coupler_over_designs_that_must_be_assembled(qtbot):
    """The Sweep view on the bundled four-bar, its coupler from 0.05 to 0.55 m in 11 designs: the one too short to
    reach the rocker (0.05 m: 0.05 + 0.35 < 0.4272 m from the crank's tip to the rocker's pivot) is the only design
    without numbers, and the others are the core's sweep of the same spec (on main: every design but the nominal
    one refused, "cannot close at the nominal pose")."""
    import concurrent.futures as cf

    from designer.explore.sweep import sweep
    from designer.gui.explore_panel import ExplorePanel
    from designer.jobs import run as run_job
    from tests.support.sweeps import one_axis_sweep
    panel = ExplorePanel()
    qtbot.addWidget(panel)
    panel.set_model(load_project(ROBOTS / "four_bar.json"))
    panel.picker.set_metric("gravity")
    view = panel.sweep_view
    one_axis_sweep(view, "L2", 0.05, 0.55, 11, samples=16)
    with qtbot.waitSignal(panel.jobEnded, timeout=120_000) as blocker:
        assert view.run() is not None, panel.error_label.text()
    assert blocker.args[1] == "finished", panel.error_label.text()
    result = view.result
    assert sorted(result.errors) == [0] and "cannot be assembled" in result.errors[0]
    # said in words, naming the design: not the exception's class name
    said = panel.error_label.text()
    assert "1 of 11 designs" in said and "L2 = 0.05:" in said and "cannot be assembled" in said, said
    assert "Error:" not in said, said
    with cf.ThreadPoolExecutor(1) as pool:
        core = run_job(sweep(panel.model, view.spec(), executor=pool))
    got, want = result.column("gravity:max"), core.column("gravity:max")
    assert np.all(np.isfinite(got[1:])) and np.allclose(got[1:], want[1:], rtol=1e-9)
