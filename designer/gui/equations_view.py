"""The equation viewer: a derivation's matrices entry by entry, rendered as mathematics.

The table lists every entry (label, operation count, a text preview); the
pane beside it renders the selected entries with matplotlib's mathtext, so
only what the user looks at is typeset and counted (a six-link arm has
hundreds of long entries).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import cast

import sympy as sp
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFont, QFontMetrics, QGuiApplication, QImage, QPainter, QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QMenu,
                               QMessageBox, QPushButton, QScrollArea, QSplitter, QTableView, QVBoxLayout, QWidget)

from ..dynamics.results import Equations, Form
from ..model import symbol
from .background import Background
from .job_runner import StaleBanner
from .mathtext import MAX_LINES, latex_of
from .scroll_column import narrow_buttons
from ..report.entries import iter_entries
from ..report.loop_section import LOOP, loop_entries
from ..report.typeset import PIXELS_PER_CHAR, tidy_floats

__all__ = ["EquationsView", "entries_of"]

PREVIEW_CHARS = 160
MAX_RENDERED = 12  # entries typeset at once when many rows are selected
MIN_LINE_CHARS = 30  # a narrower pane scrolls rather than typesetting a term per line


def slider_numbers(eq: Equations) -> tuple[int, ...] | None:
    """The tree's joint numbers of a closed chain's closed-form coordinates q1..q_na when they differ from 1..na
    (the palletizer's (1, 2, 4, 6): its sliders' names); None otherwise (a serial arm, the compact form)."""
    closed = eq.extras.get("closed_chain")
    numbers = tuple(closed.get("numbers", ())) if isinstance(closed, dict) else ()
    if not eq.matrices or not numbers or numbers == tuple(range(1, len(numbers) + 1)):
        return None
    return numbers


def _slider_names(eq: Equations, numbers: tuple[int, ...]) -> dict:
    """{q3: q4, qd3: qd4, qdd3: qdd4, ...}: the closed form's coordinates renamed as the sliders are."""
    model = eq.model
    return {old: symbol(f"{prefix}{k}") for prefix, olds in (("q", model.q), ("qd", model.qd), ("qdd", model.qdd))
            for old, k in zip(olds, numbers)}


_CLOSED_FORMS = {"lagrange": "Lagrange-Euler M, B, C, G", "newton-euler": "Newton-Euler tau",
                 "dalembert": "d'Alembert D, H, G"}


def compact_title(eq: Equations) -> str:
    """What a closed chain's compact form is and why it stands where the closed form was asked for (the four-bar's
    "Lagrange-Euler" showed Newton-Euler steps headed "off simplification" with no reason; issue 29 item 5)."""
    asked = _CLOSED_FORMS.get(eq.method.value, eq.method.value)
    if eq.extras.get("too_large") or eq.extras.get("too_slow"):
        why = "its closed form was too large or too slow to expand"
    else:   # no closed form in the actuated joints and loop quantities (a loop that does not fix its joints)
        why = str(eq.extras.get("no_closed_form") or "no closed form in the actuated joints")
    return (f"{eq.model.name or 'arm'}: the compact form, not {asked}: {why}. Shown: the tree's recursion step "
            "by step, projected onto the actuated joints (no simplification applies to its steps).")


def entries_of(eq: Equations) -> list:
    """The entries in display order, labelled by :mod:`designer.report.entries`.

    Horn's per-link torques (``eq.extras["link_torques"]``, n x n) are listed last as T_ij. A closed chain's
    closed form, derived in its actuated joints renumbered q1..q_na, is shown with the sliders' names (the
    palletizer's sin(q2 - q4) and M_24, not sin(q2 - q3) and M_23 with q3 the crank; issue 29 item 6).
    """
    torques = eq.extras.get("link_torques")
    if isinstance(torques, sp.MatrixBase) and "T" not in eq.matrices and "T" not in eq.extras:
        extras = {k: v for k, v in eq.extras.items() if k != "link_torques"}
        eq = replace(eq, extras={**extras, "T": torques})
    numbers = slider_numbers(eq)
    if numbers is None:
        return loop_entries(eq) + list(iter_entries(eq))
    names = _slider_names(eq, numbers)
    return [replace(e, expr=sp.sympify(e.expr).xreplace(names),
                    factor=None if e.factor is None else e.factor.xreplace(names))
            for e in loop_entries(eq) + list(iter_entries(eq, numbers=numbers))]


class _EntriesModel(QAbstractTableModel):
    HEADERS = ("Entry", "Operations", "Expression")
    WAITING = "…"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.entries: list = []
        self.rows: list[int] = []
        self._stats: dict[int, tuple[int, str]] = {}
        self._asked: set[int] = set()
        self._batch: list[int] = []
        self._generation = 0
        self._background = Background(self)
        self._background.finished.connect(self._stats_done)

    def set_entries(self, entries: list, rows: list[int]) -> None:
        self.beginResetModel()
        self.entries, self.rows = entries, rows
        self._stats.clear()
        self._asked.clear()
        self._batch = []   # rows of the old entries still waiting to be counted (issue 29: IndexError)
        self._generation += 1
        self.endResetModel()

    def set_rows(self, rows: list[int]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else 3

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None

    def entry(self, row: int):
        return self.entries[self.rows[row]]

    def stats(self, k: int) -> tuple[int, str] | None:
        """(operation count, preview) of entry k, or None while it is being counted."""
        if k not in self._stats and k not in self._asked:
            self._asked.add(k)
            if not self._batch:
                QTimer.singleShot(0, self._send_batch)  # one job for all rows painted together
            self._batch.append(k)
        return self._stats.get(k)

    def _send_batch(self) -> None:
        batch, self._batch = self._batch, []
        if batch:
            items = [(k, self.entries[k].expr) for k in batch]
            self._background.submit(self._generation, "stats_many", items, PREVIEW_CHARS)

    def _stats_done(self, generation: int, stats) -> None:
        if generation != self._generation:
            return
        if isinstance(stats, Exception):
            stats = {k: (-1, f"(could not count: {stats})") for k in self._asked if k not in self._stats}
        self._stats.update(stats)
        if self.rows:
            self.dataChanged.emit(self.index(0, 1), self.index(len(self.rows) - 1, 2))

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        k = self.rows[index.row()]
        entry = self.entries[k]
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                return entry.label
            stats = self.stats(k)
            if stats is None:
                return self.WAITING
            if index.column() == 1:
                return stats[0]
            if getattr(entry, "mirror", None):
                return f"(= {entry.matrix}_{''.join(map(str, entry.mirror))})  " + stats[1]
            return stats[1]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 0:
            return entry.label   # whole: a 90 px column cuts "coriolis_matrix_1,2" to "coriolis_ma…" (issue 29)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 2:
            return "Select to see it typeset; right-click to copy"
        return None


class EquationsView(QWidget):
    """Entries of a derivation result with search, copy and an out-of-date banner."""

    message = Signal(str)   # what a copy put on the clipboard, for the status bar

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.equations: Equations | None = None
        self.stale = False
        self._symbols: dict[int, frozenset[str]] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.banner = StaleBanner()   # the look and wording of every other result's banner
        layout.addWidget(self.banner)
        self.title = QLabel("No equations yet.")
        self.title.setWordWrap(True)
        # the title shares its row with the copy buttons, the filter has a row of its own: in one row with the
        # filter they made the tab 480 px wide, and at 1024 px "Hide zeros" lay over the filter (issue 29 item 9)
        title_row = QHBoxLayout()
        title_row.addWidget(self.title, 1)
        layout.addLayout(title_row)
        bar = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter by symbol, e.g. m2 L1")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(120)
        self.search.setToolTip("Show the entries containing every symbol typed (names or their beginnings)")
        self.search.textChanged.connect(self._apply_filter)
        bar.addWidget(self.search, 1)
        self.hide_zero = QCheckBox("Hide zeros")
        self.hide_zero.setChecked(True)
        self.hide_zero.toggled.connect(self._apply_filter)
        bar.addWidget(self.hide_zero)
        # "k of N shown" while a filter hides entries: a filter kept from another model can hide them all
        self.count_label = QLabel("")
        self.count_label.setToolTip("Entries listed of those derived; clear the filter to see them all")
        bar.addWidget(self.count_label)
        self.copy_latex_button = QPushButton("Copy LaTeX")
        self.copy_latex_button.clicked.connect(self.copy_latex)
        self.copy_text_button = QPushButton("Copy text")
        self.copy_text_button.clicked.connect(self.copy_text)
        narrow_buttons(self.copy_latex_button, self.copy_text_button)
        title_row.addWidget(self.copy_latex_button, 0, Qt.AlignmentFlag.AlignTop)
        title_row.addWidget(self.copy_text_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(bar)
        self.model = _EntriesModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.setColumnWidth(0, 90)
        self.table.setColumnWidth(1, 80)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.selectionModel().selectionChanged.connect(self._render_selection)
        self.math = QLabel()
        self.math.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.math.setStyleSheet("QLabel { background: white; padding: 8px; }")
        self.math.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = self.math_scroll = QScrollArea()
        scroll.setWidget(self.math)
        scroll.setWidgetResizable(True)
        scroll.setStyleSheet("QScrollArea { background: white; }")
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(scroll)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)
        # proportions, not pixels: the splitter shares whatever height it gets 55:45 (the table's
        # size hint alone left the typeset pane about 60 px tall at 1366 x 768)
        splitter.setSizes([550, 450])
        self.splitter = splitter
        layout.addWidget(splitter, 1)
        self.rendered_count = 0  # entries typeset so far (laziness is visible to tests)
        self._typesetter = Background(self)
        self._typesetter.finished.connect(self._show_images)
        self._request = 0
        self._typeset_entries: list = []

    # -- public API -----------------------------------------------------------
    def set_equations(self, eq: Equations | None, stale: bool | str = False) -> None:
        """Show ``eq`` (None clears); ``stale`` (True, or the reason as text) shows the out-of-date banner."""
        self.stale = bool(stale)
        reason = stale if isinstance(stale, str) and stale else "the model changed after these equations were derived"
        self.banner.set_reason(reason if self.stale and eq is not None else "", "Derive again",
                               "exports use these equations only after asking")
        if eq is self.equations:
            return
        self.equations = eq
        self._symbols.clear()
        entries = [] if eq is None else entries_of(eq)
        self.model.set_entries(entries, [])
        if eq is None:
            self.title.setText("No equations yet.")
        else:
            forms = ", ".join(entries_names(entries))
            numbers = slider_numbers(eq)
            joints = "" if numbers is None else \
                f"; the actuated joints {', '.join(f'q{k}' for k in numbers)} as the sliders name them"
            loops = sum(e.matrix == LOOP for e in entries)
            if eq.form is Form.COMPACT and "closed_chain" in eq.extras:
                self.title.setText(compact_title(eq))
            elif loops:   # a loop that does not close linearly: its closed form reads the loop quantities
                mats = ", ".join(n for n in entries_names(entries) if n != LOOP)
                self.title.setText(f"{eq.model.name or 'arm'}: {eq.method.value}, {eq.simplify.value} "
                                   f"simplification — {mats}{joints}, reading the {loops} loop quantities "
                                   "listed first (each defined from the actuated joints and those above it)")
            else:
                self.title.setText(f"{eq.model.name or 'arm'}: {eq.method.value}, {eq.simplify.value} "
                                   f"simplification — {forms}{joints}")
        self._apply_filter()

    def confirm_form(self, eq: Equations) -> bool:
        """True to show ``eq``. A derivation that gave the recursive form because the closed form
        was too large to expand (``eq.extras["too_large"]``) or did not finish within its time budget
        (``eq.extras["too_slow"]``) asks first; No keeps what is shown."""
        too_large, too_slow = eq.extras.get("too_large"), eq.extras.get("too_slow")
        if eq.form is not Form.COMPACT or not (too_large or too_slow):
            return True
        if too_large:
            entry, terms, _limit = cast("tuple[str, int, int]", too_large)
            title, text = "Closed form too large", f"The expanded {entry} has about {about(terms)} terms"
        else:
            seconds, stage = cast("tuple[float, str]", too_slow)
            title, text = "Closed form too slow", (f"The closed form did not finish within {seconds:g} s "
                                                   f"(it had reached {stage or 'the start'})")
        box = QMessageBox(QMessageBox.Icon.Question, title, f"{text}; show the recursive form instead?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setInformativeText("The recursive form lists the Newton-Euler variables of each link in the order "
                               "they are evaluated, with tau, M, G and h built from them. "
                               + ("No keeps the equations on display." if self.equations is not None
                                  else "No leaves the view empty."))
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        return box.exec() == QMessageBox.StandardButton.Yes

    def entry_count(self) -> int:
        """Entries listed now (after the search and the zero filter)."""
        return self.model.rowCount()

    def visible_labels(self) -> list[str]:
        return [self.model.entry(r).label for r in range(self.model.rowCount())]

    def select_row(self, row: int) -> None:
        self.table.selectRow(row)

    def selected_entries(self) -> list:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        if not rows and self.model.rowCount():
            current = self.table.currentIndex()
            rows = [current.row()] if current.isValid() else []
        return [self.model.entry(r) for r in rows]

    def copy_latex(self) -> str:
        """Put the selected entries on the clipboard as LaTeX (``M_{12} = ...``, one a line)."""
        return self._copy("LaTeX", lambda e: f"{e.latex_label} = {latex_of(e.expr)}")

    def copy_text(self) -> str:
        """Put the selected entries on the clipboard as plain text (sympy syntax)."""
        return self._copy("text", lambda e: f"{e.label} = {sp.sstr(tidy_floats(e.expr))}")

    def _copy(self, form: str, line_of) -> str:
        entries = self.selected_entries()
        text = "\n".join(line_of(e) for e in entries)
        QGuiApplication.clipboard().setText(text)
        more = f" and {len(entries) - 4} more" if len(entries) > 4 else ""
        self.message.emit(f"Copied {', '.join(e.label for e in entries[:4])}{more} to the clipboard as {form}"
                          if entries else "Nothing copied: select the entries to copy first")
        return text

    # -- internals ------------------------------------------------------------
    def _symbol_names(self, k: int) -> frozenset[str]:
        if k not in self._symbols:
            self._symbols[k] = frozenset(s.name for s in self.model.entries[k].expr.free_symbols)
        return self._symbols[k]

    def _apply_filter(self, *_) -> None:
        tokens = [t for t in re.split(r"[\s,;]+", self.search.text().strip()) if t]
        hide_zero = self.hide_zero.isChecked()
        rows = []
        for k, entry in enumerate(self.model.entries):
            if hide_zero and entry.expr == 0:
                continue
            if tokens:
                names = self._symbol_names(k)
                if not all(any(name.startswith(t) for name in names) for t in tokens):
                    continue
            rows.append(k)
        self.model.set_rows(rows)
        total = len(self.model.entries)
        hidden = total - len(rows)
        self.count_label.setText(f"{len(rows)} of {total} shown" if hidden and total else "")
        self.count_label.setStyleSheet("QLabel { color: #aa0000; font-weight: bold; }"
                                       if total and not rows else "")
        self._render_selection()

    def _render_selection(self, *_) -> None:
        self._request += 1
        entries = self.selected_entries()[:MAX_RENDERED]
        if not entries:
            self.math.clear()
            self.math.setMinimumSize(0, 0)
            self.math.setText("Select an entry to see it typeset." if self.model.rowCount() else self._none_listed())
            return
        self.math.setMinimumSize(0, 0)
        self.math.setText("Typesetting " + ", ".join(e.label for e in entries) + " …")
        self._typeset_entries = entries
        # lines as wide as the pane holds (a longer single term still scrolls sideways)
        chars = max(MIN_LINE_CHARS, int((self.math_scroll.viewport().width() - 24) / PIXELS_PER_CHAR))
        self._typesetter.submit(self._request, "typeset_many", [(e.latex_label, e.expr) for e in entries], chars)

    def _none_listed(self) -> str:
        """Why the table is empty when there are entries: the filter (or the zero filter) hides them all."""
        total = len(self.model.entries)
        if not total:
            return ""
        text = self.search.text().strip()
        why = f"the filter \u201c{text}\u201d" if text else "hiding zeros"
        return f"0 of {total} entries shown: {why} hides them all. Clear the filter to see them."

    @staticmethod
    def wait_for_background(timeout: float = 60.0) -> bool:
        """Block until queued typesetting and counting are done (then process events to show them)."""
        return Background.wait(timeout)

    def _show_images(self, number: int, arrays) -> None:
        if number != self._request:
            return  # the selection changed while this was typeset
        entries = self._typeset_entries
        if isinstance(arrays, Exception):
            arrays = [None] * len(entries)
        images = [_to_qimage(a) if a is not None else _text_image(f"{e.label} = {sp.sstr(tidy_floats(e.expr))}")
                  for a, e in zip(arrays, entries)]
        if not images:
            return
        self.rendered_count += len(images)
        width = max(im.width() for im in images)
        height = sum(im.height() for im in images) + 10 * (len(images) - 1)
        pixmap = QPixmap(width, height)
        pixmap.fill(Qt.GlobalColor.white)
        painter = QPainter(pixmap)
        y = 0
        for im in images:
            painter.drawImage(0, y, im)
            y += im.height() + 10
        painter.end()
        self.math.setPixmap(pixmap)
        self.math.setMinimumSize(pixmap.size())  # wider than the pane: the scroll area scrolls

    def _context_menu(self, pos) -> None:
        menu = QMenu(self)
        for text, slot in (("Copy as LaTeX", self.copy_latex), ("Copy as text", self.copy_text)):
            action = QAction(text, menu)
            action.triggered.connect(slot)
            menu.addAction(action)
        menu.exec(self.table.viewport().mapToGlobal(pos))


def _to_qimage(rgba) -> QImage:
    h, w, _ = rgba.shape
    return QImage(rgba.data, w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()


def _text_image(text: str) -> QImage:
    """An entry mathtext cannot typeset, as monospaced text (at most MAX_LINES lines of 120 characters)."""
    font = QFont("DejaVu Sans Mono", 10)
    metrics = QFontMetrics(font)
    note = "(shown as text: mathtext cannot typeset this entry)"
    lines = [note] + [text[k:k + 120] for k in range(0, min(len(text), 120 * MAX_LINES), 120)]
    width = max(metrics.horizontalAdvance(line) for line in lines) + 12
    image = QImage(width, metrics.lineSpacing() * len(lines) + 12, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(0, 0, 0, 0))
    painter = QPainter(image)
    painter.setFont(font)
    for k, line in enumerate(lines):
        painter.setPen(QColor("#8a5a00") if k == 0 else QColor("black"))
        painter.drawText(6, 6 + metrics.ascent() + k * metrics.lineSpacing(), line)
    painter.end()
    return image


def about(terms: int) -> str:
    """A term count to two significant figures, as a person reads it: 530,000,000."""
    if terms < 100:
        return str(terms)
    digits = len(str(int(terms))) - 2
    return f"{round(terms, -digits):,}"


def entries_names(entries: list) -> list[str]:
    """Matrix names in first-seen order."""
    seen: dict[str, None] = {}
    for e in entries:
        seen.setdefault(e.matrix, None)
    return list(seen)
