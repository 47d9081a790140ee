"""Run :mod:`designer.jobs` generators on a thread pool and report through Qt signals.

The generator runs entirely in a pool thread; its progress, result and errors
reach the GUI thread as queued signals, so the GUI thread never waits for it.
Cancelling sets the job's :class:`~designer.jobs.CancelToken`; the worker
checks it between yields (and the job may check it inside long steps).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from ..jobs import Cancelled, CancelToken, Job, Progress

__all__ = ["JobSignals", "JobWorker", "start_job"]

# progress within one stage is forwarded at most this often (seconds); stage changes always are
PROGRESS_INTERVAL = 0.05


class JobSignals(QObject):
    """Signals of one job (a QRunnable cannot have signals of its own)."""

    progress = Signal(object)      # Progress
    finished = Signal(object)      # the job's result
    failed = Signal(str, str)      # one-line message, details (traceback)
    cancelled = Signal()


class JobWorker(QRunnable):
    """A job on the pool. ``make_job(token)`` builds the generator inside the pool thread.

    Exactly one of ``finished``, ``failed`` or ``cancelled`` is emitted at the end.
    """

    def __init__(self, make_job: Callable[[CancelToken], Job], token: CancelToken | None = None):
        super().__init__()
        self.setAutoDelete(False)  # the Python object owns the signals; keep both alive together
        self.make_job = make_job
        self.token = token or CancelToken()
        self.signals = JobSignals()
        self.done = False

    def cancel(self) -> None:
        self.token.cancel()

    def run(self) -> None:  # in a pool thread
        job = None
        try:
            job = self.make_job(self.token)
            last_stage, last_time = None, 0.0
            while True:
                self.token.check()
                try:
                    step = next(job)
                except StopIteration as stop:
                    self.token.check()
                    self._end(self.signals.finished, stop.value)
                    return
                if isinstance(step, Progress):
                    now = time.monotonic()
                    if step.stage != last_stage or now - last_time >= PROGRESS_INTERVAL:
                        last_stage, last_time = step.stage, now
                        self.signals.progress.emit(step)
        except Cancelled:
            self._end(self.signals.cancelled)
        except Exception as exc:  # noqa: BLE001 - every failure of a job goes to the window
            message = str(exc) or type(exc).__name__
            self._end(self.signals.failed, f"{type(exc).__name__}: {message}".splitlines()[0],
                      traceback.format_exc())
        finally:
            if job is not None and hasattr(job, "close"):
                try:
                    job.close()
                except Exception:  # noqa: BLE001 - closing a failed generator must not mask the error
                    pass

    def _end(self, signal, *args) -> None:
        self.done = True
        signal.emit(*args)


def start_job(make_job: Callable[[CancelToken], Job], *, progress=None, finished=None, failed=None,
              cancelled=None, pool: QThreadPool | None = None) -> JobWorker:
    """Connect the given callbacks, then start ``make_job(token)`` on ``pool`` (the global pool).

    Connections are made before the job starts: a signal emitted before a
    receiver is connected would be lost. Keep the returned worker alive until it ends.
    """
    worker = JobWorker(make_job)
    for signal, slot in ((worker.signals.progress, progress), (worker.signals.finished, finished),
                         (worker.signals.failed, failed), (worker.signals.cancelled, cancelled)):
        if slot is not None:
            signal.connect(slot)
    (pool or QThreadPool.globalInstance()).start(worker)
    return worker
