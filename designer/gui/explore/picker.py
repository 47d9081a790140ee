"""The metric picker: every metric of :mod:`designer.explore.metrics`, and which component of it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from ...explore.metrics import METRICS, Reduce, Shape
from ...model.units import inertial_unit

__all__ = ["MetricPicker", "metric_tooltip", "readable", "READABLE", "metric_unit", "display_name"]

_REDUCE_TEXT = {Reduce.MAX: "largest component", Reduce.MIN: "smallest component",
                Reduce.MAX_ABS_OFF: "largest |value| off the diagonal"}


# what the picker shows for each metric (the code name, which the command line takes, in brackets)
READABLE = {
    "M": "Mass-matrix entry", "coupling": "Inertial coupling", "inertia_locked": "Effective inertia, others locked",
    "inertia_free": "Effective inertia, others free", "inertia_ratio": "Free / locked inertia ratio",
    "cond": "Condition number of M", "isotropy": "Inertia isotropy (Asada)",
    "cartesian_min": "Smallest Cartesian inertia", "cartesian_max": "Largest Cartesian inertia",
    "dyn_manipulability": "Dynamic manipulability (Yoshikawa)", "coriolis": "Coriolis / centrifugal share",
    "gravity": "Gravity torque", "gravity_ratio": "Gravity torque / rated torque",
    "tra_share": "Translational share of M_ij (Lee)", "tra_share_h": "Translational share of h_i (Lee)",
    "frequency": "Lowest natural frequency, motors locked", "frequency_free": "Lowest natural frequency, motors free",
    "deflection": "Tool sag under gravity and payload", "compliance": "Largest tool compliance",
    "torque_bound": "Peak joint torque at rated motion", "deflection_links": "Tool sag: the links' share",
    "compliance_links": "Tool compliance: the links' share",
}


def metric_unit(text: str, revolute: list[bool] | None = None) -> str:
    """The SI unit of a metric text (``gravity[2]``, ``M[1,3]``, ``cond``; a sweep key such as
    ``gravity[2]:max`` too, and ``total_mass``, ``reach``), for the joints' types ``revolute``;
    "1" for dimensionless, "" when unknown."""
    text = text.split(":")[0].strip()
    if text in ("total_mass", "mass"):
        return "kg"
    if text == "reach":
        return "m"
    name, _, rest = text.partition("[")
    m = METRICS.get(name.strip())
    if m is None:
        return ""
    try:
        index = [int(v) - 1 for v in rest.rstrip("]").split(",")] if rest else []
    except ValueError:
        index = []
    unit = m.unit.replace("^2", "²")
    if revolute is None or not index or not all(0 <= i < len(revolute) for i in index):
        return "kg m², kg m or kg" if name == "M" else unit
    if name == "M":
        return inertial_unit(revolute[index[0]], revolute[index[-1]])
    if " or " in unit:
        first, second = unit.split(" or ")
        return first if revolute[index[0]] else second
    return unit


def readable(name: str) -> str:
    """``inertia_locked`` -> ``Effective inertia, others locked``; unknown names as they are."""
    return READABLE.get(name, name.replace("_", " "))


_DESIGN_NAMES = {"total_mass": "Total mass", "mass": "Total mass", "reach": "Reach"}
_STAT_NAMES = {"max": "maximum", "min": "minimum", "mean": "mean", "std": "standard deviation",
               "p05": "5th percentile", "p50": "median", "p95": "95th percentile"}


def display_name(key: str) -> str:
    """What a plot, picker or table shows for a metric text or sweep key: ``coupling:max`` ->
    ``Inertial coupling, maximum``; ``gravity[2]:mean`` -> ``Gravity torque, joint 2, mean``;
    ``coupling[2,3]`` -> ``Inertial coupling, joints 2-3``; ``total_mass`` -> ``Total mass``.
    Unknown texts come back as they are."""
    text, _, stat = key.partition(":")
    text = text.strip()
    if text in _DESIGN_NAMES and not stat:
        return _DESIGN_NAMES[text]
    name, _, rest = text.partition("[")
    if name.strip() not in METRICS:
        return key
    out = readable(name.strip())
    index = [v.strip() for v in rest.rstrip("]").split(",")] if rest else []
    if len(index) == 1:
        out += f", joint {index[0]}"
    elif len(index) == 2:
        out += f", joints {index[0]}-{index[1]}"
    if stat:
        out += f", {_STAT_NAMES.get(stat, stat)}"
    return out


def _find(combo: QComboBox, data) -> int:
    """Index of the item whose data equals ``data`` (findData does not compare Python tuples)."""
    for k in range(combo.count()):
        if combo.itemData(k) == data:
            return k
    return -1


def metric_tooltip(name: str) -> str:
    m = METRICS[name]
    unit = "dimensionless" if m.unit == "1" else m.unit
    return f"{readable(m.name)} ({m.name}) [{unit}]: {m.description}"


class MetricPicker(QWidget):
    """A metric combo (tooltip: unit and definition) and a component combo (worst case, joint or pair).

    :meth:`text` is the metric text the core parses, e.g. ``coupling[2,3]`` or ``cond``.
    """

    changed = Signal(str)
    helpRequested = Signal()   # the user wants the metric definitions

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.n = 0
        #: how the metric texts name the joints: 1..n, a closed chain's actuated joints by their links
        #: (1, 2, 4, 6 for the palletizer), as the core's parse_metric and the CLI name them
        self.numbers: tuple[int, ...] = ()
        # not "metric": that name is QPaintDevice.metric(), a virtual Qt calls for the widget's DPI
        self.metric_box = QComboBox(self)
        for k, name in enumerate(METRICS):
            self.metric_box.addItem(f"{readable(name)}  ({name})", name)
            self.metric_box.setItemData(k, metric_tooltip(name), Qt.ItemDataRole.ToolTipRole)
        self.component = QComboBox(self)
        self.component.setToolTip("Which joint or joint pair; 'worst' reduces the metric to one number per pose")
        self.unit = QLabel(self)   # the definition and unit, on a line of its own
        self.unit.setWordWrap(True)
        self.unit.setStyleSheet("color: #555;")
        self.unit.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row = QHBoxLayout()
        row.addWidget(QLabel("Metric", self))
        row.addWidget(self.metric_box, 2)
        row.addWidget(self.component, 2)
        self.help_button = QToolButton(self)
        self.help_button.setText("?")
        self.help_button.setToolTip("The definitions of every metric (docs/metrics.md)")
        self.help_button.clicked.connect(lambda _=False: self.helpRequested.emit())
        row.addWidget(self.help_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addWidget(self.unit)
        self.metric_box.currentIndexChanged.connect(self._metric_changed)
        self.component.currentIndexChanged.connect(lambda _=0: self.changed.emit(self.text()))
        self.set_joint_count(2)
        self.set_metric("coupling")

    def set_joint_count(self, n: int) -> None:
        self.set_joints(tuple(range(1, n + 1)))

    def set_joints(self, numbers) -> None:
        """The joints the components offer, by their names (a closed chain's link numbers)."""
        numbers = tuple(int(k) for k in numbers)
        if numbers != self.numbers:
            self.n, self.numbers = len(numbers), numbers
            self._fill_components()

    def _label(self, i: int) -> int:
        return self.numbers[i] if i < len(self.numbers) else i + 1

    def set_metric(self, text: str) -> None:
        """Select ``name`` or ``name[i]`` / ``name[i,j]`` (1-based); unknown texts are ignored."""
        name, _, rest = text.partition("[")
        k = self.metric_box.findData(name.strip())
        if k < 0:
            return
        self.metric_box.setCurrentIndex(k)
        if rest:
            names = [int(v) for v in rest.rstrip("]").split(",")]
            labels = [self._label(i) for i in range(self.n)]
            if any(v not in labels for v in names):
                return
            k = _find(self.component, tuple(labels.index(v) for v in names))
            if k >= 0:
                self.component.setCurrentIndex(k)

    def name(self) -> str:
        return self.metric_box.currentData()

    def text(self) -> str:
        index = self.component.currentData()
        if not index:
            return self.name()
        return f"{self.name()}[{','.join(str(self._label(i)) for i in index)}]"

    def _metric_changed(self) -> None:
        name = self.name()
        self.metric_box.setToolTip(metric_tooltip(name))
        m = METRICS[name]
        self.unit.setText(f"{m.description}  [{'dimensionless' if m.unit == '1' else m.unit}]")
        self.unit.setToolTip(metric_tooltip(name))
        self._fill_components()

    def _fill_components(self) -> None:
        name = self.name()
        if name is None:
            return
        m = METRICS[name]
        keep = self.component.currentData()
        self.component.blockSignals(True)
        self.component.clear()
        if m.shape is Shape.SCALAR:
            self.component.addItem("(scalar)", ())
        else:
            self.component.addItem(f"worst ({_REDUCE_TEXT[m.reduce]})", ())
            if m.shape is Shape.JOINT:
                for i in range(self.n):
                    self.component.addItem(f"joint {self._label(i)}", (i,))
            else:
                for i in range(self.n):
                    for j in range(i, self.n):
                        self.component.addItem(f"{self._label(i)},{self._label(j)}", (i, j))
        k = _find(self.component, keep)
        self.component.setCurrentIndex(max(k, 0))
        self.component.setEnabled(m.shape is not Shape.SCALAR)
        self.component.blockSignals(False)
        self.changed.emit(self.text())
