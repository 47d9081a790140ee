"""Parameters (every symbol with its default value), gravity and point masses."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QModelIndex, Signal
from PySide6.QtWidgets import (QFormLayout, QGroupBox, QHBoxLayout, QHeaderView, QInputDialog, QLabel,
                               QLineEdit, QTableView, QToolButton, QVBoxLayout, QWidget)

from ..model import ExpressionError, PointMass, is_valid_name
from ..model.units import parameter_units
from .cells import MISSING_COLOR, ExprLineEdit, ExprTableModel, parse_number

__all__ = ["ParametersModel", "PointMassModel", "ParametersPanel", "LoadsPanel"]


class ParametersModel(ExprTableModel):
    """One row per symbol the model uses or has a value for; missing values highlighted."""

    columns = ["symbol", "default value", "unit", "used"]

    _cache: tuple = (None, [], set(), {})

    def _info(self):
        """(names, used names, units) of the current model, computed once per model (paint asks often)."""
        model = self.document.model
        if self._cache[0] is not model:
            used = set(model.symbol_names())
            self._cache = (model, sorted(used | set(model.parameter_values)), used, parameter_units(model))
        return self._cache[1], self._cache[2]

    def unit(self, name: str) -> str:
        self._info()
        return self._cache[3].get(name, "")

    def names(self) -> list[str]:
        return self._info()[0]

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.names())

    def editable(self, row: int, col: int) -> bool:
        return col == 1

    def where(self, row: int, col: int) -> str:
        return f"parameters.{self.names()[row]}"

    def cell_value(self, row: int, col: int):
        name = self.names()[row]
        if col == 0:
            return name
        if col == 1:
            return self.document.model.parameter_values.get(name)
        if col == 2:
            return self.unit(name) or "—"
        return "yes" if name in self._info()[1] else "not used"

    def parse(self, row: int, col: int, text: str):
        return parse_number(text, self.where(row, col))

    def commit(self, row: int, col: int, value) -> None:
        name = self.names()[row]
        model = self.document.model
        if model.parameter_values.get(name) != value:
            self.document.apply(model.with_parameter(name, value), f"Set {name} to {self.typed}")

    def _missing(self, row: int) -> bool:
        name = self.names()[row]
        return name not in self.document.model.parameter_values

    def extra_background(self, row: int, col: int):
        return MISSING_COLOR if self._missing(row) else None

    def extra_tooltip(self, row: int, col: int):
        if self._missing(row):
            return "no default value: the symbol stays symbolic; the 3D view and numeric work need a value"
        return None


class PointMassModel(ExprTableModel):
    """Loads rigidly attached to links: link number, mass, position in that link's frame."""

    columns = ["link", "mass", "x", "y", "z"]
    units = ["", "kg", "m", "m", "m"]

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.document.model.point_masses)

    def where(self, row: int, col: int) -> str:
        return f"point_masses[{row + 1}].{self.columns[col]}"

    def cell_value(self, row: int, col: int):
        pm = self.document.model.point_masses[row]
        return (pm.link, pm.mass, *pm.position)[col]

    def parse(self, row: int, col: int, text: str):
        if col == 0:
            n = self.document.model.n
            try:
                value = int(text.strip())
            except ValueError:
                raise ExpressionError(f"a link number from 1 to {n}", self.where(row, col)) from None
            if not 1 <= value <= n:
                raise ExpressionError(f"no link {value} (links are numbered 1 to {n})", self.where(row, col))
            return value
        return super().parse(row, col, text)

    def commit(self, row: int, col: int, value) -> None:
        model = self.document.model
        pm = model.point_masses[row]
        if col == 0:
            new = replace(pm, link=value)
        elif col == 1:
            new = replace(pm, mass=value)
        else:
            pos = list(pm.position)
            pos[col - 2] = value
            new = replace(pm, position=tuple(pos))
        if new == pm:
            return
        loads = list(model.point_masses)
        loads[row] = new
        shown = str(value) if col == 0 else self.typed
        self.document.apply(replace(model, point_masses=tuple(loads)),
                            f"Set {self.columns[col]} of point mass {row + 1} to {shown}")


def _tool(parent, text: str, tip: str, slot) -> QToolButton:
    button = QToolButton(parent)
    button.setText(text)
    button.setToolTip(tip)
    button.clicked.connect(slot)
    return button


def _table(parent, model) -> QTableView:
    view = QTableView(parent)
    view.setModel(model)
    view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QTableView.SelectionMode.SingleSelection)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    view.verticalHeader().setDefaultSectionSize(24)
    return view


class ParametersPanel(QWidget):
    """The parameters table with Add and Remove."""

    message = Signal(str)

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.document = document
        self.table_model = ParametersModel(document, self)
        self.table_model.message.connect(self.message)
        self.view = _table(self, self.table_model)
        tools = QHBoxLayout()
        note = QLabel("Symbols in the model and their default values; yellow: no value yet.")
        note.setWordWrap(True)
        tools.addWidget(note, 1)
        tools.addWidget(_tool(self, "+", "Add a parameter", self.add_parameter))
        tools.addWidget(_tool(self, "−", "Remove the selected parameter's value", self.remove_parameter))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(tools)
        layout.addWidget(self.view)

    def add_parameter(self, name: str | None = None, value: float = 0.0) -> None:
        if name is None:
            name, ok = QInputDialog.getText(self, "Add parameter", "Name of the new parameter:")
            if not ok:
                return
        name = name.strip()
        if not is_valid_name(name):
            self.message.emit(f"parameters: '{name}' is not a valid parameter name")
            return
        model = self.document.model
        if name not in model.parameter_values:
            self.document.apply(model.with_parameter(name, value), f"Add parameter {name}")

    def remove_parameter(self) -> None:
        index = self.view.currentIndex()
        if not index.isValid():
            return
        name = self.table_model.names()[index.row()]
        model = self.document.model
        if name in model.parameter_values:
            self.document.apply(model.with_parameter(name, None), f"Remove value of {name}")


class LoadsPanel(QWidget):
    """The arm's name and description, the gravity vector and point masses."""

    message = Signal(str)

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.document = document
        arm_box = QGroupBox("Arm", self)
        form = QFormLayout(arm_box)
        self.name = QLineEdit(self)
        self.description = QLineEdit(self)
        self.name.editingFinished.connect(lambda: self._set_text("name", self.name.text()))
        self.description.editingFinished.connect(lambda: self._set_text("description", self.description.text()))
        form.addRow("name", self.name)
        form.addRow("description", self.description)

        gravity_box = self.gravity_box = QGroupBox("Gravity: acceleration in the base frame (m/s²)", self)
        row = QHBoxLayout(gravity_box)
        self.gravity = []
        for k, axis in enumerate("xyz"):
            edit = ExprLineEdit(f"gravity[{axis}]", parent=self)
            edit.committed.connect(lambda v, t, k=k: self._set_gravity(k, v, t))
            edit.failed.connect(self.message)
            row.addWidget(QLabel(axis))
            row.addWidget(edit)
            self.gravity.append(edit)

        loads_box = QGroupBox("Point masses (position in the link's frame)", self)
        self.table_model = PointMassModel(document, self)
        self.table_model.message.connect(self.message)
        self.view = _table(self, self.table_model)
        tools = QHBoxLayout()
        tools.addStretch(1)
        tools.addWidget(_tool(self, "+", "Add a point mass on the last link", self.add_point_mass))
        tools.addWidget(_tool(self, "−", "Remove the selected point mass", self.remove_point_mass))
        box_layout = QVBoxLayout(loads_box)
        box_layout.addLayout(tools)
        box_layout.addWidget(self.view)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(arm_box)
        layout.addWidget(gravity_box)
        layout.addWidget(loads_box, 1)
        document.modelChanged.connect(self.refresh)
        self.refresh()

    def refresh(self, *_args) -> None:
        model = self.document.model
        for edit, value in zip(self.gravity, model.gravity):
            edit.set_value(value)
        world = model.gravity_in_world and model.base is not None
        self.gravity_box.setTitle(f"Gravity: acceleration in the {'world' if world else 'base'} frame (m/s²)")
        for line, text in ((self.name, model.name), (self.description, model.description)):
            if line.text() != text:
                line.setText(text)
                line.setCursorPosition(0)
        self.description.setToolTip(model.description)

    def _set_text(self, field: str, text: str) -> None:
        model = self.document.model
        text = text.strip()
        if getattr(model, field) != text:
            label = f"Rename arm to {text!r}" if field == "name" else "Edit description"
            self.document.apply(replace(model, **{field: text}), label)

    def _set_gravity(self, k: int, value, text: str) -> None:
        model = self.document.model
        g = list(model.gravity)
        g[k] = value
        self.document.apply(replace(model, gravity=tuple(g)), f"Set gravity {'xyz'[k]} to {text}")

    def add_point_mass(self) -> None:
        model = self.document.model
        loads = (*model.point_masses, PointMass(link=model.n, mass=1))
        self.document.apply(replace(model, point_masses=loads), f"Add point mass on link {model.n}")

    def remove_point_mass(self) -> None:
        index = self.view.currentIndex()
        model = self.document.model
        if not index.isValid() or index.row() >= len(model.point_masses):
            return
        loads = list(model.point_masses)
        del loads[index.row()]
        self.document.apply(replace(model, point_masses=tuple(loads)), f"Remove point mass {index.row() + 1}")
