"""What the Requirements tab types and checks: where a requirement holds and the cycle's waypoints as text, every
edit checked as opening the file checks it, and the drives' catalog gearboxes and motors chosen per joint.

A typed edit becomes the project file's fields (:func:`designer.project.requirements.requirements_json`) and is read
back with :func:`~designer.project.requirements.read_requirements` and
:func:`~designer.project.requirements.check_sizes`: a bad value gets the message opening such a file gives
(``requirements[2].where.box: hi must not be below lo``), and nothing of the project changes.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from ..model.requirements import Requirements, Where

if TYPE_CHECKING:
    from ..catalog import Catalog

__all__ = ["where_text", "where_field", "poses_text", "parse_poses", "checked", "DriveItemsEditor", "NONE",
           "drive_with_items"]

NONE = "(none)"   # the combo entry of a drive naming no gearbox (motor)
WHERE_HELP = ("zero, cycle, poses: 0 0 0; 0 -0.6 1.2 (one pose of the metrics' joints each, rad or m), "
              "or box: lo -1 -1.5 -1; hi 1 0 1; samples 64")
_SPLIT = re.compile(r"[\s,]+")


def _row(values) -> str:
    return " ".join(f"{v:.6g}" for v in values)


def poses_text(poses) -> str:
    """Poses as typed: joint values by spaces, poses by semicolons."""
    return "; ".join(_row(p) for p in poses)


def where_text(where: Where) -> str:
    """``where`` as the Where field types it (:func:`where_field` reads it back)."""
    if where.kind == "poses":
        return "poses: " + poses_text(where.poses)
    if where.kind == "box":
        return f"box: lo {_row(where.lo)}; hi {_row(where.hi)}; samples {where.samples}"
    return where.kind


def _numbers(text: str, label: str) -> list[float]:
    out = []
    for word in _SPLIT.split(text.strip()):
        if not word:
            continue
        try:
            out.append(float(word))
        except ValueError:
            raise ValueError(f"{label}: '{word}' is not a number") from None
    if not out:
        raise ValueError(f"{label}: no joint values")
    return out


def parse_poses(text: str, label: str) -> list[list[float]]:
    """Poses typed as ``q1 q2 q3; q1 q2 q3``; ValueError naming ``label``, the pose and the word."""
    parts = [p for p in text.split(";") if p.strip()]
    if not parts:
        raise ValueError(f"{label}: type the poses' joint values, poses separated by ';'")
    return [_numbers(p, f"{label}, pose {k}") for k, p in enumerate(parts, start=1)]


def where_field(text: str, label: str) -> Any:
    """The project file's ``where`` field for the typed ``text`` (:data:`WHERE_HELP`); ValueError saying what is
    wrong. Values are checked after (:func:`checked`)."""
    t = text.strip()
    if t.lower() in ("", "zero"):
        return "zero"
    if t.lower() == "cycle":
        return "cycle"
    kind, sep, rest = t.partition(":")
    kind = kind.strip().lower()
    if not sep or kind not in ("poses", "box"):
        raise ValueError(f"{label}: write {WHERE_HELP}")
    if kind == "poses":
        return {"poses": parse_poses(rest, label)}
    box: dict[str, Any] = {}
    for part in (p.strip() for p in rest.split(";")):
        if not part:
            continue
        key, _, values = part.partition(" ")
        key = key.strip().lower()
        if key not in ("lo", "hi", "samples") or key in box:
            raise ValueError(f"{label}: a box is 'lo VALUES; hi VALUES; samples N', not '{part}'")
        if key == "samples":
            n = _numbers(values, f"{label}, samples")
            if len(n) != 1 or not n[0].is_integer():
                raise ValueError(f"{label}, samples: write one whole number")
            box[key] = int(n[0])
        else:
            box[key] = _numbers(values, f"{label}, {key}")
    for key in ("lo", "hi"):
        if key not in box:
            raise ValueError(f"{label}: the box needs its {key} (a box is 'lo VALUES; hi VALUES; samples N')")
    return {"box": box}


def checked(model, data: dict[str, Any]) -> tuple[Requirements | None, str]:
    """``data`` (the project file's requirement fields) read as a file's are for ``model``: (requirements, "") or
    (None, the first problem, where and what, and how many more)."""
    from ..project.requirements import check_sizes, read_requirements
    problems: list[str] = []

    def fail(where: str, message: str) -> None:
        problems.append(f"{where}: {message}")
    req = read_requirements(fail, data)
    if not problems:
        check_sizes(replace(model, requirements=req), fail)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return None, problems[0] + more
    return req, ""


# -- the drives' catalog items ------------------------------------------------------------------------------------
def drive_with_items(model, i: int, gearbox: str | None, motor: str | None, catalog):
    """``model`` with link ``i``'s drive naming ``gearbox`` and ``motor`` (None: none) of ``catalog``: the
    figures these items give (gear ratio, rotor inertia, ratings, stiffness:
    :func:`designer.project.catalog_drives.drive_from_items`) replace the drive's, the drive's other figures
    (friction, damping, what the items leave out) stay, and the figures the items it named before gave go.
    CatalogError naming the joint when ``catalog`` lacks a name."""
    from ..model.extras import DRIVE_FIELDS, Drive
    from ..project.catalog_drives import drive_from_items
    where = f"joint {i + 1}"
    box = catalog.gearbox(gearbox, f"{where}, gearbox") if gearbox else None
    mot = catalog.motor(motor, f"{where}, motor") if motor else None
    given = {k for k, _ in drive_from_items(Drive(), box, mot).from_catalog} if box or mot else set()
    old = model.links[i].drive or Drive()
    own = {k: getattr(old, k) for k in DRIVE_FIELDS
           if getattr(old, k) is not None and k not in old.catalog_fields and k not in given}
    drive = drive_from_items(Drive(**own, gearbox=gearbox or None, motor=motor or None), box, mot)
    links = list(model.links)
    links[i] = replace(links[i], drive=None if drive.is_empty else drive)
    return replace(model, links=tuple(links))


JOINT, GEARBOX, MOTOR, FIGURES = range(4)


def _figures(drive) -> str:
    if drive is None:
        return "no drive data"
    parts = []
    for key, label, unit in (("gear_ratio", "N", ""), ("rated_torque", "rated", " N·m"),
                             ("peak_torque", "peak", " N·m"), ("rated_speed", "speed", " rad/s"),
                             ("stiffness", "k", " N·m/rad")):
        v = getattr(drive, key)
        if v is not None:
            try:
                parts.append(f"{label} {float(v):.4g}{unit}")
            except TypeError:
                parts.append(f"{label} {v}{unit}")   # a named stiffness (a parameter's expression)
    return ", ".join(parts) or "no drive data"


class DriveItemsEditor(QWidget):
    """Per driven joint, the catalog gearbox and motor its drive names (bundled catalogs, then the
    ``*.catalog.json`` beside the project); a choice is one undoable edit of the document."""

    message = Signal(str)   # a refused choice or a catalog that cannot be read, said in the tab's summary

    def __init__(self, document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.catalog: Catalog | None = None
        self.catalog_problem = ""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        self.title = QLabel("Drives from catalogs:", self)
        self.title.setToolTip("Each driven joint's gearbox and motor from the catalogs: the figures they give "
                              "(ratio, rotor inertia, ratings, stiffness) become the drive's (docs/catalogs.md)")
        head.addWidget(self.title, 1)
        self.reload_button = QPushButton("Reload catalogs", self)
        self.reload_button.setToolTip("Read the bundled catalogs and the *.catalog.json files beside the project "
                                      "again (docs/catalogs.md)")
        self.reload_button.clicked.connect(self.reload)
        head.addWidget(self.reload_button)
        layout.addLayout(head)
        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(["Joint", "Gearbox", "Motor", "Figures at the joint"])
        header = self.table.horizontalHeader()
        for col in (JOINT, GEARBOX, MOTOR):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        layout.addWidget(self.table, 1)
        self._filling = False
        self.reload()

    def reload(self) -> None:
        """Read the catalogs again (bundled, then beside the project) and show the drives."""
        from ..catalog import CatalogError, load_catalog
        try:
            self.catalog, self.catalog_problem = load_catalog(self.document.path), ""
        except CatalogError as exc:
            self.catalog, self.catalog_problem = None, f"catalogs: {exc}"
            self.message.emit(self.catalog_problem)
        self.fill(self.document.model)

    def joints(self, model) -> list[int]:
        return [i for i, link in enumerate(model.links) if link.actuated]

    def fill(self, model) -> None:
        self._filling = True
        try:
            joints = self.joints(model)
            self.table.setRowCount(len(joints))
            for row, i in enumerate(joints):
                link = model.links[i]
                label = QTableWidgetItem(f"{i + 1}" + (f" {link.name}" if link.name else ""))
                self.table.setItem(row, JOINT, label)
                drive = link.drive
                tables: tuple[tuple[int, str, dict[str, Any]], ...] = (
                    (GEARBOX, "gearbox", self.catalog.gearboxes if self.catalog else {}),
                    (MOTOR, "motor", self.catalog.motors if self.catalog else {}))
                for col, key, table in tables:
                    combo = QComboBox(self.table)
                    names = [NONE, *table]
                    current = getattr(drive, key) if drive is not None else None
                    if current and current not in table:
                        names.append(current)   # named by the file, not in the catalogs read now
                    combo.addItems(names)
                    combo.setCurrentText(current or NONE)
                    combo.setToolTip(f"Joint {i + 1}'s {key} from the catalogs ({NONE}: the drive's own figures)")
                    combo.textActivated.connect(lambda _t, i=i: self._chosen(i))
                    self.table.setCellWidget(row, col, combo)
                figures = QTableWidgetItem(_figures(drive))
                figures.setToolTip(figures.text())
                self.table.setItem(row, FIGURES, figures)
        finally:
            self._filling = False

    def combo(self, joint: int, col: int) -> QComboBox:
        row = self.joints(self.document.model).index(joint)
        widget = self.table.cellWidget(row, col)
        assert isinstance(widget, QComboBox)
        return widget

    def choose(self, joint: int, gearbox: str | None, motor: str | None) -> bool:
        """Link ``joint`` (0-based)'s drive names these items (None: none): one undoable edit; False (and a message,
        the drive as it was) when the catalogs lack one."""
        from ..catalog import CatalogError
        model = self.document.model
        drive = model.links[joint].drive
        if (gearbox, motor) == ((drive.gearbox, drive.motor) if drive is not None else (None, None)):
            return False
        if (gearbox or motor) and self.catalog is None:
            self.message.emit(f"joint {joint + 1}: no catalogs to choose from ({self.catalog_problem})")
            self.fill(model)
            return False
        try:
            new = drive_with_items(model, joint, gearbox, motor, self.catalog)
        except CatalogError as exc:
            self.message.emit(str(exc))
            self.fill(model)
            return False
        words = ", ".join(str(n) for n in (gearbox, motor) if n) or "no catalog items"
        return self.document.apply(new, f"Joint {joint + 1} drive: {words}")

    def _chosen(self, joint: int) -> None:
        if self._filling:
            return
        names = [self.combo(joint, col).currentText() for col in (GEARBOX, MOTOR)]
        gearbox, motor = (None if n == NONE else n for n in names)
        self.choose(joint, gearbox, motor)
