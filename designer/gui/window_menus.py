"""The main window's menu bar (File, Edit, View, Arm, Help) and the Help windows it opens.

:class:`WindowMenus` is a mixin of :class:`~designer.gui.main_window.MainWindow`: its methods use
the window's document, views and panels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence

from . import design_export, export, mjcf_dialogs, preferences, urdf_dialogs
from .projects import examples

if TYPE_CHECKING:
    from . import help as help_windows
    # the menus call the files mixin's commands; MainWindow lists WindowMenus first
    from .window_files import WindowFiles as _MenusBase
else:
    _MenusBase = object

__all__ = ["WindowMenus"]


def _help():
    """The Help windows' module, imported when one is first opened (11 ms of the window's start, issue 29)."""
    from . import help as help_windows
    return help_windows


def menu_text(text: str) -> str:
    """``text`` shown as written in a menu: Qt reads a single ``&`` as the mark of a shortcut key."""
    return str(text).replace("&", "&&")


class WindowMenus(_MenusBase):
    """Menus and Help of the main window (mixed into it)."""

    def _action(self, menu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        """One method a menu, so that a new command is one line in its menu's method."""
        bar = self.menuBar()
        self._build_file_menu(bar.addMenu("&File"))
        self._build_edit_menu(bar.addMenu("&Edit"))
        self._build_view_menu(bar.addMenu("&View"))
        self._build_arm_menu(bar.addMenu("&Arm"))
        self._build_help_menu(bar.addMenu("&Help"))

    def _build_file_menu(self, file_menu) -> None:
        self._action(file_menu, "&New", self.new_project, QKeySequence.StandardKey.New)
        self._action(file_menu, "&Open…", self.open_file, QKeySequence.StandardKey.Open)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.examples_menu = file_menu.addMenu("&Examples")
        for name, path in examples():
            # a name from a file is text, not a mnemonic: "Lee, Lee & Nigam" must not show as "Lee _Nigam"
            self._action(self.examples_menu, menu_text(f"{name}  ({path.name})"), lambda p=path: self.open_example(p))
        file_menu.addSeparator()
        self._action(file_menu, "&Save", self.save, QKeySequence.StandardKey.Save)
        self._action(file_menu, "Save &As…", self.save_as, QKeySequence.StandardKey.SaveAs)
        file_menu.addSeparator()
        export_menu = file_menu.addMenu("&Export")
        export.build_menu(self, export_menu)
        export_menu.addSeparator()
        design_export.build_menu(self, export_menu)
        urdf_dialogs.build_menu(self, file_menu)
        mjcf_dialogs.build_menu(self, file_menu)
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

    def _build_edit_menu(self, edit_menu) -> None:
        self.undo_action = self.document.undo_group.createUndoAction(self, "&Undo")   # the open project's
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = self.document.undo_group.createRedoAction(self, "&Redo")
        # Ctrl+Shift+Z (the platform's key) and Ctrl+Y, which many users reach for
        redo_keys = [k for k in QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)]
        for extra in (QKeySequence("Ctrl+Y"), QKeySequence("Ctrl+Shift+Z")):
            if extra not in redo_keys:
                redo_keys.append(extra)
        self.redo_action.setShortcuts(redo_keys)
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.redo_action)
        edit_menu.addSeparator()
        self._action(edit_menu, "Add link", self.dh_table.add_link)
        self._action(edit_menu, "Remove link", self.dh_table.remove_link)
        edit_menu.addSeparator()
        preferences.build_menu(self, edit_menu)

    def _build_view_menu(self, view_menu) -> None:
        view = self.arm_view
        self._action(view_menu, "&Fit the arm in the 3D view", view.fit_camera, "Ctrl+Shift+F")
        self._action(view_menu, "&Reset the 3D view", view.reset_camera, "Ctrl+0")
        for k, name in enumerate(("front", "side", "top", "iso"), start=1):
            self._action(view_menu, f"{name.capitalize()} view", lambda n=name: view.set_view(n), f"Ctrl+{k}")
        view_menu.addSeparator()
        for name, action in view.toolbar.option_actions.items():
            view_menu.addAction(action)   # the same checkable actions as the view's Show menu
            self.view_actions[name] = action

    def _build_arm_menu(self, arm_menu) -> None:
        self._action(arm_menu, "&Home pose", self.sliders.home, "Ctrl+H")
        self._action(arm_menu, "&Derive equations", self.derivation.start, "Ctrl+D")
        self._action(arm_menu, "&Cancel derivation", self.derivation.cancel)
        from . import control_dialogs
        control_dialogs.build_menu(self, arm_menu)
        from . import modes
        modes.build_menu(self, arm_menu)

    def _build_help_menu(self, help_menu) -> None:
        self._action(help_menu, "&User guide", self.show_user_guide, QKeySequence.StandardKey.HelpContents)
        self._action(help_menu, "&Metric definitions", lambda: self.show_user_guide("metrics.md"))
        self._action(help_menu, "&Keyboard shortcuts", self.show_shortcuts)
        help_menu.addSeparator()
        self._action(help_menu, "&About Manipulator Designer", lambda: _help().show_about(self))

    def menu_actions(self) -> list[tuple[str, QAction]]:
        """(menu title, action) of every command in the menu bar, sub-menus included."""
        out = []

        def walk(menu, title):
            for action in menu.actions():
                if action.menu() is not None:
                    walk(action.menu(), title)
                elif not action.isSeparator():
                    out.append((title, action))
        for top in self.menuBar().actions():
            if top.menu() is not None:
                walk(top.menu(), top.text().replace("&", ""))
        return out

    def show_user_guide(self, page: str | None = None) -> help_windows.DocsWindow:
        """Open the user guide (README and docs/*.md) in a window, at ``page`` (a file name) if given."""
        if self.docs_window is None:
            self.docs_window = _help().DocsWindow(self)
        if page:
            self.docs_window.show_page(page)
        self.docs_window.show()
        self.docs_window.raise_()
        return self.docs_window

    def show_shortcuts(self) -> help_windows.ShortcutsDialog:
        dialog = _help().ShortcutsDialog(self.menu_actions(), self)
        dialog.show()
        return dialog

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        paths = self.recent.paths()
        if not paths:
            self.recent_menu.addAction("(none)").setEnabled(False)
        for p in paths:
            self._action(self.recent_menu, menu_text(p), lambda p=p: self.open_file(p))
