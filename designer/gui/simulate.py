"""The Simulate tab: the arm falling from the current pose under gravity alone (forward dynamics,
:func:`designer.numeric.simulate.simulate_job`, in the worker), played back in the 3D view with
play/pause, a time slider and a speed, with plots of q and of the energy (constant when nothing
but gravity acts: the check that the motion is right)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QProgressBar, QPushButton, QSlider, QVBoxLayout,
                               QWidget)

from ..jobs import CancelToken, Job, Progress
from ..kinematics import NumericArm
from ..model import Manipulator
from .explore.base import STALE_STYLE
from .explore.controls import spin_box
from .worker import JobWorker, start_job

__all__ = ["SimulatePanel", "SimulationResult", "passive_job", "FRAME_MS"]

FRAME_MS = 40          # playback frame interval
SPEEDS = {"0.25x": 0.25, "0.5x": 0.5, "1x": 1.0, "2x": 2.0}
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


@dataclass(frozen=True)
class SimulationResult:
    t: np.ndarray        # (N,) s
    q: np.ndarray        # (N, n) rad or m
    energy: np.ndarray   # (N,) J


def passive_job(arm: NumericArm, q0, duration: float, frames: int, token: CancelToken) -> Job[SimulationResult]:
    """The arm released at rest from ``q0`` under gravity alone, reported at ``frames`` times."""
    from ..numeric.simulate import energy, simulate_job
    t = np.linspace(0.0, duration, frames)
    job = simulate_job(arm, q0, np.zeros(arm.n), (0.0, duration), t_eval=t)
    while True:   # the integrator's chunks, with a chance to cancel between them
        token.check()
        try:
            step = next(job)
        except StopIteration as done:
            traj = done.value
            break
        yield step
    token.check()
    yield Progress("energy", None, f"{len(traj.t)} states")
    return SimulationResult(np.asarray(traj.t), np.asarray(traj.q), np.asarray(energy(arm, traj.q, traj.qd)))


class SimulatePanel(QWidget):
    """Run, play back and plot a passive fall; ``poseRequested(q)`` moves the arm during playback."""

    poseRequested = Signal(object)
    finished = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model: Manipulator | None = None
        self.arm: NumericArm | None = None
        self.q0 = np.zeros(0)
        self.result: SimulationResult | None = None
        self.result_model: Manipulator | None = None
        self.worker: JobWorker | None = None
        self.duration = spin_box(self, 0.1, 60.0, 3.0, decimals=2, suffix=" s", tip="Time to simulate")
        self.run_button = QPushButton("Release from this pose", self)
        self.run_button.setToolTip("Simulate the arm let go at rest from the current pose, gravity the only load")
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.play_button = QPushButton("Play", self)
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self.set_playing)
        self.scrub = QSlider(Qt.Orientation.Horizontal, self)
        self.scrub.valueChanged.connect(self._scrubbed)
        self.speed = QComboBox(self)
        self.speed.addItems(list(SPEEDS))
        self.speed.setCurrentText("1x")
        self.time_label = QLabel("", self)
        self.status = QLabel("Set a pose with the sliders, then release the arm.", self)
        self.status.setWordWrap(True)
        self.stale_banner = QLabel(self)
        self.stale_banner.setStyleSheet(STALE_STYLE)
        self.stale_banner.setWordWrap(True)
        self.stale_banner.hide()
        self.plots = pg.GraphicsLayoutWidget(self)
        self.plots.setBackground("w")
        self.q_plot = self.plots.addPlot(row=0, col=0, title="joint positions")
        self.q_plot.setLabel("left", "q (rad or m)")
        self.e_plot = self.plots.addPlot(row=1, col=0, title="energy change since the release")
        self.e_plot.setLabel("left", "E − E(0) (J)")
        self.e_plot.setLabel("bottom", "t (s)")
        self.e_plot.setXLink(self.q_plot)
        self.q_plot.addLegend(offset=(-10, 10))
        self.cursor = [pg.InfiniteLine(angle=90, pen=pg.mkPen("#888888")) for _ in range(2)]
        self.q_plot.addItem(self.cursor[0])
        self.e_plot.addItem(self.cursor[1])
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._tick)

        run_row = QHBoxLayout()
        run_row.addWidget(QLabel("for", self))
        run_row.addWidget(self.duration)
        run_row.addWidget(self.run_button, 1)
        run_row.addWidget(self.cancel_button)
        play_row = QHBoxLayout()
        play_row.addWidget(self.play_button)
        play_row.addWidget(self.scrub, 1)
        play_row.addWidget(self.time_label)
        play_row.addWidget(self.speed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(run_row)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.stale_banner)
        layout.addLayout(play_row)
        layout.addWidget(self.plots, 1)
        self._set_playable(False)

    # -- the window's calls --------------------------------------------------------------
    def set_model(self, model: Manipulator, arm: NumericArm | None) -> None:
        self.model, self.arm = model, arm
        stale = self.result is not None and model != self.result_model
        self.stale_banner.setText("Out of date: the model changed after this simulation. Release again to update."
                                  if stale else "")
        self.stale_banner.setVisible(stale)

    def set_joint_values(self, q) -> None:
        if not self.timer.isActive():
            self.q0 = np.asarray(q, float).ravel()

    # -- running ----------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.worker is not None and not self.worker.done

    def run(self) -> JobWorker | None:
        if self.arm is None or len(self.q0) != self.arm.n:
            self.status.setText("No arm to simulate: the model needs values for all its parameters.")
            return None
        self.cancel()
        self.set_playing(False)
        arm, q0, duration, model = self.arm, self.q0.copy(), self.duration.value(), self.model
        frames = int(duration * 1000 / FRAME_MS) + 1
        self.progress.setValue(0)
        self.status.setText("Simulating…")
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        worker = None

        def ended(text: str) -> bool:
            if worker is not self.worker:
                return False
            self.run_button.setEnabled(True)
            self.cancel_button.setEnabled(False)
            self.progress.setValue(1000 if text == "done" else 0)
            return True

        def finished(result: SimulationResult) -> None:
            if ended("done"):
                self.show_result(result, model)
                self.finished.emit()

        def failed(message: str, _details: str) -> None:
            if ended("failed"):
                self.status.setText(f"The simulation failed: {message}")

        def cancelled() -> None:
            if ended("cancelled"):
                self.status.setText("Simulation cancelled")

        def progress(step: Progress) -> None:
            if worker is self.worker and step.fraction is not None:
                self.progress.setValue(int(1000 * step.fraction))

        worker = start_job(lambda token: passive_job(arm, q0, duration, frames, token), progress=progress,
                           finished=finished, failed=failed, cancelled=cancelled)
        self.worker = worker
        return worker

    def cancel(self) -> None:
        if self.busy:
            self.worker.cancel()

    def show_result(self, result: SimulationResult, model: Manipulator | None) -> None:
        self.result, self.result_model = result, model
        self.stale_banner.hide()
        self.q_plot.clear()
        self.q_plot.addItem(self.cursor[0])
        for i in range(result.q.shape[1]):
            self.q_plot.plot(result.t, result.q[:, i], pen=pg.mkPen(COLORS[i % len(COLORS)], width=2), name=f"q{i + 1}")
        self.e_plot.clear()
        self.e_plot.addItem(self.cursor[1])
        e = result.energy
        self.e_plot.plot(result.t, e - e[0], pen=pg.mkPen("#444444", width=2))
        drift = float(np.ptp(e) / max(np.abs(e).max(), 1e-12)) if len(e) else 0.0
        text = (f"{result.t[-1]:.3g} s, {len(result.t)} frames; energy drift {drift:.2e} of its size "
                "(no friction, no torques: it should stay constant)")
        if self.arm is not None and self.arm.n == result.q.shape[1]:
            lo, hi = self.arm.limits[:, 0], self.arm.limits[:, 1]
            past = [i + 1 for i in range(self.arm.n)
                    if np.any(result.q[:, i] < lo[i] - 1e-9) or np.any(result.q[:, i] > hi[i] + 1e-9)]
            if past:   # nan limits compare False: joints without limits are never listed
                text += (f"; joints {', '.join(map(str, past))} pass their limits (the simulation has no end "
                         "stops; the sliders stop at the limits)")
        self.status.setText(text)
        self.scrub.blockSignals(True)
        self.scrub.setRange(0, len(result.t) - 1)
        self.scrub.setValue(0)
        self.scrub.blockSignals(False)
        self._set_playable(True)
        self._show_frame(0)

    # -- playback ------------------------------------------------------------------------------
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
        if on:
            if self.scrub.value() >= self.scrub.maximum():
                self.scrub.setValue(0)
            self._clock = float(self.result.t[self.scrub.value()])
            self.timer.start()
        else:
            self.timer.stop()

    def _tick(self) -> None:
        r = self.result
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
        t = float(r.t[k])
        self.time_label.setText(f"t = {t:.2f} s")
        for line in self.cursor:
            line.setValue(t)
        if self.model is not None and r.q.shape[1] == self.model.n:
            self.poseRequested.emit(r.q[k].copy())
