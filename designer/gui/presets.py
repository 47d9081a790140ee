"""A small dialog that fills a link's mass, COM and inertia from a few dimensions."""

from __future__ import annotations

from dataclasses import replace

import sympy as sp
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel,
                               QLineEdit, QVBoxLayout, QWidget)

from ..model import Convention, ExpressionError, Manipulator, format_expr, parse_expr
from ..model.manipulator import Inertia
from ..model import mass as bodies

__all__ = ["PresetDialog", "PRESETS"]

# kind -> (label, fields); a field is (key, label, default text)
PRESETS = {
    "thin rod": ("Thin rod from start to end", ["mass", "start", "end"]),
    "cylinder": ("Solid cylinder", ["mass", "radius", "length", "axis", "center"]),
    "box": ("Solid box, edges along the link axes", ["mass", "size", "center"]),
    "point mass": ("Point mass", ["mass", "center"]),
}
_LABELS = {"mass": "mass (kg)", "start": "start (x, y, z)", "end": "end (x, y, z)", "radius": "radius (m)",
           "length": "length (m)", "axis": "axis", "center": "centre (x, y, z)", "size": "size (x, y, z)"}


def _text(expr) -> str:
    return str(format_expr(expr))


def tidy(expr):
    """``expr`` with binary round-off taken out of its decimals (3 * 0.05**2 is 0.0075, not
    0.0075000000000000015): every float rounded to 12 significant digits."""
    expr = sp.sympify(expr)
    floats = expr.atoms(sp.Float)
    return expr.xreplace({f: sp.Float(f"{float(f):.12g}", 15) for f in floats}) if floats else expr


def tidy_body(body: bodies.Body) -> bodies.Body:
    return replace(body, mass=tidy(body.mass), com=tuple(tidy(c) for c in body.com),
                   inertia=Inertia(*(tidy(getattr(body.inertia, k)) for k in ("xx", "yy", "zz", "xy", "xz", "yz"))))


class PresetDialog(QDialog):
    """Choose a body and its dimensions; :meth:`body` gives the result."""

    def __init__(self, model: Manipulator, link_index: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"Mass preset for link {link_index + 1}")
        link = model.links[link_index]
        # a rod along the link: in the standard convention frame i is at the distal end,
        # so the link runs from (-a, 0, 0) to the origin; in the modified one along +x of the next a
        if model.convention is Convention.STANDARD:
            a = _text(link.a)
            rod = ((f"-({a})" if a != "0" else "0") + ", 0, 0", "0, 0, 0")
        else:  # a_i of link i is written in the next row
            nxt = model.links[link_index + 1] if link_index + 1 < model.n else None
            a = _text(nxt.a) if nxt is not None else "0"
            rod = ("0, 0, 0", f"{a}, 0, 0")
        along_link = a not in ("0", "")
        # the cylinder lies along the link: its length is a, along x (both conventions put a on x)
        defaults = {"mass": _text(link.mass), "start": rod[0], "end": rod[1], "radius": "0.05",
                    "length": a if along_link else "0.3", "axis": "x" if along_link else "z",
                    "center": ", ".join(_text(c) for c in link.com), "size": "0.1, 0.1, 0.1"}
        self.kind = QComboBox(self)
        for key, (label, _fields) in PRESETS.items():
            self.kind.addItem(label, key)
        self.fields: dict[str, QLineEdit | QComboBox] = {}
        form = QFormLayout()
        form.addRow("body", self.kind)
        self.rows: dict[str, tuple[QLabel, QWidget]] = {}
        for key, label in _LABELS.items():
            widget: QLineEdit | QComboBox
            if key == "axis":
                widget = QComboBox(self)
                widget.addItems(["x", "y", "z"])
                widget.setCurrentText(defaults[key])
            else:
                widget = QLineEdit(defaults[key], self)
                widget.textChanged.connect(self._check)
            lab = QLabel(label, self)
            form.addRow(lab, widget)
            self.fields[key] = widget
            self.rows[key] = (lab, widget)
        self.error = QLabel(self)
        self.error.setStyleSheet("color: #b00000")
        self.error.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self._kind_changed()

    def set_kind(self, kind: str) -> None:
        self.kind.setCurrentIndex(list(PRESETS).index(kind))

    def kind_label(self) -> str:
        return self.kind.currentData()

    def set_field(self, key: str, text: str) -> None:
        widget = self.fields[key]
        if isinstance(widget, QComboBox):
            widget.setCurrentText(text)
        else:
            widget.setText(text)

    def _kind_changed(self) -> None:
        wanted = PRESETS[self.kind.currentData()][1]
        for key, (lab, widget) in self.rows.items():
            lab.setVisible(key in wanted)
            widget.setVisible(key in wanted)
        self._check()

    def _text(self, key: str) -> str:
        widget = self.fields[key]
        return widget.currentText() if isinstance(widget, QComboBox) else widget.text()

    def _expr(self, key: str):
        return parse_expr(self._text(key), key)

    def _vec(self, key: str):
        parts = self._text(key).split(",")
        if len(parts) != 3:
            raise ExpressionError("give three values separated by commas", key)
        return tuple(parse_expr(p, key) for p in parts)

    def body(self) -> bodies.Body:
        """The chosen body, decimals free of round-off; raises ExpressionError for a bad field."""
        return tidy_body(self._body())

    def _body(self) -> bodies.Body:
        kind = self.kind.currentData()
        mass = self._expr("mass")
        if kind == "thin rod":
            return bodies.thin_rod(mass, self._vec("start"), self._vec("end"))
        if kind == "cylinder":
            return bodies.solid_cylinder(mass, self._expr("radius"), self._expr("length"),
                                         axis=self._text("axis"), center=self._vec("center"))
        if kind == "box":
            sx, sy, sz = self._vec("size")
            return bodies.box(mass, sx, sy, sz, center=self._vec("center"))
        return bodies.point_mass(mass, self._vec("center"))

    def _check(self) -> None:
        try:
            self.body()
        except ExpressionError as exc:
            self.error.setText(str(exc))
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
            return
        self.error.setText("")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(True)
