"""File > Import MJCF… and File > Export MJCF… (docs/mjcf.md): the URDF import's dialog and
report (gui/urdf_dialogs.py) for MuJoCo's format. A refusal is a message box with the core's
one-line message, and the project on screen is kept until an import succeeds. A model including a
file outside its folder is refused unless the user allows that folder (a question naming it, as
``--allow-root``); the file is then read again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .urdf_dialogs import allow_folder, export_file, import_file

if TYPE_CHECKING:
    from ..urdf.importer import ImportReport

# the MJCF package is imported when a command runs: with the URDF pipeline it is 50 ms of the window's start
# (issue 29)

__all__ = ["MJCF_FILTER", "build_menu", "export_mjcf_file", "import_mjcf_file"]

MJCF_FILTER = "MJCF (*.xml *.mjcf);;All files (*)"


def import_mjcf_file(window, path=None, options: dict | None = None, allow_roots=()) -> ImportReport | None:
    """Import an MJCF file as a new unsaved project; None when cancelled or refused.
    ``options`` (as :meth:`ImportDialog.options`) skip the dialog; ``allow_roots``: folders outside the
    file's that its includes may come from without asking."""
    from ..mjcf import read_mjcf
    from ..mjcf.importer import import_read
    from ..mjcf.source import OutsideFolder
    roots = list(allow_roots)

    def read(chosen_path):
        while True:
            try:
                return read_mjcf(chosen_path, allow_roots=roots)
            except OutsideFolder as exc:
                if exc.folder in roots or not allow_folder(window, str(exc), exc.folder):
                    raise
                roots.append(exc.folder)

    def make(data, source: str, chosen: dict) -> ImportReport:
        tree, mj = data
        return import_read(tree, mj, source, **chosen)
    return import_file(window, "MJCF", MJCF_FILTER, read, make, path, options)


def export_mjcf_file(window, path=None) -> bool:
    """Write the project as MJCF; errors (a symbol without a value) go to a message box."""
    from ..mjcf.exporter import mjcf_text
    return export_file(window, "MJCF", MJCF_FILTER, ".xml", mjcf_text, path)


def build_menu(window, menu) -> None:
    """The two File menu entries."""
    window._action(menu, "Import &MJCF…", lambda: import_mjcf_file(window))
    window._action(menu, "Export MJCF…", lambda: export_mjcf_file(window))
