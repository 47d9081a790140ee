"""The Help menu's windows: the user guide (README and docs/*.md shipped with the application), the
keyboard shortcuts, and About (version, licence, the libraries used)."""

from __future__ import annotations

import importlib.resources
import platform
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QUrl
from PySide6.QtGui import QImageReader, QKeySequence, QTextCursor
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QListWidget, QMessageBox, QSplitter,
                               QTableWidget, QTableWidgetItem, QTextBrowser, QVBoxLayout, QWidget)

from .. import __version__

__all__ = ["GUIDE_ORDER", "doc_pages", "guide_root", "DocsWindow", "ShortcutsDialog", "about_text", "show_about",
           "LIBRARIES", "ROOT"]

ROOT = Path(__file__).resolve().parents[2]   # a source checkout: README.md and docs/ beside designer/
SHIPPED = "_docs"   # the copy of README.md and docs/ that a built package carries (setup.py puts it there)
#: the user guide's reading order (a page not named here follows, by name)
GUIDE_ORDER = ("window.md", "command-line.md", "design-story.md", "closed-chains.md", "elastic.md", "metrics.md",
               "codegen.md", "urdf.md", "mjcf.md", "project-format.md", "option-ranges.md", "scaling.md",
               "benchmarks.md", "layout.md", "architecture.md", "catalogs.md", "optimize.md")
LIBRARIES = ("PySide6-Essentials", "pyqtgraph", "sympy", "numpy", "matplotlib", "PyOpenGL")


def guide_root() -> Path:
    """The folder holding README.md and docs/: the copy shipped in the package (an installed wheel has
    no docs/ beside it), else the source checkout."""
    shipped = importlib.resources.files("designer") / SHIPPED
    if shipped.is_dir() and (shipped / "README.md").is_file():
        return Path(str(shipped))
    return ROOT


def doc_pages(root: Path | None = None) -> list[tuple[str, Path]]:
    """(title, path) of the user guide's pages: the README first, then docs/*.md in :data:`GUIDE_ORDER`,
    then any other page by name."""
    root = guide_root() if root is None else root
    pages = []
    readme = root / "README.md"
    if readme.is_file():
        pages.append(("Overview (README)", readme))
    rank = {name: k for k, name in enumerate(GUIDE_ORDER)}
    for path in sorted((root / "docs").glob("*.md"), key=lambda p: (rank.get(p.name, len(rank)), p.name)):
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
        # the contents list as wide as its longest title: no title cut off
        list_width = (max((self.list.fontMetrics().horizontalAdvance(t) for t, _ in self.pages), default=100)
                      + 2 * self.list.frameWidth() + self.list.style().pixelMetric(
                          self.list.style().PixelMetric.PM_ScrollBarExtent) + 16)
        self.list.setMinimumWidth(list_width)
        split.setSizes([list_width, max(980 - list_width, 400)])
        split.setCollapsible(0, False)
        self.browser.viewport().installEventFilter(self)   # images follow the pane's width
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
        self.fit_images()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.browser.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_images()
        return super().eventFilter(watched, event)

    def fit_images(self) -> list[int]:
        """Scale each image down to the pane's width (never up), keeping its aspect; returns the widths set."""
        document = self.browser.document()
        room = max(self.browser.viewport().width() - 2 * int(document.documentMargin()) - 4, 50)
        widths = []
        block = document.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                fmt = fragment.charFormat()
                if fmt.isImageFormat():
                    image = fmt.toImageFormat()
                    size = QImageReader(self._image_path(image.name())).size()
                    if size.isValid() and size.width() > 0:
                        width = min(size.width(), room)
                        if abs(image.width() - width) > 0.5:
                            image.setWidth(width)
                            image.setHeight(size.height() * width / size.width())
                            cursor = QTextCursor(document)
                            cursor.setPosition(fragment.position())
                            cursor.setPosition(fragment.position() + fragment.length(),
                                               QTextCursor.MoveMode.KeepAnchor)
                            cursor.setCharFormat(image)
                        widths.append(int(round(width)))
                it += 1
            block = block.next()
        return widths

    def _image_path(self, name: str) -> str:
        url = QUrl(name)
        if url.isLocalFile():
            return url.toLocalFile()
        path = Path(name)
        if not path.is_absolute():
            base = self.browser.document().baseUrl().toLocalFile()
            path = Path(base) / path
        return str(path)

    def _link(self, url: QUrl) -> None:
        if url.isLocalFile() or not url.scheme():
            target = Path(url.toLocalFile() if url.isLocalFile() else url.path()).name
            if target.endswith(".md") and self.show_page(target):
                return
        from PySide6.QtGui import QDesktopServices
        QDesktopServices.openUrl(url)


def shortcut_text(keys) -> str:
    """A command's keys as a person reads them: chords with fewer modifier keys first, a keyboard's own key
    for the command last ("Ctrl+Y, Ctrl+Shift+Z (or the Redo key)", not "Ctrl+Shift+Z, Redo, Ctrl+Y")."""
    chords, own = [], []
    for key in keys:
        text = key.toString(QKeySequence.SequenceFormat.NativeText)
        if not text:
            continue
        if "+" not in text and len(text) > 1 and text.isalpha():   # a key of its own: Redo, Undo, Copy
            own.append(text)
        else:
            chords.append(text)
    chords.sort(key=lambda t: (t.count("+"), "Alt" in t))
    out = ", ".join(chords)
    if own:
        named = " or ".join(f"the {name} key" for name in own)
        out = f"{out} (or {named})" if out else named[0].upper() + named[1:]
    return out


class ShortcutsDialog(QDialog):
    """Every menu command with a keyboard shortcut, as a table."""

    def __init__(self, actions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        rows = []
        for menu, action in actions:
            keys = shortcut_text(action.shortcuts())
            if keys:
                rows.append((menu, action.text().replace("&", "").rstrip("…"), keys))
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
    import importlib.metadata   # here: 40 ms of the window's start (issue 29)
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
    import importlib.metadata
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
            "<p>Equations of motion of robot arms (serial, trees, closed loops, elastic joints) from their "
            "Denavit-Hartenberg tables, "
            "and the design metrics built on them.</p>"
            f"<p><b>Licence:</b> {licence_status()}</p>"
            f"<p><b>Libraries:</b></p><ul>{libs}</ul>"
            f"<p>Python {platform.python_version()} on {platform.system()} {platform.machine()}</p>")


def show_about(parent: QWidget) -> None:
    QMessageBox.about(parent, "About Manipulator Designer", about_text())
