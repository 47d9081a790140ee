"""Garbage is collected in the GUI thread only (designer/gui/collector.py): a cycle that a pool thread's
allocations would have collected there (and so destroyed its widgets there) is collected by the GUI
thread's timer instead."""

from __future__ import annotations

import gc
import threading

from designer.gui.collector import collect_in_gui_thread


class _Witness:
    """Part of a reference cycle; remembers the thread that destroyed it."""

    died_in: list[str] = []

    def __init__(self):
        self.me = self

    def __del__(self):
        _Witness.died_in.append(threading.current_thread().name)


def test_a_cycle_is_collected_in_the_gui_thread_not_in_the_allocating_worker(qtbot):
    collector = collect_in_gui_thread()
    assert not gc.isenabled()
    _Witness.died_in.clear()
    _Witness()                                   # garbage, reachable only from itself

    kept: list = []

    def allocate() -> None:                      # objects that survive, far past gen 0's threshold of 700
        kept.extend([i] for i in range(50_000))
    worker = threading.Thread(target=allocate, name="pool-like worker")
    worker.start()
    worker.join()
    assert _Witness.died_in == []                # the worker's allocations collected nothing
    qtbot.waitUntil(lambda: _Witness.died_in != [], timeout=120_000)
    assert _Witness.died_in == [threading.main_thread().name]
    assert sum(collector.passes) > 0
