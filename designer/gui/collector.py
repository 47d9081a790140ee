"""The cyclic garbage collector runs in the GUI thread only.

Python runs a collection in whichever thread happens to allocate. When that is a pool thread
(a derivation or a numeric job) and the garbage holds a Qt object (the widgets of a closed dialog
or an old view caught in a reference cycle), the pool thread runs the C++ destructor: it takes the
lock Qt keeps for the object's connections and then waits for the GIL (shiboken looks for a Python
override), while the GUI thread holds the GIL and waits for that same lock in a deletion shiboken
deferred to it. Both wait for ever. The test suite met it: tests/gui/test_closed_form_question.py
after test_closed_edit.py froze in 1 of 3 runs, the window silent, no CPU used.

So automatic collection is switched off and a timer in the GUI thread collects instead, by the
same rules Python uses (a young generation of 700 new objects, then every 10th pass one generation
older, and a full pass only once the oldest generation has grown by a quarter since the last one, so
that full passes stay rare while a large result builds up): garbage is found as before, only always
in the thread that may destroy widgets.
The worker processes (derivations) are separate interpreters and keep their automatic collector.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

__all__ = ["GuiThreadCollector", "collect_in_gui_thread", "stop_collecting", "INTERVAL_MS"]

#: how often the GUI thread looks at the collector's counts: a pool thread allocates at most this
#: long between passes (a numeric job: a few thousand objects, a gen-0 pass of well under 1 ms)
INTERVAL_MS = 100


class GuiThreadCollector(QObject):
    """Automatic collection off; a pass from a timer of the thread that makes this object."""

    def __init__(self, interval_ms: int = INTERVAL_MS, parent: QObject | None = None):
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        self.passes = [0, 0, 0]   # passes run per generation (what the tests look at)
        self.long_lived = len(gc.get_objects(generation=2))   # the oldest generation after a full pass
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        gc.disable()
        self.timer.start(interval_ms)

    def check(self) -> None:
        """One pass of the generation(s) whose counts passed their thresholds, as Python would run it."""
        counts = gc.get_count()
        generation = -1
        for g in range(3):
            if counts[g] > self.thresholds[g]:
                generation = g
            else:
                break
        if generation == 2 and len(gc.get_objects(generation=2)) <= 1.25 * self.long_lived:
            generation = 1   # Python's own rule: a full pass walks everything, so only after 25 % growth
        if generation >= 0:
            gc.collect(generation)
            self.passes[generation] += 1
            if generation == 2:
                self.long_lived = len(gc.get_objects(generation=2))

    def stop(self) -> None:
        """Give collection back to Python (automatic, in any thread)."""
        self.timer.stop()
        gc.enable()


_collector: GuiThreadCollector | None = None


def collect_in_gui_thread() -> GuiThreadCollector:
    """Start the GUI thread's collector once (call it in the GUI thread, after the QApplication exists)."""
    global _collector
    if _collector is None:
        _collector = GuiThreadCollector()
    return _collector


def stop_collecting() -> None:
    """Stop the GUI thread's collector, if started: collection automatic again (the tests, between modules)."""
    global _collector
    if _collector is not None:
        _collector.stop()
        _collector.deleteLater()
        _collector = None
