"""The Help menu's windows: the user guide (README and docs/*.md shipped with the application), the
keyboard shortcuts, and About (version, licence, the libraries used)."""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import platform
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QListWidget, QMessageBox, QSplitter,
                               QTableWidget, QTableWidgetItem, QTextBrowser, QVBoxLayout, QWidget)

from .. import __version__

__all__ = ["doc_pages", "guide_root", "DocsWindow", "ShortcutsDialog", "about_text", "show_about", "LIBRARIES",
           "ROOT"]

ROOT = Path(__file__).resolve().parents[2]   # a source checkout: README.md and docs/ beside designer/
SHIPPED = "_docs"   # the copy of README.md and docs/ that a built package carries (setup.py puts it there)
LIBRARIES = ("PySide6-Essentials", "pyqtgraph", "sympy", "numpy", "matplotlib", "PyOpenGL")


def guide_root() -> Path:
    """The folder holding README.md and docs/: the copy shipped in the package (an installed wheel has
    no docs/ beside it), else the source checkout."""
    shipped = importlib.resources.files("designer") / SHIPPED
    if shipped.is_dir() and (shipped / "README.md").is_file():
        return Path(str(shipped))
    return ROOT


def doc_pages(root: Path | None = None) -> list[tuple[str, Path]]:
    """(title, path) of the user guide's pages: the README first, then docs/*.md by name."""
    root = guide_root() if root is None else root
    pages = []
    readme = root / "README.md"
    if readme.is_file():
        pages.append(("Overview (README)", readme))
    for path in sorted((root / "docs").glob("*.md")):
        first = path.read_text(encoding="utf-8").lstrip().splitlines()[:1]
        title = first[0].lstrip("# ").strip() if first and first[0].startswith("#") else path.stem
        pages.append((title, path))
    return pages


class DocsWindow(QDialog):
    """The user guide: a list of pages and the chosen one rendered from Markdown (links between pages
    and to their images work; other links open in the browser)."""

    def __init__(self, parent: QWidget | None = None, root: Path | None = None):
        super().__init__(parent)
        root = guide_root() if root is None else root
        self.setWindowTitle("Manipulator Designer — user guide")
        self.resize(980, 700)
        self.pages = doc_pages(root)
        self.list = QListWidget(self)
        self.list.addItems([title for title, _ in self.pages])
        self.browser = QTextBrowser(self)
        self.browser.setOpenExternalLinks(True)
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._link)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.list)
        split.addWidget(self.browser)
        split.setSizes([220, 760])
        layout = QVBoxLayout(self)
        layout.addWidget(split)
        self.list.currentRowChanged.connect(self._show)
        if not self.pages:
            self.browser.setMarkdown(f"The documentation was not found beside the program ({root}).")
        else:
            self.list.setCurrentRow(0)

    def show_page(self, name: str) -> bool:
        """Show the page whose file is ``name`` (e.g. ``metrics.md``); False when there is none."""
        for k, (_title, path) in enumerate(self.pages):
            if path.name == name:
                self.list.setCurrentRow(k)
                return True
        return False

    def current_path(self) -> Path | None:
        row = self.list.currentRow()
        return self.pages[row][1] if 0 <= row < len(self.pages) else None

    def _show(self, row: int) -> None:
        if not 0 <= row < len(self.pages):
            return
        path = self.pages[row][1]
        self.browser.document().setBaseUrl(QUrl.fromLocalFile(str(path.parent) + "/"))
        self.browser.setSearchPaths([str(path.parent)])
        self.browser.setMarkdown(path.read_text(encoding="utf-8"))

    def _link(self, url: QUrl) -> None:
        if url.isLocalFile() or not url.scheme():
            target = Path(url.toLocalFile() if url.isLocalFile() else url.path()).name
            if target.endswith(".md") and self.show_page(target):
                return
        from PySide6.QtGui import QDesktopServices
        QDesktopServices.openUrl(url)


class ShortcutsDialog(QDialog):
    """Every menu command with a keyboard shortcut, as a table."""

    def __init__(self, actions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        rows = []
        for menu, action in actions:
            keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()]
            if keys:
                rows.append((menu, action.text().replace("&", "").rstrip("…"), ", ".join(keys)))
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setHorizontalHeaderLabels(["menu", "command", "keys"])
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(520, 480)

    def rows(self) -> list[tuple[str, str, str]]:
        def text(r: int, c: int) -> str:
            item = self.table.item(r, c)
            return item.text() if item is not None else ""
        return [(text(r, 0), text(r, 1), text(r, 2)) for r in range(self.table.rowCount())]


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def licence_status(root: Path = ROOT) -> str:
    """What the distribution says about its licence (a LICENSE file or the package metadata)."""
    for name in ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"):
        path = root / name
        if path.is_file():
            first = path.read_text(encoding="utf-8").strip().splitlines()
            return f"{first[0].strip() if first else name} (see {name})"
    try:
        meta = importlib.metadata.metadata("manipulator-designer")
        licence = meta.json.get("license")   # PackageMetadata declares no get(); json is its dict view
        if licence:
            return str(licence)
    except importlib.metadata.PackageNotFoundError:
        pass
    return "no licence has been chosen yet: all rights reserved by the authors until one is"


def about_text() -> str:
    libs = "".join(f"<li>{name} {_version(name)}</li>" for name in LIBRARIES)
    return (f"<h3>Manipulator Designer {__version__}</h3>"
            "<p>Equations of motion of serial robot arms from their Denavit-Hartenberg tables, "
            "and the design metrics built on them.</p>"
            f"<p><b>Licence:</b> {licence_status()}</p>"
            f"<p><b>Libraries:</b></p><ul>{libs}</ul>"
            f"<p>Python {platform.python_version()} on {platform.system()} {platform.machine()}</p>")


def show_about(parent: QWidget) -> None:
    QMessageBox.about(parent, "About Manipulator Designer", about_text())
