"""The inspector's Part box: make a link a section of a material, or a plain mass again.

A part-made link's mass, COM and inertia follow from the part (``model/parts.py``); the inspector
shows them read-only. Every edit is one undoable model change, and a bad dimension stays red
with its message while the model keeps the part it had, as in the DH table.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QWidget

from ..model.evaluate import real_value
from ..model.expr import ExpressionError, parse_expr
from ..model.parts import MATERIALS, SHAPES, Part, PartError, material_table, parts_of, wall_problem
from .cells import ExprLineEdit

__all__ = ["PartBox", "SHAPE_LABELS", "DIM_LABELS", "part_mass_text"]

SHAPE_LABELS = {"": "none (typed values)", "tube": "tube", "box_section": "box section",
                "cylinder": "solid cylinder", "box": "solid box"}
DIM_LABELS = {"outer_diameter": "outer diameter (m)", "wall": "wall (m)", "width": "width (m)",
              "height": "height (m)", "diameter": "diameter (m)"}
# what a new part starts with: a 60 mm aluminium tube with a 4 mm wall, a solid of 50 mm
_DEFAULT_DIMS = {"outer_diameter": "0.06", "wall": "0.004", "width": "0.05", "height": "0.05", "diameter": "0.05"}
_MAX_DIMS = max(len(d) for d in SHAPES.values())


def part_mass_text(model, link) -> str:
    """A part-made link's mass as the window shows it: its value at the parameters' defaults."""
    try:
        return f"{real_value(link.mass, model.parameter_values):.4g} kg (part)"
    except (ValueError, TypeError, ArithmeticError):
        return "(part)"


def _positive(text: str, where: str):
    value = parse_expr(text, where)
    if value.is_number and not float(value) > 0:
        raise ExpressionError("must be positive", where)
    return value


class PartBox(QGroupBox):
    """Shape, material and dimensions of the inspector's link (``set_link``)."""

    message = Signal(str)

    def __init__(self, document, parent: QWidget | None = None):
        super().__init__("Part: section and material", parent)
        self.document = document
        self.link_index = 0
        self.shape = QComboBox(self)
        for key, label in SHAPE_LABELS.items():
            self.shape.addItem(label, key)
        self.shape.setToolTip("A link made as a part gets its mass, centre of mass and inertia from the section "
                              "and material, along its DH segment")
        self.shape.activated.connect(self._shape_chosen)
        self.material = QComboBox(self)
        for combo in (self.shape, self.material):   # never wider than the panel needs: it shares the window
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(10)
        self.material.activated.connect(self._material_chosen)
        self.labels: list[QLabel] = []
        self.dims: list[ExprLineEdit] = []
        form = QFormLayout(self)
        form.addRow("shape", self.shape)
        form.addRow("material", self.material)
        for k in range(_MAX_DIMS):
            dim_label = QLabel(self)
            edit = ExprLineEdit(parser=_positive, parent=self)
            edit.committed.connect(lambda value, text, k=k: self._set_dim(k, value, text))
            edit.failed.connect(self.message)
            form.addRow(dim_label, edit)
            self.labels.append(dim_label)
            self.dims.append(edit)
        document.modelChanged.connect(self.refresh)
        self.refresh()

    def set_link(self, index: int) -> None:
        if index >= 0:
            self.link_index = index
            for edit in self.dims:
                edit._error = None
            self.refresh()

    def _link(self):
        return self.document.model.links[self.link_index]

    def _part(self) -> Part | None:
        return dict(parts_of(self.document.model)).get(self.link_index)

    def _materials(self) -> dict:
        return material_table(self.document.model)

    def refresh(self, *_args) -> None:
        model = self.document.model
        if model.n == 0:
            return
        self.link_index = min(self.link_index, model.n - 1)
        part = self._part()
        self.shape.setCurrentIndex(self.shape.findData(part.shape if part else ""))
        self.material.clear()
        for name, m in self._materials().items():
            self.material.addItem(name, name)
            self.material.setItemData(self.material.count() - 1,
                                      f"{m.density:g} kg/m³, E = {m.young / 1e9:g} GPa, G = {m.shear / 1e9:g} GPa",
                                      role=3)   # Qt.ToolTipRole
        self.material.setEnabled(part is not None)
        if part is not None:
            self.material.setCurrentIndex(self.material.findData(part.material.name))
        names = SHAPES[part.shape] if part else ()
        for k, (label, edit) in enumerate(zip(self.labels, self.dims)):
            shown = k < len(names)
            label.setVisible(shown)
            edit.setVisible(shown)
            if shown and part is not None:
                label.setText(DIM_LABELS[names[k]])
                edit.where = f"links[{self.link_index + 1}].part.{names[k]}"
                edit.set_value(part.dim(names[k]))

    # -- edits ---------------------------------------------------------------------
    def _apply(self, part: Part | None, label: str) -> None:
        model = self.document.model
        link = self._link()
        problem = wall_problem(part, model.parameter_values) if part is not None else None
        if problem:
            self.message.emit(f"links[{self.link_index + 1}].part.wall: {problem}")
            self.refresh()
            return
        try:
            new = model.with_link(self.link_index, replace(link, part=part))
        except PartError as exc:   # a segment of no length: say so, keep the model
            self.message.emit(str(exc))
            self.refresh()
            return
        self.document.apply(new, label)

    def _shape_chosen(self, _row: int) -> None:
        shape = self.shape.currentData()
        current = self._part()
        if (current.shape if current else "") == shape:
            return
        n = self.link_index + 1
        if not shape:
            # a plain link again, keeping the mass properties the part gave (now editable)
            self._apply(None, f"Make link {n} a plain mass")
            return
        material = current.material if current else MATERIALS["aluminium 6061-T6"]
        old = dict(current.dims) if current else {}
        dims = {k: old.get(k, sp.sympify(_DEFAULT_DIMS[k])) for k in SHAPES[shape]}
        self._apply(Part(shape, material, tuple(dims.items()), current.start if current else None,
                         current.end if current else None), f"Make link {n} a {SHAPE_LABELS[shape]}")

    def _material_chosen(self, _row: int) -> None:
        part = self._part()
        name = self.material.currentData()
        if part is None or name == part.material.name:
            return
        self._apply(replace(part, material=self._materials()[name]),
                    f"Make link {self.link_index + 1} of {name}")

    def _set_dim(self, k: int, value, text: str) -> None:
        part = self._part()
        if part is None:
            return
        key = SHAPES[part.shape][k]
        dims = dict(part.dims)
        dims[key] = value
        self._apply(replace(part, dims=tuple(dims.items())),
                    f"Set {key.replace('_', ' ')} of link {self.link_index + 1} to {text}")
