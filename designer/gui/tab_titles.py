"""A tab bar's titles read whole: the full titles when they all fit, short ones when they do not (at 1366 px the
seven result tabs were elided, "Equatio…", below about 1800 px: issue 29). The tooltip names the tab in full."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QTabWidget, QWidget

__all__ = ["TabTitles"]


class TabTitles(QObject):
    """Keeps ``tabs``' titles whole. ``titles`` maps each page to (full title, short title, what it holds);
    :meth:`set_count` adds a count to a title ("Problems (3)")."""

    def __init__(self, tabs: QTabWidget, titles: dict[QWidget, tuple[str, str, str]], hold: bool = True):
        """``hold``: the tab widget is at least as wide as the short titles (the result tabs: every title reads);
        without, a column narrower still shows scroll arrows (Explore's tabs inside the results column at 1024)."""
        super().__init__(tabs)
        self.tabs, self.titles, self.hold = tabs, titles, hold
        self.counts: dict[QWidget, int] = {}
        self.short = False
        for page, (full, _short, tip) in titles.items():
            tabs.setTabToolTip(tabs.indexOf(page), f"{full}: {tip}")
        tabs.installEventFilter(self)
        self.update()

    def replace(self, old: QWidget, new: QWidget) -> None:
        """``new`` holds ``old``'s tab now (a panel built when its tab is first shown)."""
        self.titles[new] = self.titles.pop(old)
        if old in self.counts:
            self.counts[new] = self.counts.pop(old)
        full, _short, tip = self.titles[new]
        self.tabs.setTabToolTip(self.tabs.indexOf(new), f"{full}: {tip}")
        self.update()

    def set_count(self, page: QWidget, count: int) -> None:
        self.counts[page] = count
        self.update()

    def text(self, page: QWidget, short: bool) -> str:
        full, abbreviated = self.titles[page][:2]
        count = self.counts.get(page, 0)
        return f"{abbreviated if short else full}" + (f" ({count})" if count else "")

    def needed(self, short: bool) -> int:
        """The bar's width with every title whole: each title's text and the style's room around it."""
        bar = self.tabs.tabBar()
        metrics = bar.fontMetrics()
        total = 0
        for page in self.titles:
            k = self.tabs.indexOf(page)
            room = bar.tabSizeHint(k).width() - metrics.horizontalAdvance(bar.tabText(k))
            total += room + metrics.horizontalAdvance(self.text(page, short))
        return total

    def update(self) -> None:
        # the short titles always fit: a page built when first shown has no size of its own to hold the column
        if self.hold:
            self.tabs.setMinimumWidth(self.needed(True))
        self.short = self.needed(False) > self.tabs.width()
        for page in self.titles:
            k = self.tabs.indexOf(page)
            text = self.text(page, self.short)
            if self.tabs.tabText(k) != text:
                self.tabs.setTabText(k, text)

    def eventFilter(self, watched, event) -> bool:
        if watched is self.tabs and event.type() == QEvent.Type.Resize:
            self.update()
        return False
