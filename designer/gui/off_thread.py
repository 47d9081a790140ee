"""A step of the window's work run on the thread pool while the window answers, for a caller that waits for
its result (opening a project, the steps of an import): :func:`off_gui_thread`.

Issue 29: reading a URDF, opening the tube arm stopped the window for up to a second.
"""

from __future__ import annotations

from PySide6.QtCore import QEventLoop, Qt, QThreadPool, QTimer
from PySide6.QtWidgets import QApplication, QProgressDialog

from ..jobs import Cancelled, Progress
from .worker import start_job

__all__ = ["Abandoned", "ABANDONED", "off_gui_thread"]


class Abandoned(Cancelled):
    """The user cancelled a step running off the GUI thread: its result, when it comes, is dropped (a cancel,
    as the core's jobs have it: control flow, not an error to show)."""


ABANDONED: set = set()   # workers of abandoned steps, alive until their job ends (their signals with them)

# threads of their own: on the shared pool a step waited for a free thread, behind a long simulation or a workspace
# map of 200,000 poses (opening a project took until they ended)
_POOL: list[QThreadPool] = []


def _pool() -> QThreadPool:
    if not _POOL:
        pool = QThreadPool()
        pool.setMaxThreadCount(4)   # a step the user abandoned keeps its thread until it ends
        _POOL.append(pool)
    return _POOL[0]


def off_gui_thread(window, what: str, function):
    """``function()`` on the thread pool, the window answering meanwhile (issue 29: reading a URDF stopped it
    for seconds); a modal busy box says ``what`` and its Cancel abandons the step (:class:`Abandoned`).
    Returns the result or raises the exception ``function`` raised, here in the GUI thread."""
    box: dict = {}

    def job(_token):
        yield Progress(what)
        try:
            box["value"] = function()
        except Exception as exc:  # noqa: BLE001 - handed to the GUI thread and raised there
            box["error"] = exc

    loop = QEventLoop()

    def failed(message: str, _details: str) -> None:   # not raised by function: the worker's own failure
        box.setdefault("error", RuntimeError(message))
        loop.quit()

    busy = QProgressDialog(what, "Cancel", 0, 0, window)
    busy.setWindowTitle(what)
    busy.setWindowModality(Qt.WindowModality.WindowModal)
    busy.setMinimumDuration(0)
    busy.hide()   # until 0.4 s passed: a quick step shows no box (a busy box gets no values to time itself by)
    shower = QTimer(busy)
    shower.setSingleShot(True)
    shower.timeout.connect(busy.show)
    shower.start(400)
    busy.canceled.connect(loop.quit)
    worker = start_job(job, finished=lambda _r: loop.quit(), cancelled=loop.quit, failed=failed, pool=_pool())
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        if not worker.done:
            loop.exec()
    finally:
        QApplication.restoreOverrideCursor()
        shower.stop()
        busy.reset()
        busy.hide()
        busy.deleteLater()
    if "value" not in box and "error" not in box:
        worker.cancel()
        if not worker.done:
            ABANDONED.add(worker)
            for signal in (worker.signals.finished, worker.signals.failed, worker.signals.cancelled):
                signal.connect(lambda *_args, worker=worker: ABANDONED.discard(worker))
        raise Abandoned(what)
    if "error" in box:
        raise box["error"]
    return box["value"]
