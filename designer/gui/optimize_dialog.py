"""The Optimize… dialog (the Requirements tab's button): :mod:`designer.optimize` run in a worker (progress, Cancel)
for the parameters chosen in a table (name, low, high), discrete choices (a link's material, a joint's catalog
gearbox, motor or GEARBOX+MOTOR pair), one objective or several, and the project's own requirements as constraints
(docs/optimize.md).

One objective: the multi-start search (:func:`~designer.optimize.problem.optimize_job`), its best design shown.
Two or more: the Pareto front (:func:`designer.optimize.pareto.pareto_job`, NSGA-II, its populations where the
Compute preference says, as sweeps: threads, local processes or a Dask cluster) plotted, each point a design to
select (gui/optimize_front.py), the one nearest the ideal point first. The selected design's objectives,
variables, choices and every requirement's value and margin are listed; Apply makes the project that design as
one undoable edit; A/B sets it beside the current design, requirement by requirement and metric by metric
(Explore's A/B rows).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QGridLayout,
                               QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QSpinBox,
                               QSplitter, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from .compute import ComputeButton
from .job_runner import JobRunner
from .optimize_front import CompareTable, DesignTable, FrontView, design_rows

if TYPE_CHECKING:
    from ..model.manipulator import Manipulator

__all__ = ["OptimizeDialog", "parse_objectives"]

NAME, LOW, HIGH = range(3)
TARGET, OPTIONS = range(2)
AB_SAMPLES = 300   # workspace samples of the A/B table's statistics
PAIRS_OFFERED = 4  # a drive choice's options at first: this many of the lightest feasible pairs along the cycle


def parse_objectives(first: str, maximize_first: bool, more: str) -> list[tuple[str, bool]]:
    """(quantity, maximize) of each objective: ``first`` with its sense, then ``more`` (comma-separated, each
    optionally ``max QUANTITY`` or ``min QUANTITY``); ValueError naming a bad or repeated one."""
    out = [(first.strip(), maximize_first)]
    if not out[0][0]:
        raise ValueError("objective: give a quantity (mass, or an explore metric such as frequency)")
    for k, word in enumerate((w.strip() for w in more.split(",")), start=2):
        if not word:
            continue
        sense, _, rest = word.partition(" ")
        if sense.lower() in ("max", "maximize", "min", "minimize") and rest.strip():
            out.append((rest.strip(), sense.lower().startswith("max")))
        elif " " in word:
            raise ValueError(f"objective {k}: '{word}': write QUANTITY, max QUANTITY or min QUANTITY")
        else:
            out.append((word, False))
    names = [n for n, _ in out]
    for n in names:
        if names.count(n) > 1:
            raise ValueError(f"objective '{n}' is given twice")
    return out


class OptimizeDialog(QDialog):
    """Choose parameters and their ranges, discrete choices and objectives, run the optimizer, see its designs,
    apply one or set it beside the current design."""

    def __init__(self, window, parent: QWidget | None = None):
        super().__init__(parent or window)
        self.setWindowTitle("Optimize")
        self.window_ = window
        self.document = window.document
        self.found: Any = None                       # the last run's OptimizeResult or ParetoFront
        self.found_model: Manipulator | None = None  # the model it was run on
        self.found_problem: Any = None
        self.designs: list = []                      # the designs shown (the best one, or the front's)
        self.objective_names: tuple[str, ...] = ()
        self.objective_values = np.zeros((0, 0))
        self.chosen = -1                             # the design selected (an index of ``designs``)

        setup = QWidget(self)
        layout = QVBoxLayout(setup)
        layout.setContentsMargins(0, 0, 4, 0)
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
        self.remove_button.clicked.connect(lambda: self._remove_row(self.table))
        rows.addWidget(self.remove_button)
        layout.addLayout(rows)

        layout.addWidget(QLabel("Choose among (a link's materials, a joint's catalog items; options by commas):",
                                self))
        self.choices = QTableWidget(0, 2, self)
        self.choices.setHorizontalHeaderLabels(["Choice", "Options"])
        self.choices.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.choices.horizontalHeader().setStretchLastSection(True)
        self.choices.setToolTip("LINK.material: materials (docs/parts.md); JOINT.drive: catalog gearboxes, motors "
                                "or GEARBOX+MOTOR pairs (docs/catalogs.md). Every combination is tried.")
        layout.addWidget(self.choices, 1)
        rows = QHBoxLayout()
        self.target = QComboBox(self)
        self.target.setToolTip("A link made as a part (its material) or a driven joint (its catalog items)")
        rows.addWidget(self.target, 1)
        self.add_choice_button = QPushButton("Add", self)
        self.add_choice_button.clicked.connect(lambda: self.add_choice(self.target.currentData() or ""))
        rows.addWidget(self.add_choice_button)
        self.remove_choice_button = QPushButton("Remove", self)
        self.remove_choice_button.clicked.connect(lambda: self._remove_row(self.choices))
        rows.addWidget(self.remove_choice_button)
        layout.addLayout(rows)

        goal = QGridLayout()
        self.sense = QComboBox(self)
        self.sense.addItems(["minimize", "maximize"])
        goal.addWidget(self.sense, 0, 0)
        self.objective = QComboBox(self)
        self.objective.setEditable(True)
        self.objective.addItems(["mass", "frequency", "deflection", "peak_torque", "rms_torque", "cost"])
        self.objective.setToolTip("mass, or any explore metric spec (frequency, deflection, gravity[2] ...: "
                                  "docs/metrics.md), at every joint zero")
        goal.addWidget(self.objective, 0, 1, 1, 3)
        goal.addWidget(QLabel("and", self), 1, 0)
        self.more_objectives = QLineEdit(self)
        self.more_objectives.setPlaceholderText("more objectives for a Pareto front: max frequency, deflection")
        self.more_objectives.setToolTip("Objectives besides the first, by commas, each QUANTITY (minimized) or "
                                        "max QUANTITY: two or more objectives give a Pareto front (NSGA-II)")
        goal.addWidget(self.more_objectives, 1, 1, 1, 3)
        goal.addWidget(QLabel("starts", self), 2, 0)
        self.starts = QSpinBox(self)
        self.starts.setRange(1, 100)
        self.starts.setValue(2)
        self.starts.setToolTip("One objective: the gradient search's starting points")
        goal.addWidget(self.starts, 2, 1)
        front = QHBoxLayout()
        front.addWidget(QLabel("front: population", self))
        self.population = QSpinBox(self)
        self.population.setRange(4, 1000)
        self.population.setValue(24)
        front.addWidget(self.population)
        front.addWidget(QLabel("generations", self))
        self.generations = QSpinBox(self)
        self.generations.setRange(1, 1000)
        self.generations.setValue(10)
        front.addWidget(self.generations)
        goal.addLayout(front, 2, 2, 1, 2)
        goal.addWidget(QLabel("payload (kg)", self), 3, 0)
        self.payload = QDoubleSpinBox(self)
        self.payload.setRange(0.0, 1e5)
        self.payload.setDecimals(3)
        self.payload.setToolTip("The payload at the tool for the objectives (deflection, frequency ...); at first "
                                "the project's (the Requirements tab), which its own requirements always use")
        goal.addWidget(self.payload, 3, 1)
        self.compute_button = ComputeButton(self)   # where a front's populations run (gui/compute.py), as sweeps
        goal.addWidget(self.compute_button, 3, 2, 1, 2)
        goal.setColumnStretch(1, 1)
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

        results = QSplitter(Qt.Orientation.Vertical, self)
        self.front = FrontView(results)
        self.front.selected.connect(self.select)
        self.tabs = QTabWidget(results)
        self.design_table = DesignTable(self)
        self.tabs.addTab(self.design_table, "Design")
        self.summary = QPlainTextEdit(self)
        self.summary.setReadOnly(True)
        self.tabs.addTab(self.summary, "Summary")
        ab = QWidget(self)
        ab_layout = QVBoxLayout(ab)
        ab_layout.setContentsMargins(0, 0, 0, 0)
        self.ab_button = QPushButton("A/B: the selected design beside the current one", self)
        self.ab_button.setToolTip("Every explore metric at the slider pose and over workspace samples, for the "
                                  "current design (A) and the selected one (B), as Explore's A/B shows them")
        self.ab_button.setEnabled(False)
        self.ab_button.clicked.connect(self.start_ab)
        ab_layout.addWidget(self.ab_button)
        self.ab_table = CompareTable(self)
        ab_layout.addWidget(self.ab_table, 1)
        self.tabs.addTab(ab, "A/B")
        self.front.setMinimumHeight(180)
        results.setStretchFactor(0, 1)
        results.setStretchFactor(1, 1)
        results.setSizes([340, 300])

        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(setup)
        splitter.addWidget(results)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([460, 690])
        outer = QVBoxLayout(self)
        outer.addWidget(splitter, 1)
        buttons = QDialogButtonBox(self)
        self.apply_button = buttons.addButton("Apply", QDialogButtonBox.ButtonRole.ApplyRole)
        self.apply_button.setToolTip("Make the project the selected design (one undoable edit)")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply)
        buttons.addButton(QDialogButtonBox.StandardButton.Close).clicked.connect(self.reject)
        outer.addWidget(buttons)
        self.refresh()
        self._fit()

    def _fit(self) -> None:
        """1150 x 680, or the screen's available area less a margin (usable at 1366 x 768)."""
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        w, h = 1150, 680
        if screen is not None:
            w, h = min(w, screen.width() - 40), min(h, screen.height() - 60)
        self.resize(w, h)

    # -- setting up -----------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fill the parameter and choice pickers from the open project."""
        model = self.document.model
        self.parameter.clear()
        self.parameter.addItems([n for n in model.symbol_names() if n in model.parameter_values])
        self.target.clear()
        for i, link in enumerate(model.links):
            name = f" ({link.name})" if link.name else ""
            if link.part is not None:
                self.target.addItem(f"link {i + 1}{name}: material", f"{i + 1}.material")
            if link.actuated:
                self.target.addItem(f"joint {i + 1}{name}: catalog gearbox / motor", f"{i + 1}.drive")
        payload = model.requirements.payload
        self.payload.setValue(payload.mass if payload is not None else 0.0)
        has = bool(model.requirements.items)
        self.use_requirements.setEnabled(has)
        self.use_requirements.setText(f"The project's {len(model.requirements.items)} requirement(s) as constraints"
                                      if has else "The project has no requirements (the Requirements tab)")

    def reject(self) -> None:
        """Close: a run in progress is cancelled (nothing of it is applied)."""
        self.runner.cancel()
        super().reject()

    def forget_project(self) -> None:
        """Another project replaced the open one: its run and result go, and its parameters and choices."""
        self.runner.cancel()
        self._clear_result()
        self.table.setRowCount(0)
        self.choices.setRowCount(0)
        self.message.setText("")

    def _clear_result(self) -> None:
        self.found = self.found_model = self.found_problem = None
        self.designs, self.chosen = [], -1
        self.objective_names, self.objective_values = (), np.zeros((0, 0))
        self.apply_button.setEnabled(False)
        self.ab_button.setEnabled(False)
        self.summary.setPlainText("")
        self.design_table.setRowCount(0)
        self.ab_table.clear_rows()
        self.front.clear()

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

    def default_options(self, target: str) -> list[str]:
        """A choice's options at first: every material (a part's own first), or the catalog items of the joint's
        kind: its gearbox's series when it names one, else every gearbox."""
        from ..model.parts import material_table
        model = self.document.model
        ref, _, what = target.rpartition(".")
        link = model.links[int(ref) - 1]
        if what == "material":
            own = link.part.material.name if link.part is not None else ""
            return [own] + [m for m in material_table(model) if m != own]
        catalog = self._catalog()
        if catalog is None:
            return []
        current = link.drive.gearbox if link.drive is not None else None
        if current in catalog.gearboxes:
            series = catalog.gearboxes[current].series
            return [g for g, item in catalog.gearboxes.items() if item.series == series]
        return list(catalog.gearboxes)

    def add_choice(self, target: str, options: list[str] | None = None):
        """A row choosing ``target`` (``LINK.material`` or ``JOINT.drive``) among ``options`` (default:
        :meth:`default_options`). A joint's drive in a project with a cycle: the catalog pairs are then sized
        along the cycle in the worker (:func:`designer.optimize.sizing.size_cycle`, as ``size`` does) and the
        lightest feasible ones become the options; the worker is returned (None otherwise)."""
        if not target:
            return None
        given = options is not None
        options = self.default_options(target) if options is None else options
        row = self.choices.rowCount()
        self.choices.insertRow(row)
        item = QTableWidgetItem(target)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
        self.choices.setItem(row, TARGET, item)
        cell = QTableWidgetItem(", ".join(options))
        self.choices.setItem(row, OPTIONS, cell)
        model, catalog = self.document.model, self._catalog()
        if given or not target.endswith(".drive") or model.requirements.cycle is None or catalog is None:
            return None
        joint = int(target.partition(".")[0])

        def sized(pairs: list[str]) -> None:
            try:
                k = cell.row()
            except RuntimeError:   # the row was removed meanwhile
                return
            if k < 0:
                return
            if pairs:
                cell.setText(", ".join(pairs))
                self.message.setText(f"choice {k + 1}: the {len(pairs)} lightest gearbox+motor pairs that carry "
                                     f"joint {joint}'s load along the cycle (sizing, docs/catalogs.md)")
            else:
                self.message.setText(f"choice {k + 1}: no catalog pair carries joint {joint}'s load along the "
                                     "cycle; the options stay gearboxes")
        return self.runner.start("Sizing", lambda token: pairs_job(model, catalog, joint, PAIRS_OFFERED, token),
                                 sized, on_failed=lambda m, _d: self.message.setText(f"Sizing: {m}"))

    @staticmethod
    def _remove_row(table: QTableWidget) -> None:
        row = table.currentRow()
        if row >= 0:
            table.removeRow(row)

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
        return tuple(out)

    def choice_rows(self):
        """The choices' rows; ValueError naming a row without options."""
        from ..optimize.problem import Choice
        out = []
        for row in range(self.choices.rowCount()):
            target = self.choices.item(row, TARGET)
            cell = self.choices.item(row, OPTIONS)
            options = tuple(o.strip() for o in (cell.text() if cell is not None else "").split(",") if o.strip())
            if not options:
                raise ValueError(f"choice {row + 1} ({target.text() if target else ''}): give its options, "
                                 "separated by commas")
            out.append(Choice(target.text() if target is not None else "", options))
        return tuple(out)

    def objectives(self) -> list[tuple[str, bool]]:
        return parse_objectives(self.objective.currentText(), self.sense.currentText() == "maximize",
                                self.more_objectives.text())

    def _catalog(self):
        from ..catalog import CatalogError, load_catalog
        try:
            return load_catalog(self.document.path)
        except CatalogError:
            return None

    def problem(self):
        """The problem the dialog describes; ValueError (or OptimizeError) naming what is wrong, before any run:
        a bad cell, an option that names no material or catalog item."""
        from ..optimize.problem import Problem, Requirement, chosen_model
        model = self.document.model
        variables, choices = self.variables(), self.choice_rows()
        if not variables and not choices:
            raise ValueError("add a parameter to vary")
        reqs = Requirement.of_project(model) if self.use_requirements.isChecked() else ()
        (first, maximize), *_ = self.objectives()
        problem = Problem(model, variables, first, reqs, choices=choices, maximize=maximize,
                          payload=self.payload.value(), catalog=self._catalog())
        for k, c in enumerate(choices):   # each option applied alone: a name the catalogs lack is said now
            for option in c.options:
                picks = [cc.options[0] if j != k else option for j, cc in enumerate(choices)]
                chosen_model(problem, picks)
        return problem

    # -- running ----------------------------------------------------------------------------------------
    def start(self):
        """Run the optimizer in a worker; None (and a message) when the setup has a bad cell."""
        from ..optimize.problem import OptimizeError, optimize_job
        self._clear_result()
        try:
            problem = self.problem()
            objectives = self.objectives()
        except (ValueError, OptimizeError) as exc:
            self.message.setText(str(exc))
            return None
        self.summary.setPlainText("")

        def failed(message: str, _details: str) -> None:
            self.message.setText(f"Optimize: {message}")

        def cancelled() -> None:
            self.message.setText("Cancelled")

        if len(objectives) > 1:
            from ..optimize.pareto import Objective, pareto_job
            objs = [Objective(name, maximize) for name, maximize in objectives]
            population, generations = self.population.value(), self.generations.value()
            compute = self.compute_button.compute()
            self.message.setText(f"Pareto front of {len(objs)} objectives…")

            def front_found(front) -> None:
                self.found, self.found_model, self.found_problem = front, problem.model, problem
                self._show_front(problem, front)
            return self.runner.start("Optimize", lambda token: pareto_job(problem, objs, population, generations,
                                                                          0, None, token, spawn=True,
                                                                          compute=compute),
                                     front_found, on_failed=failed, on_cancelled=cancelled)

        self.message.setText("Optimizing…")
        starts = self.starts.value()

        def finished(result) -> None:
            self.found, self.found_model, self.found_problem = result, problem.model, problem
            self._show(problem, result)

        return self.runner.start("Optimize", lambda token: optimize_job(problem, starts, 0, 100, token), finished,
                                 on_failed=failed, on_cancelled=cancelled)

    def _show(self, problem, result) -> None:
        best = result.best if result.best is not None else result.closest
        lines = []
        if best is not None:
            word = "maximum" if problem.maximize else "minimum"
            lines.append(f"{word if result.best is not None else 'closest design:'} {problem.objective}: "
                         f"{best.objective:.6g}")
            lines += [f"  {name} = {value:.6g}" for name, value in best.values.items()]
            lines += [f"  {c.target} = {option}" for c, option in zip(problem.choices, best.picks)]
            for r, v in zip(problem.requirements, best.quantities):
                m = r.margin(v)
                lines.append(f"{r.text}: value {v:.6g}, margin {m:.3g}"
                             + ("" if math.isfinite(m) and m >= 0 else "  FAILS"))
        lines.append(f"{result.method}; {result.evaluations} evaluations")
        self.summary.setPlainText("\n".join(lines))
        self.objective_names = (problem.objective,)
        if result.best is None:
            self.message.setText("No design meets the requirements: nothing to apply")
            if best is not None:   # the closest one, shown but not to apply
                self.design_table.show_rows(design_rows(problem, best, [(problem.objective, best.objective)]))
            self.tabs.setCurrentWidget(self.summary)
            return
        self.designs = [result.best]
        self.objective_values = np.array([[result.best.objective]])
        self.message.setText("Done: Apply sets the project to the best design")
        self.select(0)
        self.tabs.setCurrentWidget(self.design_table)

    def _show_front(self, problem, front) -> None:
        self.designs = list(front.designs)
        self.objective_names = tuple(front.names)
        self.objective_values = np.asarray(front.objectives, float).reshape(len(self.designs), len(front.names))
        lines = [f"{front.method}; {front.evaluations} evaluations, population {front.population}, "
                 f"{front.generations} generations", f"{len(self.designs)} design(s) on the front"]
        lines += [f"  {i + 1}: " + ", ".join(f"{n} {v:.6g}" for n, v in zip(front.names, row))
                  for i, row in enumerate(self.objective_values)]
        if not self.designs and front.closest is not None:
            lines.append("no design meets the requirements; the closest:")
            for r, v in zip(problem.requirements, front.closest.quantities):
                m = r.margin(v)
                lines.append(f"{r.text}: value {v:.6g}, margin {m:.3g}"
                             + ("" if math.isfinite(m) and m >= 0 else "  FAILS"))
        self.summary.setPlainText("\n".join(lines))
        self.front.set_front(front.names, self.objective_values, front.maximize)
        if not self.designs:
            self.message.setText("No design meets the requirements: nothing to apply")
            return
        self.message.setText(f"Done: {len(self.designs)} design(s) on the front; click one, then Apply or A/B")
        self.front.select(front.pick("ideal"))   # the design nearest the ideal point, to start with

    def select(self, index: int) -> None:
        """Show design ``index`` of the result (the front's point, or the best design) and offer Apply and A/B."""
        if not 0 <= index < len(self.designs) or self.found_problem is None:
            return
        self.chosen = index
        d = self.designs[index]
        objectives = list(zip(self.objective_names, self.objective_values[index]))
        self.design_table.show_rows(design_rows(self.found_problem, d, objectives))
        self.apply_button.setEnabled(True)
        self.ab_button.setEnabled(True)
        if len(self.designs) > 1:
            self.tabs.setCurrentWidget(self.design_table)

    def design_model(self, index: int | None = None):
        """The current project made design ``index`` (default: the selected one): its choices applied and its
        parameters set (an edit made since the run stays)."""
        from dataclasses import replace

        from ..optimize.problem import chosen_model
        d = self.designs[self.chosen if index is None else index]
        problem = replace(self.found_problem, model=self.document.model)
        return chosen_model(problem, d.picks).with_parameters(d.values)

    def apply(self) -> bool:
        """Make the project the selected design: one undoable edit (False when there is none)."""
        if not 0 <= self.chosen < len(self.designs):
            return False
        d = self.designs[self.chosen]
        words = [f"{k} = {v:.4g}" for k, v in d.values.items()]
        words += [f"{c.target} = {o}" for c, o in zip(self.found_problem.choices, d.picks)]
        label = "Optimize: " + ", ".join(words)
        done = self.document.apply(self.design_model(), label)
        if done:
            self.message.setText(f"Applied ({label}); Edit > Undo takes it back")
        return done

    # -- A/B ------------------------------------------------------------------------------------------
    def start_ab(self):
        """The current design (A) beside the selected one (B), every explore metric at the slider pose and over
        workspace samples, in the worker; None when no design is selected."""
        if not 0 <= self.chosen < len(self.designs):
            return None
        from ..explore.joints import explore_joints
        a = self.document.model
        try:
            b = self.design_model()
        except Exception as exc:   # noqa: BLE001 - said, not raised into Qt
            self.message.setText(f"A/B: {exc}")
            return None
        q = explore_joints(a).pose(self.window_.sliders.values())
        label, payload = f"design {self.chosen + 1}", self.found_problem.payload
        self.message.setText(f"A/B: the current design against {label}…")

        def shown(rows) -> None:
            self.ab_table.show_rows(rows, label)
            self.tabs.setCurrentIndex(2)
            self.message.setText(f"A/B: the current design (A) against {label} (B)")
        return self.runner.start("A/B", lambda token: ab_job(a, b, q, payload, AB_SAMPLES, token), shown,
                                 on_failed=lambda m, _d: self.message.setText(f"A/B: {m}"))


def pairs_job(model, catalog, joint: int, count: int, token):
    """The ``count`` first gearbox+motor pairs of joint ``joint`` (its link number) ranked along the project's
    cycle (lightest feasible first), as ``GEARBOX+MOTOR`` options, as a job."""
    from ..jobs import Progress
    from ..optimize.sizing import size_cycle
    from ..review import cycle_motion
    yield Progress("sizing", None, f"joint {joint}: every catalog pair along the cycle")
    traj, _timing = cycle_motion(model, catalog)   # time-optimal when the project says so, as the review
    sizing = size_cycle(model, traj, catalog)
    token.check()
    ranked = sizing[joint].ranked if joint in sizing else []
    return [f"{p.gearbox.name}+{p.motor.name}" for p in ranked[:count]]


def ab_job(model_a, model_b, q, payload: float, samples: int, token):
    """The project's requirements reviewed for both designs (``where`` "requirement", the value each has where
    the requirement is worst), then Explore's A/B rows (:func:`designer.explore.compare.compare`) of the two,
    each rated by its own drives, with ``payload`` (kg) at the tool, as a job."""
    from ..explore.compare import _diff, compare
    from ..explore.joints import explore_arm
    from ..jobs import Progress
    from ..optimize.problem import _ratings
    from ..review import review
    rows = []
    if model_a.requirements.items:
        yield Progress("A/B", 0.0, "the requirements of both designs")
        for oa, ob in zip(review(model_a, strict=False), review(model_b, strict=False)):
            r = oa.requirement
            a = math.nan if oa.value is None else float(oa.value)
            b = math.nan if ob.value is None else float(ob.value)
            rows.append({"metric": f"{r.name or r.metric} ({r.text})", "where": "requirement", **_diff(a, b)})
        token.check()
    yield Progress("A/B", 0.5, f"every metric at the pose and over {samples} samples")
    arm_a, arm_b = explore_arm(model_a), explore_arm(model_b)
    rows += compare(arm_a, arm_b, q, _ratings(model_a, arm_a, payload), samples, stats=("max", "mean", "min"),
                    ratings_b=_ratings(model_b, arm_b, payload))
    token.check()
    return rows
