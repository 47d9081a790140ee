"""One job line for every panel that runs long work: progress bar, status text, Cancel, and an error
banner with the details one click away.

The derivation panel, the Explore views, the Simulate tab and File > Export all start their jobs
through a :class:`JobRunner`; it runs a job on the thread pool (a ``make_job(token)`` callable, for
short numeric work) or in the worker process (a :class:`~designer.jobs.process.ProcessJob`, for
symbolic work), shows its progress, lets the user cancel it, and hands its result, or a one-line
message of its failure, back to the panel. A job started while another runs replaces it; the
replaced job's late events are dropped. A job belongs to the project open when it started (the
:class:`~designer.gui.project_state.ProjectState` of the window's document): opening another project
cancels it, the runner lets go of it at once, and its late result is dropped, never shown for the next
project (issue 29). :class:`StaleBanner` is the one "out of date" banner of
the results a job made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QProgressBar, QPushButton, QSizePolicy,
                               QVBoxLayout, QWidget)

from ..jobs import CancelToken, Job, Progress
from ..jobs.process import ProcessJob
from .message_line import MessageLine
from .project_state import ProjectState, state_of
from .worker import JobWorker, ProcessJobWorker, start_job

__all__ = ["JobRunner", "StaleBanner", "STALE_STYLE", "plain_message"]

STALE_STYLE = ("QLabel { background: #fff3c4; color: #6b4e00; border: 1px solid #e0b400; padding: 4px;"
               " font-weight: bold; }")

MESSAGE_MS = 15_000   # a message on a job line stays this long (the status bar's 10 s, plus time to read a path)

# exception names of input mistakes: their messages are shown without the name
_USER_ERRORS = ("ValueError", "DesignerError", "MetricError", "ConditionError", "MissingParameterError",
                "ExploreInputError", "ProjectError", "ExpressionError", "IKError", "SingularConfigurationError",
                "TrajectoryError", "SizingError", "ComputeError", "ClosureError", "AssemblyError")


def plain_message(message: str) -> str:
    """A job's failure message without the Python exception name of an input mistake
    ("ValueError: entry 3 ..." -> "entry 3 ...")."""
    kind, sep, rest = message.partition(": ")
    return rest if sep and kind in _USER_ERRORS else message


class StaleBanner(QLabel):
    """The "out of date" banner above a result whose inputs changed (hidden while the result is current)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setStyleSheet(STALE_STYLE)
        self.hide()

    def set_reason(self, reason: str, action: str = "Compute", consequence: str = "export is off until then") -> None:
        """Show why the result is out of date, which button updates it and what waits for that
        (``consequence``, may be empty); ``""`` as reason hides the banner."""
        tail = f"; {consequence}." if consequence else "."
        self.setText(f"Out of date: {reason}. {action} to update{tail}" if reason else "")
        self.setVisible(bool(reason))


class JobRunner(QWidget):
    """Run one job at a time with progress, Cancel and error reporting.

    ``status_line`` puts the stage in a text line beside the bar (``"Map: sampling — 3 of 9"``);
    without it the bar carries the text itself (``"done"``, ``"cancelled"``). ``show_errors`` shows a
    failure in the runner's error banner (with the traceback under Details); a panel that reports
    failures its own way passes ``on_failed`` to :meth:`start` and ``show_errors=False``.
    ``hide_when_idle`` shows the runner only while a job runs (the window's status bar).
    """

    progressed = Signal(object)   # the running job's Progress
    ended = Signal(str, str)      # title, how: "finished", "failed" or "cancelled"

    def __init__(self, parent: QWidget | None = None, *, status_line: bool = True, show_errors: bool = True,
                 hide_when_idle: bool = False):
        super().__init__(parent)
        self.worker: JobWorker | ProcessJobWorker | None = None
        self.title = ""
        self.status_line = status_line
        self.show_errors = show_errors
        self.hide_when_idle = hide_when_idle
        # a closing window stops its computation (a holder, not self: the slot runs during destruction)
        self._running: list[JobWorker | ProcessJobWorker | None] = [None]
        running = self._running
        self.destroyed.connect(lambda *_: running[0] is not None and not running[0].done and running[0].cancel())

        self.status = MessageLine("Ready", self)   # a long message must not widen the panel
        self.status.setVisible(status_line)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setTextVisible(not status_line)
        self.progress.setFormat("idle")
        if status_line:
            self.progress.setMaximumWidth(260)
        self._job_text = "Ready"   # what the line says about the job, shown again when a message expires
        self._message_timer = QTimer(self)
        self._message_timer.setSingleShot(True)
        self._message_timer.setInterval(MESSAGE_MS)
        self._message_timer.timeout.connect(lambda: self.status.setText(self._job_text))
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)

        self.error = QLabel(self)
        self.error.setWordWrap(True)
        # a long word (a file path) would still ask for its width: the banner wraps within the panel's
        self.error.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.setStyleSheet("QLabel { background: #ffd6d6; color: #7a0016; border: 1px solid #d08080;"
                                 " padding: 4px; }")
        self.details_button = QPushButton("Details", self)
        self.details_button.setCheckable(True)
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setMaximumHeight(160)
        self.details.hide()
        self.details_button.toggled.connect(self.details.setVisible)
        self.error_box = QFrame(self)
        error_row = QHBoxLayout()
        error_row.addWidget(self.error, 1)
        error_row.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignTop)
        box = QVBoxLayout(self.error_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(error_row)
        box.addWidget(self.details)
        self.error_box.hide()

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.status, 1)
        row.addWidget(self.progress, 0 if status_line else 1)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.error_box)
        layout.addLayout(row)
        self.setVisible(not hide_when_idle)

    # -- state ----------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """A job runs, or its end has not been handled yet: a pool worker is ``done`` in its own thread
        before its result reaches the GUI thread, so ``done`` alone would say idle too early."""
        return self.worker is not None

    def _alive(self, worker) -> bool:
        return shiboken6.isValid(self) and worker is self.worker

    def project_state(self) -> ProjectState | None:
        """The state of the project open in this runner's window (None outside a window with a document)."""
        return state_of(self)

    def _let_go(self, worker) -> None:
        """The project this job ran for was replaced: idle at once, and its late events are dropped."""
        if not self._alive(worker):
            return
        title = self.title
        self.worker = None
        self._running[0] = None
        self.title = ""
        self.cancel_button.setEnabled(False)
        self.clear_error()
        self.reset()
        if self.hide_when_idle:
            self.hide()
        self.ended.emit(title, "cancelled")

    # -- running ---------------------------------------------------------------------------
    def start(self, title: str, make_job: Callable[[CancelToken], Job] | ProcessJob,
              on_result: Callable[[Any], None], *, on_failed: Callable[[str, str], None] | None = None,
              on_cancelled: Callable[[], None] | None = None) -> JobWorker | ProcessJobWorker:
        """Start ``make_job`` (cancelling a running job first). ``on_result(result)`` runs in the GUI
        thread; a ValueError, KeyError or IndexError it raises is shown as a failure of the job.
        ``on_failed(message, details)`` gets the one-line message (without the exception name of an
        input mistake) and the traceback. Returns the worker."""
        if self.busy:
            self.cancel()
        self.clear_error()
        self.title = title
        worker = None
        state = self.project_state()

        def finished(result) -> None:
            if not self._alive(worker) or state is not None and state.closed:
                return   # a replaced job, or one of a project no longer open, that finished anyway
            self._end("done")
            try:
                on_result(result)
            except (ValueError, KeyError, IndexError) as exc:
                self.show_error(f"{title}: {exc}")
            self.ended.emit(title, "finished")

        def failed(message: str, details: str) -> None:
            if not self._alive(worker) or state is not None and state.closed:
                return
            self._end("failed")
            message = plain_message(message)
            if self.show_errors:
                self.show_error(f"{title}: {message}", details)
            if on_failed is not None:
                on_failed(message, details)
            self.ended.emit(title, "failed")

        def cancelled() -> None:
            if not self._alive(worker) or state is not None and state.closed:
                return
            self._end("cancelled")
            if on_cancelled is not None:
                on_cancelled()
            self.ended.emit(title, "cancelled")

        def progress(step: Progress) -> None:
            if worker is not None and self._alive(worker) and not worker.token.cancelled and not (
                    state is not None and state.closed):
                self._progress(step)
                self.progressed.emit(step)

        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self._say("starting…")
        self.cancel_button.setEnabled(True)
        if self.hide_when_idle:
            self.show()
        worker = start_job(make_job, progress=progress, finished=finished, failed=failed, cancelled=cancelled)
        self.worker = worker
        self._running[0] = worker
        if state is not None:
            state.adopt(worker, self._let_go)
        return worker

    def cancel(self) -> None:
        """Ask the running job to stop; its ``cancelled`` end follows."""
        if self.worker is not None and not self.worker.done:
            self.worker.cancel()
            self._say("cancelling…")
        self.cancel_button.setEnabled(False)

    def reset(self) -> None:
        """No job and nothing to show: an empty bar, not a finished-looking one."""
        if not self.busy:
            self.progress.setRange(0, 1000)
            self.progress.setValue(0)
            self.progress.setFormat("idle")
            self._job_text = "Ready"
            if self.status_line:
                self._message_timer.stop()
                self.status.setText("Ready")

    def _say(self, text: str) -> None:
        if self.status_line:
            self._job_text = f"{self.title}: {text}" if self.title else text
            self._message_timer.stop()
            self.status.setText(self._job_text)
        else:
            self.progress.setFormat(text)

    def _progress(self, step: Progress) -> None:
        if step.fraction is None:
            self.progress.setRange(0, 0)   # busy indicator
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * max(0.0, min(1.0, step.fraction))))
        detail = f" — {step.detail}" if step.detail else ""
        pct = "" if step.fraction is None or self.status_line else f" {100 * step.fraction:.0f}%"
        self._say(f"{step.stage}{pct}{detail}")

    def _end(self, how: str) -> None:
        self.worker = None
        self._running[0] = None
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1000)
        self.progress.setValue(1000 if how == "done" else 0)
        self._say(how)
        if self.hide_when_idle:
            self.hide()

    # -- messages ------------------------------------------------------------------------------
    def show_error(self, message: str, details: str = "") -> None:
        """Show a one-line error (input mistakes too); ``details`` (a traceback) under the Details button."""
        self.error.setText(message.splitlines()[0] if message else "error")
        self.error.setToolTip(details or message)
        self.details.setPlainText(details)
        self.details_button.setVisible(bool(details))
        if not details:
            self.details_button.setChecked(False)
        self.error_box.show()

    def clear_error(self) -> None:
        self.error.clear()
        self.error_box.hide()

    def show_status(self, text: str) -> None:
        """A message on the job line (a file written, a pose taken from a map) for MESSAGE_MS; then
        the line says what it said about the last job again."""
        if self.status_line:
            self.status.setText(text)
            self._message_timer.start()

    def forget(self) -> None:
        """A new model replaced the old: no message or job line about the old one stays (a running job
        goes on; its end will be reported)."""
        self.clear_error()
        if not self.busy:
            self.title = ""
            self.reset()
