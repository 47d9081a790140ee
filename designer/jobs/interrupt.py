"""Cancel inside a long call that has no place for ``token.check()`` (one ``sympy.cse``).

:func:`interruptible` watches the token from a helper thread while the block runs; when the
token is cancelled, it raises :class:`~designer.jobs.Cancelled` in the running thread, at its
next Python instruction (CPython's ``PyThreadState_SetAsyncExc``): the call stops within the
watcher's poll interval instead of running to its end. The block's work is thrown away, so it
must not leave shared state half-changed (a pure computation such as ``sympy.cse``).
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from . import NEVER, CancelToken, Cancelled

__all__ = ["interruptible", "POLL"]

#: seconds between two looks at the token
POLL = 0.05


def _raise_in(thread_id: int, exc: type[BaseException] | None) -> None:
    """Ask the interpreter to raise ``exc`` in thread ``thread_id`` (None: withdraw a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id),
                                               ctypes.py_object(exc) if exc is not None else None)


@contextmanager
def interruptible(token: CancelToken) -> Iterator[None]:
    """Run the ``with`` block so that cancelling ``token`` stops it (raises Cancelled) within
    :data:`POLL` seconds, wherever it is."""
    token.check()
    if token is NEVER:
        yield
        return
    target = threading.get_ident()
    lock = threading.Lock()
    state = {"active": True, "fired": False}
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(POLL):
            if token.cancelled:
                with lock:
                    if state["active"]:
                        state["fired"] = True
                        _raise_in(target, Cancelled)
                return

    watcher = threading.Thread(target=watch, name="cancel-watch", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        with lock:
            state["active"] = False
            if state["fired"]:
                _raise_in(target, None)  # not delivered yet: it must not surface after the block
        finished.set()
        watcher.join()
    if state["fired"]:  # the block ended before the exception arrived
        raise Cancelled("cancelled")
