"""The Explore panel: maps, sweeps, Pareto picks, A/B, conditions, errors and export, through the worker."""

from __future__ import annotations

import csv
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage

from designer.explore.batch import Batch
from designer.explore.maps import grid_map, sample_summary
from designer.gui.explore_panel import ExplorePanel
from designer.kinematics import NumericArm
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
from tests.support.arms import six_link  # noqa: E402

POSE = np.array([0.3, 0.6, -1.2, 0.2, 0.4, 0.1])
PUMA_MASSES = {"m1": 0.0, "m2": 17.4, "m3": 4.8, "m4": 0.82, "m5": 0.34, "m6": 0.09}  # Armstrong et al. 1986


pytestmark = pytest.mark.usefixtures("no_dialogs")  # tests/conftest.py


@pytest.fixture(scope="module")
def puma():
    return six_link()


@pytest.fixture
def panel(qtbot, puma):
    p = ExplorePanel()
    qtbot.addWidget(p)
    p.resize(1100, 750)
    p.set_model(puma)
    p.set_joint_values(POSE)
    p.show()
    qtbot.waitExposed(p)
    yield p
    if p.busy:
        p.cancel()
        qtbot.waitUntil(lambda: not p.busy, timeout=120_000)


def run(qtbot, panel, start, timeout=20_000) -> str:
    """Start a job with ``start()`` and wait for its end; returns how it ended."""
    with qtbot.waitSignal(panel.jobEnded, timeout=timeout) as blocker:
        assert start() is not None, panel.error_label.text()
    return blocker.args[1]


# -- map -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("metric", ["coupling[2,3]", "gravity[2]"])
def test_map_image_is_the_core_map_and_marks_the_pose(qtbot, panel, puma, metric):
    panel.picker.set_metric(metric)
    assert panel.metric_text() == metric
    view = panel.map_view
    view.joint_x.setCurrentIndex(view.joint_x.findData(2))
    view.joint_y.setCurrentIndex(view.joint_y.findData(3))
    view.steps.setValue(25)
    view.samples.setValue(600)
    assert run(qtbot, panel, view.compute) == "finished"
    arm = NumericArm.from_model(puma)
    expected = grid_map(arm, metric, (2, 3), q0=POSE, steps=25)
    np.testing.assert_allclose(view.heat.image.image, expected.values, rtol=1e-12, atol=1e-12)
    stats = sample_summary(arm, metric, 600).stats
    shown = [float(view.stats.item(0, c).text()) for c in range(view.stats.columnCount())]
    np.testing.assert_allclose(shown, [stats[k] for k in ("min", "max", "mean", "std", "p05", "p50", "p95")],
                               rtol=1e-5)
    # the marker sits at the current pose, in degrees
    x, y = view.marker.getData()
    assert (x[0], y[0]) == pytest.approx(np.degrees(POSE[[1, 2]]))
    panel.set_joint_values(POSE + 0.1)
    assert view.marker.getData()[0][0] == pytest.approx(np.degrees(POSE[1] + 0.1))
    assert "out of date" in view.box.caption.text()   # q1, q4.. moved: the map no longer matches
    # following the pose recomputes it for the new values of the other joints
    view.follow.setChecked(True)
    with qtbot.waitSignal(panel.jobFinished, timeout=120_000):
        panel.set_joint_values(POSE + 0.2)
    np.testing.assert_allclose(view.heat.image.image,
                               grid_map(arm, metric, (2, 3), q0=POSE + 0.2, steps=25).values, rtol=1e-12, atol=1e-12)
    assert "out of date" not in view.box.caption.text()


def test_map_pixels_agree_with_pinocchio(qtbot, panel, puma):
    """A few map cells against Pinocchio's mass matrix (independent of our dynamics)."""
    from tests.support.explore_pin import PinArm
    panel.picker.set_metric("coupling[2,3]")
    view = panel.map_view
    view.steps.setValue(9)
    view.samples.setValue(0)
    assert run(qtbot, panel, view.compute) == "finished"
    grid = view.result.grid
    ref = PinArm(NumericArm.from_model(puma))
    for iy, ix in [(0, 0), (4, 7), (8, 3)]:
        q = POSE.copy()
        q[1], q[2] = grid.x[ix], grid.y[iy]
        M = ref.M(q)
        assert view.heat.image.image[iy, ix] == pytest.approx(M[1, 2] / np.sqrt(M[1, 1] * M[2, 2]), rel=1e-9)


# -- sweep and Pareto ------------------------------------------------------------------------------
def test_sweep_runs_in_the_worker_with_progress(qtbot, panel, puma, monkeypatch):
    import designer.gui.explore.sweep_view as sv
    threads = []
    real = sv.sweep_job

    def recording(*args, **kwargs):
        threads.append(threading.get_ident())
        return (yield from real(*args, **kwargs))
    monkeypatch.setattr(sv, "sweep_job", recording)
    panel.picker.set_metric("coupling")
    view = panel.sweep_view
    view.params[0].setCurrentText("a2")
    view.starts[0].setValue(0.3)
    view.stops[0].setValue(0.6)
    view.counts[0].setValue(4)
    view.params[1].setCurrentText("(none)")
    view.samples.setValue(200)
    steps = []
    panel.jobProgress.connect(steps.append)
    assert run(qtbot, panel, view.run) == "finished"
    assert threads and threads[0] != threading.get_ident()
    fractions = [s.fraction for s in steps]   # the worker thins them out to one per 50 ms
    assert fractions and fractions[0] == 0.0 and all(0.0 <= f <= 1.0 for f in fractions)
    assert fractions == sorted(fractions) and all(s.stage == "sweep" for s in steps)
    # the curve holds, per design, the largest off-diagonal coupling over the same samples
    curve = view.curves.plot.listDataItems()[0]
    x, y = curve.getData()
    np.testing.assert_allclose(x, [0.3, 0.4, 0.5, 0.6])
    from designer.explore.maps import sample_configurations
    from designer.explore.metrics import compute
    for a2, value in zip(x, y):
        arm = NumericArm.from_model(puma, {"a2": a2})
        c = compute(arm, sample_configurations(arm, 200), "coupling")
        off = ~np.eye(6, dtype=bool)
        assert value == pytest.approx(np.abs(c[:, off]).max(), rel=1e-12)


def test_sweep_can_be_cancelled_and_the_panel_keeps_working(qtbot, panel):
    view = panel.sweep_view
    view.params[0].setCurrentText("a2")
    view.counts[0].setValue(40)
    view.params[1].setCurrentText("m3")
    view.counts[1].setValue(40)
    view.samples.setValue(3000)
    with qtbot.waitSignal(panel.jobProgress, timeout=120_000):
        assert view.run() is not None
    assert panel.cancel_button.isEnabled()
    with qtbot.waitSignal(panel.jobEnded, timeout=120_000) as blocker:
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["Sweep", "cancelled"]
    assert "cancelled" in panel.status_label.text()
    assert view.result is None
    # the sweep's pool threads stop soon: at most one small block of designs is left to finish
    sweeping = lambda: [t for t in threading.enumerate() if t.name.startswith("explore-sweep")]  # noqa: E731
    qtbot.waitUntil(lambda: not sweeping(), timeout=120_000)
    view.counts[0].setValue(3)
    view.params[1].setCurrentText("(none)")
    view.samples.setValue(50)
    assert run(qtbot, panel, view.run) == "finished"
    assert len(view.result.designs) == 3


def test_closing_the_panel_stops_its_job(qtbot, puma):
    import shiboken6
    p = ExplorePanel()
    p.set_model(puma)
    p.sweep_view.counts[0].setValue(40)
    p.sweep_view.params[1].setCurrentText("m3")
    p.sweep_view.counts[1].setValue(40)
    with qtbot.waitSignal(p.jobProgress, timeout=120_000):
        worker = p.sweep_view.run()
    shiboken6.delete(p)
    qtbot.waitUntil(lambda: worker.done, timeout=120_000)
    assert worker.token.cancelled


def _pareto_sweep(qtbot, panel):
    panel.picker.set_metric("gravity[2]")
    view = panel.sweep_view
    view.params[0].setCurrentText("a2")
    view.starts[0].setValue(0.3)
    view.stops[0].setValue(0.6)
    view.counts[0].setValue(4)
    view.params[1].setCurrentText("m3")
    view.starts[1].setValue(2.0)
    view.stops[1].setValue(8.0)
    view.counts[1].setValue(4)
    view.samples.setValue(100)
    view.second_metric.setText("coupling[2,3]")
    assert run(qtbot, panel, view.run) == "finished"
    assert view.stack.currentWidget() is view.heat_box   # two parameters: a heat map
    assert view.heat.values.shape == (4, 4)


def test_clicking_a_pareto_point_loads_that_design(qtbot, panel):
    _pareto_sweep(qtbot, panel)
    pareto = panel.pareto_view
    panel.tabs.setCurrentWidget(pareto)
    pareto.set_keys("gravity[2]:max", "total_mass")
    for sense in pareto.senses:
        sense.setCurrentIndex(0)   # both minimised
    x, y = pareto.points()
    # non-dominated, checked by brute force: nobody is at least as good in both and better in one
    for i in range(len(x)):
        beaten = any(x[k] <= x[i] and y[k] <= y[i] and (x[k] < x[i] or y[k] < y[i]) for k in range(len(x)))
        assert pareto.front[i] == (not beaten)
    assert 1 <= pareto.front.sum() < len(x)
    qtbot.wait(100)
    index = int(np.flatnonzero(pareto.front)[-1])
    vb = pareto.box.plot.vb
    scene = vb.mapViewToScene(pg_point(x[index], y[index]))
    pos = pareto.box.layout_widget.mapFromScene(scene)
    with qtbot.waitSignal(panel.loadDesignRequested, timeout=120_000) as blocker:
        qtbot.mouseClick(pareto.box.layout_widget.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pos.x(), pos.y()))
    model = blocker.args[0]
    design = pareto.result.designs[index]
    values = model.parameter_values
    assert (values["a2"], values["m3"]) == pytest.approx((design["a2"], design["m3"]))
    # the design's total mass, by hand: the PUMA's link masses with m3 replaced
    assert y[index] == pytest.approx(sum(PUMA_MASSES.values()) - 4.8 + design["m3"])
    # and the loaded model carries it: its gravity torque on joint 2 is the plotted one's ingredient
    arm = NumericArm.from_model(model)
    assert arm.mass.sum() == pytest.approx(y[index])


def pg_point(x, y):
    from PySide6.QtCore import QPointF
    return QPointF(float(x), float(y))


# -- A/B ------------------------------------------------------------------------------------------
def test_ab_variant_compares_metrics_and_curves(qtbot, panel, puma):
    panel.picker.set_metric("gravity[2]")
    view = panel.compare_view
    view.from_variant.setChecked(True)
    view.parameter.setCurrentText("m3")
    view.value.setValue(9.6)            # twice the PUMA's 4.8 kg
    view.joint.setCurrentIndex(view.joint.findData(2))
    view.samples.setValue(64)
    assert run(qtbot, panel, view.compare) == "finished"
    r = view.result
    by = {(row["metric"], row["where"]): row for row in r.rows}
    assert by[("gravity", "workspace:max")]["B"] > by[("gravity", "workspace:max")]["A"]  # heavier forearm
    assert by[("total_mass", "design")]["B-A"] == pytest.approx(4.8)
    # the table shows the workspace rows by default, the pose rows on request
    shown = [view.table.item(k, 1).text() for k in range(view.table.rowCount())]
    assert shown and all(w in ("max", "mean", "min", "design") for w in shown)
    view.where.setCurrentIndex(view.where.findData("pose"))
    assert any(view.table.item(k, 1).text() == "pose" for k in range(view.table.rowCount()))
    # the curves: |G_2| against q2 at the pose, for each design, with Pinocchio as the reference
    from tests.support.explore_pin import PinArm
    for curve, model in ((r.curve_a, puma), (r.curve_b, puma.with_parameter("m3", 9.6))):
        ref = PinArm(NumericArm.from_model(model))
        for k in (0, 90, 180):
            q = POSE.copy()
            q[1] = r.x[k]
            assert curve[k] == pytest.approx(abs(ref.G(q)[1]), rel=1e-9, abs=1e-9)
    # a variant equal to A differs by nothing
    view.value.setValue(4.8)
    assert run(qtbot, panel, view.compare) == "finished"
    assert all(row["B-A"] == 0 or not np.isfinite(row["B-A"]) for row in view.result.rows)


# -- errors ---------------------------------------------------------------------------------------
def test_bad_input_shows_an_error_and_the_panel_keeps_working(qtbot, panel, puma, tmp_path):
    # a parameter without a value: named, no job started
    panel.set_model(puma.with_parameter("a2", None))
    assert panel.map_view.compute() is None
    assert panel.error_label.isVisible() and "a2" in panel.error_label.text()
    panel.set_model(puma)
    # a metric that needs ratings: the job fails with the core's one-line message
    panel.picker.set_metric("coriolis[2]")
    panel.map_view.steps.setValue(10)
    panel.map_view.samples.setValue(100)
    assert run(qtbot, panel, panel.map_view.compute) == "failed"
    assert "rated speed" in panel.error_label.text()
    # bad ratings text
    panel.ratings_edits["speed"].setText("fast")
    assert panel.map_view.compute() is None and "speed" in panel.error_label.text()
    panel.ratings_edits["speed"].setText("1, 1, 1")
    assert panel.map_view.compute() is None and "one value or 6" in panel.error_label.text()
    # with ratings it works
    panel.ratings_edits["speed"].setText("2")
    panel.ratings_edits["acceleration"].setText("5")
    assert run(qtbot, panel, panel.map_view.compute) == "finished"
    assert not panel.error_label.isVisible()
    assert np.isfinite(panel.map_view.heat.image.image).all()
    # an empty sweep range, the same joint twice, a missing file
    panel.sweep_view.params[0].setCurrentText("a2")
    panel.sweep_view.starts[0].setValue(0.4)
    panel.sweep_view.stops[0].setValue(0.4)
    assert panel.sweep_view.run() is None and "range is empty" in panel.error_label.text()
    panel.map_view.joint_y.setCurrentIndex(panel.map_view.joint_x.currentIndex())
    assert panel.map_view.compute() is None and "different joints" in panel.error_label.text()
    panel.compare_view.from_file.setChecked(True)
    panel.compare_view.path.setText(str(tmp_path / "missing.json"))
    assert panel.compare_view.compare() is None and "missing.json" in panel.error_label.text()
    panel.compare_view.path.setText(str(ROBOTS / "planar_two_link.json"))
    assert panel.compare_view.compare() is None and "same size" in panel.error_label.text()
    panel.sweep_view.second_metric.setText("nonsense[1]")
    panel.sweep_view.stops[0].setValue(0.5)
    assert panel.sweep_view.run() is None and "unknown metric" in panel.error_label.text()


# -- export ---------------------------------------------------------------------------------------
def test_export_writes_png_svg_and_csv(qtbot, panel, tmp_path):
    panel.picker.set_metric("coupling[2,3]")
    view = panel.map_view
    view.steps.setValue(12)
    view.samples.setValue(0)
    assert run(qtbot, panel, view.compute) == "finished"
    png = view.box.export_image(tmp_path / "map.png")
    image = QImage(str(png))
    assert image.width() >= 800
    # M_23 of the PUMA depends on q3 only (the vertical axis): a column crosses many colours
    colours = {image.pixel(image.width() // 3, y) for y in range(0, image.height(), 5)}
    assert len(colours) > 10
    svg = view.box.export_image(tmp_path / "map.svg")
    assert "<svg" in svg.read_text(encoding="utf-8")
    view.box.export_csv(tmp_path / "map.csv")
    with open(tmp_path / "map.csv", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))
    assert rows[0] == ["q2 (rad)", "q3 (rad)", "coupling[2,3] (1)"]
    assert len(rows) == 1 + 12 * 12
    grid = view.result.grid
    assert [float(v) for v in rows[1 + 12 + 5]] == pytest.approx([grid.x[5], grid.y[1], grid.values[1, 5]])
    # the sweep, Pareto and A/B plots export too
    _pareto_sweep(qtbot, panel)
    for name, box in (("sweep", panel.sweep_view.heat_box), ("pareto", panel.pareto_view.box)):
        box.export_image(tmp_path / f"{name}.png")
        box.export_csv(tmp_path / f"{name}.csv")
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
        assert len((tmp_path / f"{name}.csv").read_text().splitlines()) == 1 + 16


# -- conditions -------------------------------------------------------------------------------------
def test_static_balance_condition_applies_to_a_balanced_arm(qtbot, panel):
    model = load_project(ROBOTS / "planar_two_link.json")
    panel.set_model(model)
    view = panel.conditions_view
    view.kind.setCurrentIndex(view.kind.findData("balanced"))
    stages: list[str] = []
    panel.runner.progressed.connect(lambda step: stages.append(step.stage))
    assert run(qtbot, panel, view.find_conditions, timeout=60_000) == "finished"
    assert view.list.count() >= 1 and view.apply_button.isEnabled()
    assert "solving" in stages   # the job's stages reach the bar from the worker process
    with qtbot.waitSignal(panel.loadDesignRequested) as blocker:
        qtbot.mouseClick(view.apply_button, Qt.MouseButton.LeftButton)
    balanced = NumericArm.from_model(blocker.args[0])
    q = np.random.default_rng(3).uniform(-3, 3, (40, 2))
    assert np.abs(Batch(balanced, q).G).max() < 1e-9            # no gravity torque anywhere
    assert np.abs(Batch(NumericArm.from_model(model), q).G).max() > 1.0
    # a planar two-link arm can never be diagonal while link 2 has rotational inertia: said, nothing to apply
    view.kind.setCurrentIndex(view.kind.findData("decoupled"))
    assert run(qtbot, panel, view.find_conditions, timeout=60_000) == "finished"
    assert "no solution" in view.summary.text()
    assert view.list.count() == 0 and not view.apply_button.isEnabled()


# -- term significance ------------------------------------------------------------------------------
def test_term_significance_of_the_planar_arm(qtbot, panel, tmp_path):
    model = load_project(ROBOTS / "planar_two_link.json")
    p = model.parameter_values
    panel.set_model(model)
    view = panel.significance_view
    assert view.run() is None and "rated speed and acceleration" in panel.error_label.text()
    panel.ratings_edits["speed"].setText("2")
    panel.ratings_edits["acceleration"].setText("5")
    assert run(qtbot, panel, view.run) == "finished"
    sig = view.result.significance
    terms = {t.label: t for t in sig.terms}
    assert view.terms.rowCount() == len(sig.terms) == 2 * 2 + 2 * 1 + 2 * 2 + 2
    # by hand, gravity in the arm's plane: |G_2| <= m2 g d2, |G_1| <= g (m1 d1 + m2 (L1 + d2)), M_22 = I2 + m2 d2^2
    # (maxima over samples: never above the true maximum, close to it)
    g2, g1 = p["m2"] * p["g"] * p["d2"], p["g"] * (p["m1"] * p["d1"] + p["m2"] * (p["L1"] + p["d2"]))
    assert g2 * (1 - 1e-4) <= terms["G_2"].contribution <= g2 * (1 + 1e-12)
    assert g1 * (1 - 5e-3) <= terms["G_1"].contribution <= g1 * (1 + 1e-12)
    assert terms["M_22"].contribution == pytest.approx((p["I2"] + p["m2"] * p["d2"] ** 2) * 5, rel=1e-9)
    shown = {view.terms.item(r, 0).text(): view.terms.item(r, 3).text() for r in range(view.terms.rowCount())}
    assert all((shown[t.label] == "yes") == (t.relative >= 0.01) for t in sig.terms)
    assert all(view.joints.item(i, 5).text() == "yes" for i in range(2))   # the sampled bound holds
    view.box.export_csv(tmp_path / "terms.csv")
    assert len((tmp_path / "terms.csv").read_text().splitlines()) == 1 + len(sig.terms)


# -- workspace ------------------------------------------------------------------------------------
def test_workspace_map_is_the_core_one_and_is_offered_to_a_3d_view(qtbot, panel, puma, tmp_path):
    from designer.explore.maps import workspace_map
    panel.picker.set_metric("gravity[2]")
    view = panel.workspace_view
    view.samples.setValue(700)
    with qtbot.waitSignal(panel.workspaceMapped, timeout=120_000) as blocker:
        assert view.compute() is not None
    positions, values, label = blocker.args
    arm = NumericArm.from_model(puma)
    ref_positions, ref_values = workspace_map(arm, "gravity[2]", 700)
    np.testing.assert_allclose(positions, ref_positions, atol=1e-12)
    np.testing.assert_allclose(values, ref_values, rtol=1e-12, atol=1e-12)
    assert label == "gravity[2]"
    # every tool position lies within the PUMA's reach: |p| <= sqrt(a2... ) bounded by the link lengths
    reach = 0.4318 + np.hypot(0.0203, 0.4318) + 0.15005
    assert np.linalg.norm(positions, axis=1).max() <= reach
    assert view.colorbar.levels() == pytest.approx((values.min(), values.max()))
    view.projection.setCurrentText("x–z (front)")
    x, y = view.scatter.getData()
    assert sorted(y) == pytest.approx(sorted(positions[:, 2]))
    view.box.export_csv(tmp_path / "ws.csv")
    assert len((tmp_path / "ws.csv").read_text().splitlines()) == 701


def test_a_map_of_another_arm_is_cleared(qtbot, panel):
    panel.map_view.steps.setValue(8)
    panel.map_view.samples.setValue(0)
    assert run(qtbot, panel, panel.map_view.compute) == "finished"
    panel.set_model(load_project(ROBOTS / "planar_two_link.json"))
    panel.set_joint_values([0.1, 0.2])
    assert panel.map_view.result is None and panel.map_view.heat.values.size == 0
    assert run(qtbot, panel, panel.map_view.compute) == "finished"
    assert panel.map_view.heat.values.shape == (8, 8)


# -- motor sizing and payload -----------------------------------------------------------------------
def test_sizing_a_move_against_pinocchio(qtbot, panel, puma):
    from tests.support.explore_pin import PinArm
    view = panel.sizing_view
    assert view.run() is None and "target pose" in panel.error_label.text()
    view.target.setText("60, 45, -30, 20, -40, 60")          # degrees, from the current pose
    view.duration.setValue(0.8)
    view.steps.setValue(41)
    view.gear.setText("62.6, 107.8, 53.7, 76, 71.9, 76.7")   # the PUMA's gear ratios (Corke)
    view.rotor.setText("2e-4")
    view.payload.setChecked(True)
    assert view.run() is None and "rated torque" in panel.error_label.text()
    rated = np.array([97.6, 186.4, 89.4, 24.2, 20.1, 21.3])
    panel.ratings_edits["torque"].setText(", ".join(map(str, rated)))
    assert run(qtbot, panel, view.run) == "finished"
    s = view.result.sizing
    arm = NumericArm.from_model(puma)
    ref = PinArm(arm)
    np.testing.assert_allclose(s.traj.q[0], POSE)
    np.testing.assert_allclose(s.traj.q[-1], np.radians([60, 45, -30, 20, -40, 60]))
    gear = np.array([62.6, 107.8, 53.7, 76, 71.9, 76.7])
    # joint torque = inverse dynamics (Pinocchio) + the reflected rotor inertia N^2 Jm qdd
    for k in (5, 20, 33):
        tau = pin_rnea(ref, s.traj.q[k], s.traj.qd[k], s.traj.qdd[k]) + gear**2 * 2e-4 * s.traj.qdd[k]
        np.testing.assert_allclose(s.torque[k], tau, rtol=1e-9, atol=1e-9)
    peak = [float(view.table.item(i, 1).text()) for i in range(6)]
    np.testing.assert_allclose(peak, np.abs(s.torque).max(axis=0), rtol=1e-3)
    # the envelope's mass at the flange makes the most loaded joint reach its rating, exactly
    m0 = view.result.payload[0, 0]
    loaded = PinArm(replace(arm, point_masses=arm.point_masses + ((5, float(m0), np.zeros(3)),)))
    worst = max(np.max(np.abs(pin_rnea(loaded, q, qd, qdd)) / rated)
                for q, qd, qdd in zip(s.traj.q, s.traj.qd, s.traj.qdd))
    assert worst == pytest.approx(1.0, rel=1e-9)
    # a farther payload may weigh less (z along the flange axis, x across it)
    assert view.result.payload[-1, -1] < m0


def pin_rnea(ref, q, qd, qdd):
    from tests.support.explore_pin import pin
    return pin.rnea(ref.model, ref.data, np.asarray(q, float), np.asarray(qd, float), np.asarray(qdd, float)).copy()


def test_sizing_on_the_iso_9283_cube_path(qtbot, panel, puma):
    from tests.support.explore_pin import PinArm
    view = panel.sizing_view
    view.source.setCurrentText("ISO 9283 test cube")
    view.cube.setText("0.5, 0, 0.1")
    assert view.run() is None and "test cube" in panel.error_label.text()
    view.cube.setText("0.5, 0, 0.1, 0.3")               # centre (m) and edge (m)
    view.cube_speed.setValue(0.5)
    view.steps.setValue(101)                             # 21 states per segment
    assert run(qtbot, panel, view.run) == "finished"
    out = view.result
    assert out.cube.edge == 0.3 and out.cube.centre == pytest.approx([0.5, 0.0, 0.1])
    s, arm = out.sizing, NumericArm.from_model(puma)
    ref = PinArm(arm)
    assert len(s.traj.t) == 101
    # the tool starts and ends at P1 (the cube centre) and passes P2..P5 at the segment ends
    for k, p in zip((0, 20, 40, 60, 80, 100), out.cube.points()[[0, 1, 2, 3, 4, 0]]):
        np.testing.assert_allclose(ref.tool_position(s.traj.q[k]), p, atol=1e-9)
    for k in (7, 33, 64, 90):
        np.testing.assert_allclose(s.torque[k], pin_rnea(ref, s.traj.q[k], s.traj.qd[k], s.traj.qdd[k]),
                                   rtol=1e-9, atol=1e-9)
    assert "ISO 9283" in view.curves.caption.text()


def test_ab_table_headers_are_not_cut(qtbot, panel):
    """The A/B table's value columns are as wide as their headers (they read "(current" and "tizer_ser"),
    and every header and entry has its whole text as a tooltip."""
    panel.picker.set_metric("gravity[2]")
    view = panel.compare_view
    view.from_variant.setChecked(True)
    view.parameter.setCurrentText("m3")
    view.value.setValue(9.6)
    view.samples.setValue(16)
    assert run(qtbot, panel, view.compare) == "finished"
    panel.resize(1024, 700)   # the narrowest window the app supports
    view.show_result(view.result, "palletizer_serial")
    header = view.table.horizontalHeader()
    metrics = header.fontMetrics()
    for c in (0, 2, 3, 4, 5):
        text = view.table.horizontalHeaderItem(c).text()
        assert header.sectionSize(c) >= metrics.horizontalAdvance(text), text
    for c in (0, 2, 3, 4, 5):
        assert view.table.horizontalHeaderItem(c).toolTip() == view.table.horizontalHeaderItem(c).text()
    assert all(view.table.item(r, 1).toolTip() == view.table.item(r, 1).text() for r in range(view.table.rowCount()))
