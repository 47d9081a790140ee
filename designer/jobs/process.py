"""Run jobs in worker processes: cancel at once, a memory limit, and a crash that harms nothing.

A job for a worker process is described by reference (:class:`ProcessJob`: a
module-level function and picklable arguments), since a generator cannot cross
a process boundary. Each job gets a process of its own, forked from a server
process that imported sympy and the derivations once (multiprocessing's
``forkserver``; ``spawn`` where there is none: a Qt application must not
``fork`` itself). One spare process is kept started, so a job's first progress
comes back within milliseconds. Cancel kills the job's process (SIGKILL) and
reports at once; a process that dies (out of memory, a crash, a kill from
outside) ends its job with a message saying so. Results come back pickled by
:func:`dumps`, which rebuilds sympy expressions exactly as they were (sympy's
own pickling re-evaluates ``Add``/``Mul``/``Pow`` and so can change an
unevaluated product; see :mod:`designer.jobs.pickling`). No Qt here; :mod:`designer.gui.worker` adapts it to
signals. The command line and the tests keep running jobs in-process
(:func:`designer.jobs.run`).
"""

from __future__ import annotations

import atexit
import gc
import multiprocessing as mp
import os
import pickle
import queue
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import Cancelled, CancelToken, Job, Progress
from .pickling import dumps, loads

__all__ = ["ProcessJob", "call_job", "ProcessRunner", "Ticket", "dumps", "loads", "default_memory_limit_mb",
           "PROGRESS_INTERVAL"]

# progress within one stage is sent at most this often (seconds); stage changes always are
PROGRESS_INTERVAL = 0.05
# what the server process imports in any case; the caller adds its own packages (``preload``): this
# layer knows no package above it
BASE_PRELOAD = ("__main__", "designer.jobs.process")

Listener = Callable[..., None]   # listener(kind, *payload); kind: progress, finished, failed, cancelled


@dataclass(frozen=True)
class ProcessJob:
    """A job by reference: ``func(*args, token)`` returns its generator.

    ``func`` must be importable by name (a module-level function) and ``args``
    picklable. Calling the description builds the generator in this process,
    so it also serves wherever a ``make_job(token)`` callable is expected.
    """

    func: Callable[..., Job]
    args: tuple = ()
    title: str = ""

    def __call__(self, token: CancelToken) -> Job:
        return self.func(*self.args, token)


def call_job(func: Callable, args: tuple, stage: str, detail: str, token: CancelToken) -> Job:
    """``func(*args)`` as a job of one step (a sympy call cannot be interrupted; a kill can)."""
    yield Progress(stage, None, detail)
    return func(*args)


def default_memory_limit_mb() -> int:
    """Half of the physical memory (at least 1 GiB): a runaway job stops before the machine swaps."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 4096
    return max(1024, total // 2 // 2**20)


# -- the worker process -------------------------------------------------------------------

def _limit_memory(limit_mb: int | None) -> None:
    if not limit_mb:
        return
    try:
        import resource
    except ImportError:   # Windows: no address-space limit
        return
    limit = int(limit_mb) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _drive(job: Job, send: Callable[[Progress], None]) -> Any:
    """Run ``job`` to its end, passing on progress at most every PROGRESS_INTERVAL within a stage."""
    last_stage, last_time = None, 0.0
    while True:
        try:
            step = next(job)
        except StopIteration as stop:
            return stop.value
        if isinstance(step, Progress):
            now = time.monotonic()
            if step.stage != last_stage or now - last_time >= PROGRESS_INTERVAL:
                last_stage, last_time = step.stage, now
                send(step)


def _child_main(conn) -> None:
    """A worker process: wait for one job, run it, send its progress and its end, exit."""
    # what the server imported never dies: keep the collector off it (its passes would also touch,
    # and so copy, every page this process shares with the server)
    gc.freeze()
    if hasattr(os, "setsid"):
        # a session of its own: Linux's autogroup scheduling then shares the CPU between the window's
        # session and this one, and a busy worker no longer delays the window's wake-ups behind it
        # (PUMA 560 derivation on a loaded machine: GUI-thread blocks of 60-70 ms before)
        try:
            os.setsid()
        except OSError:
            pass
    try:
        job_spec, limit_mb = pickle.loads(conn.recv_bytes())
    except (EOFError, OSError):
        return   # the runner closed without giving work
    try:
        _limit_memory(limit_mb)
        job = job_spec(CancelToken())   # cancel is a kill; the token is never set here
        result = _drive(job, lambda step: conn.send_bytes(dumps(("progress", step))))
        job = None
        try:
            message = dumps(("finished", result))
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - an unpicklable result is the job's failure
            message = dumps(("failed", f"the result cannot be sent back to the window: {exc}",
                             traceback.format_exc()))
        conn.send_bytes(message)
    except MemoryError:
        job = None
        gc.collect()
        limit = f": the job needed more than the worker's limit of {limit_mb} MB" if limit_mb else ""
        conn.send_bytes(dumps(("failed", f"out of memory{limit}", traceback.format_exc())))
    except Exception as exc:  # noqa: BLE001 - every failure of a job goes back to the caller
        text = str(exc) or type(exc).__name__
        conn.send_bytes(dumps(("failed", f"{type(exc).__name__}: {text}".splitlines()[0],
                               traceback.format_exc())))
    finally:
        conn.close()


def _death(exitcode: int | None, limit_mb: int | None) -> str:
    """One line on why a worker process ended without an answer."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        cause = " (out of memory, or ended from outside)" if name == "SIGKILL" else ""
        how = f"was killed by {name}{cause}"
    elif exitcode is None:
        how = "stopped answering"
    else:
        how = f"exited with status {exitcode}"
        if limit_mb:
            how += f" (possibly out of memory: its limit is {limit_mb} MB)"
    return f"the worker process {how}; nothing in the window was changed"


# -- the runner (in the application's process) -----------------------------------------------

class _Child:
    """A started worker process and our end of its pipe."""

    def __init__(self, ctx):
        ours, theirs = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=_child_main, args=(theirs,), daemon=True, name="designer-job")
        self.process.start()
        theirs.close()
        self.conn = ours

    def alive(self) -> bool:
        return self.process.is_alive()

    def kill(self) -> None:
        try:
            self.process.kill()
        except (OSError, ValueError, AttributeError):
            pass  # already gone

    def reap(self) -> int | None:
        self.conn.close()
        self.process.join(2.0)
        return self.process.exitcode


@dataclass(eq=False)
class Ticket:
    """One submitted job. Exactly one of finished, failed or cancelled reaches its listener."""

    spec: ProcessJob
    listener: Listener
    ended: bool = False
    child: _Child | None = None
    pid: int | None = None
    started: threading.Event = field(default_factory=threading.Event)
    token: CancelToken | None = None   # only when it runs in this process (no worker could start)


def _ignore(kind: str, *payload) -> None:
    pass


class _NoProcess(RuntimeError):
    """No worker process can be started here."""


class ProcessRunner:
    """Runs :class:`ProcessJob` s, each in a worker process of its own.

    ``memory_limit_mb`` caps each worker's address space (None or 0: no cap).
    ``freeze_results``: results are read with the cyclic collector paused and
    then frozen out of its passes (``gc.freeze``), for an application that keeps
    them: sympy trees hold no cycles and die by reference counting, and each
    full pass over a six-link result took 40-130 ms, in whichever thread
    allocated (the window's). ``preload``: modules the server process imports once, so that each
    job's process starts with them (the window's list: :data:`designer.window_jobs.PRELOAD`).
    Listeners are called from the runner's threads, except ``cancelled``, which is called in the
    thread that calls :meth:`cancel`, before it returns.
    """

    def __init__(self, memory_limit_mb: int | None = None, method: str | None = None,
                 freeze_results: bool = False, preload: Sequence[str] = ()):
        self.freeze_results = freeze_results
        self.memory_limit_mb = default_memory_limit_mb() if memory_limit_mb is None else memory_limit_mb
        if method is None:
            method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        self.ctx = mp.get_context(method)
        if method == "forkserver":
            self.ctx.set_forkserver_preload([*BASE_PRELOAD, *preload])
        self._lock = threading.Lock()
        self._spare: _Child | None = None
        self._spare_wanted = threading.Condition(self._lock)
        self._spare_thread: threading.Thread | None = None
        self._closed = False
        self._start_error: str | None = None
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._dispatcher: threading.Thread | None = None
        atexit.register(self.close)   # before multiprocessing's own exit handler stops the server

    # -- the spare process ------------------------------------------------------------
    def warm_up(self) -> None:
        """Start the spare worker in the background (the first call also starts the server)."""
        with self._lock:
            if self._spare_thread is None and not self._closed:
                self._spare_thread = threading.Thread(target=self._keep_spare, name="designer-job-starter",
                                                      daemon=True)
                self._spare_thread.start()
            if self._dispatcher is None:
                self._dispatcher = threading.Thread(target=self._dispatch, name="designer-job-dispatcher",
                                                    daemon=True)
                self._dispatcher.start()

    def _keep_spare(self) -> None:
        while True:
            with self._lock:
                while self._spare is not None and self._spare.alive() and not self._closed:
                    self._spare_wanted.wait(1.0)
                if self._closed:
                    return
                dead, self._spare = self._spare, None
            if dead is not None:   # the idle spare was killed from outside
                dead.reap()
            try:
                child = _Child(self.ctx)   # blocks until the server forked it (first time: preload)
            except (OSError, ValueError, EOFError, RuntimeError) as exc:
                if self._closed:
                    return
                if self._start_error is None:
                    sys.stderr.write(f"designer: cannot start a worker process ({exc}); jobs run in this one\n")
                with self._lock:
                    self._start_error = str(exc) or type(exc).__name__
                    self._spare_wanted.notify_all()
                time.sleep(5.0)
                continue
            with self._lock:
                self._start_error = None
                self._spare = child
                self._spare_wanted.notify_all()

    def _take_spare(self) -> _Child:
        self.warm_up()
        with self._lock:
            while self._spare is None or not self._spare.alive():
                if self._start_error is not None:
                    raise _NoProcess(self._start_error)
                self._spare_wanted.notify_all()
                self._spare_wanted.wait(0.5)
                if self._closed:
                    raise RuntimeError("the job runner is closed")
            child, self._spare = self._spare, None
            self._spare_wanted.notify_all()   # start the next spare now, in the background
            return child

    # -- jobs ---------------------------------------------------------------------------
    def submit(self, spec: ProcessJob, listener: Listener) -> Ticket:
        """Start ``spec`` in a worker process; returns at once."""
        ticket = Ticket(spec, listener)
        self.warm_up()
        self._inbox.put(ticket)
        return ticket

    def _dispatch(self) -> None:
        # Thread.start() waits until the new thread runs: on a loaded machine that wait, in the
        # window's thread, was up to 100 ms; here the window only puts the ticket in a queue
        while True:
            ticket = self._inbox.get()
            threading.Thread(target=self._serve, args=(ticket,), name="designer-job-reader", daemon=True).start()

    def cancel(self, ticket: Ticket) -> bool:
        """Kill the job's process and report ``cancelled`` now; False if the job had already ended."""
        with self._lock:
            if ticket.ended:
                return False
            ticket.ended = True
            child, listener, ticket.listener = ticket.child, ticket.listener, _ignore
        if child is not None:
            child.kill()
        if ticket.token is not None:
            ticket.token.cancel()
        listener("cancelled")
        return True

    def _end(self, ticket: Ticket, kind: str, *payload) -> None:
        with self._lock:
            if ticket.ended:
                return
            ticket.ended = True
            # let go of the listener: the caller's objects (a window's) should not be freed in our thread
            listener, ticket.listener = ticket.listener, _ignore
        listener(kind, *payload)

    def _serve(self, ticket: Ticket) -> None:
        """The thread of one job: hand it to a worker, pass its messages on, notice its death."""
        try:
            child = self._take_spare()
        except _NoProcess:
            self._run_here(ticket)
            return
        except RuntimeError as exc:
            self._end(ticket, "failed", str(exc), "")
            return
        with self._lock:
            if ticket.ended:   # cancelled while waiting for a process: keep it for the next job
                if self._spare is None:
                    self._spare = child
                else:
                    child.kill()
                    child.reap()
                return
            ticket.child, ticket.pid = child, child.process.pid
        ticket.started.set()
        limit = self.memory_limit_mb
        try:
            child.conn.send_bytes(dumps((ticket.spec, limit)))
            while True:
                kind, *payload = self._read(child.conn.recv_bytes())
                if kind == "progress":
                    if not ticket.ended:
                        ticket.listener(kind, *payload)
                    continue
                self._end(ticket, kind, *payload)
                break
        except (EOFError, OSError):
            pass
        except Exception as exc:  # noqa: BLE001 - e.g. a result that cannot be unpickled here
            self._end(ticket, "failed", f"the result could not be read back: {exc}", traceback.format_exc())
        exitcode = child.reap()
        self._end(ticket, "failed", _death(exitcode, limit), "")

    def _read(self, data: bytes) -> tuple:
        paused = self.freeze_results and gc.isenabled()
        if paused:
            gc.disable()
        try:
            message = loads(data)
        finally:
            if paused:
                gc.enable()
        if self.freeze_results and message[0] == "finished":
            gc.freeze()
        return message

    def _run_here(self, ticket: Ticket) -> None:
        """Without worker processes: the job in this thread, as the thread runner would (cancel between steps)."""
        token = ticket.token = CancelToken()
        if ticket.ended:
            return
        ticket.started.set()

        def progress(step: Progress) -> None:
            token.check()
            ticket.listener("progress", step)
        try:
            result = _drive(ticket.spec(token), progress)
        except Cancelled:
            return   # reported by cancel()
        except Exception as exc:  # noqa: BLE001 - every failure of a job goes back to the caller
            text = str(exc) or type(exc).__name__
            self._end(ticket, "failed", f"{type(exc).__name__}: {text}".splitlines()[0], traceback.format_exc())
            return
        self._end(ticket, "finished", result)

    def close(self) -> None:
        """Stop the spare (running jobs' processes die with the application: they are daemons)."""
        with self._lock:
            self._closed = True
            spare, self._spare = self._spare, None
            self._spare_wanted.notify_all()
        if spare is not None:
            spare.kill()
            spare.reap()
