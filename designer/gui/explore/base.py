"""What every Explore view shares: the model its result was computed for, and an "out of date" banner
that also stops the view's plots and tables from exporting numbers of a model that no longer exists."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import (QBoxLayout, QListWidget, QListWidgetItem, QPlainTextEdit, QTableWidget,
                               QTableWidgetItem, QTextEdit, QWidget)

from ...explore.joints import explore_joints
from ...model import Manipulator
from ...model.units import parameter_units, with_unit
from ..job_runner import STALE_STYLE, StaleBanner
from ..project_state import ProjectSlot
from .context import ExploreContext
from .picker import display_name, metric_unit
from .plots import HeatMap, PlotBox, empty_plot

__all__ = ["ExploreView", "STALE_STYLE", "tip_whole_texts"]

SIDES = ("left", "bottom")


def tip_whole_texts(widget: QTableWidget | QListWidget) -> None:
    """Every header and cell of a table, every item of a list, carries its whole text as its tooltip when it has
    no tooltip of its own: a narrow column cuts a text ("coriolis_ma…", "_i (N m or N", issue 29)."""
    items: list[QListWidgetItem | QTableWidgetItem | None]
    if isinstance(widget, QListWidget):
        items = [widget.item(r) for r in range(widget.count())]
    else:
        items = [widget.horizontalHeaderItem(c) for c in range(widget.columnCount())]
        items += [widget.item(r, c) for r in range(widget.rowCount()) for c in range(widget.columnCount())]
    for item in items:
        if item is not None and item.text() and not item.toolTip():
            item.setToolTip(item.text())


class ExploreView(QWidget):
    """Base of the Explore views.

    A view shows one result (``self.result``) computed for ``self.result_model``. When the open
    model changes to one the result does not describe (:meth:`fresh_for`), the view shows a banner
    and its exports raise ValueError until it is computed again. Everything from outside (the model,
    the pose, the job runner, messages) comes through ``context``.
    """

    action = "Compute"   # the button that brings the view up to date, named in the banner
    # the open project's: in a window they live in its ProjectState and go with it (project_state.py)
    result = ProjectSlot()
    result_model = ProjectSlot()

    def __init__(self, context: ExploreContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        self.result = None   # each view's own result type (the views narrow it)
        self.result_model = None   # the Manipulator it was computed for
        self.stale = ""
        self.stale_banner = StaleBanner(self)

    def add_banner(self, layout: QBoxLayout, index: int = 0) -> None:
        layout.insertWidget(index, self.stale_banner)

    # -- staleness ---------------------------------------------------------------------
    def fresh_for(self, model: Manipulator) -> bool:
        """Whether the result on display describes ``model`` (the model it was computed for by default)."""
        return model == self.result_model

    def set_model(self, model: Manipulator) -> None:
        """The open model changed: mark the result out of date when it no longer describes it."""
        self.check_stale(model)

    def check_stale(self, model: Manipulator) -> None:
        if self.result is None or self.result_model is None:
            return
        self.set_stale("" if self.fresh_for(model) else "the model changed after this was computed")

    def set_stale(self, reason: str) -> None:
        self.stale = reason
        self.stale_banner.set_reason(reason, self.action)
        for box in self.findChildren(PlotBox):
            box.stale = reason

    def mark_fresh(self, model: Manipulator | None) -> None:
        """A result for ``model`` is now on display."""
        self.result_model = model
        self.set_stale("")
        if model is not None and self.context.model is not None:
            self.check_stale(self.context.model)   # the model changed while the job ran

    # -- another project -------------------------------------------------------------------
    def forget_project(self) -> None:
        """Another project replaced the open one: the result goes, and nothing of it stays drawn (curves,
        points, images, titles, captions, tables, lists, texts). A view with more of its own (a map's
        marker) extends this."""
        self.result = self.result_model = None
        self.set_stale("")
        for box in self.findChildren(PlotBox):
            box.caption.setText("")
            if not box.built:
                continue   # never shown: nothing of a result was drawn
            empty_plot(box.plot)
            for side, text in (box.blank_labels or dict.fromkeys(SIDES, "")).items():
                box.plot.setLabel(side, text)   # the old result's quantities and joints go ("" hides)
        for bar in vars(self).values():
            if isinstance(bar, pg.ColorBarItem):
                bar.axis.setLabel("")
        for heat in vars(self).values():
            if isinstance(heat, HeatMap):
                heat.clear()
        for table in self.findChildren(QTableWidget):
            table.setRowCount(0)
        for widget in self.findChildren(QListWidget):
            widget.clear()
        for plain in self.findChildren(QPlainTextEdit):
            if plain.isReadOnly():
                plain.clear()
        for rich in self.findChildren(QTextEdit):
            if rich.isReadOnly():
                rich.clear()

    # -- units ---------------------------------------------------------------------------
    def _model_for_units(self) -> Manipulator | None:
        return self.result_model or self.context.model

    def unit_of(self, metric_text: str) -> str:
        model = self._model_for_units()
        return metric_unit(metric_text, list(explore_joints(model).revolute) if model is not None else None)

    def with_unit(self, metric_text: str) -> str:
        """``gravity[2] (N m)``: a metric (or sweep summary) with its SI unit."""
        return with_unit(metric_text, self.unit_of(metric_text))

    def label_of(self, key: str) -> str:
        """``Gravity torque, joint 2, maximum (N m)``: a metric text or sweep key by its readable
        name (docs/metrics.md's), with its unit, for axis titles, pickers and tables."""
        return with_unit(display_name(key), self.unit_of(key))

    def parameter_label(self, name: str) -> str:
        """``a2 (m)``: a parameter with the unit its use gives it."""
        model = self._model_for_units()
        return with_unit(name, parameter_units(model).get(name, "") if model is not None else "")

    def require_fresh(self) -> None:
        """Raise ValueError when the result on display is out of date (called before any export)."""
        if self.stale:
            raise ValueError(f"the result is out of date ({self.stale}); {self.action} again before exporting")
