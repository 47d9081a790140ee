"""The window's result views on a closed chain (issue 22): the Coupling tab, Explore (map, A/B, sizing),
Arm > Identification and the design report compute through the closed-chain core, over the actuated
joints named by their links (q1, q2, q4, q6 for the palletizer), in worker jobs.

Each number is checked against the core's closed-chain dynamics evaluated here directly
(:class:`~designer.numeric.closed.ClosedDynamics`: M_a = W^T M W, G_a, tau_a, the cut-joint forces),
not through the window's path (explore/joints.py, explore/coupling.py, the jobs); before this change
the tabs showed one line and the report and identification refused.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from designer.explore.joints import explore_arm
from designer.numeric.closed import ClosedDynamics
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
PALLETIZER = ROBOTS / "palletizer_parallelogram.json"
pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    w = MainWindow(load_project(PALLETIZER), recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    return w


@pytest.fixture(scope="module")
def cd():
    return ClosedDynamics(load_project(PALLETIZER))


def _pose(window, q_a) -> np.ndarray:
    """Move the actuated sliders (q1, q2, q4, q6); the passive ones follow the loop."""
    q = np.zeros(window.document.model.n)
    q[[0, 1, 3, 5]] = q_a
    window.sliders.set_values(q)
    return window.design.q.copy()


def _error(window) -> str:
    """The Explore panel's error line, "" while it is hidden (the window is not shown in these tests)."""
    runner = window.explore.runner
    return "" if runner.error_box.isHidden() else runner.error.text()


def _coupling(M):
    d = np.sqrt(np.diag(M))
    C = np.abs(M / np.outer(d, d))
    return C[~np.eye(len(M), dtype=bool)].max()


def test_coupling_plots_of_a_closed_chain_come_from_a_worker_over_its_actuated_joints(window, qtbot, cd):
    panel = window.coupling
    q_tree = _pose(window, [0.2, 0.3, 0.5, 0.0])
    assert np.isclose(q_tree[2], 0.5 - 0.3)          # the forearm follows: q3 = q4 - q2
    assert [panel.swept_joint.itemText(k) for k in range(panel.swept_joint.count())] == ["q1", "q2", "q4", "q6"]
    panel.set_pair(1, 2)                              # q2 and q4
    assert panel.joint_j.text() == "joint q4"
    assert panel.runner.busy                          # the closure at every point runs in a worker
    qtbot.waitUntil(lambda: not panel.runner.busy, timeout=120_000)
    data = panel.curve_data()
    x, m24 = data["M_24"]
    q_a = q_tree[[0, 1, 3, 5]]
    for k in (0, 40, 77, 120):                        # swept q4 in degrees, the others at the pose
        state = q_a.copy()
        state[2] = np.radians(x[k])
        assert m24[k] == pytest.approx(cd.M(state)[1, 2], rel=1e-9, abs=1e-9)
    assert "q4" in panel.plot_coefficients.getAxis("bottom").labelText
    # the Coriolis/centrifugal coefficients: the core's Christoffel symbols of a closed chain, or its one line
    _x, b = data["B_2,24"]
    if np.isnan(b).all():
        assert "closed chain" in panel.status.text() and "\n" not in panel.status.text()
    else:
        assert np.isfinite(b).all() and not panel.status.isVisible()


def test_a_parameter_sweep_of_a_closed_chain_builds_its_designs_in_a_worker(window, qtbot):
    from designer.explore.coupling import Quantity
    panel = window.coupling
    window.result_tabs.setCurrentWidget(panel)
    panel.set_pair(1, 2)
    qtbot.waitUntil(lambda: not panel.runner.busy, timeout=120_000)
    panel.set_parameter_sweep("c", 0.2, 0.4, quantity=Quantity.COUPLING)
    assert panel.runner.busy
    qtbot.waitUntil(lambda: not panel.runner.busy, timeout=120_000)
    (x, y), = panel.curve_data().values()
    model = window.document.model
    for k in (0, 20, 40):
        M = ClosedDynamics(model, {"c": float(x[k])}).M(np.zeros(4))
        assert y[k] == pytest.approx(M[1, 2], rel=1e-9, abs=1e-9)


def test_a_map_of_a_closed_chain_runs_in_a_worker_with_progress_and_poses_the_actuated_sliders(window, qtbot, cd):
    explore, view = window.explore, window.explore.map_view
    window.result_tabs.setCurrentWidget(window.explore_scroll)
    assert [view.joint_x.itemText(k).split()[0] for k in range(view.joint_x.count())] == ["q1", "q2", "q4", "q6"]
    assert (view.joint_x.currentData(), view.joint_y.currentData()) == (2, 3)   # q2, q4: M_a depends on them
    _pose(window, [0.1, 0.0, 0.0, 0.4])
    view.steps.setValue(9)
    view.samples.setValue(0)
    progress = []
    explore.jobProgress.connect(progress.append)
    assert view.compute() is not None and explore.busy
    qtbot.waitUntil(lambda: not explore.busy, timeout=120_000)
    assert not _error(window)
    assert progress
    grid = view.result.grid
    assert np.allclose(grid.q0, [0.1, 0.0, 0.0, 0.4])
    for iy, ix in ((0, 0), (4, 6), (8, 3)):
        state = np.array([0.1, grid.x[ix], grid.y[iy], 0.4])
        assert grid.values[iy, ix] == pytest.approx(_coupling(cd.M(state)), rel=1e-9)
    assert view.box.plot.getAxis("left").labelText.startswith("q4")
    # a click on the map moves the actuated sliders; the loop moves the passive ones
    q = view.pose_at(np.degrees(grid.x[6]), np.degrees(grid.y[4]))
    view.context.pose_arm(q)
    q_tree = window.design.q
    assert q_tree[[0, 1, 3, 5]] == pytest.approx([0.1, grid.x[6], grid.y[4], 0.4])
    assert q_tree[2] == pytest.approx(grid.y[4] - grid.x[6]) and q_tree[4] == pytest.approx(grid.x[6] - grid.y[4])


def test_a_b_compares_the_parallelogram_with_the_serial_palletizer(window, qtbot, cd):
    from designer.kinematics import NumericArm
    from designer.numeric.batch import Batch
    view = window.explore.compare_view
    view.path.setText(str(ROBOTS / "palletizer_serial.json"))
    view.from_file.setChecked(True)
    view.samples.setValue(64)
    assert view.compare() is not None
    qtbot.waitUntil(lambda: not window.explore.busy, timeout=120_000)
    assert not _error(window)
    rows = {(r["metric"], r["where"]): r for r in view.result.rows}
    serial = Batch(NumericArm.from_model(load_project(ROBOTS / "palletizer_serial.json")), np.zeros((1, 4))).M[0]
    M = cd.M(np.zeros(4))
    assert rows[("M[2,3]", "pose")]["A"] == pytest.approx(M[1, 2], rel=1e-9)
    assert rows[("M[2,3]", "pose")]["B"] == pytest.approx(serial[1, 2], rel=1e-9)
    assert rows[("gravity[3]", "pose")]["A"] == pytest.approx(cd.G(np.zeros(4))[2], rel=1e-9)
    assert [view.joint.itemText(k) for k in range(view.joint.count())] == ["q1", "q2", "q4", "q6"]


def test_sizing_a_closed_chain_gives_its_actuated_torques(window, qtbot, cd):
    view = window.explore.sizing_view
    _pose(window, [0.0, 0.0, 0.0, 0.0])
    view.source.setCurrentText("quintic move")
    view.target.setText("30, 20, 40, 10")
    assert view.run() is not None
    # 53 s alone on a loaded machine, over 120 s beside another worker (make test: pytest -n auto): the wait
    # returns when the job ends; the bound only stops a hang
    qtbot.waitUntil(lambda: not window.explore.busy, timeout=600_000)
    assert not _error(window)
    s = view.result.sizing
    for k in (0, len(s.traj.t) // 3, len(s.traj.t) - 1):
        tau = cd.tau(s.traj.q[k], s.traj.qd[k], s.traj.qdd[k])
        assert s.torque[k] == pytest.approx(tau, rel=1e-8, abs=1e-8)
    assert [view.table.item(r, 0).text() for r in range(view.table.rowCount())] == ["q1", "q2", "q4", "q6"]


def test_a_trajectory_csv_names_a_closed_chain_s_joints_by_their_links(window, qtbot, cd, tmp_path):
    """Sizing from a CSV: the columns are q1, q2, q4, q6 as `torques` and the CLI's sizing read them."""
    t = np.linspace(0.0, 1.0, 41)
    q = np.column_stack([0.2 * t, 0.3 * np.sin(t), -0.2 * t, 0.1 * t ** 2])
    path = tmp_path / "move.csv"
    path.write_text("t,q1,q2,q4,q6\n" + "".join(",".join(f"{v:.12g}" for v in (tk, *qk)) + "\n"
                                                  for tk, qk in zip(t, q)))
    view = window.explore.sizing_view
    view.source.setCurrentText("trajectory CSV")
    view.csv.setText(str(path))
    assert view.run() is not None
    # 53 s alone on a loaded machine, over 120 s beside another worker (make test: pytest -n auto): the wait
    # returns when the job ends; the bound only stops a hang
    qtbot.waitUntil(lambda: not window.explore.busy, timeout=600_000)
    assert not _error(window)
    s = view.result.sizing
    assert s.traj.q == pytest.approx(q)
    k = len(t) // 2
    assert s.torque[k] == pytest.approx(cd.tau(s.traj.q[k], s.traj.qd[k], s.traj.qdd[k]), rel=1e-8, abs=1e-8)


def test_the_window_s_payload_envelope_of_a_closed_chain_is_the_core_s(window, qtbot):
    """The payload envelope of a closed chain in the window (its payload on the tool link: the arm's
    with_load, as a serial arm's) is the core's at the window's trajectory and offsets."""
    view = window.explore.sizing_view
    view.source.setCurrentText("quintic move")
    view.target.setText("10, 10, 10, 10")
    view.payload.setChecked(True)
    window.explore.ratings_edits["torque"].setText("5000")
    view.run()
    # 53 s alone on a loaded machine, over 120 s beside another worker (make test: pytest -n auto): the wait
    # returns when the job ends; the bound only stops a hang
    qtbot.waitUntil(lambda: not window.explore.busy, timeout=600_000)
    assert not _error(window)
    out = view.result
    from designer.explore.sizing import payload_envelope
    arm = explore_arm(window.explore.model)
    k = len(out.axial) - 1   # the farthest row: the payload loads every joint there
    offsets = np.column_stack([out.radial, np.zeros(len(out.radial)), np.full(len(out.radial), out.axial[k])])
    t = out.sizing.traj
    assert out.payload[k] == pytest.approx(payload_envelope(arm, offsets, 5000.0, t.q, t.qd, t.qdd), rel=1e-9)
    assert np.all(np.isfinite(out.payload[k])) and np.all(out.payload[k] > 0)


def test_identification_of_a_closed_chain_gives_the_closed_loop_base_parameters(window, qtbot, tmp_path, cd):
    from designer.gui.control_dialogs import _identification
    from designer.identification.regressor import Regressor, base_grouping
    _identification(window)
    dialog = window.control_dialog
    qtbot.waitUntil(lambda: dialog.bp is not None, timeout=120_000)
    bp = base_grouping(cd)
    assert dialog.table.rowCount() == bp.count == 25
    names = [dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount())]
    assert names == [name for name, _ in bp.base]
    values = [float(dialog.table.item(r, 2).text()) for r in range(dialog.table.rowCount())]
    assert values == pytest.approx(bp.values, rel=1e-5, abs=1e-9)
    assert dialog.generate.isEnabled() and dialog.load.isEnabled()
    # cond(Y_b) over a trajectory of the actuated joints (columns named by their links)
    rng = np.random.default_rng(3)
    Q, QD, QDD = rng.uniform(-0.5, 0.5, (3, 12, 4))
    path = tmp_path / "excite.csv"
    header = [f"{p}{j}" for p in ("q", "qd", "qdd") for j in (1, 2, 4, 6)]
    path.write_text(",".join(["t"] + header) + "\n" + "\n".join(
        ",".join(repr(float(v)) for v in [k * 0.1, *Q[k], *QD[k], *QDD[k]]) for k in range(12)) + "\n")
    dialog.load_csv(str(path))
    qtbot.waitUntil(lambda: "computing" not in dialog.condition.text(), timeout=120_000)
    reg = Regressor(cd)
    columns = [reg.names.index(name) for name, _ in bp.base]
    Y = np.vstack([reg.actuated(Q[k], QD[k], QDD[k])[:, columns] for k in range(12)])
    s = np.linalg.svd(Y, compute_uv=False)
    shown = float(dialog.condition.text().rsplit(": ", 1)[1])
    assert shown == pytest.approx(s[0] / s[-1], rel=1e-5)
    # the excitation search: a Fourier series of the actuated joints, rated on the same base regressor
    dialog.period.setValue(4.0)
    dialog.harmonics.setValue(2)
    dialog.excite()
    qtbot.waitUntil(lambda: "searching" not in dialog.condition.text(), timeout=120_000)
    ex = dialog.excitation
    assert ex.q.shape == (4, len(ex.t))
    Y = np.vstack([reg.actuated(ex.q[:, k], ex.qd[:, k], ex.qdd[:, k])[:, columns] for k in range(len(ex.t))])
    s = np.linalg.svd(Y, compute_uv=False)
    assert float(dialog.condition.text().rsplit(": ", 1)[1]) == pytest.approx(s[0] / s[-1], rel=1e-5)
    dialog.close()


def _html_table(page: str, heading: str) -> list[list[str]]:
    at = page.index(heading)
    table = page[page.index("<table", at):page.index("</table>", at)]
    rows = re.findall(r"<tr>(.*?)</tr>", table)
    return [[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row)] for row in rows if "<td>" in row]


def test_the_design_report_of_a_closed_chain_gives_m_a_g_a_and_the_cut_joint_forces(window, qtbot, tmp_path, cd):
    from designer.gui.design_export import export_design_report
    q_tree = _pose(window, [0.0, 0.3, 0.5, 0.0])
    target = tmp_path / "palletizer.html"
    assert export_design_report(window, "html", target)
    qtbot.waitUntil(lambda: not window.export_jobs.busy, timeout=120_000)
    page = target.read_text(encoding="utf-8")
    q_a = q_tree[[0, 1, 3, 5]]
    M = np.array([[float(v) for v in row[1:]] for row in _html_table(page, "M_a at the pose")])
    assert M == pytest.approx(cd.M(q_a), rel=1e-4, abs=1e-4)
    G = [float(row[1]) for row in _html_table(page, "G_a at the pose")]
    assert G == pytest.approx(cd.G(q_a), rel=1e-4, abs=1e-4)
    (loop,) = _html_table(page, "Cut-joint forces")
    zero = np.zeros(4)
    force = cd.cut_forces(q_a, zero, zero).force[0]
    assert float(loop[1]) == pytest.approx(np.linalg.norm(force), rel=1e-4)
    assert [row[4] for row in _html_table(page, "Tree: each link")] == ["actuated", "actuated", "passive", "actuated",
                                                                         "passive", "actuated"]
    assert "Coupling plots" in page and "(passive)" in page   # the figures: the coupling plot, the pose


def test_every_result_view_takes_the_closed_chain(window):
    # no view stands behind a refusal: each tab is the view itself, the same for a closed chain as a serial arm
    views = {window.coupling, window.explore_scroll, window.simulate}   # each built when first shown or used
    tabs = [window.result_tabs.widget(i) for i in range(window.result_tabs.count())]
    assert views <= set(tabs)
    assert window.result_tabs.indexOf(window.coupling) >= 0
    assert window.coupling.arm is not None and window.coupling.arm.n == 4


def test_the_workspace_cloud_of_a_closed_chain_puts_its_tool_where_the_loops_close(window, qtbot, cd):
    view = window.explore.workspace_view
    view.samples.setValue(40)
    clouds = []
    window.explore.workspaceMapped.connect(lambda positions, values, label: clouds.append(positions))
    assert view.compute() is not None
    # 53 s alone on a loaded machine, over 120 s beside another worker (make test: pytest -n auto): the wait
    # returns when the job ends; the bound only stops a hang
    qtbot.waitUntil(lambda: not window.explore.busy, timeout=600_000)
    assert not _error(window) and len(clouds) == 1
    r = view.result
    tool = np.array([0.0, 0.0, 0.0, 1.0])
    for k in (0, 17, 39):
        T = cd.tree.frames(cd.positions(r.q[k]))
        tool_pose = T[6] @ cd.tree.arm.tool            # the wrist (link 6): the tree's deepest leaf
        assert r.positions[k] == pytest.approx((tool_pose @ tool)[:3], abs=1e-9)
    header, _rows = view.csv_data()
    assert header[:4] == ["q1 (rad)", "q2 (rad)", "q4 (rad)", "q6 (rad)"]


def test_a_closed_chain_s_large_map_can_be_cancelled_while_it_runs(window, qtbot):
    explore, view = window.explore, window.explore.map_view
    view.steps.setValue(300)   # 90,000 states closing their loops, seconds even batched (a 50 x 50 map ended first)
    view.samples.setValue(0)
    ended = []
    explore.jobEnded.connect(lambda title, how: ended.append(how))
    with qtbot.waitSignal(explore.jobProgress, timeout=120_000):
        view.compute()
    explore.cancel()
    qtbot.waitUntil(lambda: bool(ended), timeout=120_000)
    assert ended == ["cancelled"] and view.result is None


def test_design_conditions_of_a_closed_chain_stay_in_the_worker_process_and_answer(window, qtbot):
    """The conditions job (a sympy solve) runs in the worker process for a closed chain too, and answers
    (the core takes a closed chain's arm as a serial one's: no wrapper turns a failure into a line)."""
    from designer.gui.worker import ProcessJobWorker
    view = window.explore.conditions_view
    worker = view.find_conditions()
    assert isinstance(worker, ProcessJobWorker)
    qtbot.waitUntil(lambda: not window.explore.busy, timeout=180_000)
    assert not _error(window)
    assert view.result is not None


def test_a_four_bar_s_single_actuated_joint_gets_one_line_in_the_coupling_and_map_views(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    w = MainWindow(load_project(ROBOTS / "four_bar.json"), recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    w.coupling.refresh()
    assert w.coupling.status.text() == "Coupling needs at least two joints."
    assert w.explore.map_view.compute() is None
    assert _error(w) == "Map: a map needs two joints; Planar four-bar (crank-rocker) moves by one, q1 (the " \
                        "Workspace view samples it)"
