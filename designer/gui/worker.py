"""Run :mod:`designer.jobs` generators on a thread pool and report through Qt signals.

The generator runs entirely in a pool thread; its progress, result and errors
reach the GUI thread as queued signals, so the GUI thread never waits for it.
Cancelling sets the job's :class:`~designer.jobs.CancelToken`; the worker
checks it between yields (and the job may check it inside long steps).

Long symbolic jobs (derivations, conditions, reports and code) are given as a
:class:`~designer.jobs.process.ProcessJob` and run in a worker process instead
(:class:`ProcessJobWorker`, same signals): a process holds no GIL the window
needs, is stopped at once on Cancel, and can run out of memory or crash without
taking the window along. Short numeric jobs stay on the thread pool, where
they start faster than a process could.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QSettings, Qt, QThreadPool, Signal

from ..jobs import Cancelled, CancelToken, Job, Progress
from ..jobs.process import ProcessJob, ProcessRunner, Ticket, default_memory_limit_mb
from ..window_jobs import PRELOAD

__all__ = ["JobSignals", "JobWorker", "ProcessJobWorker", "start_job", "process_runner", "MEMORY_KEY",
           "memory_limit_mb"]

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


class _Relay(QObject):
    """Carries runner events into the GUI thread (the runner calls from its own threads).

    One for the application, created in the GUI thread and never deleted: a
    queued event never outlives its receiver, whichever thread drops a job last.
    """

    # not "event": that name is QObject.event, the virtual every Qt event goes through
    relayed = Signal(object, str, object)   # worker, kind, payload

    def __init__(self):
        super().__init__()
        self.relayed.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    def _deliver(self, worker: ProcessJobWorker, kind: str, payload: tuple) -> None:
        worker._dispatch(kind, payload)


_relay: _Relay | None = None


class ProcessJobWorker:
    """A :class:`ProcessJob` in a worker process, with :class:`JobWorker`'s signals, token, ``cancel`` and ``done``.

    ``cancelled`` is emitted as soon as the event loop runs after :meth:`cancel`
    (queued, so that the caller's own "cancelling…" comes first and is replaced).
    Make it in the GUI thread.
    """

    def __init__(self, spec: ProcessJob, runner: ProcessRunner):
        global _relay
        if _relay is None:
            _relay = _Relay()
        self.spec = spec
        self.runner = runner
        self.token = CancelToken()
        self.signals = JobSignals()
        self.done = False
        self.ticket: Ticket | None = None

    def start(self) -> None:
        self.ticket = self.runner.submit(self.spec, self._event)

    @property
    def pid(self) -> int | None:
        """The worker process's id once the job was handed to it."""
        return None if self.ticket is None else self.ticket.pid

    def cancel(self) -> None:
        self.token.cancel()
        if self.ticket is not None:
            self.runner.cancel(self.ticket)   # kills the process; "cancelled" comes back queued

    def _event(self, kind: str, *payload) -> None:   # a runner thread, or cancel's
        assert _relay is not None
        _relay.relayed.emit(self, kind, payload)

    def _dispatch(self, kind: str, payload: tuple) -> None:   # GUI thread
        if self.done:
            return
        if kind == "progress":
            self.signals.progress.emit(*payload)
            return
        self.done = True
        {"finished": self.signals.finished, "failed": self.signals.failed,
         "cancelled": self.signals.cancelled}[kind].emit(*payload)


MEMORY_KEY = "jobs/memory_limit_mb"


def memory_limit_mb(settings: QSettings | None = None) -> int:
    """The stored limit in MB (0: none), or the default: half of the physical memory."""
    value = (settings or QSettings()).value(MEMORY_KEY, None)
    try:
        return max(0, int(value)) if value is not None else default_memory_limit_mb()  # type: ignore[call-overload]  # QSettings.value is typed object; int() of a bad one is caught below
    except (TypeError, ValueError):
        return default_memory_limit_mb()



_runner: ProcessRunner | None = None


def process_runner() -> ProcessRunner:
    """The application's runner of worker processes (created on first use; ``warm_up`` starts it)."""
    global _runner
    if _runner is None:
        _runner = ProcessRunner(memory_limit_mb(), freeze_results=True,   # the window keeps results
                                preload=PRELOAD)
    return _runner


def start_job(make_job: Callable[[CancelToken], Job] | ProcessJob, *, progress=None, finished=None, failed=None,
              cancelled=None, pool: QThreadPool | None = None,
              runner: ProcessRunner | None = None) -> JobWorker | ProcessJobWorker:
    """Connect the given callbacks, then start ``make_job(token)`` on ``pool`` (the global pool), or,
    for a :class:`ProcessJob`, in a worker process of ``runner`` (the application's).

    Connections are made before the job starts: a signal emitted before a
    receiver is connected would be lost. Keep the returned worker alive until it ends.
    """
    worker: JobWorker | ProcessJobWorker
    if isinstance(make_job, ProcessJob):
        worker = ProcessJobWorker(make_job, runner or process_runner())
    else:
        worker = JobWorker(make_job)
    for signal, slot in ((worker.signals.progress, progress), (worker.signals.finished, finished),
                         (worker.signals.failed, failed), (worker.signals.cancelled, cancelled)):
        if slot is not None:
            signal.connect(slot)
    if isinstance(worker, ProcessJobWorker):
        worker.start()
    else:
        (pool or QThreadPool.globalInstance()).start(worker)
    return worker
