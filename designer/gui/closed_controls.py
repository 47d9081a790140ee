"""The Simulate tab's closed-chain row (issue 22): the PD gains on the actuated joints and the hold time of a
move, and the job the tab's Run makes of them (:mod:`designer.gui.closed_motion`), with the inputs checked on
the GUI thread (a bad value is one line before any work) and the simulation in the worker."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QWidget

from ..numeric.closed_drive import SERVO_HZ
from ..numeric.end_stops import starts_inside
from .closed_motion import ClosedMotionResult, ClosedMove, closed_driven_job, closed_job, closed_text, given
from .elastic_simulate import gains_row
from .explore.controls import parse_values

__all__ = ["ClosedControls", "closed_plots"]

RATE = 200   # samples per simulated second of a move

TIPS = {"passive fall": "Simulate the mechanism let go at rest from the current pose, gravity the only load; the "
                        "passive joints follow the loops",
        "quintic move": "Move the actuated joints from the current pose to the target under PD with gravity "
                        "compensation along a quintic in the given time, then hold; the passive joints follow "
                        "the loops",
        "trajectory CSV": "Follow the CSV's trajectory of the actuated joints (t, q1, q2, q4, q6 ... named by their "
                          "links), with the torques that drive it; the passive joints follow the loops"}


class ClosedControls(QWidget):
    """Kp, Kd and the hold time of a closed chain's move (shown for a closed chain's "Move to the target")."""

    def __init__(self, parent: QWidget, run_button):
        super().__init__(parent)
        self.run_button = run_button
        self.model = None
        self.kp, self.kd, self.hold = gains_row(
            self, "PD on the actuated joints:", f", empty: a {SERVO_HZ:g} Hz servo",
            "PD gain {what} on each actuated joint ({unit}; N/m, N·s/m for a prismatic joint): one value or one per "
            f"actuated joint. Empty: Kp = M_a,ii (2π·{SERVO_HZ:g} Hz)², Kd 0.7 of critical damping, from the "
            "diagonal of the mass matrix in the actuated joints",
            "Simulated time after the move, the target held: the settling")
        self.setVisible(False)

    @property
    def on(self) -> bool:
        return self.model is not None and not self.model.is_serial

    def actuated(self) -> list[int]:
        """The actuated joints (0-based tree indices)."""
        return [] if self.model is None else [i for i, link in enumerate(self.model.links) if link.actuated]

    def set_model(self, model) -> None:
        self.model = model

    def set_motion(self, name: str, target_edit: QLineEdit, csv_edit: QLineEdit) -> None:
        """The gains row for a closed chain's move; the target's and the CSV's placeholders name the actuated
        joints."""
        self.setVisible(self.on and name == "quintic move")
        if self.on:
            names = ", ".join(f"q{i + 1}" for i in self.actuated())
            target_edit.setPlaceholderText(f"target of the actuated joints {names} (deg, or m for prismatic joints)")
            csv_edit.setPlaceholderText(f"trajectory CSV of the actuated joints: t, {names}[, qd…, qdd…] (rad or m, "
                                        "SI)")
            if name in TIPS:
                self.run_button.setToolTip(TIPS[name])

    def job(self, arm, q0, duration: float, frames: int, motion: str, limits: str, target_text: str,
            csv_path: str = ""):
        """The job factory of the motion (ValueError naming a bad input); ``arm``: the window's arm of the tree
        (its joints' limits)."""
        model = self.model
        assert model is not None
        if motion == "trajectory CSV":
            return self._csv(model, csv_path, limits)
        q0 = np.asarray(q0, float)
        if limits == "stop":   # a pose past a limit (passive ones included) is refused before any work
            starts_inside(q0, arm.limits, arm.revolute)
        move = None
        if motion == "quintic move":
            act = self.actuated()
            scale = np.array([math.pi / 180.0 if model.links[i].is_revolute else 1.0 for i in act])
            target = parse_values(target_text, len(act), "target pose")
            if target is None:
                raise ValueError("Type a target pose: one value per actuated joint "
                                 f"({', '.join(f'q{i + 1}' for i in act)}; deg, or m for prismatic joints).")
            kp = parse_values(self.kp.text(), len(act), "Kp")
            kd = parse_values(self.kd.text(), len(act), "Kd")
            if (kp is not None and not np.all(np.isfinite(kp) & (kp > 0))) or \
                    (kd is not None and not np.all(np.isfinite(kd) & (kd >= 0))):
                raise ValueError("PD: Kp must be positive and Kd not negative, for every actuated joint.")
            move = ClosedMove(tuple(target * scale), duration, self.hold.value(),
                              None if kp is None else tuple(kp), None if kd is None else tuple(kd))
            # RATE samples a second at least: the work's trapezoid sum over 40 ms frames was 0.4 J off E - E(0) in
            # the middle of a 1 s palletizer move (of 90 J done); at 5 ms about 60 times less
            span = duration + move.hold
            frames = max(int(frames * span / duration) + 1, int(RATE * span) + 1)
        return lambda token: closed_job(model, q0, duration, frames, token, limits, move)

    def _csv(self, model, path: str, limits: str):
        """A CSV trajectory of the actuated joints, named by their links (``t, q1, q2, q4, q6``)."""
        from pathlib import Path

        from ..explore.sizing import read_trajectory
        path = path.strip()
        if not path:
            raise ValueError("Choose a trajectory CSV (Browse…).")
        if not Path(path).is_file():
            raise ValueError(f"{path}: no such file")
        act = self.actuated()
        traj = read_trajectory(path, len(act), [i + 1 for i in act])
        return lambda token: closed_driven_job(model, traj.t, traj.q, traj.qd, traj.qdd, token, limits)


def closed_plots(result: ClosedMotionResult, tau_plot, e_plot, revolute: list[bool]) -> str:
    """The torque plot's title and the work's curve of a closed-chain result (the tab drew q, tau and E - E(0)
    already); the status line's words."""
    stops = result.kind.endswith("end stops")
    tau_plot.setTitle("PD torques, actuated joints" if result.target else
                      "joint torques (inverse dynamics), actuated joints" if given(result) else
                      "end-stop torques on the actuated joints" if stops else "joint torques: none (the arm is let go)")
    if result.work is not None:
        e_plot.plot(result.t, result.work, pen=pg.mkPen("#d62728", width=2, style=Qt.PenStyle.DashLine),
                    name="work of τ" + (" and the stops" if stops else "") if result.target or given(result)
                    else "work of the end stops")
    return closed_text(result, revolute)
