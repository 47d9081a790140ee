"""The Requirements tab: the project's requirements edited, each shown as a live pass or fail with its margin.

Every edit (add, remove, a metric, a bound, a value, where it holds, its name, the payload) is one undoable edit of the
document's model (format version 4: :mod:`designer.model.requirements`). After each change of the model the
review (:func:`designer.review.review_job`) runs in a worker through a :class:`~designer.gui.job_runner.JobRunner`
(progress, Cancel); its outcomes belong to the open project (a :class:`ProjectSlot`). Clicking a requirement poses
the arm where it is worst (``poseRequested``, the sliders' tree pose: a closed chain's passive joints follow).
Where a requirement holds (typed poses, a box) and the cycle's waypoints are typed below the table, each edit checked
as opening the file checks it (gui/requirements_edit.py); below them, each driven joint's catalog gearbox and motor.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDoubleSpinBox, QHBoxLayout, QHeaderView,
                               QLabel, QLineEdit, QPushButton, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from ..model.requirements import BOUNDS, Cycle, Payload, Requirement, Requirements, Where
from .job_runner import JobRunner
from .optimize_dialog import OptimizeDialog
from .project_state import ProjectSlot
from .requirements_edit import WHERE_HELP, DriveItemsEditor, checked, parse_poses, poses_text, where_field, where_text

__all__ = ["RequirementsPanel", "COLUMNS"]

COLUMNS = ("Metric", "Bound", "Value", "Where", "Result", "Margin", "Worst where", "Name")
METRIC, BOUND, VALUE, WHERE, RESULT, MARGIN, WORST, NAME = range(len(COLUMNS))
PASS_COLOUR, FAIL_COLOUR, ERROR_COLOUR = QColor("#d8f5d0"), QColor("#ffd6d6"), QColor("#fff3c4")
REVIEW_DELAY_MS = 300   # one review after a burst of edits
#: the choices of the Where column (the pose choices appear when the requirement has them)
WHERE_CHOICES = ("zero", "cycle", "this pose", "+ this pose")


class RequirementsPanel(QWidget):
    """Edit the requirements; review them live; pose the arm where one is worst."""

    poseRequested = Signal(list)   # the tree pose (every joint) to show
    reviewed = Signal()            # a review's outcomes are shown

    outcomes = ProjectSlot()       # the last review's outcomes (a list), for the model in ``reviewed_model``
    reviewed_model = ProjectSlot()

    def __init__(self, window, parent: QWidget | None = None):
        super().__init__(parent or window)
        self.main = window
        self.document = window.document
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        outer.addWidget(self.splitter)
        top = QWidget(self.splitter)
        layout = QVBoxLayout(top)
        layout.setContentsMargins(4, 4, 4, 0)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.itemChanged.connect(self._item_changed)
        self.table.cellClicked.connect(lambda row, _col: self.show_worst(row))
        self.table.currentCellChanged.connect(lambda row, *_: self._show_where(row))
        layout.addWidget(self.table, 1)
        where = QHBoxLayout()
        self.where_label = QLabel("Where:", self)
        where.addWidget(self.where_label)
        self.where_edit = QLineEdit(self)
        self.where_edit.setPlaceholderText("select a requirement; then type where it holds")
        self.where_edit.setToolTip("Where the selected requirement holds: " + WHERE_HELP)
        self.where_edit.editingFinished.connect(self._where_typed)
        where.addWidget(self.where_edit, 1)
        layout.addLayout(where)

        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add", self)
        self.add_button.setToolTip("Add a requirement (edit its metric, bound, value and where in the table)")
        self.add_button.clicked.connect(self.add_requirement)
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.clicked.connect(self.remove_selected)
        self.review_button = QPushButton("Review", self)
        self.review_button.setToolTip("Evaluate every requirement again (it runs by itself after each edit)")
        self.review_button.clicked.connect(self.start_review)
        self.optimize_button = QPushButton("Optimize…", self)
        self.optimize_button.setToolTip("Vary parameters of the project for the lightest (or best) design that meets "
                                        "these requirements (docs/optimize.md)")
        self.optimize_button.clicked.connect(self.open_optimize)
        self.optimize_dialog: OptimizeDialog | None = None
        for b in (self.add_button, self.remove_button, self.review_button, self.optimize_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout.addLayout(buttons)

        payload = QHBoxLayout()
        payload.addWidget(QLabel("Payload (kg)", self))
        self.payload_mass = QDoubleSpinBox(self)
        self.payload_mass.setRange(0.0, 1e5)
        self.payload_mass.setDecimals(3)
        self.payload_mass.setKeyboardTracking(False)
        self.payload_mass.valueChanged.connect(self._payload_edited)
        payload.addWidget(self.payload_mass)
        payload.addWidget(QLabel("at offset x y z (m)", self))
        self.payload_offset = QLineEdit(self)
        self.payload_offset.setPlaceholderText("0 0 0")
        self.payload_offset.editingFinished.connect(self._payload_edited)
        payload.addWidget(self.payload_offset, 1)
        layout.addLayout(payload)
        cycle = QHBoxLayout()
        self.cycle_label = QLabel("Cycle:", self)
        cycle.addWidget(self.cycle_label)
        self.waypoints_edit = QLineEdit(self)
        self.waypoints_edit.setPlaceholderText("none: type waypoints q1 q2 ..; q1 q2 .. (rad or m), or add the pose")
        self.waypoints_edit.setToolTip("The cycle's waypoints, poses of the metrics' joints (rad or m) separated by "
                                       "';', joined by rest-to-rest moves sharing the cycle time; or file: PATH.csv, "
                                       "a trajectory t, q1..qn relative to the project's folder")
        self.waypoints_edit.editingFinished.connect(self._waypoints_typed)
        cycle.addWidget(self.waypoints_edit, 1)
        layout.addLayout(cycle)
        cycle = QHBoxLayout()
        cycle.addStretch(1)
        self.waypoint_button = QPushButton("+ pose", self)
        self.waypoint_button.setToolTip("Add the slider pose to the cycle's waypoints (a cycle from a trajectory "
                                        "file becomes one of waypoints)")
        self.waypoint_button.clicked.connect(self.add_waypoint)
        cycle.addWidget(self.waypoint_button)
        cycle.addWidget(QLabel("in (s)", self))
        self.cycle_time = QDoubleSpinBox(self)
        self.cycle_time.setRange(0.01, 1e5)
        self.cycle_time.setValue(2.0)
        self.cycle_time.setKeyboardTracking(False)
        self.cycle_time.valueChanged.connect(self._cycle_time_edited)
        cycle.addWidget(self.cycle_time)
        self.time_optimal = QCheckBox("time-optimal", self)
        self.time_optimal.setToolTip("Time the cycle (its waypoints' lines, or a trajectory file's path) as fast as "
                                     "the drives' peak torques and rated speeds allow, instead of its own timing "
                                     "(the cycle time above, or the file's times): docs/project-format.md, cycle")
        self.time_optimal.toggled.connect(self._time_optimal_toggled)
        cycle.addWidget(self.time_optimal)
        self.clear_cycle_button = QPushButton("Clear cycle", self)
        self.clear_cycle_button.clicked.connect(self.clear_cycle)
        cycle.addWidget(self.clear_cycle_button)
        layout.addLayout(cycle)
        self.cycle_info = QLabel(self)   # the reviewed cycle's duration and timing
        self.cycle_info.setWordWrap(True)
        layout.addWidget(self.cycle_info)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.runner = JobRunner(self, status_line=False)
        layout.addWidget(self.runner)
        self.drives = DriveItemsEditor(self.document, self.splitter)
        self.drives.message.connect(self.summary.setText)
        self.document.pathChanged.connect(lambda _path: self.drives.reload())
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)

        self._filling = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REVIEW_DELAY_MS)
        self._timer.timeout.connect(self.start_review)
        self.document.modelChanged.connect(self._model_changed)
        self._model_changed(self.document.model)

    # -- the project ---------------------------------------------------------------------
    def forget_project(self) -> None:
        """Another project replaced the open one: its outcomes go (the new model arrives next)."""
        self.runner.cancel()
        if self.optimize_dialog is not None:
            self.optimize_dialog.forget_project()
        self.outcomes, self.reviewed_model = None, None
        self.table.setRowCount(0)
        self.summary.setText("")

    @property
    def requirements(self) -> Requirements:
        return self.document.model.requirements

    def _apply(self, requirements: Requirements, label: str) -> bool:
        return self.document.apply(replace(self.document.model, requirements=requirements), label)

    def _model_changed(self, model) -> None:
        self._fill(model.requirements)
        self.drives.fill(model)
        if model.requirements.items:
            self._timer.start()
        else:
            self.runner.cancel()
            self.outcomes, self.reviewed_model = [], model
            self._show_outcomes()

    # -- editing ---------------------------------------------------------------------------
    def add_requirement(self) -> None:
        req = self.requirements
        new = Requirement("gravity", "<=", 100.0)
        self._apply(replace(req, items=req.items + (new,)), "Add requirement")

    def remove_selected(self) -> None:
        row = self.table.currentRow()
        req = self.requirements
        if 0 <= row < len(req.items):
            items = req.items[:row] + req.items[row + 1:]
            self._apply(replace(req, items=items), f"Remove requirement {row + 1}")

    def set_requirement(self, row: int, requirement: Requirement, label: str) -> bool:
        req = self.requirements
        items = list(req.items)
        items[row] = requirement
        return self._apply(replace(req, items=tuple(items)), label)

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling:
            return
        row, col = item.row(), item.column()
        old = self.requirements.items[row]
        text = item.text().strip().replace(" ", "")
        if col == NAME:
            self.set_name(row, item.text())
        elif col == METRIC:
            import re
            if not re.match(r"^[A-Za-z_]+(\[[0-9]+(,[0-9]+)?\])?$", text):
                self._refuse(f"requirement {row + 1}: write a metric name, name[i] or name[i,j]")
                return
            from ..explore.metrics import METRICS
            from ..review import REVIEW_METRICS
            name = text.partition("[")[0]
            if name not in METRICS and name not in REVIEW_METRICS:
                self._refuse(f"requirement {row + 1}: unknown metric '{name}' (known: "
                             f"{', '.join([*METRICS, *REVIEW_METRICS])})")
                return
            self.set_requirement(row, replace(old, metric=text), f"Requirement {row + 1}: metric {text}")
        elif col == VALUE:
            try:
                value = float(text)
            except ValueError:
                value = float("nan")
            if not np.isfinite(value):
                self._refuse(f"requirement {row + 1}: the bound's value must be a finite number, not {item.text()!r}")
                return
            self.set_requirement(row, replace(old, value=value), f"Requirement {row + 1}: value {value:g}")

    def set_name(self, row: int, name: str) -> bool:
        """Requirement ``row``'s name (empty: unnamed): one undoable edit, checked as opening the file checks it
        (one line, at most 200 characters, not another requirement's name); refused with that message, the name
        as it was shown again."""
        if not 0 <= row < len(self.requirements.items):
            return False
        name = name.strip()
        if name == self.requirements.items[row].name:
            self._fill(self.requirements)
            return False
        data = self._fields()
        entry = data["requirements"][row]
        entry.pop("name", None)
        if name:
            entry["name"] = name
        return self.apply_fields(data, f"Requirement {row + 1}: name {name!r}" if name else
                                 f"Requirement {row + 1}: no name")

    def _refuse(self, message: str) -> None:
        """A refused entry: say so, and show the requirement as it was (nothing is lost)."""
        self._fill(self.requirements)
        self.summary.setText(message)

    def _bound_chosen(self, row: int, bound: str) -> None:
        if not self._filling and bound != self.requirements.items[row].bound:
            self.set_requirement(row, replace(self.requirements.items[row], bound=bound),
                                 f"Requirement {row + 1}: bound {bound}")

    def _where_chosen(self, row: int, choice: str) -> None:
        if self._filling:
            return
        old = self.requirements.items[row]
        if choice == "zero":
            where = Where()
        elif choice == "cycle":
            if self.requirements.cycle is None:
                self._refuse(f"requirement {row + 1}: the project has no cycle (docs/project-format.md)")
                return
            where = Where("cycle")
        elif choice == "this pose":
            where = Where("poses", poses=(tuple(self._metric_pose()),))
        elif choice == "+ this pose":   # the slider pose added to the requirement's poses
            kept = old.where.poses if old.where.kind == "poses" else ()
            where = Where("poses", poses=kept + (tuple(self._metric_pose()),))
        else:
            return   # the requirement's own poses or box, unchanged
        self.set_requirement(row, replace(old, where=where), f"Requirement {row + 1}: where {choice}")

    def apply_fields(self, data: dict, label: str) -> bool:
        """The project file's requirement fields ``data`` (requirements_json's form) checked as opening a file
        checks them, then applied as one undoable edit; refused (a message, nothing changed) when one is bad."""
        req, problem = checked(self.document.model, data)
        if req is None:
            self._refuse(problem)
            return False
        if req == self.requirements:
            self._fill(req)
            return False
        return self._apply(req, label)

    def _fields(self) -> dict:
        from ..project.requirements import requirements_json
        return requirements_json(self.requirements)

    def set_where_text(self, row: int, text: str) -> bool:
        """Requirement ``row`` holds where ``text`` says (:data:`WHERE_HELP`): one undoable edit, or refused."""
        if not 0 <= row < len(self.requirements.items):
            return False
        try:
            field = where_field(text, f"requirement {row + 1}, where")
        except ValueError as exc:
            self._refuse(str(exc))
            return False
        data = self._fields()
        data["requirements"][row]["where"] = field
        return self.apply_fields(data, f"Requirement {row + 1}: where {text.strip() or 'zero'}")

    def _where_typed(self) -> None:
        row = self.table.currentRow()
        if 0 <= row < len(self.requirements.items) and \
                self.where_edit.text().strip() != where_text(self.requirements.items[row].where):
            self.set_where_text(row, self.where_edit.text())

    def _show_where(self, row: int) -> None:
        items = self.requirements.items
        if 0 <= row < len(items):
            self.where_label.setText(f"Where {row + 1}:")
            self.where_edit.setText(where_text(items[row].where))
            self.where_edit.setEnabled(True)
        else:
            self.where_label.setText("Where:")
            self.where_edit.setText("")
            self.where_edit.setEnabled(bool(items))

    def set_waypoints_text(self, text: str) -> bool:
        """The cycle's waypoints typed (``q1 q2 ..; q1 q2 ..``), at the cycle time shown, or ``file: PATH.csv`` (a
        trajectory ``t, q1..qn``, relative to the project's folder): one undoable edit, or refused; empty text
        clears the cycle (refused while a requirement holds along it)."""
        if not text.strip():
            if self.requirements.cycle is None:
                return False
            return self.clear_cycle()
        if text.strip().lower().startswith("file:"):
            return self.set_trajectory(text.strip()[5:].strip())
        try:
            points = parse_poses(text, "cycle waypoints")
        except ValueError as exc:
            self._refuse(str(exc))
            return False
        c = self.requirements.cycle
        time = c.time if c is not None and c.time > 0 else self.cycle_time.value()
        data = self._fields()
        timing = c.timing if c is not None else ""   # a time-optimal cycle (of waypoints or a file) stays one
        data["cycle"] = {"waypoints": points, "timing": timing} if timing else {"waypoints": points, "time": time}
        return self.apply_fields(data, "Cycle waypoints")

    def set_trajectory(self, name: str) -> bool:
        """The cycle from the trajectory file ``name`` (relative to the project's folder), read now: one undoable
        edit, or refused naming the file and what is wrong with it."""
        from pathlib import Path

        from ..model.requirements import Cycle
        from ..review import ReviewError, cycle_trajectory
        if not name:
            self._refuse("cycle: after 'file:' give a CSV file of t, q1..qn")
            return False
        folder = self.document.path.parent if self.document.path is not None else Path.cwd()
        path = (folder / name).resolve()
        if not path.is_file():
            self._refuse(f"cycle.trajectory: no file {path}")
            return False
        model = self.document.model
        numbers = [i + 1 for i, link in enumerate(model.links) if link.actuated]
        c = self.requirements.cycle
        cycle = Cycle(trajectory=str(path), timing=c.timing if c is not None else "")   # time-optimal stays so
        try:
            cycle_trajectory(cycle, len(numbers), numbers)
        except ReviewError as exc:
            self._refuse(str(exc))
            return False
        return self._apply(replace(self.requirements, cycle=cycle), f"Cycle: {path.name}")

    def _waypoints_typed(self) -> None:
        c = self.requirements.cycle
        shown = "" if c is None else f"file: {c.trajectory}" if c.trajectory else poses_text(c.waypoints)
        if self.waypoints_edit.text().strip() != shown:
            self.set_waypoints_text(self.waypoints_edit.text())

    def _payload_edited(self) -> None:
        if self._filling:
            return
        try:
            offset = tuple(float(v) for v in self.payload_offset.text().replace(",", " ").split()) or (0.0, 0.0, 0.0)
        except ValueError:
            offset = ()
        if len(offset) != 3 or not all(np.isfinite(offset)):
            self._refuse("payload offset: write three numbers x y z (m)")
            return
        mass = self.payload_mass.value()
        payload = None if mass == 0 and offset == (0.0, 0.0, 0.0) else Payload(mass, offset)
        if payload != self.requirements.payload:
            self._apply(replace(self.requirements, payload=payload), "Payload")

    def add_waypoint(self) -> None:
        req = self.requirements
        c = req.cycle
        kept = c.waypoints if c is not None and not c.trajectory else ()
        time = c.time if c is not None and c.time > 0 else self.cycle_time.value()
        if len(kept) + 1 < 2:   # a cycle needs two waypoints: the first added pose starts it and ends it
            points = (tuple(self._metric_pose()),) * 2
        else:
            points = kept + (tuple(self._metric_pose()),)
        timing = c.timing if c is not None else ""   # a time-optimal cycle (of waypoints or a file) stays one
        self._apply(replace(req, cycle=Cycle(waypoints=points, time=0.0 if timing else time, timing=timing)),
                    "Add cycle waypoint")

    def _cycle_time_edited(self, value: float) -> None:
        c = self.requirements.cycle
        if not self._filling and c is not None and not c.trajectory and value != c.time:
            # a time given: the cycle shares it (no longer time-optimal)
            self._apply(replace(self.requirements, cycle=replace(c, time=value, timing="")), "Cycle time")

    def set_time_optimal(self, on: bool) -> bool:
        """The cycle timed as fast as the drives allow (``on``) or by its own timing (a waypoints cycle then shares
        the cycle time shown, a file keeps its times): one undoable edit; refused without a cycle."""
        c = self.requirements.cycle
        if c is None:
            self._refuse("time-optimal: the project has no cycle: type its waypoints or a file first")
            return False
        if (c.timing == "time-optimal") == on:
            return False
        if on:
            cycle = replace(c, timing="time-optimal", time=0.0)
        else:
            cycle = replace(c, timing="", time=0.0 if c.trajectory else self.cycle_time.value())
        return self._apply(replace(self.requirements, cycle=cycle),
                           "Cycle: time-optimal" if on else "Cycle: its own timing")

    def _time_optimal_toggled(self, on: bool) -> None:
        if not self._filling and not self.set_time_optimal(on):
            self._fill(self.requirements)   # refused: show the cycle as it is

    def clear_cycle(self) -> bool:
        req = self.requirements
        if any(r.where.kind == "cycle" for r in req.items):
            self._refuse("a requirement holds along the cycle: change its Where first")
            return False
        return self._apply(replace(req, cycle=None), "Clear cycle")

    # -- the view ------------------------------------------------------------------------------
    def _fill(self, req: Requirements) -> None:
        self._filling = True
        try:
            self.table.setRowCount(len(req.items))
            for row, r in enumerate(req.items):
                self.table.setItem(row, METRIC, QTableWidgetItem(r.metric))
                bound = QComboBox(self.table)
                bound.addItems(list(BOUNDS))
                bound.setCurrentText(r.bound)
                bound.currentTextChanged.connect(lambda text, row=row: self._bound_chosen(row, text))
                self.table.setCellWidget(row, BOUND, bound)
                self.table.setItem(row, VALUE, QTableWidgetItem(f"{r.value:g}"))
                where = QComboBox(self.table)
                own = [r.where.text] if r.where.kind in ("poses", "box") else []
                where.addItems(own + list(WHERE_CHOICES))
                where.setCurrentText(r.where.text if own else r.where.kind)
                where.textActivated.connect(lambda text, row=row: self._where_chosen(row, text))
                self.table.setCellWidget(row, WHERE, where)
                for col in (RESULT, MARGIN, WORST):
                    item = QTableWidgetItem("")
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                    self.table.setItem(row, col, item)
                name = QTableWidgetItem(r.name)
                name.setToolTip("The requirement's name, as the review and the report show it (optional; each "
                                "requirement's own)")
                self.table.setItem(row, NAME, name)
            p = req.payload
            self.payload_mass.setValue(0.0 if p is None else p.mass)
            self.payload_offset.setText("" if p is None else " ".join(f"{v:g}" for v in p.offset))
            c = req.cycle
            self.cycle_label.setText("Cycle (time-optimal):" if c is not None and c.timing else "Cycle:")
            self.waypoints_edit.setText("" if c is None else f"file: {c.trajectory}" if c.trajectory else
                                        poses_text(c.waypoints))
            if c is not None and c.time > 0:
                self.cycle_time.setValue(c.time)
            self.time_optimal.setChecked(c is not None and c.timing == "time-optimal")
            self.time_optimal.setEnabled(c is not None)
            if c is None:
                self.cycle_info.setText("")
            self._show_where(self.table.currentRow())
        finally:
            self._filling = False
        if self.outcomes and self.reviewed_model is not None and self._current(self.reviewed_model):
            self._show_outcomes()

    def _show_outcomes(self) -> None:
        outcomes = self.outcomes or []
        if len(outcomes) != self.table.rowCount():
            return
        self._filling = True
        try:
            for row, o in enumerate(outcomes):
                if o.error:
                    texts, colour = ("cannot evaluate", "", o.error), ERROR_COLOUR
                else:
                    rel = o.relative_margin
                    margin = f"{o.margin:.4g}" + ("" if rel is None or not np.isfinite(rel)
                                                  else f" ({100 * rel:+.1f} %)")
                    unit = "" if o.unit == "1" else f" {o.unit}"
                    texts = (f"{'pass' if o.passed else 'FAIL'}: {o.value:.4g}{unit}", margin, o.where_text)
                    colour = PASS_COLOUR if o.passed else FAIL_COLOUR
                for col, text in zip((RESULT, MARGIN, WORST), texts):
                    item = self.table.item(row, col)
                    assert item is not None
                    item.setText(text)
                    item.setToolTip(text)
                    item.setBackground(QBrush(colour))
        finally:
            self._filling = False
        passed = sum(o.passed for o in outcomes)
        self.summary.setText(f"{passed} of {len(outcomes)} requirement(s) pass" if outcomes else
                             "No requirements: Add one, or open a project with some "
                             "(robots/tube_arm_requirements.json)")

    def open_optimize(self):
        """The Optimize… dialog (gui/optimize_dialog.py), its parameter list filled from the open project."""
        if self.optimize_dialog is None:
            self.optimize_dialog = OptimizeDialog(self.main, self)
        self.optimize_dialog.refresh()
        self.optimize_dialog.show()
        self.optimize_dialog.raise_()
        return self.optimize_dialog

    # -- the review ---------------------------------------------------------------------------
    def start_review(self):
        model = self.document.model
        if not model.requirements.items:
            return None
        self.summary.setText("Reviewing…")

        def finished(result) -> None:
            outcomes, timing = result
            self.outcomes, self.reviewed_model = outcomes, model
            if self._current(model):
                self.cycle_info.setText(timing)
                self._show_outcomes()
                self.reviewed.emit()

        path = self.document.path   # the catalogs beside it: prices (cost), stiffness curves
        return self.runner.start("Review", lambda token: _review_and_cycle(model, token, path), finished)

    def _current(self, model, other=None) -> bool:
        """Whether ``model`` is ``other`` (default: the open model) with the same requirements (a model's == leaves
        its requirements out)."""
        other = self.document.model if other is None else other
        return model == other and model.requirements == other.requirements

    def report_rows(self, model) -> list[dict] | None:
        """The outcomes of ``model``'s review as the design report takes them; None when not reviewed yet."""
        if not model.requirements.items or self.outcomes is None or self.reviewed_model is None or \
                not self._current(model, self.reviewed_model):
            return None
        return [o.as_dict() for o in self.outcomes]

    # -- posing the arm -------------------------------------------------------------------------
    def _metric_pose(self) -> np.ndarray:
        from ..explore.joints import explore_joints
        return explore_joints(self.document.model).pose(self.main.sliders.values())

    def show_worst(self, row: int) -> bool:
        """Pose the arm where requirement ``row`` is worst (False when the review has no pose for it)."""
        outcomes = self.outcomes or []
        if not 0 <= row < len(outcomes) or outcomes[row].pose is None:
            return False
        from ..explore.joints import explore_joints
        joints = explore_joints(self.document.model)
        q = joints.tree_pose(outcomes[row].pose, self.main.sliders.values())
        self.poseRequested.emit([float(v) for v in q])
        return True


def _review_and_cycle(model, token, path):
    """The review's outcomes and a sentence on the cycle's motion as the review took it (its duration and timing;
    "" without a cycle), as a job: :func:`designer.review.review_cycle_job`, so a time-optimal cycle is timed
    once, by the review, not again for the sentence."""
    from ..review import review_cycle_job
    outcomes, motion, timing = yield from review_cycle_job(model, token, project=path)
    if motion is None:
        return outcomes, f"Cycle: {timing}" if timing else ""
    return outcomes, f"Cycle time {motion.t[-1] - motion.t[0]:.4g} s ({timing})"
