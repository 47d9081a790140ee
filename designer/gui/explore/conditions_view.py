"""Conditions view: parameter relations under which M_ij vanishes, M is configuration-invariant or
G_i vanishes (symbolic, from :mod:`designer.explore.conditions`), and Apply to load the result."""

from __future__ import annotations

import sympy as sp
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QLineEdit, QListWidget, QPlainTextEdit, QPushButton,
                               QSplitter, QVBoxLayout, QWidget)

from ...jobs.process import ProcessJob, call_job
from ...model import Manipulator

__all__ = ["ConditionsView", "parse_targets"]

KINDS = (("decoupled", "M_ij = 0 identically (decoupled joints)"),
         ("invariant", "M independent of the configuration"),
         ("balanced", "G_i = 0 identically (static balance)"))


def parse_targets(text: str, kind: str) -> list[tuple[int, ...]]:
    """``"1,2; 2,3"`` -> [(1, 2), (2, 3)]; ``"2 3"`` for joints of G; empty -> [] (all)."""
    text = text.strip()
    if not text:
        return []
    out = []
    for part in text.replace(";", " ").split() if kind == "balanced" else text.split(";"):
        try:
            out.append(tuple(int(v) for v in part.replace(",", " ").split()))
        except ValueError:
            raise ValueError(f"entries: '{part.strip()}' is not {'a joint number' if kind == 'balanced' else 'i,j'}") \
                from None
    return [t for t in out if t]


def describe(result) -> str:
    """The targets, unknowns, coefficient equations and rejected solutions of a ConditionResult."""
    name = "G_{}" if result.kind.value == "balanced" else "M_{}{}"
    lines = ["Entries: " + ", ".join(name.format(*t) for t in result.targets),
             "Solved for: " + ", ".join(s.name for s in result.unknowns),
             f"Coefficient equations (each = 0), {len(result.equations)}:"]
    lines += [f"  {sp.sstr(e)}" for e in result.equations]
    if result.rejected:
        lines += ["Rejected solutions:"] + [f"  {r}" for r in result.rejected]
    return "\n".join(lines)


class ConditionsView(QWidget):
    def __init__(self, panel):
        super().__init__(panel)
        self.panel = panel
        self.result = None
        self.result_model: Manipulator | None = None
        self.kind = QComboBox(self)
        for value, text in KINDS:
            self.kind.addItem(text, value)
        self.targets = QLineEdit(self)
        self.targets.setPlaceholderText("entries: e.g. 1,2; 1,3 (pairs) or 2 3 (joints); empty = all")
        self.unknowns = QLineEdit(self)
        self.unknowns.setPlaceholderText("solve for: e.g. cx2, m2 (empty = the inertial parameters)")
        self.find_button = QPushButton("Find conditions", self)
        self.find_button.clicked.connect(self.find)
        row = QHBoxLayout()
        row.addWidget(self.kind, 2)
        row.addWidget(self.targets, 2)
        row.addWidget(self.unknowns, 2)
        row.addWidget(self.find_button)
        self.summary = QLabel("Symbolic: derives M and G and solves for the parameters that make the chosen "
                              "terms vanish for every configuration.", self)
        self.summary.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setToolTip("Admissible solutions (positive masses and inertias); pick one and Apply")
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setPlaceholderText("The coefficient equations solved, and solutions rejected as unphysical")
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.list)
        splitter.addWidget(self.details)
        splitter.setSizes([160, 300])
        self.apply_button = QPushButton("Apply", self)
        self.apply_button.setToolTip("Load the model with the chosen condition applied")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply)
        self.list.currentRowChanged.connect(lambda r: self.apply_button.setEnabled(r >= 0))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(row)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.apply_button)
        layout.addLayout(bottom)

    def set_model(self, model: Manipulator) -> None:
        pass

    def find(self):
        def start():
            model = self.panel.require_model()
            kind = self.kind.currentData()
            targets = parse_targets(self.targets.text(), kind)
            unknowns = [u for u in self.unknowns.text().replace(",", " ").split() if u]
            names = set(model.symbol_names())
            bad = [u for u in unknowns if u not in names]
            if bad:
                raise ValueError(f"'{bad[0]}' is not a parameter of the model")
            from ...explore.conditions import find_conditions
            # in a worker process: the sympy solve cannot be interrupted, the process can
            job = ProcessJob(call_job, (find_conditions, (model, kind, targets or None, unknowns or None),
                                        "conditions", "deriving M and G and solving the coefficient equations"))
            return self.panel.run_job("Conditions", job, lambda result: self.show_result(result, model))
        return self.panel.guarded("Conditions", start)

    def show_result(self, result, model: Manipulator) -> None:
        self.result, self.result_model = result, model
        self.summary.setText(result.summary())
        self.list.clear()
        for c in result.conditions:
            self.list.addItem(c.text() + (f"   ({c.note})" if c.note else ""))
        if result.conditions:
            self.list.setCurrentRow(0)
        self.details.setPlainText(describe(result))
        self.apply_button.setEnabled(bool(result.conditions))

    def apply(self) -> None:
        from ...explore.conditions import apply_condition
        row = self.list.currentRow()
        if self.result is None or not 0 <= row < len(self.result.conditions):
            return
        self.panel.loadDesignRequested.emit(apply_condition(self.result_model, self.result.conditions[row]))
        self.panel.show_status("Applied " + self.result.conditions[row].text())
