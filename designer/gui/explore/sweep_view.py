"""Sweep view (one or two design parameters, per-design summaries over workspace samples, 1-D curves
or a 2-D heat map) and Pareto view (any two summaries, non-dominated designs marked, click to load)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QStackedWidget,
                               QVBoxLayout, QWidget)

from ...explore.coupling import default_range
from ...explore.metrics import parse_metric
from ...explore.sweep import SweepAxis, SweepResult, SweepSpec, better_larger, conflicting_pair, design_model
from ...model import Manipulator
from ...model.parts import material_table, parts_of
from ..compute import ComputeButton
from ..job_runner import plain_message
from .jobs import sweep_job
from .base import ExploreView
from .context import ExploreContext
from .controls import spin_box, value_box
from .picker import display_name
from .plots import HeatMap, PlotBox

__all__ = ["SweepView", "ParetoView", "SWEEP_STATS"]

SWEEP_STATS = ("max", "mean", "min")
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"]
NONE = "(none)"


def material_axes(model: Manipulator) -> list[tuple[str, str]]:
    """(label, axis name) of the material of each part-made link: "material of link 2 (upper arm)",
    "material[2]" (the README's design story sweeps a link's material beside its tube size)."""
    return [(f"material of link {i + 1}" + (f" ({model.links[i].name})" if model.links[i].name else ""),
             f"material[{i + 1}]") for i, _part in parts_of(model)]


def _is_material(name: str | None) -> bool:
    return bool(name) and str(name).startswith("material[")


def _axis_label(view: ExploreView, axis: SweepAxis) -> str:
    """A plot axis' title: "material of link 2" for a material axis, else the parameter with its unit."""
    return f"material of link {axis.material_link + 1}" if axis.labels and axis.material_link is not None \
        else view.parameter_label(axis.name)


def _ticks(plot, side: str, axis: SweepAxis) -> None:
    """A material axis' ticks name the materials; a parameter's are pyqtgraph's own numbers."""
    plot.getAxis(side).setTicks([list(enumerate(axis.labels))] if axis.labels else None)


def _value_text(axis: SweepAxis, value: float) -> str:
    return axis.labels[int(value)] if axis.labels else f"{value:.6g}"


def _geometric_parameter(model: Manipulator) -> str:
    """The first link length or offset with a non-zero value (the usual first thing to sweep)."""
    values = model.parameter_values
    for link in model.links:
        for e in (link.a, link.d):
            for s in sorted(e.free_symbols, key=lambda s: s.name):
                if values.get(s.name):
                    return s.name
    return ""


def _fresh_for_sweep(model: Manipulator, swept_model: Manipulator | None, result: SweepResult | None) -> bool:
    """Whether a sweep of ``swept_model`` still describes ``model``: they differ at most in the swept
    parameters (loading one of the designs is no reason to compute the sweep again)."""
    if swept_model is None or result is None:
        return True
    try:
        names = [axis.name for axis in result.spec.axes if not axis.labels]
        swept_links = {axis.material_link for axis in result.spec.axes if axis.labels}
        if swept_links:   # a material axis: the swept links' materials may differ too
            if len(model.links) != len(swept_model.links):
                return False
            mine, theirs = dict(parts_of(model)), dict(parts_of(swept_model))
            model = replace(model, links=tuple(
                replace(link, part=replace(mine[i], material=theirs[i].material))
                if i in swept_links and i in mine and i in theirs else link for i, link in enumerate(model.links)))
        return model.with_parameters({n: swept_model.parameter_values[n] for n in names}) == swept_model
    except (KeyError, ValueError):
        return False


def _fill_keys(combo: QComboBox, keys: list[str]) -> None:
    """Sweep keys by their readable names (``Inertial coupling, maximum``), the key as item data and
    in the tooltip (the command line and the CSV header use it)."""
    combo.clear()
    for key in keys:
        combo.addItem(display_name(key), key)
        combo.setItemData(combo.count() - 1, key, Qt.ItemDataRole.ToolTipRole)


class SweepView(ExploreView):
    """Parameters and ranges; Run sweeps the picked metric (and an optional second metric)."""

    finished = Signal(object)    # SweepResult, with the model it was computed for as .model attribute
    action = "Run sweep"

    def __init__(self, context: ExploreContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.model: Manipulator | None = None
        self.result: SweepResult | None = None
        grid = QGridLayout()
        self.params, self.starts, self.stops, self.counts = [], [], [], []
        self.materials: list[QLineEdit] = []   # a material axis: the materials to try, instead of a range
        self._range_widgets: list[list[QWidget]] = []
        for row, title in enumerate(("parameter", "second")):
            combo = QComboBox(self)
            combo.setToolTip("A parameter (its range below), or the material of a link made as a part")
            combo.currentIndexChanged.connect(lambda _=0, r=row: self._default_range(r))
            start, stop = value_box(self), value_box(self)
            count = spin_box(self, 2, 500, 21 if row == 0 else 11)
            # two grid rows a parameter (name, then its range): fits a narrow column
            grid.addWidget(QLabel(title, self), 2 * row, 0)
            grid.addWidget(combo, 2 * row, 1, 1, 5)
            widgets: list[QWidget] = [QLabel("from", self), start, QLabel("to", self), stop, QLabel("count", self),
                                      count]
            for col, w in enumerate(widgets):
                grid.addWidget(w, 2 * row + 1, col)
            materials = QLineEdit(self)
            materials.setToolTip("The materials to try, comma-separated (the built-in ones and the project's own)")
            materials.hide()
            grid.addWidget(materials, 2 * row + 1, 0, 1, 6)
            self.params.append(combo)
            self.starts.append(start)
            self.stops.append(stop)
            self.counts.append(count)
            self.materials.append(materials)
            self._range_widgets.append(widgets)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        self.second_metric = QLineEdit(self)
        self.second_metric.setPlaceholderText("also report, e.g. gravity[2] (optional)")
        self.second_metric.setToolTip("A second metric text to summarise per design (for the Pareto view); "
                                      "total mass and reach are always reported")
        self.samples = spin_box(self, 1, 1_000_000, 500,
                                tip="Workspace samples per design (the same samples for every design)")
        self.run_button = QPushButton("Run sweep", self)
        self.run_button.clicked.connect(self.run)
        extra = QHBoxLayout()
        extra.addWidget(self.second_metric, 2)
        extra.addWidget(QLabel("samples", self))
        extra.addWidget(self.samples)
        extra.addStretch(1)
        self.compute_button = ComputeButton(self)   # where sweeps run (designer/gui/compute.py)
        extra.addWidget(self.compute_button)
        extra.addWidget(self.run_button)

        self.show_key = QComboBox(self)
        self.show_key.setToolTip("The summary to plot")
        self.show_key.currentIndexChanged.connect(lambda _=0: self._draw())
        show = QHBoxLayout()
        show.addWidget(QLabel("show", self))
        show.addWidget(self.show_key, 1)   # the row's width: "Inertial coupling, maximum" read "…, n" at 1366
        self.curves = PlotBox(self.csv_data, self)
        self.curves.add_legend()
        self.heat_box = PlotBox(self.csv_data, self)
        self.heat = HeatMap(self.heat_box)
        for box in (self.curves, self.heat_box):
            box.failed.connect(context.show_error)
            box.exported.connect(lambda p: context.show_status(f"Wrote {p}"))
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.curves)
        self.stack.addWidget(self.heat_box)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(grid)
        layout.addLayout(extra)
        layout.addLayout(show)
        self.add_banner(layout, 3)
        layout.addWidget(self.stack, 1)

    def fresh_for(self, model: Manipulator) -> bool:
        return _fresh_for_sweep(model, self.result_model, self.result)

    def set_model(self, model: Manipulator) -> None:
        self.check_stale(model)
        self.model = model
        names = [n for n in model.symbol_names()]
        for row, combo in enumerate(self.params):
            keep = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            if row == 1:
                combo.addItem(NONE)
            for name in names:
                combo.addItem(name, name)
            for label, axis in material_axes(model):
                combo.addItem(label, axis)
            k = combo.findText(keep)
            if k < 0 and row == 0:
                k = combo.findText(_geometric_parameter(model))
            combo.setCurrentIndex(k if k >= 0 else 0)
            combo.blockSignals(False)
            if k < 0 or keep != combo.currentText():
                self._default_range(row)

    def _default_range(self, row: int) -> None:
        name = self.params[row].currentText()
        material = _is_material(self.params[row].currentData())
        for w in self._range_widgets[row]:
            w.setVisible(not material)
        self.materials[row].setVisible(material)
        if material and self.model is not None:   # every material known to the project, to edit down
            self.materials[row].setText(", ".join(material_table(self.model)))
            return
        if self.model is None or not name or name == NONE:
            return
        try:
            lo, hi = default_range(self.model, name)
        except ValueError:
            lo, hi = 0.0, 1.0
        self.starts[row].setValue(lo)
        self.stops[row].setValue(hi)

    # -- run ------------------------------------------------------------------------------------
    def spec(self) -> SweepSpec:
        """The sweep the inputs describe (raises ValueError naming the bad input)."""
        axes = []
        for row in range(2):
            name = self.params[row].currentText()
            if not name or name == NONE:
                continue
            data = self.params[row].currentData()
            if _is_material(data):
                chosen = [m.strip() for m in self.materials[row].text().split(",") if m.strip()]
                known = material_table(self.context.require_model())
                unknown = [m for m in chosen if m not in known]
                if unknown or not chosen:
                    raise ValueError(f"{name}: " + (f"unknown material(s) {', '.join(unknown)} (known: "
                                                    f"{', '.join(known)})" if unknown else "give the materials to try"))
                axes.append(SweepAxis.materials(int(str(data)[9:-1]), chosen))
                continue
            lo, hi = self.starts[row].value(), self.stops[row].value()
            if lo == hi:
                raise ValueError(f"parameter '{name}': the range is empty (from = to = {lo:g})")
            axes.append(SweepAxis.linspace(name, lo, hi, self.counts[row].value()))
        if not axes:
            raise ValueError("pick a parameter to sweep")
        model = self.context.require_model()
        metrics = [self.context.metric_text()]
        second = self.second_metric.text().strip()
        if second:
            joints = self.context.joints(model)   # a closed chain's actuated joints, named by their links
            metrics.append(parse_metric(second, joints.n, joints.numbers).label)
        ratings = self.context.ratings(self.context.joints(model).n)
        return SweepSpec(tuple(axes), tuple(dict.fromkeys(metrics)), SWEEP_STATS, self.samples.value(),
                         ratings=ratings)

    def run(self):
        def start():
            model = self.context.require_model()
            spec = self.spec()
            compute = self.compute_button.compute()
            self.context.arm(model)  # a missing parameter value is named before the sweep starts
            return self.context.run_job("Sweep", lambda token: sweep_job(model, spec, token, compute=compute),
                                        lambda result: self.show_result(result, model), owner=self)
        return self.context.guarded("Sweep", start)

    def show_result(self, result: SweepResult, model: Manipulator | None = None) -> None:
        self.result = result
        self.result_model = model or self.model
        self.set_stale("")
        keep = self.show_key.currentData()
        self.show_key.blockSignals(True)
        _fill_keys(self.show_key, list(result.values))
        k = self.show_key.findData(keep)
        self.show_key.setCurrentIndex(k if k >= 0 else 0)
        self.show_key.blockSignals(False)
        self._draw()
        if result.errors:
            k, first = next(iter(result.errors.items()))
            axes = {axis.name: axis for axis in result.spec.axes}
            design = ", ".join(f"{name} = {_value_text(axes[name], value) if name in axes else f'{value:.6g}'}"
                               for name, value in result.designs[k].items())
            self.context.show_error(f"Sweep: {len(result.errors)} of {len(result.designs)} designs have no values "
                                    f"(first, {design}: {plain_message(first)})")
        self.finished.emit(result)

    def _draw(self) -> None:
        result, key = self.result, self.show_key.currentData()
        if result is None or not key:
            return
        axes = result.spec.axes
        if len(axes) == 1:
            self.stack.setCurrentWidget(self.curves)
            plot = self.curves.plot
            plot.clear()
            metric, _, stat = key.partition(":")
            keys = [f"{metric}:{s}" for s in result.spec.stats] if stat else [key]
            x = np.array(axes[0].values)
            for k, name in enumerate(keys):
                plot.plot(x, result.values[name], name=display_name(name), symbol="o", symbolSize=5,
                          pen=pg.mkPen(COLORS[k % len(COLORS)], width=2.5 if name == key else 1.2),
                          symbolBrush=COLORS[k % len(COLORS)])
            plot.setLabel("bottom", _axis_label(self, axes[0]))
            _ticks(plot, "bottom", axes[0])
            plot.setLabel("left", self.label_of(metric))
            plot.setTitle(f"{display_name(metric)}, {result.spec.samples} samples a design")   # fits a narrow tab
            self.curves.caption.setText(f"{len(x)} designs; {', '.join(result.spec.stats)} of "
                                        f"{display_name(metric)}")
        else:
            self.stack.setCurrentWidget(self.heat_box)
            x, y = np.array(axes[0].values), np.array(axes[1].values)
            self.heat.set_data(x, y, result.values[key].T)   # values[i1, i2] -> rows along the second axis
            self.heat_box.plot.setLabel("bottom", _axis_label(self, axes[0]))
            self.heat_box.plot.setLabel("left", _axis_label(self, axes[1]))
            _ticks(self.heat_box.plot, "bottom", axes[0])
            _ticks(self.heat_box.plot, "left", axes[1])
            self.heat_box.plot.setTitle(display_name(key))
            self.heat.set_label(self.label_of(key))
            self.heat_box.caption.setText(f"{len(x)} x {len(y)} designs; {display_name(key)} over "
                                          f"{result.spec.samples} workspace samples per design")

    def csv_data(self):
        if self.result is None:
            raise ValueError("no sweep computed yet")
        self.require_fresh()
        rows = self.result.rows()
        keys = list(rows[0]) if rows else []
        axes = {axis.name: axis for axis in self.result.spec.axes}
        header = [_axis_label(self, axes[k]) if k in axes else self.with_unit(k) for k in keys]
        return header, [[_value_text(axes[h], r[h]) if h in axes and axes[h].labels else r[h] for h in keys]
                        for r in rows]


PARETO_HINT = "Run a sweep first (Sweep tab); then click a design to load it."


class ParetoView(ExploreView):
    """Scatter of two summaries of the last sweep; the non-dominated designs in red; a click on a
    design emits the panel's ``loadDesignRequested`` with that design's model."""

    action = "Run the sweep (Sweep tab)"

    def __init__(self, context: ExploreContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.result: SweepResult | None = None
        self.front = np.zeros(0, bool)
        self.axis_keys, self.senses = [], []
        controls = QGridLayout()
        for r, label in enumerate(("x", "y")):
            key, sense = QComboBox(self), QComboBox(self)
            sense.addItems(["minimise", "maximise"])
            for w in (key, sense):
                w.currentIndexChanged.connect(lambda _=0: self._draw())
            controls.addWidget(QLabel(label, self), r, 0)
            controls.addWidget(key, r, 1)
            controls.addWidget(sense, r, 2)
            self.axis_keys.append(key)
            self.senses.append(sense)
        controls.setColumnStretch(1, 1)
        self.box = PlotBox(self.csv_data, self)
        self.box.failed.connect(context.show_error)
        self.box.exported.connect(lambda p: context.show_status(f"Wrote {p}"))
        self.box.caption.setText(PARETO_HINT)
        self.scatter = pg.ScatterPlotItem(hoverable=True, tip=self._tip)
        self._styles = {"front": (pg.mkPen("k", width=1), pg.mkBrush("#d62728")),
                        "other": (pg.mkPen("#8c8c8c", width=1), pg.mkBrush("#8c8c8c"))}
        self.scatter.sigClicked.connect(self._clicked)
        self.front_line = pg.PlotDataItem(pen=pg.mkPen("#d62728", width=1, style=pg.QtCore.Qt.PenStyle.DashLine))
        self.box.on_build(lambda box: (box.plot.addItem(self.front_line), box.plot.addItem(self.scatter)))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(controls)
        self.add_banner(layout, 1)
        layout.addWidget(self.box, 1)

    def forget_project(self) -> None:
        super().forget_project()
        self.front = np.zeros(0, bool)
        self.box.caption.setText(PARETO_HINT)

    def fresh_for(self, model: Manipulator) -> bool:
        return _fresh_for_sweep(model, self.result_model, self.result)

    def mark_fresh(self, model: Manipulator | None) -> None:
        pass   # the designs come from the sweep's own model (set_result)

    def set_result(self, result: SweepResult, model: Manipulator | None = None) -> None:
        """Show a sweep's designs; ``model`` is the model the sweep ran on (a picked design is loaded into it)."""
        self.result = result
        self.model = model
        self.result_model = self.model
        self.set_stale("")
        keys = list(result.values)
        kept = self.keys()
        # a pair that conflicts first (the first summary against the total mass often had a front of
        # one design); the user's pair stays while the new sweep has it
        pair = kept if kept[0] in keys and kept[1] in keys and kept[0] != kept[1] else conflicting_pair(result)
        for combo, sense, key in zip(self.axis_keys, self.senses, pair):
            combo.blockSignals(True)
            _fill_keys(combo, keys)
            combo.setCurrentIndex(max(combo.findData(key), 0))
            combo.blockSignals(False)
            if key not in kept:   # a new default: optimised in its better direction
                sense.blockSignals(True)
                sense.setCurrentIndex(1 if better_larger(key) else 0)
                sense.blockSignals(False)
        self._draw()

    def set_keys(self, x: str, y: str) -> None:
        """Plot summary ``x`` against ``y`` (sweep keys such as ``gravity[2]:max``, ``total_mass``)."""
        for combo, key in zip(self.axis_keys, (x, y)):
            k = combo.findData(key)
            if k < 0:
                raise KeyError(f"no summary '{key}' in the sweep")
            combo.setCurrentIndex(k)

    def keys(self) -> tuple[str, str]:
        return self.axis_keys[0].currentData() or "", self.axis_keys[1].currentData() or ""

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        if self.result is None:
            raise ValueError("no sweep computed")
        a, b = self.keys()
        return self.result.column(a), self.result.column(b)

    def _draw(self) -> None:
        if self.result is None or not all(self.keys()):
            return
        x, y = self.points()
        minimize = (self.senses[0].currentIndex() == 0, self.senses[1].currentIndex() == 0)
        self.front = self.result.pareto(*self.keys(), minimize=minimize)
        ok = np.isfinite(x) & np.isfinite(y)
        idx = np.flatnonzero(ok)
        on = self.front[idx]
        # shared pens and brushes: pyqtgraph renders one symbol per distinct style, not one per point
        self.scatter.setData(x=x[idx], y=y[idx], data=idx, size=np.where(on, 11, 7),
                             brush=[self._styles["front" if f else "other"][1] for f in on],
                             pen=[self._styles["front" if f else "other"][0] for f in on])
        order = np.flatnonzero(self.front)
        order = order[np.argsort(x[order])]
        self.front_line.setData(x[order], y[order])
        a, b = self.keys()
        self.box.plot.setLabel("bottom", f"{self.label_of(a)}, {'min' if minimize[0] else 'max'}imised")
        self.box.plot.setLabel("left", f"{self.label_of(b)}, {'min' if minimize[1] else 'max'}imised")
        self.box.caption.setText(f"{int(ok.sum())} designs, {int(self.front.sum())} non-dominated (red); "
                                 "click a design to load it")

    def design(self, index: int) -> dict[str, float]:
        if self.result is None:
            raise ValueError("no sweep computed")
        return self.result.designs[index]

    def _tip(self, x, y, data):
        d = self.result.designs[data] if self.result is not None else {}
        a, b = self.keys()
        axes = {axis.name: axis for axis in self.result.spec.axes} if self.result is not None else {}
        return "\n".join(f"{k} = {_value_text(axes[k], v) if k in axes else f'{v:.6g}'}" for k, v in d.items()) \
            + f"\n{display_name(a)} = {x:.6g}\n" \
            f"{display_name(b)} = {y:.6g}\n(click to load)"

    def _clicked(self, _item, points, _event=None) -> None:
        if self.result is None or len(points) == 0 or self.model is None:
            return
        self.load_design(int(points[0].data()))

    def load_design(self, index: int) -> None:
        """Emit ``loadDesignRequested`` with the model of design ``index`` (grid order)."""
        if self.stale:
            self.context.show_error(f"Pareto: {self.stale}; run the sweep again to load its designs")
            return
        if self.model is None:
            return
        design = self.design(index)
        axes = {axis.name: axis for axis in self.result.spec.axes} if self.result is not None else {}
        self.context.load_design(design_model(self.model, self.result.spec, design) if self.result is not None
                                 else self.model.with_parameters(design))
        self.context.show_status("Loaded design " + ", ".join(
            f"{_axis_label(self, axes[k]) if k in axes and axes[k].labels else k} = "
            f"{_value_text(axes[k], v) if k in axes else f'{v:.6g}'}" for k, v in design.items()))

    def csv_data(self):
        if self.result is None:
            raise ValueError("no sweep computed yet")
        self.require_fresh()
        x, y = self.points()
        a, b = self.keys()
        names = [ax.name for ax in self.result.spec.axes]
        rows = [[d[n] for n in names] + [x[i], y[i], int(self.front[i]) if len(self.front) else 0]
                for i, d in enumerate(self.result.designs)]
        return [self.parameter_label(n) for n in names] + [self.with_unit(a), self.with_unit(b), "non_dominated"], rows
