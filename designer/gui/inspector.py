"""The link inspector: centre of mass, the symmetric inertia tensor, joint limits, mass presets."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QCheckBox, QGridLayout, QGroupBox, QHBoxLayout, QLabel,
                               QPushButton, QVBoxLayout, QWidget)

from ..model import Inertia
from .cells import ExprLineEdit, expr_text
from .part_editor import PartBox, part_mass_text
from .presets import PresetDialog

__all__ = ["LinkInspector", "INERTIA_KEYS"]

# (row, col) of the 3x3 tensor -> Inertia field; (0, 1) and (1, 0) are the same entry
INERTIA_KEYS = {(0, 0): "xx", (1, 1): "yy", (2, 2): "zz", (0, 1): "xy", (1, 0): "xy",
                (0, 2): "xz", (2, 0): "xz", (1, 2): "yz", (2, 1): "yz"}
AXES = "xyz"


class LinkInspector(QWidget):
    """Edits the mass properties and limits of the selected link (``set_link``)."""

    message = Signal(str)

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.document = document
        self.link_index = 0
        self.title = QLabel(self)
        self.title.setStyleSheet("font-weight: bold")
        self.title.setWordWrap(True)   # a long link name wraps rather than widening the column

        self.com = []
        com_box = QGroupBox("Centre of mass (link frame, m)", self)
        com_row = QHBoxLayout(com_box)
        for k in range(3):
            edit = self._field(lambda v, t, k=k: self._set_com(k, v, t))
            com_row.addWidget(QLabel(AXES[k]))
            com_row.addWidget(edit)
            self.com.append(edit)

        self.inertia: dict[tuple[int, int], ExprLineEdit] = {}
        inertia_box = QGroupBox("Inertia about the COM, link-frame axes (kg m²)", self)
        grid = QGridLayout(inertia_box)
        for c in range(3):
            grid.addWidget(QLabel(AXES[c]), 0, c + 1)
        for r in range(3):
            grid.addWidget(QLabel(AXES[r]), r + 1, 0)
            for c in range(3):
                edit = self._field(lambda v, t, r=r, c=c: self._set_inertia(r, c, v, t))
                edit.setToolTip(f"I{AXES[r]}{AXES[c]}" + ("" if r == c else f" (= I{AXES[c]}{AXES[r]})"))
                grid.addWidget(edit, r + 1, c + 1)
                self.inertia[(r, c)] = edit

        limits_box = QGroupBox("Joint limits (rad or m)", self)
        limits_row = QHBoxLayout(limits_box)
        self.has_limits = QCheckBox("limited", self)
        self.has_limits.toggled.connect(self._toggle_limits)
        self.limits = [self._field(lambda v, t, k=k: self._set_limit(k, v, t)) for k in range(2)]
        limits_row.addWidget(self.has_limits)
        limits_row.addWidget(QLabel("from"))
        limits_row.addWidget(self.limits[0])
        limits_row.addWidget(QLabel("to"))
        limits_row.addWidget(self.limits[1])

        self.preset_button = QPushButton("Mass preset…", self)
        self.preset_button.setToolTip("Fill mass, COM and inertia from a thin rod, cylinder, box or point mass")
        self.preset_button.clicked.connect(self.open_presets)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.preset_button)
        layout.addLayout(head)
        self.part_box = PartBox(document, self)
        self.part_box.message.connect(self.message)
        layout.addWidget(self.part_box)
        layout.addWidget(com_box)
        layout.addWidget(inertia_box)
        layout.addWidget(limits_box)
        layout.addStretch(1)
        document.modelChanged.connect(self.refresh)
        self.refresh()

    def _field(self, on_commit) -> ExprLineEdit:
        edit = ExprLineEdit(parent=self)
        edit.committed.connect(on_commit)
        edit.failed.connect(self.message)
        return edit

    # -- showing -----------------------------------------------------------------
    def set_link(self, index: int) -> None:
        if index < 0:
            return
        self.link_index = index
        # another link: entries typed for the previous one no longer apply
        for edit in self._edits():
            edit._set_error(None)   # and Problems hears it
        self.part_box.set_link(index)
        self.refresh()

    def edits(self) -> list:
        """The inspector's expression fields (centre of mass, inertia, limits)."""
        return self._edits()

    def _edits(self):
        return [*self.com, *self.inertia.values(), *self.limits]

    def refresh(self, *_args) -> None:
        model = self.document.model
        if model.n == 0:
            return
        self.link_index = min(self.link_index, model.n - 1)
        i = self.link_index
        link = model.links[i]
        mass = part_mass_text(model, link) if link.part is not None else expr_text(link.mass)
        self.title.setText(f"Link {i + 1}" + (f" ({link.name})" if link.name else "")
                           + f": {'revolute' if link.is_revolute else 'prismatic'}, mass {mass}")
        for k, edit in enumerate(self.com):
            edit.where = f"link {i + 1}, centre of mass {AXES[k]}"
            edit.set_value(link.com[k])
        for (r, c), edit in self.inertia.items():
            edit.where = f"link {i + 1}, inertia I{INERTIA_KEYS[(r, c)]}"
            edit.set_value(getattr(link.inertia, INERTIA_KEYS[(r, c)]))
        # a part makes the COM and inertia: shown, not typed (the Part box above edits it)
        made = link.part is not None
        for edit in [*self.com, *self.inertia.values()]:
            edit.setReadOnly(made)
            edit.setStyleSheet("color: gray" if made else "")
        self.preset_button.setEnabled(not made)
        limited = link.limits is not None
        self.has_limits.blockSignals(True)
        self.has_limits.setChecked(limited)
        self.has_limits.blockSignals(False)
        for k, edit in enumerate(self.limits):
            edit.where = f"link {i + 1}, {('lower', 'upper')[k]} limit"
            edit.setEnabled(limited)
            if limited:
                edit.set_value(link.limits[k])
            else:
                edit.set_value("")

    # -- edits ---------------------------------------------------------------------
    def _link(self):
        return self.document.model.links[self.link_index]

    def _apply_link(self, link, label: str) -> None:
        self.document.apply(self.document.model.with_link(self.link_index, link), label)

    def _set_com(self, k: int, value, text: str) -> None:
        link = self._link()
        com = list(link.com)
        com[k] = value
        self._apply_link(replace(link, com=tuple(com)),
                         f"Set COM {AXES[k]} of link {self.link_index + 1} to {text}")

    def _set_inertia(self, r: int, c: int, value, text: str) -> None:
        link = self._link()
        key = INERTIA_KEYS[(r, c)]
        self._apply_link(replace(link, inertia=replace(link.inertia, **{key: value})),
                         f"Set I{key} of link {self.link_index + 1} to {text}")

    def _set_limit(self, k: int, value, text: str) -> None:
        link = self._link()
        if link.limits is None:
            return
        limits = list(link.limits)
        limits[k] = value
        word = ("lower", "upper")[k]
        self._apply_link(replace(link, limits=tuple(limits)),
                         f"Set {word} limit of link {self.link_index + 1} to {text}")

    def _toggle_limits(self, on: bool) -> None:
        link = self._link()
        if on and link.limits is None:
            limits = ("-pi", "pi") if link.is_revolute else (0, 1)
            self._apply_link(replace(link, limits=limits), f"Limit joint {self.link_index + 1}")
        elif not on and link.limits is not None:
            self._apply_link(replace(link, limits=None), f"Remove limits of joint {self.link_index + 1}")

    def open_presets(self) -> None:
        dialog = PresetDialog(self.document.model, self.link_index, self)
        if dialog.exec():
            self.apply_body(dialog.body(), dialog.kind_label())

    def apply_body(self, body, kind: str) -> None:
        """Set mass, COM and inertia of the current link from a :class:`designer.model.mass.Body`."""
        link = replace(self._link(), mass=body.mass, com=body.com, inertia=Inertia(*body.inertia.entries()))
        self._apply_link(link, f"Apply {kind} preset to link {self.link_index + 1}")
