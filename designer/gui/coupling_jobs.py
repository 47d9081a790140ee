"""The coupling panel's joints and its work: the joints by their numbers (a closed chain's actuated ones,
named by their links), a hidden tab computing nothing, and the curves that close loops computed in a worker.

A closed chain's quantities close its loops at every point of a curve (Python loops over the states
in :class:`~designer.numeric.closed_batch.ClosedBatch`: ~0.4 ms a state for the palletizer, 50 ms for a
joint sweep of 121 points; its parameter grid builds one ActuatedArm per design, ~30 ms each, 1.2 s for
41 designs), so :class:`~designer.gui.coupling_plots.CouplingPanel` runs them as these jobs on its
job runner instead of in the GUI thread as it does for a serial arm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtWidgets import QSpinBox

from ..explore.coupling import ParameterGrid, Sweep, parameter_grid_job, sweep_joint
from ..explore.joints import ExploreJoints
from ..jobs import CancelToken, Job, Progress
from ..model import Manipulator
from .job_runner import JobRunner

__all__ = ["CouplingWork", "JointBox", "joint_sweep_job", "parameter_sweep_job"]

BLOCK = 16   # states per step of a joint sweep: progress and cancel about every 7 ms


class JointBox(QSpinBox):
    """A joint number 1..n shown by its name ("joint q4" for the palletizer's third actuated joint)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.names: list[str] = []

    def textFromValue(self, value: int) -> str:
        return f"joint {self.names[value - 1] if 0 < value <= len(self.names) else f'q{value}'}"

    def valueFromText(self, text: str) -> int:
        word = text.replace("joint", "").strip()
        if word in self.names:
            return self.names.index(word) + 1
        digits = word.lstrip("q")
        return int(digits) if digits.isdigit() else self.value()

    def validate(self, text, pos):
        from PySide6.QtGui import QValidator
        return QValidator.State.Acceptable, text, pos


class CouplingWork:
    """The coupling panel's work: its joints' numbers, no job while the tab is hidden, and the curves whose every
    point closes loops (a closed chain's) run on the panel's job runner."""

    # the panel's (coupling_plots.CouplingPanel)
    joints: ExploreJoints | None
    runner: JobRunner
    sweeps: dict[str, Any]
    _timer: Any
    plot_coupling: Any
    plot_normalised: Any
    plot_coefficients: Any
    plot_parameter: Any
    if TYPE_CHECKING:   # QWidget's and the panel's methods (not defined here: the panel's come first)
        def isVisible(self) -> bool: ...
        def refresh(self) -> None: ...
        def plots_made(self) -> list: ...
        def _show_status(self, text: str) -> None: ...

    def _follow(self) -> None:
        """Recompute after a model or pose change, only while the tab is shown (showEvent catches up): a
        hidden tab would close a closed chain's loops at 121 points per slider step, and sweep a serial arm's
        joint on every project opened (0.2 s of the 1 s the tube arm stopped the window, issue 29)."""
        if not self.isVisible():
            self._timer.stop()
            for plot in self.plots_made():
                plot.clearPlots()   # no curves of an earlier pose (a design report grabs them: it refreshes)
            self.sweeps = {"joint": None, "parameter": None}
            return
        self.refresh()

    def _numbers(self) -> tuple[int, ...] | None:
        """The joints' numbers when they are not 1..n: a closed chain's actuated joints (1, 2, 4, 6)."""
        return tuple(i + 1 for i in self.joints.index) if self.joints is not None and self.joints.closed else None

    def _in_worker(self) -> bool:
        """Whether the curves close loops at every point (a closed chain's passive joints): too slow for the GUI
        thread, run on the job runner."""
        return self.joints is not None and self.joints.closed

    def _run(self, title: str, make_job, show) -> None:
        """A closed chain's curves in a worker; its message (a pose that cannot close) on the status line."""
        self.runner.start(title, make_job, lambda sweep: self._shown_from_job(show, sweep),
                          on_failed=lambda message, _details: self._show_status(f"{title}: {message}"))

    def _shown_from_job(self, show, result) -> None:
        show(result)
        sweep = result[0] if isinstance(result, tuple) else result   # a parameter sweep comes with its grid
        self._show_status(sweep.note and f"B and C not plotted: {sweep.note}.")


def joint_sweep_job(arm, q, i: int, j: int, joint: int, values, token: CancelToken) -> Job[Sweep]:
    """:func:`~designer.explore.coupling.sweep_joint` in blocks of states, with progress and cancel."""
    values = np.asarray(values, float)
    parts: list[Sweep] = []
    for s in range(0, len(values), BLOCK):
        token.check()
        parts.append(sweep_joint(arm, q, i, j, joint, values[s:s + BLOCK]))
        done = min(len(values), s + BLOCK)
        yield Progress("coupling", done / len(values), f"{done} of {len(values)} states")
    first = parts[0]
    curve = {k: np.concatenate([p.curves[""][k] for p in parts]) for k in first.curves[""]}
    return Sweep(values, first.x_label, first.pair, {"": curve}, first.numbers, first.note)


def parameter_sweep_job(model: Manipulator, grid: ParameterGrid | None, name: str, values, second: str | None,
                        seconds, q, i: int, j: int, token: CancelToken) -> Job[tuple[Sweep, ParameterGrid]]:
    """The parameter sweep at the pose ``q``, building the grid's arms first unless ``grid`` is given
    (following the sliders re-evaluates the same arms)."""
    if grid is None:
        grid = yield from parameter_grid_job(model, name, values, second, seconds, token)
    token.check()
    yield Progress("coupling", None, "evaluating")
    return grid.evaluate(q, i, j), grid
