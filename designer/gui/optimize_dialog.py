"""The Optimize… dialog (the Requirements tab's button): :mod:`designer.optimize` run in a worker for the parameters
chosen in a table (name, low, high), an objective and the project's own requirements as constraints
(docs/optimize.md); the result shown, and Apply sets the parameters to it as one undoable edit of the document.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QHBoxLayout, QHeaderView, QLabel,
                               QPlainTextEdit, QPushButton, QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from .job_runner import JobRunner

if TYPE_CHECKING:
    from ..model.manipulator import Manipulator
    from ..optimize.problem import OptimizeResult

__all__ = ["OptimizeDialog"]

NAME, LOW, HIGH = range(3)


class OptimizeDialog(QDialog):
    """Choose parameters and their ranges, run the optimizer, apply its best design."""

    def __init__(self, window, parent: QWidget | None = None):
        super().__init__(parent or window)
        self.setWindowTitle("Optimize")
        self.document = window.document
        self.found: OptimizeResult | None = None    # the last run's result
        self.found_model: Manipulator | None = None  # the model it was run on
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Vary these parameters of the project between Low and High:", self))
        self.table = QTableWidget(0, 3, self)
        self.table.setHorizontalHeaderLabels(["Parameter", "Low", "High"])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table, 1)
        rows = QHBoxLayout()
        self.parameter = QComboBox(self)
        self.parameter.setToolTip("A parameter of the project (a link length, a tube's diameter or wall, a mass ...)")
        rows.addWidget(self.parameter, 1)
        self.add_button = QPushButton("Add", self)
        self.add_button.clicked.connect(lambda: self.add_parameter(self.parameter.currentText()))
        rows.addWidget(self.add_button)
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.clicked.connect(self._remove_selected)
        rows.addWidget(self.remove_button)
        layout.addLayout(rows)

        goal = QHBoxLayout()
        self.sense = QComboBox(self)
        self.sense.addItems(["minimize", "maximize"])
        goal.addWidget(self.sense)
        self.objective = QComboBox(self)
        self.objective.setEditable(True)
        self.objective.addItems(["mass", "frequency", "deflection"])
        self.objective.setToolTip("mass, or any explore metric spec (frequency, deflection, gravity[2] ...: "
                                  "docs/metrics.md), at every joint zero")
        goal.addWidget(self.objective, 1)
        goal.addWidget(QLabel("starts", self))
        self.starts = QSpinBox(self)
        self.starts.setRange(1, 100)
        self.starts.setValue(2)
        goal.addWidget(self.starts)
        layout.addLayout(goal)
        self.use_requirements = QCheckBox("The project's requirements as constraints", self)
        self.use_requirements.setChecked(True)
        layout.addWidget(self.use_requirements)

        self.run_button = QPushButton("Run", self)
        self.run_button.clicked.connect(self.start)
        layout.addWidget(self.run_button)
        self.runner = JobRunner(self, status_line=False, show_errors=False)
        layout.addWidget(self.runner)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.summary = QPlainTextEdit(self)
        self.summary.setReadOnly(True)
        layout.addWidget(self.summary, 1)
        buttons = QDialogButtonBox(self)
        self.apply_button = buttons.addButton("Apply", QDialogButtonBox.ButtonRole.ApplyRole)
        self.apply_button.setToolTip("Set the parameters to the best design (one undoable edit)")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply)
        buttons.addButton(QDialogButtonBox.StandardButton.Close).clicked.connect(self.reject)
        layout.addWidget(buttons)
        self.refresh()
        self.resize(560, 560)

    def refresh(self) -> None:
        """Fill the parameter choice from the open project."""
        model = self.document.model
        self.parameter.clear()
        self.parameter.addItems([n for n in model.symbol_names() if n in model.parameter_values])
        has = bool(model.requirements.items)
        self.use_requirements.setEnabled(has)
        self.use_requirements.setText(f"The project's {len(model.requirements.items)} requirement(s) as constraints"
                                      if has else "The project has no requirements (the Requirements tab)")

    def reject(self) -> None:
        """Close: a run in progress is cancelled (nothing of it is applied)."""
        self.runner.cancel()
        super().reject()

    def forget_project(self) -> None:
        """Another project replaced the open one: its run and result go, and its parameters."""
        self.runner.cancel()
        self.found = self.found_model = None
        self.apply_button.setEnabled(False)
        self.table.setRowCount(0)
        self.summary.setPlainText("")
        self.message.setText("")

    def add_parameter(self, name: str, low: float | None = None, high: float | None = None) -> None:
        """A row for ``name``, by default from half to one and a half times its value."""
        if not name:
            return
        value = self.document.model.parameter_values.get(name, 0.0)
        if low is None or high is None:
            low, high = (0.5 * value, 1.5 * value) if value > 0 else \
                ((1.5 * value, 0.5 * value) if value < 0 else (-1.0, 1.0))
        row = self.table.rowCount()
        self.table.insertRow(row)
        for col, text in ((NAME, name), (LOW, f"{low:.6g}"), (HIGH, f"{high:.6g}")):
            self.table.setItem(row, col, QTableWidgetItem(text))

    def _remove_selected(self) -> None:
        row = self.table.currentRow()
        if row >= 0:
            self.table.removeRow(row)

    def variables(self):
        """The table's rows as variables; ValueError naming the row and column of a bad cell."""
        from ..optimize.problem import Variable
        out = []
        for row in range(self.table.rowCount()):
            items = [self.table.item(row, c) for c in range(3)]
            cells = [item.text().strip() if item is not None else "" for item in items]
            bounds = []
            for col, label in ((LOW, "Low"), (HIGH, "High")):
                try:
                    bounds.append(float(cells[col]))
                except ValueError:
                    raise ValueError(f"row {row + 1}, {label}: '{cells[col]}' is not a number") from None
            out.append(Variable(cells[NAME], bounds[0], bounds[1]))
        if not out:
            raise ValueError("add a parameter to vary")
        return tuple(out)

    def problem(self):
        from ..catalog import CatalogError, load_catalog
        from ..optimize.problem import Problem, Requirement
        model = self.document.model
        try:
            catalog = load_catalog(self.document.path)
        except CatalogError:
            catalog = None
        reqs = Requirement.of_project(model) if self.use_requirements.isChecked() else ()
        return Problem(model, self.variables(), self.objective.currentText().strip(), reqs,
                       maximize=self.sense.currentText() == "maximize", catalog=catalog)

    def start(self):
        """Run the optimizer in a worker; None (and a message) when the table has a bad cell."""
        from ..optimize.problem import optimize_job
        self.apply_button.setEnabled(False)
        self.found = None
        try:
            problem = self.problem()
        except ValueError as exc:
            self.message.setText(str(exc))
            return None
        self.message.setText("Optimizing…")
        self.summary.setPlainText("")
        starts = self.starts.value()

        def finished(result) -> None:
            self.found, self.found_model = result, problem.model
            self._show(problem, result)

        def failed(message: str, _details: str) -> None:
            self.message.setText(f"Optimize: {message}")

        return self.runner.start("Optimize", lambda token: optimize_job(problem, starts, 0, 100, token), finished,
                                 on_failed=failed, on_cancelled=lambda: self.message.setText("Cancelled"))

    def _show(self, problem, result) -> None:
        best = result.best if result.best is not None else result.closest
        lines = []
        if best is not None:
            word = "maximum" if problem.maximize else "minimum"
            lines.append(f"{word if result.best is not None else 'closest design:'} {problem.objective}: "
                         f"{best.objective:.6g}")
            lines += [f"  {name} = {value:.6g}" for name, value in best.values.items()]
            for r, v in zip(problem.requirements, best.quantities):
                m = r.margin(v)
                lines.append(f"{r.text}: value {v:.6g}, margin {m:.3g}"
                             + ("" if math.isfinite(m) and m >= 0 else "  FAILS"))
        lines.append(f"{result.method}; {result.evaluations} evaluations")
        self.summary.setPlainText("\n".join(lines))
        if result.best is None:
            self.message.setText("No design meets the requirements: nothing to apply")
        else:
            self.message.setText("Done: Apply sets the parameters to the best design")
        self.apply_button.setEnabled(result.best is not None)

    def apply(self) -> bool:
        """Set the document's parameters to the best design: one undoable edit (False when there is none)."""
        if self.found is None or self.found.best is None:
            return False
        values = self.found.best.values
        label = "Optimize: " + ", ".join(f"{k} = {v:.4g}" for k, v in values.items())
        done = self.document.apply(self.document.model.with_parameters(values), label)
        if done:
            self.message.setText(f"Applied ({label}); Edit > Undo takes it back")
        return done
