"""Editing a closed chain's tree and loops (issue 22): which link each link is mounted on, whether
its joint is actuated or passive, and the loops' cut joints (their two links and where the joint
sits on each), with the DH table's bad-input behaviour (:class:`ExprTableModel`: a bad entry stays
red with its message, the model keeps its last good value) and undo (``document.apply``).

A bad entry is what cannot be stored at all: a parent that is not an earlier link, a loop naming a
link that does not exist or closing a link on itself, a pose that is not three expressions. What
can be stored but does not make a mechanism (a passive joint on no loop, a loop that cannot close,
a mobility that differs from the actuated joints) is the Problems panel's (loop_scene.loop_problems).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTableView, QVBoxLayout, QWidget

from ..model import ExpressionError, parse_expr
from ..model.extras import Pose
from ..model.mechanism import CutJoint, Loop
from .cells import ExprTableModel, expr_text

__all__ = ["TreeTableModel", "LoopsTableModel", "MechanismPanel"]

_ACTUATED = {"actuated": True, "a": True, "yes": True, "motor": True,
             "passive": False, "p": False, "no": False}
_CUTS = {"r": CutJoint.REVOLUTE, "revolute": CutJoint.REVOLUTE, "s": CutJoint.SPHERICAL,
         "spherical": CutJoint.SPHERICAL, "ball": CutJoint.SPHERICAL, "f": CutJoint.FIXED, "fixed": CutJoint.FIXED}


def _link_number(text: str, where: str, lowest: int, highest: int, what: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise ExpressionError(f"needs a link number ({what}), not {text.strip()!r}", where) from None
    if not lowest <= value <= highest:
        raise ExpressionError(f"no link {value} here: {what}", where)
    return value


def _three(text: str, where: str) -> tuple:
    parts = [p for p in re.split(r"[,;]", text) if p.strip()]
    if len(parts) != 3:
        raise ExpressionError(f"needs three values separated by commas (x, y, z), got {len(parts)}", where)
    return tuple(parse_expr(p, where) for p in parts)


def _three_text(values) -> str:
    return ", ".join(expr_text(v) for v in values)


class TreeTableModel(ExprTableModel):
    """One row per link: mounted on (0 the base), joint (actuated or passive), gamma, b."""

    columns = ["name", "mounted on", "joint", "gamma", "b"]
    units = ["", "", "", "rad", "m"]

    def rowCount(self, parent=None) -> int:
        return len(self.document.model.links)

    def editable(self, row: int, col: int) -> bool:
        return col > 0

    def cell_value(self, row: int, col: int) -> Any:
        link = self.document.model.links[row]
        if col == 0:
            return link.name or f"link {row + 1}"
        if col == 1:
            return str(row if link.parent is None else link.parent)
        if col == 2:
            return "actuated" if link.actuated else "passive"
        return link.gamma if col == 3 else link.b

    def parse(self, row: int, col: int, text: str) -> Any:
        where = f"link {row + 1}, {self.columns[col]}"
        if col == 1:
            earlier = "0 (the base)" if row == 0 else f"an earlier link: 0 (the base) to {row}"
            return _link_number(text, where, 0, row, f"a link is mounted on {earlier}")
        if col == 2:
            key = text.strip().lower()
            if key not in _ACTUATED:
                raise ExpressionError(f"needs 'actuated' or 'passive', not {text.strip()!r}", where)
            return _ACTUATED[key]
        return parse_expr(text, where)

    def commit(self, row: int, col: int, value: Any) -> None:
        model = self.document.model
        link = model.links[row]
        key = {1: "parent", 2: "actuated", 3: "gamma", 4: "b"}[col]
        if key == "parent":
            value = None if value == row and link.parent is None else value   # the chain's default stays implicit
        if getattr(link, key) == value:
            return
        shown = ("actuated" if value else "passive") if key == "actuated" else (self.typed or str(value))
        self.document.apply(model.with_link(row, dataclasses.replace(link, **{key: value})),
                            f"Link {row + 1} {self.columns[col]} = {shown}")


class LoopsTableModel(ExprTableModel):
    """One row per loop: its two links, where the cut joint sits on each (xyz and rpy in the
    link's frame), the cut joint's kind (R, S, F) and a name."""

    columns = ["link i", "link j", "at on i", "rpy on i", "at on j", "rpy on j", "cut joint", "name"]
    units = ["", "", "m", "rad", "m", "rad", "", ""]

    @property
    def rows(self) -> tuple[Loop, ...]:
        """The model's loops, one row each."""
        return self.document.model.loops

    def rowCount(self, parent=None) -> int:
        return len(self.rows)

    def cell_value(self, row: int, col: int) -> Any:
        loop = self.rows[row]
        return [str(loop.link_i), str(loop.link_j), _three_text(loop.frame_i.xyz), _three_text(loop.frame_i.rpy),
                _three_text(loop.frame_j.xyz), _three_text(loop.frame_j.rpy), loop.joint.value, loop.name][col]

    def parse(self, row: int, col: int, text: str) -> Any:
        where = f"loop {row + 1}, {self.columns[col]}"
        n = len(self.document.model.links)
        if col in (0, 1):
            value = _link_number(text, where, 0, n, f"links are numbered 1 to {n}, 0 is the base")
            loop = self.rows[row]
            other = loop.link_j if col == 0 else loop.link_i
            if value == other:
                raise ExpressionError(f"would close link {value} on itself (a loop joins two different links)", where)
            return value
        if col in (2, 3, 4, 5):
            return _three(text, where)
        if col == 6:
            key = text.strip().lower()
            if key not in _CUTS:
                raise ExpressionError(f"needs R (revolute), S (ball) or F (fixed), not {text.strip()!r}", where)
            return _CUTS[key]
        return text.strip()

    def commit(self, row: int, col: int, value: Any) -> None:
        model = self.document.model
        loop = self.rows[row]
        if col in (2, 3, 4, 5):
            side = "frame_i" if col < 4 else "frame_j"
            pose = getattr(loop, side)
            pose = Pose(value, pose.rpy) if col in (2, 4) else Pose(pose.xyz, value)
            changes: dict[str, Any] = {side: pose}
            new = dataclasses.replace(loop, **changes)
        else:
            new = dataclasses.replace(loop, **{["link_i", "link_j"][col] if col < 2 else
                                               ("joint" if col == 6 else "name"): value})
        if new == loop:
            return
        loops = list(self.rows)
        loops[row] = new
        self.document.apply(dataclasses.replace(model, loops=tuple(loops)),
                            f"Loop {row + 1} {self.columns[col]} = {self.typed or value}")

    def add_loop(self) -> None:
        """A new loop between the last link and the base, at both frames' origins (to be edited)."""
        model, loops = self.document.model, self.rows
        loop = Loop(len(model.links), 0, name=f"loop {len(loops) + 1}")
        self.document.apply(dataclasses.replace(model, loops=loops + (loop,)), "Add loop")

    def remove_loop(self, row: int) -> None:
        loops = self.rows
        if 0 <= row < len(loops):
            self.document.apply(dataclasses.replace(self.document.model, loops=loops[:row] + loops[row + 1:]),
                                f"Remove loop {row + 1}")


class MechanismPanel(QWidget):
    """The tree table above the loops table, with buttons to add and remove loops."""

    def __init__(self, document, parent: QWidget | None = None):
        super().__init__(parent)
        self.tree_model = TreeTableModel(document, self)
        self.loops_model = LoopsTableModel(document, self)
        self.tree_view, self.loops_view = QTableView(self), QTableView(self)
        self.tree_view.setModel(self.tree_model)
        self.loops_view.setModel(self.loops_model)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        intro = QLabel("A closed chain: each link is mounted on an earlier one (0 the base); passive joints "
                       "follow the loops, each closed by a cut joint between two links.", self)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        layout.addWidget(self.tree_view, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("Loops", self))
        buttons.addStretch(1)
        add, remove = QPushButton("Add loop", self), QPushButton("Remove loop", self)
        add.clicked.connect(self.loops_model.add_loop)
        remove.clicked.connect(lambda: self.loops_model.remove_loop(self.loops_view.currentIndex().row()))
        buttons.addWidget(add)
        buttons.addWidget(remove)
        layout.addLayout(buttons)
        layout.addWidget(self.loops_view, 1)
        self.message = self.tree_model.message   # the window's status bar hears both tables
        self.loops_model.message.connect(self.tree_model.message)

    def sources(self) -> tuple[TreeTableModel, LoopsTableModel]:
        """The two tables, whose refused entries the Problems panel lists."""
        return self.tree_model, self.loops_model
