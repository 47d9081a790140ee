"""The derivation panel: method and simplification, Derive / Cancel, progress, errors, results.

Derivations run in a worker process (:class:`~designer.gui.worker.ProcessJobWorker`),
started in the background when the panel is made: Cancel stops one at once, and
one that runs out of memory or crashes leaves the window and the model as they
were. A ``derive`` given to the panel (a fake in tests) runs on the thread
pool instead. Results are cached
per (model, method, simplification), so going back to a model (undo) or a
method shows its equations at once. After an edit the equations on display
stay, under a banner saying they are out of date, until derived again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from ..dynamics.results import Equations, Method, SimplifyMode
from ..jobs.process import ProcessJob
from .equations_view import EquationsView
from .job_runner import JobRunner
from .project_state import ProjectSlot
from .scroll_column import narrow_buttons, narrow_combo
from .worker import JobWorker, ProcessJobWorker, process_runner

__all__ = ["DerivationPanel", "default_derive", "CACHE_SIZE"]

CACHE_SIZE = 8   # six-link results are large; eight covers undo/redo and the three methods
METHOD_TEXT = {Method.LAGRANGE: "Lagrange-Euler (M, B, C, G)", Method.NEWTON_EULER: "Newton-Euler (τ)",
               Method.DALEMBERT: "Generalized d'Alembert (D, H, G)"}
SIMPLIFY_TEXT = {SimplifyMode.OFF: "no simplification", SimplifyMode.FAST: "fast simplification",
                 SimplifyMode.FULL: "full simplification"}


def stale_reason(shown_key: tuple, key: tuple) -> str:
    """Why equations derived for ``shown_key`` (model, method, simplification) do not answer ``key``."""
    if shown_key[0] != key[0]:
        return "the model changed after these equations were derived"
    what = []
    if shown_key[1] != key[1]:
        what.append(f"derived with {METHOD_TEXT[shown_key[1]]}, not {METHOD_TEXT[key[1]]}")
    if shown_key[2] != key[2]:
        what.append(f"{SIMPLIFY_TEXT[shown_key[2]]}, not {SIMPLIFY_TEXT[key[2]]}")
    return "; ".join(what) if what else ""


def default_derive(model, method, simplify, token):
    """The core's derivation job (imported when first used, in the worker thread)."""
    from ..dynamics import derive_job
    return derive_job(model, method, simplify, token)


def process_derive(model, method, simplify) -> ProcessJob:
    """The core's derivation job, described for a worker process."""
    from ..window_jobs import window_derive_job
    return ProcessJob(window_derive_job, (model, method, simplify), "derivation")


class DerivationPanel(QWidget):
    """Derive the equations of the document's model without blocking the window.

    ``derive(model, method, simplify, token)`` returns a job generator for
    the thread pool (e.g. a fake in tests); without it, derivations run in a
    worker process (:func:`process_derive`). The job line is the shared
    :class:`~designer.gui.job_runner.JobRunner`.
    """

    derivationFinished = Signal(object)   # Equations
    derivationFailed = Signal(str, str)   # message, details
    derivationCancelled = Signal()
    progressed = Signal(object)           # Progress
    message = Signal(str)
    # the open project's: in the window they live in its ProjectState and go with it (project_state.py)
    cache = ProjectSlot(factory=OrderedDict)   # key (model, method, simplify) -> Equations, newest last
    shown = ProjectSlot()                      # (key, Equations) on display

    def __init__(self, document, derive: Callable | None = None, parent=None):
        super().__init__(parent)
        self.document = document
        self.derive = derive
        self._running_key: tuple | None = None
        self._view_state: tuple | None = None

        self.method = QComboBox(self)
        for m in Method:
            self.method.addItem(METHOD_TEXT[m], m)
        self.simplify = QComboBox(self)
        for s in SimplifyMode:
            self.simplify.addItem(SIMPLIFY_TEXT[s], s)
        self.simplify.setCurrentIndex(list(SimplifyMode).index(SimplifyMode.FAST))
        self.derive_button = QPushButton("Derive", self)
        self.derive_button.setDefault(True)
        self.derive_button.setToolTip("Derive the equations of motion of the arm on screen by the chosen method, "
                                      "in a worker: the window stays usable, Cancel stops it")
        narrow_combo(self.method, 12)   # the tab fits its column at 1024 px (issue 29 item 9)
        narrow_combo(self.simplify, 8)
        narrow_buttons(self.derive_button)
        self.runner = JobRunner(self, status_line=False)
        self.runner.progressed.connect(self.progressed)
        # the runner's parts, by the names the window and the tests know
        self.progress, self.cancel_button = self.runner.progress, self.runner.cancel_button
        self.error_box, self.error, self.details = self.runner.error_box, self.runner.error, self.runner.details
        self.details_button = self.runner.details_button

        self.view = EquationsView(self)
        self.view.message.connect(self.message)
        self.stale = self.view.banner   # the one out-of-date banner of the tab (the view's)

        controls = QHBoxLayout()
        controls.addWidget(self.method, 3)
        controls.addWidget(self.simplify, 2)
        controls.addWidget(self.derive_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(controls)
        layout.addWidget(self.runner)
        layout.addWidget(self.view, 1)

        self.derive_button.clicked.connect(self.start)
        self.method.currentIndexChanged.connect(self.update_display)
        self.simplify.currentIndexChanged.connect(self.update_display)
        document.modelChanged.connect(self.update_display)
        if derive is None:
            process_runner().warm_up()   # so that the first Derive does not wait for the process to start

    # -- state ---------------------------------------------------------------------
    def key(self) -> tuple:
        return (self.document.model, self.method.currentData(), self.simplify.currentData())

    @property
    def worker(self) -> JobWorker | ProcessJobWorker | None:
        return self.runner.worker

    @property
    def busy(self) -> bool:
        return self.runner.busy

    def current_equations(self) -> tuple[Equations | None, bool]:
        """(equations on display, whether they are out of date)."""
        if self.shown is None:
            return None, False
        return self.shown[1], self.shown[0] != self.key()

    def set_method(self, method: Method, simplify: SimplifyMode | None = None) -> None:
        self.method.setCurrentIndex(list(Method).index(Method(method)))
        if simplify is not None:
            self.simplify.setCurrentIndex(list(SimplifyMode).index(SimplifyMode(simplify)))

    def forget_project(self) -> None:
        """Another project replaced the open one: its equations, cache and job line go (its running
        derivation was cancelled with it)."""
        self.clear()
        self._ended()

    def clear(self) -> None:
        """Forget results (a different project was opened)."""
        self.cancel()
        self.cache.clear()
        self.shown = None
        self._view_state = None
        self.view.set_equations(None, False)
        self.view.search.clear()   # a filter typed for the old project would hide the new one's entries
        self.runner.clear_error()
        self.runner.reset()

    # -- running -------------------------------------------------------------------
    def start(self) -> None:
        """Derive for the current key; instant when cached."""
        key = self.key()
        if key in self.cache:
            self.cache.move_to_end(key)
            self._show(key, self.cache[key])
            return
        if self.busy and self._running_key == key:
            return
        model, method, simplify = key
        self._running_key = key
        self.derive_button.setEnabled(False)
        derive = self.derive
        make_job = (process_derive(model, method, simplify) if derive is None
                    else lambda token: derive(model, method, simplify, token))
        self.runner.start("Derivation", make_job, lambda eq: self._finished(key, eq),
                          on_failed=self._failed, on_cancelled=self._cancelled)

    def cancel(self) -> None:
        self.runner.cancel()

    def _ended(self) -> None:
        self._running_key = None
        self.derive_button.setEnabled(True)

    def _finished(self, key, equations) -> None:
        self._ended()
        # the recursive form where the closed one is too large: shown (and cached) only when the user says so
        # (the runner hands over the result of the current job only)
        if not self.view.confirm_form(equations):
            self.progress.setValue(0)
            # say what is on display: earlier equations, or nothing at all
            kept = "kept the equations on display" if self.shown is not None else "no equations shown"
            self.progress.setFormat(kept)
            why = "too slow to derive" if equations.extras.get("too_slow") else "too large to expand"
            self.message.emit(f"The closed form is {why}: {kept}")
            return
        self.cache[key] = equations
        while len(self.cache) > CACHE_SIZE:
            self.cache.popitem(last=False)
        self._show(key, equations)
        self.derivationFinished.emit(equations)

    def _failed(self, message: str, details: str) -> None:
        self._ended()
        self.message.emit(f"Derivation failed: {message}")
        self.derivationFailed.emit(message, details)

    def _cancelled(self) -> None:
        self._ended()
        self.message.emit("Derivation cancelled")
        self.derivationCancelled.emit()

    # -- display -------------------------------------------------------------------
    def _show(self, key, equations) -> None:
        self.shown = (key, equations)
        self.update_display()

    def update_display(self, *_args) -> None:
        key = self.key()
        if key in self.cache and (self.shown is None or self.shown[0] != key):
            self.shown = (key, self.cache[key])
        if self.shown is None:
            self.runner.reset()
            return
        reason = stale_reason(self.shown[0], key)
        if reason:
            self.runner.reset()
        # the view re-renders only when what it shows changes (rendering can be slow)
        state = (id(self.shown[1]), reason)
        if state != self._view_state:
            self._view_state = state
            self.view.set_equations(self.shown[1], reason)
