"""The Simulate tab: a motion of any mechanism computed in the worker, played back in the 3D view with
play/pause, a time slider and a speed, with plots of q, of the joint torques and of the energy.

What a user sees (the four motions, end stops, the elastic-joint model) is in docs/window.md, "Simulate".
Every run goes through :func:`~designer.numeric.mechanism.load_dynamics` and the motions of
:mod:`designer.numeric.motion` (``passive_job``, with a ``Move`` for the PD, and ``driven_job``) and gives
one :class:`~designer.numeric.motion.MotionResult`: the tree's pose per frame (what playback drives the
sliders with), the torques over the actuated joints, and the loop residual and cut-joint forces of a closed
chain, drawn when present. The elastic-joint model runs as :func:`elastic_job` (with the rigid arm's run
beside it, every stiffness made infinite), set up by :class:`ElasticControls` and drawn by
:class:`ElasticPlots`. The plots are built when the tab is first shown."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QSlider, QVBoxLayout, QWidget)

from ..kinematics import NumericArm
from ..kinematics.tree import TreeArm
from ..model import Manipulator
from ..numeric.closed_drive import SERVO_HZ
from ..jobs import CancelToken, Job, Progress, sub_job
from ..numeric.elastic import ElasticArm, ElasticDynamics, ElasticJoints
from ..numeric.end_stops import describe_passes, limit_passes, starts_inside
from ..numeric.mechanism import load_dynamics
from ..numeric.simulate import PDControl, simulate_job
from ..numeric.motion import MotionResult, Move, driven_job, loop_fields, passive_job, work_done
from .explore.controls import parse_values, spin_box
from .folders import last_folder, remember_folder
from .job_runner import JobRunner, StaleBanner
from .modes import joints_or_none
from .plot_style import SideLegend, pen, plain_axes
from .project_state import ProjectSlot
from .scroll_column import narrow_combo
from .worker import JobWorker, ProcessJobWorker

__all__ = ["SimulatePanel", "FRAME_MS", "MOTIONS", "ElasticControls", "ElasticPlots", "PDControls", "gains_row",
           "elastic_job", "default_gains", "samples_for", "ELASTIC_REFUSALS", "result_text", "tool_points"]

FRAME_MS = 40          # playback frame interval
SPEEDS = {"0.25x": 0.25, "0.5x": 0.5, "1x": 1.0, "2x": 2.0}

PD_TIP = ("Move the actuated joints from the current pose to the target under PD with gravity compensation along a "
          "quintic in the given time, then hold (simulated: the arm lags the reference; the passive joints of a "
          "closed chain follow the loops)")
MOTIONS = {"passive fall": "Release from this pose",
           "PD move": "Move to the target under PD",
           "quintic move": "Drive the quintic to the target",
           "trajectory CSV": "Drive along the CSV"}
TIPS = {"passive fall": "Simulate the arm let go at rest from the current pose, gravity the only load; the passive "
                        "joints of a closed chain follow the loops",
        "PD move": PD_TIP,
        "quintic move": "Move rest to rest from the current pose to the target pose in the given time, with the "
                        "torques that drive it",
        "trajectory CSV": "Follow the CSV's trajectory, with the torques that drive it"}
READY = "Set a pose with the sliders, then release the arm."
TARGET_TIP = "target pose: one value per joint (deg, or m for prismatic joints)"
CSV_TIP = "trajectory CSV: t, q1..qn[, qd1..qdn, qdd1..qddn] (rad or m, SI)"
QUINTIC_STEPS = 401    # states of a quintic move: smooth torque curves, whatever the frame rate
LIMITS = {"warn": ("no end stops, say where limits are passed",
                   "The joints run through their limits (nothing stops them); the status line lists which joint "
                   "passed which limit, when and by how much"),
          "stop": ("end stops at the limits",
                   "Each limit is a stiff, critically damped one-sided spring (a buffered hard stop, 30 Hz on the "
                   "joint's inertia): the arm stops there; the energy check compares E - E(0) with the stops' work"),
          "ignore": ("no end stops, say nothing", "The joints run through their limits and nothing is said")}


class SimulatePanel(QWidget):
    """Run, play back and plot a passive fall; ``poseRequested(q)`` moves the arm during playback."""

    poseRequested = Signal(object)
    finished = Signal()
    # the open project's: in a window they live in its ProjectState and go with it (Play never drives
    # another project's arm with this one's trajectory, issue 29)
    result = ProjectSlot()
    result_model = ProjectSlot()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model: Manipulator | None = None
        self.arm: NumericArm | None = None
        self.q0 = np.zeros(0)
        self.result, self.result_model = None, None   # a MotionResult and the Manipulator it is of
        self.duration = spin_box(self, 0.1, 60.0, 3.0, decimals=2, suffix=" s",
                                 tip="Time to simulate (passive fall) or of the move (quintic)")
        self.motion = QComboBox(self)
        self.motion.addItems(list(MOTIONS))
        self.motion.setToolTip("Passive fall: let go under gravity. Quintic move: rest to rest from the current\n"
                               "pose to the target in the given time. Trajectory CSV: t, q1..qn (qd, qdd optional).")
        self.motion.currentTextChanged.connect(self._motion_changed)
        self.limits = QComboBox(self)
        for mode, (text, tip) in LIMITS.items():
            self.limits.addItem(f"Limits: {text}", mode)
            self.limits.setItemData(self.limits.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.limits.setToolTip("What a simulation does at the joint limits (Link tab): pass them and say so, or "
                               "stop there (end stops; a passive fall or a PD move: a quintic or a CSV "
                               "is given, nothing stops it)")
        narrow_combo(self.limits, 12)   # its longest entry made the tab too wide for a 1024 px window
        self.target = QLineEdit(self)
        self.target.setPlaceholderText(TARGET_TIP)
        self.csv_path = QLineEdit(self)
        self.csv_path.setPlaceholderText(CSV_TIP)
        self.browse_button = QPushButton("Browse…", self)
        self.browse_button.clicked.connect(self._browse)
        self.run_button = QPushButton("Release from this pose", self)
        self.run_button.setToolTip("Simulate the arm let go at rest from the current pose, gravity the only load")
        self.run_button.clicked.connect(self.run)
        self.runner = JobRunner(self, status_line=False)   # progress, Cancel and a failure's message
        self.progress, self.cancel_button = self.runner.progress, self.runner.cancel_button
        self.play_button = QPushButton("Play", self)
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self.set_playing)
        self.scrub = QSlider(Qt.Orientation.Horizontal, self)
        self.scrub.valueChanged.connect(self._scrubbed)
        self.speed = QComboBox(self)
        self.speed.addItems(list(SPEEDS))
        self.speed.setCurrentText("1x")
        self.time_label = QLabel("", self)
        self.status = QLabel(READY, self)
        self.status.setWordWrap(True)
        self.stale_banner = StaleBanner(self)
        self.plots = pg.GraphicsLayoutWidget(self)   # its plots are built on first show (_build_plots)
        self.plots.setBackground("w")
        self._built: dict = {}
        self.elastic = ElasticControls(self, self.run_button)   # elastic joints: check box, PD gains, two plots
        self.elastic.check.toggled.connect(lambda _on: self._motion_changed(self.motion.currentText()))
        self.pd = PDControls(self, self.run_button)   # a PD move's gains and hold time
        self.duration.valueChanged.connect(self._duration_changed)
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._tick)

        motion_row = QHBoxLayout()
        motion_row.addWidget(self.motion)
        motion_row.addWidget(self.elastic.check)
        motion_row.addWidget(self.target, 1)
        motion_row.addWidget(self.csv_path, 1)
        motion_row.addWidget(self.browse_button)
        run_row = QHBoxLayout()
        run_row.addWidget(QLabel("for", self))
        run_row.addWidget(self.duration)
        run_row.addWidget(self.run_button, 1)
        run_row.addWidget(self.limits)
        play_row = QHBoxLayout()
        play_row.addWidget(self.play_button)
        play_row.addWidget(self.scrub, 1)
        play_row.addWidget(self.time_label)
        play_row.addWidget(self.speed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(motion_row)
        layout.addLayout(run_row)
        layout.addWidget(self.elastic)
        layout.addWidget(self.pd)
        layout.addWidget(self.runner)
        layout.addWidget(self.status)
        layout.addWidget(self.stale_banner)
        layout.addLayout(play_row)
        layout.addWidget(self.plots, 1)
        self._set_playable(False)
        self._motion_changed(self.motion.currentText())

    # -- the plots, built when first shown or asked for (the window's start-up builds none) ----------------------
    def showEvent(self, event) -> None:
        self._build_plots()
        super().showEvent(event)

    def _build_plots(self) -> dict:
        if self._built:
            return self._built
        plots = self.plots
        q_plot = plots.addPlot(row=0, col=0)
        tau_plot = plots.addPlot(row=1, col=0)
        e_plot = plots.addPlot(row=3, col=0)   # row 2: elastic
        # not "cursor": that name is QWidget.cursor()
        lines = [time_plot(q_plot, "joint positions", "q (rad or m)"),
                 time_plot(tau_plot, "joint torques (inverse dynamics)", "τ (N·m or N)", q_plot),
                 time_plot(e_plot, "energy change since the start", "E − E(0) (J)", q_plot, time_axis=True)]
        # one legend under the plots, for all of them (a joint has the same colour in every plot): a legend
        # over a 70 px plot at 1366 x 768 covered its curves (issue 29)
        legend = SideLegend(columns=10)
        plots.addItem(legend, row=4, col=0)
        self._built.update(q_plot=q_plot, tau_plot=tau_plot, e_plot=e_plot, time_lines=lines, legend=legend,
                           elastic_plots=ElasticPlots(plots, tau_plot, q_plot))
        self._empty_axes()
        return self._built

    @property
    def q_plot(self) -> pg.PlotItem:
        return self._build_plots()["q_plot"]

    @property
    def tau_plot(self) -> pg.PlotItem:
        return self._build_plots()["tau_plot"]

    @property
    def e_plot(self) -> pg.PlotItem:
        return self._build_plots()["e_plot"]

    @property
    def time_lines(self) -> list:
        return self._build_plots()["time_lines"]

    @property
    def legend(self) -> SideLegend:
        """The tab's one legend, under its plots: the joints' colours and the energy plot's curves."""
        return self._build_plots()["legend"]

    @property
    def elastic_plots(self) -> ElasticPlots:
        return self._build_plots()["elastic_plots"]

    def _plots(self) -> tuple:
        return self.q_plot, self.tau_plot, self.e_plot

    def _shown_plots(self) -> tuple:
        return (self.q_plot, self.e_plot, *self.elastic_plots.plots()) if self.elastic_plots.shown else self._plots()

    def _duration_changed(self, _value) -> None:
        if self.result is None and self._built:
            self._empty_axes()

    def _empty_axes(self) -> None:
        """Before a result: time from 0 to the duration set, values -1 to 1 (not pyqtgraph's +-400 around the
        cursor line)."""
        for plot in self._plots():
            plot.setXRange(0.0, self.duration.value(), padding=0.02)
            plot.setYRange(-1.0, 1.0, padding=0)

    def _motion_changed(self, name: str) -> None:
        self.run_button.setText(MOTIONS[name])
        self.run_button.setToolTip(TIPS[name])
        self.target.setVisible(name in ("quintic move", "PD move"))
        self.csv_path.setVisible(name == "trajectory CSV")
        self.browse_button.setVisible(name == "trajectory CSV")
        self.duration.setEnabled(name != "trajectory CSV")
        self.elastic.set_motion(name)
        self.pd.set_motion(name, not self.elastic.on)
        names = ", ".join(f"q{i + 1}" for i in self.actuated())
        self.target.setPlaceholderText(f"target of the actuated joints {names} (deg, or m for prismatic joints)")
        self.csv_path.setPlaceholderText(f"trajectory CSV of the actuated joints: t, {names}[, qd…, qdd…] (rad or m, "
                                         "SI)")

    def actuated(self) -> list[int]:
        """The actuated joints (0-based tree indices; every joint of a serial arm)."""
        return [] if self.model is None else [i for i, link in enumerate(self.model.links) if link.actuated]

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Trajectory", str(last_folder()), "CSV (*.csv);;All files (*)")
        if path:
            remember_folder(path)
            self.csv_path.setText(path)

    # -- the window's calls --------------------------------------------------------------
    def set_model(self, model: Manipulator, arm: NumericArm | None) -> None:
        self.model, self.arm = model, arm
        self.elastic.set_model(model)
        self._motion_changed(self.motion.currentText())
        stale = self.result is not None and model != self.result_model
        self.stale_banner.set_reason("the model changed after this simulation" if stale else "",
                                     self.run_button.text())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._built:
            self._wrap_legend()

    def _wrap_legend(self) -> None:
        self.legend.wrap_to(self.plots.viewport().width() - 24)

    def forget_project(self) -> None:
        """Another project replaced the open one: its simulation goes, with its plots, peaks and playback
        (issue 29: Play drove the palletizer with the PUMA's trajectory); its running job was cancelled
        with it."""
        self.set_playing(False)
        self.result, self.result_model = None, None
        self.stale_banner.hide()
        if self._built:
            self._clear_plots()
            self.elastic_plots.arrange(False)
            self._empty_axes()
        self.scrub.blockSignals(True)
        self.scrub.setRange(0, 0)
        self.scrub.blockSignals(False)
        self.time_label.setText("")
        self._set_playable(False)
        self.run_button.setEnabled(True)
        self.status.setText(READY)

    def _clear_plots(self) -> None:
        """No curves (and no legend entries); the time lines stay."""
        for plot, line in zip(self._plots(), self.time_lines):
            plot.clear()
            plot.addItem(line)
        self.legend.clear()
        small_title(self.tau_plot, "joint torques (inverse dynamics)")

    def set_joint_values(self, q) -> None:
        if not self.timer.isActive():
            self.q0 = np.asarray(q, float).ravel()

    # -- running ----------------------------------------------------------------------------
    @property
    def worker(self) -> JobWorker | ProcessJobWorker | None:
        return self.runner.worker

    @property
    def busy(self) -> bool:
        return self.runner.busy

    def run(self) -> JobWorker | ProcessJobWorker | None:
        if self.arm is None or len(self.q0) != self.arm.n:
            self.status.setText("No arm to simulate: the model needs values for all its parameters.")
            return None
        try:
            make_job = self._job()
        except ValueError as exc:
            self.status.setText(str(exc))
            return None
        self.set_playing(False)
        model = self.model
        self.status.setText("Simulating…")
        self.run_button.setEnabled(False)

        def finished(result: MotionResult) -> None:
            self.run_button.setEnabled(True)
            self.show_result(result, model)
            self.finished.emit()

        def failed(_message: str, _details: str) -> None:
            self.run_button.setEnabled(True)   # the runner shows the message
            self.status.setText("")

        def cancelled() -> None:
            self.run_button.setEnabled(True)
            self.status.setText("Simulation cancelled")

        return self.runner.start("Simulation", make_job, finished, on_failed=failed, on_cancelled=cancelled)

    def _job(self):
        """The job factory of the chosen motion (ValueError naming a bad input)."""
        arm, model, q0, duration = self.arm, self.model, self.q0.copy(), self.duration.value()
        if arm is None or model is None:
            raise ValueError("No arm to simulate.")
        frames = int(duration * 1000 / FRAME_MS) + 1
        motion = self.motion.currentText()
        limits = self.limits.currentData()
        act = self.actuated()
        if self.elastic.on:
            target = self._target(model, act) if motion == "PD move" else q0
            return self.elastic.job(arm, q0, duration, frames, motion, limits, target)
        if motion in ("passive fall", "PD move"):
            if limits == "stop":   # a pose past a limit (passive ones included) is refused before any work
                starts_inside(q0, arm.limits, arm.revolute)
            move = None
            if motion == "PD move":
                move = self.pd.move_to(self._target(model, act), duration, len(act))
                # RATE samples a second at least: the work's trapezoid sum over 40 ms frames was 0.4 J off E - E(0)
                # in the middle of a 1 s palletizer move (of 90 J done); at 5 ms about 60 times less
                span = duration + move.hold
                frames = max(int(frames * span / duration) + 1, int(RATE * span) + 1)
            names = self._loop_names()
            return lambda token: passive_job(load_dynamics(model, springs=False), q0, duration, frames, token, limits,
                                             move, arm, names)
        from ..explore.sizing import quintic, read_trajectory
        if motion == "quintic move":
            traj = quintic(q0[act], self._target(model, act), duration, max(frames, QUINTIC_STEPS))
        else:
            path = self.csv_path.text().strip()
            if not path:
                raise ValueError("Choose a trajectory CSV (Browse…).")
            if not Path(path).is_file():
                raise ValueError(f"{path}: no such file")
            # columns named by the actuated joints' links (t, q1, q2, q4, q6 for the palletizer)
            traj = read_trajectory(path, len(act), [i + 1 for i in act])
        names = self._loop_names()
        return lambda token: driven_job(load_dynamics(model, springs=False), traj.t, traj.q, traj.qd, traj.qdd, motion,
                                        token, limits=limits, limits_of=arm, loop_names=names)

    def _loop_names(self) -> list[str]:
        """The model's loops as the status line names them (none without loops)."""
        return [] if self.model is None else [loop.label(k) for k, loop in enumerate(self.model.loops, start=1)]

    def _target(self, model: Manipulator, act: list[int]) -> np.ndarray:
        """The typed target of the actuated joints (rad or m)."""
        target = parse_values(self.target.text(), len(act), "target pose")
        if target is None:
            raise ValueError("Type a target pose: one value per actuated joint "
                             f"({', '.join(f'q{i + 1}' for i in act)}; deg, or m for prismatic joints).")
        return target * np.array([math.pi / 180.0 if model.links[i].is_revolute else 1.0 for i in act])

    def cancel(self) -> None:
        self.runner.cancel()

    def show_result(self, result: MotionResult, model: Manipulator | None) -> None:
        """Draw what the result holds: q of every tree joint, the torques of the actuated ones (or, for the elastic
        model, its deviation and deflection plots), the energy and the work; the status line's words."""
        self.result, self.result_model = result, model
        self.stale_banner.hide()
        elastic = result.deviation is not None
        self.elastic_plots.arrange(elastic)
        self._clear_plots()
        revolute = self._revolute(result.q.shape[1])
        joints = []   # each joint's q curve: its legend entry ("joint k") shows and hides its curves in every plot
        for i in range(result.q.shape[1]):
            curve = self.q_plot.plot(result.t, result.q[:, i], pen=pen(i), name=f"q{i + 1}")
            self.legend.addItem(curve, f"joint {i + 1}")
            joints.append(curve)
        if result.tau is not None and not elastic:   # over the actuated joints, named by their links
            for k, i in enumerate(result.actuated):
                curve = self.tau_plot.plot(result.t, result.tau[:, k], pen=pen(i), name=f"τ{i + 1}")
                self.legend.follow(joints[i], curve)
        e = result.energy
        curve = self.e_plot.plot(result.t, e - e[0], pen=pg.mkPen("#444444", width=2), name="E − E(0)")
        self.legend.addItem(curve, curve.name())
        dashed = pg.mkPen("#d62728", width=2, style=Qt.PenStyle.DashLine)
        if elastic:   # motor torques' work less the damping's (0: passive, undamped)
            curve = self.e_plot.plot(result.t, result.work, pen=dashed,
                                     name="work of τm − damping" if result.tau is not None else "work of the damping")
            self.legend.addItem(curve, curve.name())
            text = self.elastic_plots.show(result, revolute).rstrip(".") + loop_text(result) + "."
            for i, curve in self.elastic_plots.joint_curves.items():
                self.legend.follow(joints[i], curve)
        else:
            small_title(self.tau_plot, torque_title(result))
            if result.work is not None:
                curve = self.e_plot.plot(result.t, result.work, pen=dashed, name=work_name(result))
                self.legend.addItem(curve, curve.name())
            text = result_text(result, revolute)
        if result.passes:
            text = text.rstrip(".") + "." + self._limits_text(result)
        if result.integrator:   # which method integrated it, and why (numeric/integrate.py's choice)
            text = text.rstrip(".") + f". Integrator {result.integrator}."
        self.status.setText(text)
        self._wrap_legend()
        for plot in self._shown_plots():
            plot.enableAutoRange()
        self.scrub.blockSignals(True)
        self.scrub.setRange(0, len(result.t) - 1)
        self.scrub.setValue(0)
        self.scrub.blockSignals(False)
        self._set_playable(True)
        self._show_frame(0)

    def _limits_text(self, result: MotionResult) -> str:
        if not result.passes:
            return ""
        said = describe_passes(list(result.passes), self._revolute(result.q.shape[1]))
        if result.kind.endswith("end stops"):
            return f" At the end stops: {said}."
        why = ("the elastic model has no end stops" if result.deviation is not None else
               "the motion is given: nothing stops it" if result.given
               else "no end stops: choose 'end stops at the limits' to model them")
        return (f" Joint limits passed ({why}): {said}. "
                "Playback shows the simulated values, red where outside the limits.")

    # -- playback ------------------------------------------------------------------------------
    def _revolute(self, n: int) -> list[bool]:
        if self.model is not None and self.model.n == n:
            return [link.is_revolute for link in self.model.links]
        return [True] * n

    def _set_playable(self, on: bool) -> None:
        for w in (self.play_button, self.scrub, self.speed):
            w.setEnabled(on)

    def set_playing(self, on: bool) -> None:
        if on and self.result is None:
            on = False
        if self.play_button.isChecked() != on:
            self.play_button.setChecked(on)   # calls back here once
            return
        self.play_button.setText("Pause" if on else "Play")
        if on and self.result is not None:
            if self.scrub.value() >= self.scrub.maximum():
                self.scrub.setValue(0)
            self._clock = float(self.result.t[self.scrub.value()])
            self.timer.start()
        else:
            self.timer.stop()

    def _tick(self) -> None:
        r = self.result
        if r is None:
            return
        self._clock += SPEEDS[self.speed.currentText()] * FRAME_MS / 1000.0
        k = int(np.searchsorted(r.t, self._clock))
        if k >= len(r.t) - 1:
            self.scrub.setValue(len(r.t) - 1)
            self.set_playing(False)
            return
        self.scrub.setValue(k)

    def _scrubbed(self, k: int) -> None:
        if self.result is not None:
            self._show_frame(k)

    def _show_frame(self, k: int) -> None:
        r = self.result
        if r is None:
            return
        t = float(r.t[k])
        self.time_label.setText(f"t = {t:.2f} s")
        for line in (*self.time_lines, *self.elastic_plots.lines):
            line.setValue(t)
        if self.model is not None and r.q.shape[1] == self.model.n:
            self.poseRequested.emit(r.q[k].copy())


# -- the elastic-joint parts (issue 23): the check box, the motor-side PD gains, the two plots an elastic result adds
ELASTIC_TIPS = {"passive fall": "Simulate the elastic arm let go at rest from the current pose, its springs "
                                "holding gravity at the start, no motor torque; and the rigid arm's fall beside it",
        "PD move": "Move from the current pose to the target along a quintic in the given time under the "
                        "motor-side PD, then hold; and the rigid arm's run under the same control beside it"}


class ElasticControls(QWidget):
    """The check box (shown for a project with drive stiffness) and the PD gains row (a move only)."""

    def __init__(self, parent: QWidget, run_button):
        super().__init__(parent)
        self.run_button = run_button   # its tool tip says what an elastic run does
        self.model: Manipulator | None = None
        self.joints: ElasticJoints | None = None
        self._motion = ""
        self.check = QCheckBox("elastic joints", parent)
        self.check.setToolTip("Simulate the elastic-joint model of the drive data's stiffness (Spong's; motors "
                              "behind gearbox springs, docs/elastic.md), with the rigid arm's run beside it: the plots "
                              "show the tool's deviation from the rigid arm and the springs' deflection")
        self.kp, self.kd, self.hold = gains_row(
            self, "motor-side PD:", "",
            "Motor-side PD gain {what} at the joint side ({unit}; N/m, N·s/m for a prismatic joint): one value or "
            "one per joint. Empty: Kp a tenth of the joint's stiffness, Kd 0.7 of critical damping on the joint's "
            "inertia and reflected rotor",
            "Simulated time after the move, the reference held at the target: the tool's ring after the move, and "
            "the settling")
        self.check.setVisible(False)
        self.setVisible(False)

    @property
    def on(self) -> bool:
        return self.joints is not None and self.check.isChecked()

    def set_model(self, model) -> None:
        self.model, self.joints = model, joints_or_none(model)
        self.check.setVisible(self.joints is not None)   # the panel calls set_motion next

    def set_motion(self, name: str) -> None:
        """The gains row for an elastic move; the run button's tip for an elastic run (the panel sets the rigid
        one before it calls here, also when the check box changes)."""
        self._motion = name
        self.setVisible(self.on and name == "PD move")
        if self.on and name in ELASTIC_TIPS:
            self.run_button.setToolTip(ELASTIC_TIPS[name])

    def job(self, arm, q0, duration: float, frames: int, motion: str, limits: str, target):
        """The job factory of the elastic motion (ValueError naming a bad input); ``q0`` the tree's pose,
        ``target`` of the actuated joints in rad or m. A move lasts ``duration`` and the run the hold time more."""
        joints, model = self.joints, self.model
        if joints is None or model is None:
            raise ValueError("Elastic joints: no joint has a drive stiffness.")
        if motion not in ("passive fall", "PD move"):
            raise ValueError(ELASTIC_REFUSALS["given"])
        if limits == "stop":
            raise ValueError(ELASTIC_REFUSALS["stop"])
        E = joints.elastic
        act = [i for i, link in enumerate(model.links) if link.actuated]   # the coordinates the joints are of
        if np.any(joints.rotor[E] <= 0):
            names = ", ".join(f"q{act[i] + 1}" for i in E if joints.rotor[i] <= 0)
            raise ValueError(f"Elastic joints: {names} need the motor's rotor inertia (drive data, motor inertia) "
                             "for the motor side's dynamics.")
        control, span = None, duration
        if motion == "PD move":
            q0_act = np.asarray(q0, float)[act]
            kp0, kd0 = default_gains(load_dynamics(model, springs=False), joints, q0_act)
            kp = np.asarray(parse_values(self.kp.text(), len(act), "Kp", kp0), dtype=float)
            kd = np.asarray(parse_values(self.kd.text(), len(act), "Kd", kd0), dtype=float)
            # an empty field says what it stood for (the default depends on the pose)
            self.kp.setPlaceholderText(f"Kp (N·m/rad), default here {_short(kp0)}")
            self.kd.setPlaceholderText(f"Kd (N·m·s/rad), default here {_short(kd0)}")
            if not (np.all(kp > 0) and np.all(kd >= 0) and np.all(np.isfinite(kp)) and np.all(np.isfinite(kd))):
                raise ValueError("Motor-side PD: Kp must be positive and Kd not negative, for every joint.")
            control = PDControl(kp.tolist(), kd.tolist(), list(target), q0_act.tolist(), duration)
            span = duration + self.hold.value()
            frames = int(frames * span / duration) + 1
        return lambda token: elastic_job(model, arm, joints, q0, span, frames, token, control, limits)


LEFT_AXIS = 68   # px: every plot's left axis as wide, so the time axes (and the time lines) line up


def small_title(plot: pg.PlotItem, text: str) -> None:
    """A 9 pt title in a 20 px row (pyqtgraph's is 30 px): four plots and the legend share a laptop's height."""
    plot.setTitle(text, size="9pt")
    plot.titleLabel.setMaximumHeight(20)
    plot.layout.setRowFixedHeight(0, 20)


def time_plot(plot: pg.PlotItem, title: str, unit: str, x_link: pg.PlotItem | None = None,
              time_axis: bool = False) -> pg.InfiniteLine:
    """Set up one of the tab's plots over time: small title, plain SI axes, grid, the left axis ``LEFT_AXIS``
    wide, time linked to ``x_link`` and shown on the bottom plot's axis only (``time_axis``: "t (s)"); returns
    its time line (the playback's position)."""
    small_title(plot, title)
    plain_axes(plot)      # no "t (s) (x0.001)"
    plot.showGrid(x=True, y=True, alpha=0.25)
    plot.setLabel("left", unit)
    plot.getAxis("left").setWidth(LEFT_AXIS)
    if x_link is not None:
        plot.setXLink(x_link)
    if time_axis:
        plot.setLabel("bottom", "t (s)")
    else:   # one time axis, the bottom plot's: the others' rows go to their data
        plot.getAxis("bottom").setStyle(showValues=False)
    line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#888888"))
    plot.addItem(line)
    return line


class ElasticPlots:
    """The deviation and deflection plots, swapped into rows 1 and 2 of the tab's plot layout for an elastic
    result (the torque plot leaves row 1 meanwhile; a driven move's motor-torque peaks are in the status line)."""

    def __init__(self, layout: pg.GraphicsLayoutWidget, torque_plot: pg.PlotItem, x_link: pg.PlotItem):
        self.layout, self.torque_plot = layout, torque_plot
        self.deviation, self.deflection = pg.PlotItem(), pg.PlotItem()
        # the deflection's unit is set per result: mm for a prismatic joint's spring
        self.lines = [time_plot(self.deviation, "tool deviation from the rigid arm", "mm", x_link),
                      time_plot(self.deflection, "spring deflection θ/N − q", "mrad", x_link)]
        self.joint_curves: dict[int, pg.PlotDataItem] = {}   # each elastic joint's deflection curve (show)
        self.shown = False

    def arrange(self, elastic: bool) -> None:
        if elastic == self.shown:
            return
        if elastic:
            self.layout.removeItem(self.torque_plot)
            self.layout.addItem(self.deviation, row=1, col=0)
            self.layout.addItem(self.deflection, row=2, col=0)
        else:
            self.layout.removeItem(self.deviation)
            self.layout.removeItem(self.deflection)
            self.layout.addItem(self.torque_plot, row=1, col=0)
        self.shown = elastic

    def plots(self) -> tuple:
        return (self.deviation, self.deflection) if self.shown else ()

    def show(self, result: MotionResult, revolute: list[bool]) -> str:
        """Draw the result's deviation and deflections; the status line's words about them."""
        for plot, line in zip((self.deviation, self.deflection), self.lines):
            plot.clear()
            plot.addItem(line)
        deviation = 1e3 * np.asarray(result.deviation)
        deflection = np.asarray(result.deflection)
        self.deviation.plot(result.t, deviation, pen=pg.mkPen("#444444", width=2))
        spring_units = {i: "mrad" if revolute[i] else "mm" for i in result.elastic}
        mixed = len(set(spring_units.values())) > 1   # the axis then names each joint's unit
        # the curves' names are the tab's legend's (joint k): with both kinds of spring the axis says which is which
        self.deflection.setLabel("left", ", ".join(f"joint {i + 1} {unit}" for i, unit in spring_units.items())
                                 if mixed else next(iter(spring_units.values()), "mrad"))
        self.joint_curves = {}
        for j, i in enumerate(result.elastic):
            self.joint_curves[i] = self.deflection.plot(
                result.t, 1e3 * deflection[:, j], pen=pen(i),
                name=f"joint {i + 1}" + (f" ({spring_units[i]})" if mixed else ""))
        for plot in (self.deviation, self.deflection):
            plot.enableAutoRange()
        peak = float(deviation.max()) if len(deviation) else 0.0
        peaks: dict[str, float] = {}   # the largest deflection of each kind of spring (mrad, mm)
        for j, i in enumerate(result.elastic):
            unit = spring_units[i]
            peaks[unit] = max(peaks.get(unit, 0.0), 1e3 * float(np.abs(deflection[:, j]).max(initial=0.0)))
        springs = ", ".join(f"{value:.3g} {unit}" for unit, value in peaks.items())
        text = (f"{result.kind}: {result.t[-1]:.3g} s, {result.steps} steps; tool deviation from the rigid "
                f"arm up to {peak:.3g} mm, spring deflection up to {springs or '0'}")
        if result.tau is not None:
            units = {"N·m" if rev else "N" for rev in revolute}
            text += ("; peak motor torque (joint side) " + ", ".join(f"{v:.3g}" for v in np.abs(result.tau).max(axis=0))
                     + f" {'/'.join(sorted(units))}")
        e, work = result.energy, result.work
        gap = float(np.abs(e - e[0] - work).max()) if work is not None else math.nan
        size = max(float(np.abs(e).max()), 1e-12)
        what = "work of τm less the damping's" if result.tau is not None else "damping's work"
        return text + (f". E − E(0) (rotors and springs in) and the {what} differ by at most {gap:.2g} J "
                       f"({gap / size:.1e} of E).")

def gains_row(widget: QWidget, label: str, empty: str, tip: str, hold_tip: str) -> tuple:
    """(Kp, Kd, hold): the PD row of a move laid out on ``widget``, "label [Kp] [Kd] then hold [s]"; ``tip`` and
    ``empty`` (the placeholder's tail) with {what} and {unit} for each gain."""
    kp, kd = QLineEdit(widget), QLineEdit(widget)
    for edit, what, unit in ((kp, "Kp", "N·m/rad"), (kd, "Kd", "N·m·s/rad")):
        edit.setPlaceholderText(f"{what} ({unit}){empty.format(what=what, unit=unit)}")
        edit.setToolTip(tip.format(what=what, unit=unit))
    row = QHBoxLayout(widget)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(QLabel(label, widget))
    row.addWidget(kp, 1)
    row.addWidget(kd, 1)
    hold = spin_box(widget, 0.0, 60.0, 1.0, decimals=2, suffix=" s", tip=hold_tip)
    row.addWidget(QLabel("then hold", widget))
    row.addWidget(hold)
    return kp, kd, hold


def _short(values) -> str:
    values = list(values)
    if all(math.isclose(v, values[0]) for v in values):
        return f"{values[0]:.3g}"
    return ", ".join(f"{v:.3g}" for v in values)



# -- the PD row: the gains on the actuated joints and the hold time of a PD move (every rigid mechanism)
RATE = 200   # samples per simulated second of a PD move


class PDControls(QWidget):
    """Kp, Kd and the hold time of a PD move (shown for "PD move" of the rigid model)."""

    def __init__(self, parent: QWidget, run_button):
        super().__init__(parent)
        self.run_button = run_button
        self.kp, self.kd, self.hold = gains_row(
            self, "PD on the actuated joints:", f", empty: a {SERVO_HZ:g} Hz servo",
            "PD gain {what} on each actuated joint ({unit}; N/m, N·s/m for a prismatic joint): one value or one per "
            f"actuated joint. Empty: Kp = M_ii (2π·{SERVO_HZ:g} Hz)², Kd 0.7 of critical damping, from the "
            "diagonal of the mass matrix in the actuated joints",
            "Simulated time after the move, the target held: the settling")
        self.setVisible(False)

    def set_motion(self, name: str, rigid: bool) -> None:
        self.setVisible(rigid and name == "PD move")

    def move_to(self, target, duration: float, n: int) -> Move:
        """The move the row and ``target`` (rad or m) describe (ValueError naming a bad gain)."""
        kp = parse_values(self.kp.text(), n, "Kp")
        kd = parse_values(self.kd.text(), n, "Kd")
        if (kp is not None and not np.all(np.isfinite(kp) & (kp > 0))) or \
                (kd is not None and not np.all(np.isfinite(kd) & (kd >= 0))):
            raise ValueError("PD: Kp must be positive and Kd not negative, for every actuated joint.")
        return Move(tuple(target), duration, self.hold.value(),
                    None if kp is None else tuple(kp), None if kd is None else tuple(kd))


# -- the one result of every run, and the status line's words about it -------------------------------------------
def torque_title(result: MotionResult) -> str:
    """The torque plot's title for a rigid result (its legend names the actuated joints: τ1, τ2, τ4, τ6 of the
    palletizer)."""
    if result.tau is None:
        return "joint torques: none (the arm is let go)"
    if result.target:
        return "PD torques"
    if result.given:
        return "joint torques (inverse dynamics)"
    return "end-stop torques"


def work_name(result: MotionResult) -> str:
    """The work curve's name (a result with work)."""
    stops = result.kind.endswith("end stops")
    if result.target or result.given:
        return "work of τ" + (" and the stops" if stops else "")
    return "work of the end stops"


def result_text(result: MotionResult, revolute: list[bool]) -> str:
    """The status line's words about a rigid result: the energy check, the torques, and what the loops add (the
    largest residual, the peak force each cut joint carried)."""
    e = result.energy
    text = f"{result.kind}: {result.t[-1]:.3g} s, {len(result.t)} frames; "
    if result.work is None or result.tau is None:   # a fall without stops: nothing does work
        drift = float(np.ptp(e) / max(np.abs(e).max(), 1e-12)) if len(e) else 0.0
        text += f"energy drift {drift:.2e} of its size (no friction, no torques: it should stay constant)"
    else:
        stops = result.kind.endswith("end stops")
        what = ("the PD torques' and the stops'" if result.target and stops else "the PD torques'" if result.target
                else "the torques'" if result.given else "the stops'")
        act = list(result.actuated)
        if result.target:
            off = np.abs(result.q[-1, act] - np.asarray(result.target))
            worst = int(np.argmax(off))
            rev = revolute[act[worst]] if act[worst] < len(revolute) else True
            miss = f"{np.degrees(off[worst]):.2g}°" if rev else f"{off[worst] * 1e3:.2g} mm"
            text += f"at the end {miss} from the target (q{act[worst] + 1}); "
        peaks = ", ".join(f"q{j + 1} {v:.3g} {'N·m' if j >= len(revolute) or revolute[j] else 'N'}"
                          for j, v in zip(act, np.abs(result.tau).max(axis=0)))
        gap = float(np.abs(e - e[0] - result.work).max())
        text += f"peak |τ| per joint: {peaks}. Energy change and {what} work differ by at most {gap:.2g} J"
    return text + loop_text(result) + "."


def loop_text(result: MotionResult) -> str:
    """What a mechanism's loops add to the status line of any run (rigid or elastic): the largest residual, the peak
    force each cut joint carried, the stretches near a singular pose; empty without loops."""
    text = ""
    if result.residual is not None:
        text += f"; largest loop residual {result.residual * 1000:.2g} mm"
    for name, peak, when in result.cut_peaks:   # what the bearings must take (issue 22)
        text += f"; {name}: peak cut-joint force {peak:.3g} N (t = {when:.3g} s)"
    for line in result.warnings:   # where those peaks are a dead centre's, not a load (numeric/near_singular.py)
        text += f". Warning: {line}"
    return text


# -- the elastic arm's job (module docstring) ------------------------------------------------------------------
#: samples per simulated second: the plots show rings up to about 100 Hz (the tube arm's first mode is 50 Hz;
#: 500 samples a second give 10 per period), and the work's trapezoid sum follows them
ELASTIC_RATE = 500
MOST_SAMPLES = 20001   # 40 s at the full rate; longer runs are sampled more sparsely
#: the progress bar's share of the elastic run; the rigid reference takes the rest. The rigid run is the slower
#: one (its rotors' reflected inertia joins M, so each step solves M over numpy instead of the generated qdd):
#: robots/tube_arm.json, default gains, a 0.6 s move by (60, -60, 90) deg and 0.6 s hold: 0.53 s elastic, 1.08 s rigid
ELASTIC_SHARE = 1 / 3

ELASTIC_REFUSALS = {
    "given": "Elastic joints: the window releases the arm or moves it to a target under the motor-side PD "
             "('PD move'); a given motion (a quintic, a CSV trajectory) is for the rigid arm (untick "
             "'elastic joints').",
    "stop": "Elastic joints: end stops are not part of the elastic model; choose another limits mode.",
}


def samples_for(duration: float, frames: int) -> int:
    return int(min(MOST_SAMPLES, max(frames, math.ceil(duration * ELASTIC_RATE) + 1)))


def default_gains(link, joints: ElasticJoints, q0) -> tuple[np.ndarray, np.ndarray]:
    """Motor-side PD gains (joint side) a move can start from: Kp a tenth of the joint's stiffness (the
    position loop well below the spring; rigid joints the elastic ones' median), Kd damping the joint's own
    inertia plus its reflected rotor at 0.7 of critical, 2 * 0.7 * sqrt(Kp J). ``link``: the rigid link side's
    :class:`~designer.numeric.protocol.Dynamics`, ``q0`` its coordinates."""
    k = joints.stiffness
    finite = k[np.isfinite(k)]
    kp = np.where(np.isfinite(k), 0.1 * k, 0.1 * float(np.median(finite)) if len(finite) else 1e3)
    inertia = np.diag(link.M(np.asarray(q0, float))) + joints.gear ** 2 * joints.rotor
    kd = 2 * 0.7 * np.sqrt(kp * np.maximum(inertia, 1e-9))
    return kp, kd


def _work(model: ElasticArm, t, q, qd, thetad, tau_m) -> np.ndarray:
    """Cumulative work of the motor torques (at elastic joints on the rotor, at rigid ones N tau_m on the link)
    less the gearbox damping's dissipation, d (theta'/N - q')^2."""
    E, R = model.E, model.R
    power = np.zeros(len(t))
    if tau_m is not None:
        power += np.einsum("ij,ij->i", tau_m[:, E], thetad) + np.einsum("ij,ij->i", model.N[R] * tau_m[:, R], qd[:, R])
    slip = thetad / model.NE - qd[:, E]
    power -= np.sum(model.d * slip ** 2, axis=1)
    return work_done(t, power[:, None], np.ones((len(t), 1)))


def tool_points(tree: TreeArm, Q) -> np.ndarray:
    """(N, 3) the tool point in frame 0 at the tree poses Q (N, n_tree)."""
    return np.array([(tree.frames(q)[tree.tool_link + 1] @ tree.arm.tool)[:3, 3] for q in np.asarray(Q, float)])


def elastic_job(model: Manipulator, arm: NumericArm, joints: ElasticJoints, q0_tree, duration: float, frames: int,
                token: CancelToken, control: PDControl | None = None, limits: str = "warn") -> Job[MotionResult]:
    """The elastic model of any mechanism from rest at the actuated values of ``q0_tree`` (springs holding
    gravity), passive or under ``control``, sampled at :func:`samples_for` times, and the rigid model's same run
    for the tool's deviation; ``arm``: the one whose joint limits are checked (the tree's)."""
    link = load_dynamics(model, springs=False)
    act = list(link.actuated)
    q0 = np.asarray(q0_tree, float)[act]
    dyn = ElasticDynamics(link, joints)   # a missing rotor inertia fails here, before any work
    elastic = dyn.model
    t = np.linspace(0.0, duration, samples_for(duration, frames))
    traj = yield from sub_job(simulate_job(dyn, q0, None, (0.0, duration), control, t_eval=t, token=token),
                              0.0, ELASTIC_SHARE, "elastic joints")
    token.check()
    stiff = ElasticDynamics(link, joints.stiffened(math.inf))
    rigid = yield from sub_job(simulate_job(stiff, q0, None, (0.0, duration), control, t_eval=traj.t, token=token),
                               ELASTIC_SHARE, 1.0 - ELASTIC_SHARE, "rigid arm")
    token.check()
    yield Progress("energy", None, f"{len(traj.t)} states")
    energy = np.atleast_1d(elastic.energy(traj.states()))
    work = _work(elastic, traj.t, traj.q, traj.qd, traj.thetad, traj.tau_m)
    deflection = traj.theta / elastic.NE - traj.q[:, elastic.E]
    tau = None if traj.tau_m is None else traj.tau_m * elastic.N
    q_tree, rigid_tree = np.asarray(traj.q_tree), np.asarray(rigid.q_tree)
    passes = () if limits == "ignore" else tuple(limit_passes(traj.t, q_tree, arm.limits))
    kind = "elastic passive fall" if control is None else "elastic move (motor-side PD)"
    gains = () if control is None else (tuple(control.kp), tuple(control.kd))
    tree = TreeArm.from_model(model)
    deviation = np.linalg.norm(tool_points(tree, q_tree) - tool_points(tree, rigid_tree), axis=1)
    return MotionResult(traj.t, q_tree, energy, qd=traj.qd, tau=tau, work=work, kind=kind, limits=limits,
                        passes=passes, theta=traj.theta, deflection=deflection, deviation=deviation,
                        elastic=tuple(act[int(i)] for i in elastic.E), steps=traj.steps, gains=gains,
                        actuated=tuple(act), integrator=traj.integrator,
                        **loop_fields(dyn, traj.t, q_tree, traj.cut_force, traj.residual, tree.loop_names))
