"""The DH table: one row per link (name, joint type, a, alpha, d, theta, mass)."""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (QAbstractButton, QComboBox, QHBoxLayout, QHeaderView, QLabel, QMessageBox,
                               QStyledItemDelegate, QTableView, QToolButton, QVBoxLayout, QWidget)

from ..kinematics.convention import convert_convention
from ..model import Convention, ExpressionError, JointType, Link, Manipulator
from .cells import ExprTableModel, expr_text
from .part_editor import part_mass_text
from .scroll_column import narrow_combo
from .table_headers import DH_HEADERS

__all__ = ["DHTableModel", "DHTable", "COLUMNS", "edit_links"]

COLUMNS = ["name", "joint", "a", "alpha", "d", "theta", "mass"]
_HEADER_TIPS = {
    "a": "link length (m); {conv}",
    "alpha": "link twist (rad); {conv}",
    "d": "link offset (m); for a prismatic joint the offset added to q_i",
    "theta": "joint angle offset (rad); for a revolute joint theta_i = theta + q_i",
    "mass": "link mass (kg)",
    "joint": "R = revolute, P = prismatic",
    "name": "a label for the link",
}
CONVENTION_TEXT = {
    Convention.STANDARD: "Standard DH (frame i at the distal end of link i)",
    Convention.MODIFIED: "Modified DH, Craig (frame i at joint i; a, α are a_(i-1), α_(i-1))",
}


class DHTableModel(ExprTableModel):
    columns = COLUMNS

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self.document.model.n

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        conv = self.document.model.convention
        if orientation == Qt.Orientation.Horizontal:
            if role == Qt.ItemDataRole.DisplayRole:
                return DH_HEADERS[conv][section]
            if role == Qt.ItemDataRole.ToolTipRole:
                return _HEADER_TIPS[COLUMNS[section]].format(conv=CONVENTION_TEXT[conv])
        return super().headerData(section, orientation, role)

    def where(self, row: int, col: int) -> str:
        # the table's own words (link 3, a), 1-based like its rows
        return f"link {row + 1}, {COLUMNS[col]}"

    def editable(self, row: int, col: int) -> bool:
        # a part makes the mass (the inspector's Part box edits it)
        return not (COLUMNS[col] == "mass" and self.document.model.links[row].part is not None)

    def display(self, row: int, col: int, value):
        link = self.document.model.links[row]
        if COLUMNS[col] == "mass" and link.part is not None:
            return part_mass_text(self.document.model, link)
        return super().display(row, col, value)

    def extra_tooltip(self, row: int, col: int) -> str | None:
        if COLUMNS[col] == "mass" and self.document.model.links[row].part is not None:
            return "made by the link's part: change its section or material in the inspector"
        return None

    def cell_value(self, row: int, col: int):
        link = self.document.model.links[row]
        key = COLUMNS[col]
        if key == "joint":
            return link.joint.value
        return getattr(link, key)

    def parse(self, row: int, col: int, text: str):
        key = COLUMNS[col]
        if key == "name":
            return text.strip()
        if key == "joint":
            value = text.strip().upper()[:1]
            if value not in ("R", "P"):
                raise ExpressionError("joint type must be R (revolute) or P (prismatic)", self.where(row, col))
            return JointType(value)
        return super().parse(row, col, text)

    def commit(self, row: int, col: int, value) -> None:
        model = self.document.model
        key = COLUMNS[col]
        link = model.links[row]
        if getattr(link, key) == value:
            return
        shown = value.value if key == "joint" else (self.typed if key != "name" else repr(value))
        changes = {key: value}
        note = ""
        if key == "joint" and link.limits is not None:
            # limits of a revolute joint are angles, of a prismatic one lengths: never reuse them silently
            old = ", ".join(expr_text(v) for v in link.limits)
            if value is JointType.PRISMATIC:
                changes["limits"] = None
                note = (f"link {row + 1} is now prismatic: its limits ({old}) were angles in rad and are removed; "
                        "give its stroke in metres in the Link tab")
            else:
                changes["limits"] = (-sp.pi, sp.pi)
                note = (f"link {row + 1} is now revolute: its limits ({old}) were lengths in m; "
                        "they are now -pi..pi rad")
        self.document.apply(model.with_link(row, replace(link, **changes)), f"Set {key} of link {row + 1} to {shown}")
        if note:
            self.message.emit(note)

    def _model_changed(self, model) -> None:
        super()._model_changed(model)
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(COLUMNS) - 1)


class JointTypeDelegate(QStyledItemDelegate):
    """A combo box for the joint column."""

    def createEditor(self, parent, option, index):
        combo = QComboBox(parent)
        combo.addItems(["R", "P"])
        return combo

    def setEditorData(self, editor, index):
        editor.setCurrentText(str(index.data(Qt.ItemDataRole.EditRole)))

    def setModelData(self, editor, model, index):
        model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)


def edit_links(model: Manipulator, links: list[Link], moved: dict[int, int | None]) -> Manipulator:
    """A model with a new link list; ``moved`` maps old link numbers (1-based) to new ones or None.

    Point masses follow their link; those on a removed link are dropped.
    """
    loads = []
    for pm in model.point_masses:
        target = moved.get(pm.link, pm.link)
        if target is not None:
            loads.append(replace(pm, link=target))
    return replace(model, links=tuple(links), point_masses=tuple(loads))


class DHTable(QWidget):
    """The table with its tool row: convention, add, remove, move up and down.

    ``currentLinkChanged(int)`` gives the selected row (-1 for none).
    """

    currentLinkChanged = Signal(int)

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.document = document
        self.table_model = DHTableModel(document, self)
        self.view = QTableView(self)
        self.view.setModel(self.table_model)
        self.view.setItemDelegateForColumn(COLUMNS.index("joint"), JointTypeDelegate(self.view))
        self.view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.view.setAlternatingRowColors(True)
        header = self.view.horizontalHeader()
        # every column as wide as its widest cell ("shou…", "0.08…" were cut when the columns shared
        # the width equally); the window gives the table its full width (full_width)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COLUMNS.index("name"), QHeaderView.ResizeMode.Stretch)   # the rest of the width
        self.view.verticalHeader().setDefaultSectionSize(24)

        self.convention = QComboBox(self)
        for conv in Convention:
            self.convention.addItem(CONVENTION_TEXT[conv].split(" (")[0], conv)
        self.convention.setToolTip("DH convention of the table; changing it keeps the numbers "
                                   "and reinterprets them")
        self.convention.activated.connect(self._convention_chosen)
        narrow_combo(self.convention, 6)
        self.buttons = {}
        tools = QHBoxLayout()
        label = QLabel("Convention:")
        label.setToolTip(self.convention.toolTip())
        label.setBuddy(self.convention)
        tools.addWidget(label)
        tools.addWidget(self.convention, 1)
        for key, text, tip, slot in (
                ("add", "+", "Add a link after the selected one", self.add_link),
                ("remove", "−", "Remove the selected link", self.remove_link),
                ("up", "↑", "Move the selected link towards the base", lambda: self.move_link(-1)),
                ("down", "↓", "Move the selected link towards the tool", lambda: self.move_link(1))):
            button = QToolButton(self)
            button.setText(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            self.buttons[key] = button
            tools.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(tools)
        layout.addWidget(self.view)

        self.view.selectionModel().currentRowChanged.connect(self._emit_current)
        self.table_model.modelReset.connect(self._restore_selection)
        document.modelChanged.connect(self._sync_convention)
        self._wanted_row = 0
        self._sync_convention(document.model)
        self.select_link(0)

    # -- size ------------------------------------------------------------------
    def full_width(self) -> int:
        """Pixels the table needs to show every column whole (with a vertical scroll bar's room)."""
        view = self.view
        columns = sum(max(view.sizeHintForColumn(c), view.horizontalHeader().sectionSizeHint(c))
                      for c in range(self.table_model.columnCount()))
        if self.isVisible():   # what the table adds around its cells, as laid out now
            chrome = self.width() - view.viewport().width()
        else:
            chrome = (view.verticalHeader().sizeHint().width() + 2 * view.frameWidth()
                      + view.verticalScrollBar().sizeHint().width())
        return columns + chrome + 2

    def full_height(self, rows: int | None = None) -> int:
        """Pixels the tool row and the table need to show ``rows`` rows (every link by default) whole."""
        view = self.view
        rows = self.table_model.rowCount() if rows is None else rows
        tools = self.convention.sizeHint().height()
        layout = self.layout()
        spacing = layout.spacing() if layout is not None else 0
        return (tools + spacing + view.horizontalHeader().sizeHint().height()
                + rows * view.verticalHeader().defaultSectionSize() + 2 * view.frameWidth()
                + view.horizontalScrollBar().sizeHint().height() + 4)

    # -- selection -------------------------------------------------------------
    def current_link(self) -> int:
        index = self.view.currentIndex()
        return index.row() if index.isValid() else -1

    def select_link(self, row: int) -> None:
        if self.document.model.n == 0:
            return
        row = max(0, min(row, self.document.model.n - 1))
        self._wanted_row = row
        self.view.selectRow(row)
        self.view.setCurrentIndex(self.table_model.index(row, max(0, self.view.currentIndex().column())))
        self._emit_current()

    def _restore_selection(self) -> None:
        self.select_link(self._wanted_row)

    def _emit_current(self, *_args) -> None:
        row = self.current_link()
        if row >= 0:
            self._wanted_row = row
        self._update_buttons()
        self.currentLinkChanged.emit(row)

    def _update_buttons(self) -> None:
        row, n = self.current_link(), self.document.model.n
        self.buttons["remove"].setEnabled(n > 1 and row >= 0)
        self.buttons["up"].setEnabled(row > 0)
        self.buttons["down"].setEnabled(0 <= row < n - 1)

    def _sync_convention(self, model) -> None:
        self.convention.setCurrentIndex(list(Convention).index(model.convention))
        self._update_buttons()

    # -- edits -------------------------------------------------------------------
    def _convention_chosen(self, index: int) -> None:
        conv = Convention(self.convention.itemData(index))
        model = self.document.model
        if conv == model.convention:
            return
        converted, note = convert_convention(model, conv)
        choice = self.ask_convention(self, conv, note)
        if choice == "convert":
            self.document.apply(converted, f"Convert the table to {conv.value} DH")
            if note:
                self.table_model.message.emit(f"Converted to {conv.value} DH: {note}")
        elif choice == "keep":
            self.document.apply(replace(model, convention=conv), f"Set convention to {conv.value}")
        else:
            self._sync_convention(model)   # cancelled: the combo shows the table's convention again

    @staticmethod
    def ask_convention(parent, conv: Convention, note: str) -> str | None:
        """"convert" (rewrite the table so the arm stays the same), "keep" (same numbers, read in the
        other convention: another arm) or None (cancel)."""
        box = QMessageBox(QMessageBox.Icon.Question, "Change the DH convention",
                          f"Switch the table to {CONVENTION_TEXT[conv]}?", parent=parent)
        box.setInformativeText("Convert rewrites a, α, the centres of mass, inertias and loads so the arm stays "
                               "the same arm. Keep numbers reads the same numbers in the other convention, "
                               "which describes a different arm." + (f"\n\nConverting: {note}." if note else ""))
        convert = box.addButton("Convert (same arm)", QMessageBox.ButtonRole.AcceptRole)
        keep = box.addButton("Keep numbers", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(convert)
        box.exec()
        choices: dict[QAbstractButton, str] = {convert: "convert", keep: "keep"}
        return choices.get(box.clickedButton())

    def add_link(self) -> None:
        model = self.document.model
        row = self.current_link()
        at = (row + 1) if row >= 0 else model.n
        links = list(model.links)
        links.insert(at, Link(name=f"link{model.n + 1}", a=0, mass=1))
        moved: dict[int, int | None] = {k: (k + 1 if k > at else k) for k in range(1, model.n + 1)}
        self._wanted_row = at
        self.document.apply(edit_links(model, links, moved), f"Add link {at + 1}")
        self.select_link(at)

    def remove_link(self) -> None:
        model = self.document.model
        row = self.current_link()
        if row < 0 or model.n <= 1:
            return
        links = list(model.links)
        del links[row]
        moved = {k: (None if k == row + 1 else (k - 1 if k > row + 1 else k)) for k in range(1, model.n + 1)}
        self._wanted_row = min(row, model.n - 2)
        self.document.apply(edit_links(model, links, moved), f"Remove link {row + 1}")
        self.select_link(self._wanted_row)

    def move_link(self, step: int) -> None:
        model = self.document.model
        row = self.current_link()
        other = row + step
        if row < 0 or not 0 <= other < model.n:
            return
        links = list(model.links)
        links[row], links[other] = links[other], links[row]
        moved: dict[int, int | None] = {row + 1: other + 1, other + 1: row + 1}
        self._wanted_row = other
        word = "up" if step < 0 else "down"
        self.document.apply(edit_links(model, links, moved), f"Move link {row + 1} {word}")
        self.select_link(other)
