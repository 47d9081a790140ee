"""Pure-Python work (typesetting, counting operations) in a worker process, results as Qt signals.

A Python thread would do, but while it computes it holds the GIL, and the GUI
thread, which re-acquires the GIL for every Python callback of a paint (a
table asks its model's ``data()`` hundreds of times), then waits up to the
interpreter's 5 ms switch interval for each one: a table repaint took four
seconds while a six-link entry was typeset in a thread. A separate process
shares no GIL. It is a plain subprocess (``python -m
designer.gui._typeset_worker``) fed through a pipe by one thread, so nothing
depends on how the application's main module is written (multiprocessing's
spawn re-imports it). If the process cannot run, the thread computes itself.

Why not :mod:`designer.jobs.process`, the other worker-process service: that one forks a process
per job, so that a cancel is a kill and each job has its own memory limit, and pickles sympy
results exactly (:mod:`designer.jobs.pickling`); a table repaint here sends hundreds of small
requests (strings in, pictures and counts out), which a process each would make slower than
typesetting in the window. One long-lived process with plain pickle serves them.
"""

from __future__ import annotations

import atexit
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal

__all__ = ["Background"]

# the batch functions of designer.report.typeset the worker runs; that module (and matplotlib with it) is
# imported here only when the worker cannot run one, not before the window's first paint
_NAMES = ("typeset_many", "stats_many")
_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding the designer package


class _Service:
    """One worker process and the thread that talks to it, shared by every widget."""

    def __init__(self):
        self.requests: queue.Queue = queue.Queue()
        self.busy = 0
        self.idle = threading.Condition()
        self.process: subprocess.Popen | None = None
        self.thread = threading.Thread(target=self._serve, name="designer-typesetter", daemon=True)
        self.thread.start()
        atexit.register(self.close)

    def _start(self) -> subprocess.Popen | None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH", "")) if p)
        try:
            return subprocess.Popen([sys.executable, "-m", "designer.gui._typeset_worker"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, env=env)
        except OSError:
            return None

    def _call(self, name: str, args: tuple):
        if self.process is None or self.process.poll() is not None:
            self.process = self._start()
        if self.process is not None:
            stdin, stdout = self.process.stdin, self.process.stdout
            assert stdin is not None and stdout is not None   # _start opens both as pipes
            try:
                pickle.dump((name, args), stdin, protocol=pickle.HIGHEST_PROTOCOL)
                stdin.flush()
                ok, result = pickle.load(stdout)
                return result if ok else RuntimeError(result)
            except (OSError, ValueError, EOFError, pickle.PickleError):
                self.process = None  # the worker died: compute here this time, restart next time
        try:
            from ..report import typeset as mathtext
            function: Callable[..., object] = getattr(mathtext, name)
            return function(*args)
        except Exception as exc:  # noqa: BLE001 - handed to the GUI, which shows text instead
            return exc

    def _serve(self) -> None:
        while True:
            sender, tag, name, args = self.requests.get()
            result = self._call(name, args)
            try:
                sender.finished.emit(tag, result)
            except RuntimeError:
                pass  # the widget was deleted meanwhile
            with self.idle:
                self.busy -= 1
                self.idle.notify_all()

    def submit(self, sender, tag, name: str, args: tuple) -> None:
        with self.idle:
            self.busy += 1
        self.requests.put((sender, tag, name, args))

    def wait(self, timeout: float) -> bool:
        with self.idle:
            return self.idle.wait_for(lambda: self.busy == 0, timeout)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            try:
                if self.process.stdin is not None:
                    self.process.stdin.close()
                self.process.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()


_service: _Service | None = None


def _get_service() -> _Service:
    global _service
    if _service is None:
        _service = _Service()
    return _service


class Background(QObject):
    """Run a :mod:`designer.report.typeset` batch function; :attr:`finished` brings (tag, result or exception)."""

    finished = Signal(object, object)

    def submit(self, tag, name: str, *args) -> None:
        """Queue ``mathtext.<name>(*args)`` (``"typeset_many"`` or ``"stats_many"``)."""
        if name not in _NAMES:
            raise ValueError(f"not a background function: {name}")
        _get_service().submit(self, tag, name, args)

    @staticmethod
    def wait(timeout: float = 60.0) -> bool:
        """Block until submitted work is done (tests, screenshots); process events afterwards."""
        return _service is None or _service.wait(timeout)
