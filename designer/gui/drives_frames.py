"""Editors for what a project holds beyond the DH table: each joint's drive data and the base and tool frames.

Both are tables of :class:`~designer.gui.cells.ExprTableModel`: a bad entry stays red with its message (and is
listed under Problems) while the model keeps its last good value; every good entry is one undoable command.

The drive table has one column per field of :class:`~designer.model.Drive` (``DRIVE_FIELDS``): a field added
there appears here by itself, and :data:`~designer.model.extras.DRIVE_COLUMNS` gives it a label, its units
(revolute, prismatic) and whether zero is allowed, one line each (the design report reads it too). An empty
cell is "not known" (the field is left out of the file).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import QGroupBox, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from ..model import Drive, ExpressionError, Pose
from ..model.expr import parse_expr
from ..model.extras import DRIVE_COLUMNS, DRIVE_ORDER, ELASTIC_DRIVE_FIELDS, drive_column
from .cells import MISSING_COLOR, ExprTableModel, parse_number
from .params import _table as table_view

__all__ = ["DRIVE_COLUMNS", "DriveTableModel", "FramesTableModel", "DrivesPanel"]



def header_text(label: str, unit: str) -> str:
    """A narrow column title: the label's words on two lines, the unit (without its side) under them:
    "torsional\nstiffness\n(N·m/rad)"."""
    words = label.split()
    head = label if len(words) < 2 else f"{' '.join(words[:-1])}\n{words[-1]}"
    unit = unit.split(",")[0]
    return f"{head}\n({unit})" if unit else head


class DriveTableModel(ExprTableModel):
    """One row per joint, one column per drive field; numbers, never negative; the stiffness and damping may
    be a parameter's name (``k2``: its value in the Parameters table, sweepable)."""

    def __init__(self, document, parent=None):
        self.fields = list(DRIVE_ORDER)
        self.columns = [drive_column(f)[0] for f in self.fields]
        super().__init__(document, parent)

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self.document.model.n

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role in (Qt.ItemDataRole.DisplayRole,
                                                                  Qt.ItemDataRole.ToolTipRole):
            label, rev, pri, zero_ok = drive_column(self.fields[section])
            if role == Qt.ItemDataRole.DisplayRole:
                return header_text(label, rev)
            units = rev if rev == pri or not pri else f"{rev} for a revolute joint, {pri} for a prismatic one"
            return (f"{label}" + (f" in {units}" if units else "") + "; empty: not known"
                    + ("" if zero_ok else "; must be above zero"))
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return f"joint {section + 1}"
        return super().headerData(section, orientation, role)

    def where(self, row: int, col: int) -> str:
        return f"joint {row + 1}, {self.columns[col]}"

    def cell_value(self, row: int, col: int):
        drive = self.document.model.links[row].drive
        return None if drive is None else getattr(drive, self.fields[col])

    def _unvalued(self, row: int, col: int) -> list[str]:
        """The parameters a named drive value uses that have no value yet."""
        values = self.document.model.parameter_values
        return sorted(s.name for s in getattr(self.cell_value(row, col), "free_symbols", ()) if s.name not in values)

    def extra_background(self, row: int, col: int):
        return MISSING_COLOR if self._unvalued(row, col) else None

    def extra_tooltip(self, row: int, col: int) -> str | None:
        label, rev, pri, _ = drive_column(self.fields[col])
        unit = rev if self.document.model.links[row].is_revolute else pri
        named = "; a number or a parameter's name (k2)" if self.fields[col] in ELASTIC_DRIVE_FIELDS else ""
        missing = self._unvalued(row, col)
        missing_text = f"\n{', '.join(missing)}: no value yet, give it under Parameters" if missing else ""
        return f"{label} of joint {row + 1}" + (f" ({unit})" if unit else "") + named + missing_text

    def parse(self, row: int, col: int, text: str):
        if not text.strip():
            return None
        where = self.where(row, col)
        zero_ok = drive_column(self.fields[col])[3]
        if self.fields[col] in ELASTIC_DRIVE_FIELDS:   # a stiffness or damping may be named (k2), a parameter
            named = parse_expr(text, where)
            if named.free_symbols:
                return _checked_name(named, self.document.model.parameter_values, zero_ok, where)
        value = parse_number(text, where)
        if value < 0 or (value == 0 and not zero_ok):
            raise ExpressionError(f"must be {'zero or more' if zero_ok else 'above zero'}, not {value:g}", where)
        return value

    def commit(self, row: int, col: int, value) -> None:
        model = self.document.model
        link = model.links[row]
        drive = link.drive or Drive()
        name = self.fields[col]
        if getattr(drive, name) == value:
            return
        shown = "not known" if value is None else self.typed
        self.document.apply(model.with_link(row, replace(link, drive=replace(drive, **{name: value}))),
                            f"Set {self.columns[col]} of joint {row + 1} to {shown}")
        new = self._unvalued(row, col)
        if new:   # a name typed where a number was meant ("abc") must not pass unnoticed
            self.message.emit(f"{self.where(row, col)}: {', '.join(new)} is a new parameter without a value: give "
                              "it under Parameters (until then the arm has no natural frequency)")


def _checked_name(expr, values: dict[str, float], zero_ok: bool, where: str):
    """A named drive value: kept when its parameters' values (if all given) make an allowed number."""
    if all(sym.name in values for sym in expr.free_symbols):
        value = float(expr.xreplace({sym: values[sym.name] for sym in expr.free_symbols}))
        if value < 0 or (value == 0 and not zero_ok):
            raise ExpressionError(f"{expr} = {value:g} with the parameters' values: must be "
                                  f"{'zero or more' if zero_ok else 'above zero'}", where)
    return expr


_FRAME_ROWS = ("base", "tool")
_FRAME_TEXT = {"base": "base (DH frame 0 in the world)", "tool": "tool (in the last link's frame)"}


class FramesTableModel(ExprTableModel):
    """Two rows, the base and tool poses: translation (m) and URDF roll, pitch, yaw (rad); expressions allowed
    (``pi/2`` stays exact)."""

    columns = ["x", "y", "z", "roll", "pitch", "yaw"]
    units = ["m", "m", "m", "rad", "rad", "rad"]

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(_FRAME_ROWS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return _FRAME_ROWS[section]
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.ToolTipRole:
            return _FRAME_TEXT[_FRAME_ROWS[section]]
        return super().headerData(section, orientation, role)

    def where(self, row: int, col: int) -> str:
        return f"{_FRAME_ROWS[row]} frame, {self.columns[col]}"

    def _pose(self, row: int) -> Pose:
        return getattr(self.document.model, _FRAME_ROWS[row]) or Pose()

    def cell_value(self, row: int, col: int):
        pose = self._pose(row)
        return (*pose.xyz, *pose.rpy)[col]

    def commit(self, row: int, col: int, value) -> None:
        model = self.document.model
        pose = self._pose(row)
        values = [*pose.xyz, *pose.rpy]
        if values[col] == value:
            return
        values[col] = value
        name = _FRAME_ROWS[row]
        new = Pose(tuple(values[:3]), tuple(values[3:]))
        self.document.apply(replace(model, **{name: new}), f"Set {self.columns[col]} of the {name} frame to "
                                                           f"{self.typed}")


def _view(parent, model) -> QTableView:
    view = table_view(parent, model)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)  # units stay readable
    return view


class DrivesPanel(QWidget):
    """The drive table and the frames table, one under the other."""

    message = Signal(str)

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.drive_model = DriveTableModel(document, self)
        self.frames_model = FramesTableModel(document, self)
        for m in (self.drive_model, self.frames_model):
            m.message.connect(self.message)
        self.drive_view = _view(self, self.drive_model)
        self.frames_view = _view(self, self.frames_model)
        # short titles: a group box is at least as wide as its title, and this tab shares the left column
        drives = QGroupBox("Drives", self)
        drive_layout = QVBoxLayout(drives)
        note = QLabel("Motor and gearbox per joint, joint side unless said. Sizing and Explore use these; "
                      "File > Export C can add the drive terms (N² Jm and friction). Empty: not known.", drives)
        note.setWordWrap(True)
        drive_layout.addWidget(note)
        drive_layout.addWidget(self.drive_view)
        frames = QGroupBox("Base and tool frames", self)
        frames.setToolTip("translation, then roll-pitch-yaw as in URDF")
        frame_layout = QVBoxLayout(frames)
        frame_layout.addWidget(self.frames_view)
        self.frames_view.setMaximumHeight(self.frames_view.horizontalHeader().sizeHint().height() + 2 * 24 + 6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(drives, 1)
        layout.addWidget(frames)

    def sources(self) -> tuple[DriveTableModel, FramesTableModel]:
        """The tables whose refused entries Problems lists."""
        return self.drive_model, self.frames_model
