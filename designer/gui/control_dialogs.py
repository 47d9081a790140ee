"""The Arm menu's models for the control engineer: "Linearize at this pose" (A, B and eigenvalues,
continuous and discrete) and "Identification" (the base parameter table and the condition number
of the regressor over an excitation trajectory, generated or loaded from CSV).

The dialogs take a model and a pose, not the window, so they can be opened and tested alone; the
base parameters (symbolic) are found in a worker process, the excitation search (numeric) runs on
the worker pool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (QComboBox, QDialog, QDoubleSpinBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPlainTextEdit, QPushButton, QSpinBox, QTableWidget,
                               QTableWidgetItem, QVBoxLayout)

from ..errors import DesignerError
from ..jobs import Progress
from ..jobs.process import ProcessJob, call_job
from ..model.manipulator import Manipulator
from .folders import last_folder, remember_folder
from .job_runner import JobRunner

if TYPE_CHECKING:
    from ..control.linearize import DiscreteModel, LinearModel
    from ..identification.base_params import BaseParameters
    from ..identification.regressor import BaseGrouping

__all__ = ["LinearizeDialog", "IdentificationDialog", "build_menu"]


def build_menu(window, menu) -> None:
    """Add the two actions to ``menu`` (the Arm menu); they read the window's model and pose."""
    menu.addSeparator()
    window._action(menu, "&Linearize at this pose…",
                   lambda: _show(window, LinearizeDialog(window.document.model, window.sliders.values(), window)))
    window._action(menu, "&Identification (base parameters)…", lambda: _identification(window))


def _identification(window) -> None:
    # a closed chain's base parameters: the core's numeric closed-loop grouping (control/excitation.py)
    _show(window, IdentificationDialog(window.document.model, window))


def _show(window, dialog: QDialog) -> None:
    window.control_dialog = dialog  # keep it alive while open
    dialog.show()


def _matrix(name: str, m: np.ndarray) -> str:
    m = np.atleast_2d(m)
    rows = "\n".join("  " + " ".join(f"{x:12.5g}" for x in row) for row in m)
    return f"{name} =\n{rows}\n"


def _eigs(v: np.ndarray) -> str:
    return "  " + "\n  ".join(f"{x.real:12.5g} {'+' if x.imag >= 0 else '-'} {abs(x.imag):.5g}i" for x in v) + "\n"


class LinearizeDialog(QDialog):
    """A, B and the eigenvalues at (q0, qd0), and the discrete model at a sample time."""

    def __init__(self, model: Manipulator, q, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Linearize {model.name or 'the arm'}")
        self.model, self.q = model, np.asarray(q, dtype=float)
        form = QFormLayout()
        form.addRow("q0", QLabel(", ".join(f"{v:.4g}" for v in self.q)))
        self.qd = QLineEdit()
        self.qd.setPlaceholderText("zero; or n values")
        form.addRow("qd0", self.qd)
        self.dt = QLineEdit("0.001")
        form.addRow("sample time (s)", self.dt)
        self.method = QComboBox()
        self.method.addItems(["zoh", "tustin"])
        form.addRow("discretization", self.method)
        self.error = QLabel()
        self.error.setStyleSheet("color: #b00020")
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        go = QPushButton("Compute")
        go.clicked.connect(self.compute)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(go)
        layout.addWidget(self.error)
        layout.addWidget(self.text)
        self.resize(720, 560)
        # not "result": that name is QDialog.result(), the dialog's exit code
        self.models: tuple[LinearModel, DiscreteModel] | None = None
        self.compute()

    def compute(self) -> None:
        from ..control.linearize import linearize_dynamics
        from ..numeric.mechanism import load_dynamics
        self.error.clear()
        try:   # the core's one linearize, in the actuated coordinates (x = (q_a, qd_a), tau_a) of any mechanism
            dyn = load_dynamics(self.model, springs=False)
            act = list(dyn.actuated)
            text = self.qd.text().replace(",", " ").split()
            qd = np.array([float(v) for v in text]) if text else None
            lm = linearize_dynamics(dyn, self.q[act], qd)
            dm = lm.discretize(float(self.dt.text()), self.method.currentText())
        except (ValueError, DesignerError) as exc:  # missing parameters, a bad number, a singular M or a loop
            # that cannot close: say so, keep the old text
            self.error.setText(str(exc).splitlines()[0])
            return
        self.models = (lm, dm)
        actuated = ", ".join(f"q{i + 1}" for i in act)
        passive = ", ".join(f"q{i + 1}" for i in range(len(self.q)) if i not in act)
        self.text.setPlainText(
            f"q, tau over the actuated joints {actuated}"
            + (f" (the passive joints {passive} follow the closed chain's loops)" if passive else "")
            + "\nx = (q, qd): dx/dt = A x + B tau\n\n" + _matrix("A", lm.A) + "\n" + _matrix("B", lm.B)
            + "\neigenvalues of A\n" + _eigs(lm.eigenvalues)
            + f"\n{dm.method}, dt = {dm.dt:g} s: x[k+1] = Ad x[k] + Bd tau[k]\n\n" + _matrix("Ad", dm.Ad) + "\n"
            + _matrix("Bd", dm.Bd) + "\neigenvalues of Ad\n" + _eigs(dm.eigenvalues))


class IdentificationDialog(QDialog):
    """The base parameters (name, formula, value), what was dropped, and cond(Y_b) over a trajectory."""

    def __init__(self, model: Manipulator, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Identification: {model.name or 'the arm'}")
        self.model = model
        self.bp: BaseParameters | BaseGrouping | None = None
        self.runner = JobRunner(self, status_line=False, show_errors=False)   # progress and Cancel
        self.status = QLabel("finding the base parameters…")
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["parameter", "formula (standard parameters)", "value"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.period = QDoubleSpinBox(minimum=0.1, maximum=1000.0, value=10.0, suffix=" s")
        self.harmonics = QSpinBox(minimum=1, maximum=20, value=5)
        self.generate = QPushButton("Generate excitation")
        self.generate.clicked.connect(self.excite)
        self.load = QPushButton("Load trajectory CSV…")
        self.load.clicked.connect(lambda: self.load_csv())
        for b in (self.generate, self.load):
            b.setEnabled(False)
        self.condition = QLabel("cond(Y_b): —")
        row = QHBoxLayout()
        for w in (QLabel("period"), self.period, QLabel("harmonics"), self.harmonics, self.generate, self.load):
            row.addWidget(w)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.runner)
        layout.addWidget(self.table)
        layout.addLayout(row)
        layout.addWidget(self.condition)
        self.resize(820, 600)
        self._start(self._base_job(), self._show_base)

    @property
    def worker(self):
        return self.runner.worker

    def _start(self, job, done) -> None:
        self.runner.start("Identification", job, done, on_failed=lambda msg, _details: self._failed(msg))

    def done(self, result: int) -> None:
        if self.worker is not None and not self.worker.done:
            self.worker.cancel()   # a worker process is stopped: nothing runs on for a closed dialog
        super().done(result)

    def _failed(self, message: str) -> None:
        self.status.setText(f"error: {message}")

    def _base_job(self) -> ProcessJob:
        from ..window_jobs import identification_table
        return ProcessJob(call_job, (identification_table, (self.model,), "base parameters", self.model.name or ""),
                          "base parameters")

    def _show_base(self, result) -> None:
        from ..report.printing import to_text
        self.bp, rows = result
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            value = "" if row["value"] is None else f"{row['value']:.6g}"
            formula = row["formula"] if isinstance(row["formula"], str) else to_text(row["formula"])
            for c, text in enumerate((row["name"], formula, value)):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        bp = self.bp
        assert bp is not None   # set two lines up
        rank = getattr(bp, "rank", None)   # symbolic base parameters say their rank; a numeric grouping its method
        notes = [f"{bp.count} base parameters of {10 * self.model.n} standard ones "
                 + (f"(rank of Y: {rank})." if rank is not None else
                    ": tau_a = W^T Y_tree pi grouped numerically (QR of W^T Y_tree over random closed states).")]
        notes.append("Dropped: " + (", ".join(bp.dropped) or "none"))
        notes += [f"Numeric grouping: {g}" for g in getattr(bp, "numeric_groups", ())]
        self.status.setText("\n".join(notes))
        self.load.setEnabled(True)
        self.generate.setEnabled(True)
        self.generate.setToolTip("A Fourier series of the actuated joints within their limits, every sample "
                                 "closing the loops of a closed chain (the best conditioned of 20 draws)")

    def excite(self) -> None:
        """The excitation search in a worker (the core's, :func:`~designer.window_jobs.identification_excitation`;
        a closed chain's samples close the loops and evaluate 10 n unit-parameter RNEAs)."""
        from ..window_jobs import identification_excitation
        if self.bp is None:
            return
        model, bp = self.model, self.bp
        period, harmonics = self.period.value(), self.harmonics.value()

        def job(token):
            yield Progress("excitation", None, "Fourier series of the actuated joints")
            return identification_excitation(model, bp, period, harmonics)
        self.condition.setText("cond(Y_b): searching…")
        self._start(job, self._show_excitation)

    def _show_excitation(self, ex) -> None:
        self.excitation = ex
        self.condition.setText(f"cond(Y_b) over the generated Fourier series ({len(ex.t)} samples): "
                               f"{ex.condition:.6g}")

    def load_csv(self, path: str | None = None) -> None:
        """cond(Y_b) over a trajectory of the actuated joints (t, q, qd, qdd columns named by their links, as
        `torques` reads them), in a worker; a bad file is named on the condition line."""
        from ..control.excitation import read_actuated_trajectory
        from ..errors import UserError
        from ..window_jobs import identification_condition
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Trajectory", str(last_folder()), "CSV (*.csv);;All files (*)")
            if not path:
                return
            remember_folder(path)
        if self.bp is None:
            return
        try:
            columns, Q, QD, QDD = read_actuated_trajectory(path, self.model)
        except UserError as exc:
            self.condition.setText(f"cond(Y_b): {exc}")
            return
        names = ", ".join(columns)
        model, bp = self.model, self.bp

        def job(token):
            yield Progress("cond(Y_b)", None, f"{len(Q)} samples")
            return identification_condition(model, bp, Q, QD, QDD)
        self.condition.setText("cond(Y_b): computing…")
        self._start(job, lambda cond: self.condition.setText(
            f"cond(Y_b) over {path} ({len(Q)} samples of {names}): {cond:.6g}"))
