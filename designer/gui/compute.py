"""The Compute preference: where the window's sweeps and maps run (local processes, threads, or a Dask cluster).

The choice is a :class:`~designer.explore.distribute.Compute`, kept in QSettings
under ``compute/...``. :class:`ComputeDialog` edits it and checks a scheduler
address before keeping it (in a pool thread: an unreachable host takes seconds to
time out), with a one-line message when it cannot be reached. :class:`ComputeButton`
is the small hook the Explore views carry: it shows the current choice and opens
the dialog.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QRunnable, QSettings, QThreadPool, Signal
from PySide6.QtWidgets import (QButtonGroup, QDialog, QDialogButtonBox, QGridLayout, QLabel, QLineEdit, QPushButton,
                               QRadioButton, QSpinBox, QVBoxLayout, QWidget)

from ..explore.distribute import Compute, ComputeError, check_scheduler, scheduler_from_env

__all__ = ["load_compute", "save_compute", "ComputeDialog", "ComputeButton"]

KINDS = ("processes", "threads", "dask")


def load_compute(settings: QSettings | None = None) -> Compute:
    """The saved choice; threads when nothing (or nothing valid) is saved: no pickling, nothing to start."""
    s = settings or QSettings()
    kind = str(s.value("compute/kind", "threads"))
    try:
        workers = int(str(s.value("compute/workers", 2)))
    except (TypeError, ValueError):
        workers = 2
    address = str(s.value("compute/scheduler", "") or "")
    try:
        return Compute(kind, max(1, workers), address)
    except ValueError:
        return Compute("threads", max(1, workers), address)


def save_compute(compute: Compute, settings: QSettings | None = None) -> None:
    s = settings or QSettings()
    s.setValue("compute/kind", compute.kind)
    s.setValue("compute/workers", compute.workers)
    s.setValue("compute/scheduler", compute.scheduler)


class _CheckSignals(QObject):
    done = Signal(str, str)   # address, "" or the error


class _Check(QRunnable):
    def __init__(self, address: str):
        super().__init__()
        self.address = address
        self.signals = _CheckSignals()

    def run(self) -> None:   # in a pool thread
        try:
            message = ""
            check_scheduler(self.address)
        except ComputeError as exc:
            message = str(exc)
        self.signals.done.emit(self.address, message)


class ComputeDialog(QDialog):
    """Pick local processes, threads or a Dask scheduler; a scheduler is checked before OK keeps it."""

    def __init__(self, compute: Compute, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Compute")
        self.result_compute = compute
        self.buttons_kind = QButtonGroup(self)
        grid = QGridLayout()
        texts = {"processes": "Local processes", "threads": "Threads in this window",
                 "dask": "Dask cluster, scheduler at"}
        self.radio: dict[str, QRadioButton] = {}
        for row, kind in enumerate(KINDS):
            radio = QRadioButton(texts[kind], self)
            self.buttons_kind.addButton(radio, row)
            self.radio[kind] = radio
            grid.addWidget(radio, row, 0)
        self.workers = QSpinBox(self)
        self.workers.setRange(1, 256)
        self.workers.setValue(compute.workers)
        self.workers.setToolTip("Processes or threads on this computer")
        grid.addWidget(self.workers, 0, 1, 2, 1)
        self.address = QLineEdit(compute.scheduler or scheduler_from_env(), self)
        self.address.setPlaceholderText("tcp://HOST:8786")
        self.address.setToolTip("The address `dask scheduler` prints; the workers must have this program "
                                "installed (docs/scaling.md)")
        grid.addWidget(self.address, 2, 1)
        self.check_button = QPushButton("Check", self)
        self.check_button.clicked.connect(self.check)
        grid.addWidget(self.check_button, 2, 2)
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addWidget(self.status)
        layout.addWidget(box)
        self.radio[compute.kind].setChecked(True)
        self._accept_after_check = False

    def kind(self) -> str:
        return KINDS[max(0, self.buttons_kind.checkedId())]

    def compute(self) -> Compute:
        """The choice in the dialog (ValueError naming what is missing)."""
        return Compute(self.kind(), self.workers.value(), self.address.text().strip())

    def check(self) -> None:
        """Reach the scheduler in a pool thread; the answer lands in the status line."""
        address = self.address.text().strip()
        if not address:
            self._show("Give the scheduler's address, e.g. tcp://10.0.0.5:8786", error=True)
            return
        self._show(f"Connecting to {address} ...")
        self.check_button.setEnabled(False)
        job = _Check(address)
        job.signals.done.connect(self._checked)
        QThreadPool.globalInstance().start(job)

    def _checked(self, address: str, error: str) -> None:
        self.check_button.setEnabled(True)
        if address != self.address.text().strip():
            return   # the address was edited meanwhile
        if error:
            self._accept_after_check = False
            self._show(error, error=True)
            return
        self._show(f"Connected: {address}")
        if self._accept_after_check:
            self._accept_after_check = False
            self.result_compute = self.compute()
            super().accept()

    def _show(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #b00020;" if error else "")

    def accept(self) -> None:
        try:
            compute = self.compute()
        except ValueError as exc:
            self._show(str(exc), error=True)
            return
        if compute.kind == "dask":   # kept only once the scheduler answered
            self._accept_after_check = True
            self.check()
            return
        self.result_compute = compute
        super().accept()


class ComputeButton(QPushButton):
    """Shows where sweeps and maps run; a click opens :class:`ComputeDialog` and saves the choice."""

    changed = Signal(object)   # Compute

    def __init__(self, parent: QWidget | None = None, settings: QSettings | None = None):
        super().__init__(parent)
        self.settings = settings
        self.setToolTip("Where sweeps and maps run: processes or threads here, or a Dask cluster")
        self.clicked.connect(self.edit)
        self._label()

    def compute(self) -> Compute:
        return load_compute(self.settings)

    def _label(self) -> None:
        self.setText(f"on {self.compute().describe()}")

    def edit(self) -> None:
        dialog = ComputeDialog(self.compute(), self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            save_compute(dialog.result_compute, self.settings)
            self._label()
            self.changed.emit(dialog.result_compute)
