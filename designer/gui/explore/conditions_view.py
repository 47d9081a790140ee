"""Conditions view: parameter relations under which M_ij vanishes, M is configuration-invariant or
G_i vanishes (symbolic, from :mod:`designer.explore.conditions`), and Apply to load the result."""

from __future__ import annotations

import sympy as sp
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QLineEdit, QListWidget, QPlainTextEdit, QPushButton,
                               QSplitter, QVBoxLayout, QWidget)

from ...jobs.process import ProcessJob
from ...model import Manipulator
from .base import ExploreView, tip_whole_texts
from .context import ExploreContext

__all__ = ["ConditionsView", "parse_targets"]

KINDS = (("decoupled", "M_ij = 0 identically (decoupled joints)"),
         ("invariant", "M independent of the configuration"),
         ("balanced", "G_i = 0 identically (static balance)"))


def parse_targets(text: str, kind: str, n: int | None = None) -> list[tuple[int, ...]]:
    """``"1,2; 2,3"`` -> [(1, 2), (2, 3)]; ``"2 3"`` or ``"2, 3"`` for joints of G; empty -> [] (all).

    With ``n`` (the number of joints), a joint outside 1..n is refused with a one-line message.
    """
    text = text.strip()
    if not text:
        return []
    out = []
    parts = text.replace(";", " ").replace(",", " ").split() if kind == "balanced" else text.split(";")
    for part in parts:
        try:
            entry = tuple(int(v) for v in part.replace(",", " ").split())
        except ValueError:
            raise ValueError(f"entries: '{part.strip()}' is not {'a joint number' if kind == 'balanced' else 'i,j'}") \
                from None
        if kind != "balanced" and entry and len(entry) != 2:
            raise ValueError(f"entries: '{part.strip()}' is not a pair i,j of joints")
        if n is not None and any(not 1 <= j <= n for j in entry):
            raise ValueError(f"entries: '{part.strip()}' names a joint outside 1..{n}")
        if entry:
            out.append(entry)
    return out


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

INTRO = ("Symbolic: derives M and G and solves for the parameters that make the chosen terms vanish for every "
         "configuration.")


class ConditionsView(ExploreView):
    action = "Find conditions"

    def __init__(self, context: ExploreContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.kind = QComboBox(self)
        for value, text in KINDS:
            self.kind.addItem(text, value)
        self.targets = QLineEdit(self)
        self.targets.setPlaceholderText("entries, e.g. 1,2; 1,3 — empty: all")
        self.targets.setToolTip("Pairs i,j of M separated by ';' (decoupled), or joint numbers of G (static "
                                "balance), e.g. 2 3; empty: every entry")
        self.kind.currentIndexChanged.connect(self._hint)
        self.unknowns = QLineEdit(self)
        self.unknowns.setPlaceholderText("solve for, e.g. cx2, m2")
        self.unknowns.setToolTip("Parameters to solve for, separated by commas; empty: the inertial parameters")
        self.find_button = QPushButton("Find conditions", self)
        self.find_button.clicked.connect(self.find_conditions)
        row = QHBoxLayout()
        row.addWidget(self.kind, 2)
        row.addWidget(self.find_button)
        row2 = QHBoxLayout()
        row2.addWidget(self.targets, 1)
        row2.addWidget(self.unknowns, 1)
        self.summary = QLabel(INTRO, self)
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
        layout.addLayout(row2)
        self.add_banner(layout, 2)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.apply_button)
        layout.addLayout(bottom)

    def _hint(self, *_args) -> None:
        balanced = self.kind.currentData() == "balanced"
        self.targets.setPlaceholderText("joints, e.g. 2 3 — empty: all" if balanced
                                        else "entries, e.g. 1,2; 1,3 — empty: all")

    def forget_project(self) -> None:
        super().forget_project()
        self.clear_result()
        self.summary.setText(INTRO)

    def clear_result(self) -> None:
        """Forget the shown conditions (a new search starts: old answers must not sit under its heading)."""
        self.result = None
        self.list.clear()
        self.details.clear()
        self.apply_button.setEnabled(False)
        self.set_stale("")

    def find_conditions(self):   # not "find": that name is QWidget.find
        def start():
            model = self.context.require_model()
            kind = self.kind.currentData()
            targets = parse_targets(self.targets.text(), kind, self.context.joints(model).n)
            unknowns = [u for u in self.unknowns.text().replace(",", " ").split() if u]
            names = set(model.symbol_names())
            bad = [u for u in unknowns if u not in names]
            if bad:
                raise ValueError(f"'{bad[0]}' is not a parameter of the model")
            from ...explore.conditions import find_conditions_job
            self.clear_result()
            self.summary.setText(f"Searching: {self.kind.currentText()} …")
            # in a worker process: the sympy solve cannot be interrupted, the process can; the job's
            # stages (derivation, coefficients, each tier of unknowns) show in the bar
            job = ProcessJob(find_conditions_job, (model, kind, targets or None, unknowns or None, None))
            return self.context.run_job("Conditions", job, lambda result: self.show_result(result, model), owner=self)
        return self.context.guarded("Conditions", start)

    def show_result(self, result, model: Manipulator) -> None:
        self.result, self.result_model = result, model
        self.set_stale("")
        self.summary.setText(result.summary())
        self.list.clear()
        for c in result.conditions:
            self.list.addItem(c.text() + (f"   ({c.note})" if c.note else ""))
        tip_whole_texts(self.list)
        if result.conditions:
            self.list.setCurrentRow(0)
        self.details.setPlainText(describe(result))
        self.apply_button.setEnabled(bool(result.conditions))

    def apply(self) -> None:
        from ...explore.conditions import apply_condition
        row = self.list.currentRow()
        if self.result is None or self.result_model is None or not 0 <= row < len(self.result.conditions):
            return
        self.context.load_design(apply_condition(self.result_model, self.result.conditions[row]))
        self.context.show_status("Applied " + self.result.conditions[row].text())
