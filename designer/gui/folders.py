"""The folder file dialogs start in: the last one the user opened or saved a file in (kept in QSettings)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

__all__ = ["last_folder", "remember_folder", "safe_file_name", "KEY"]

KEY = "files/last_folder"
_UNSAFE = set('<>:"/\\|?*')   # not allowed in a file name on Windows, and "/" nowhere


def last_folder(settings: QSettings | None = None) -> Path:
    """The last folder used, or the user's documents folder when none was (or it is gone)."""
    value = (settings or QSettings()).value(KEY)
    if value and Path(str(value)).is_dir():
        return Path(str(value))
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(documents) if documents and Path(documents).is_dir() else Path.home()


def remember_folder(path: str | Path, settings: QSettings | None = None) -> None:
    """Remember the folder of ``path`` (a file) for the next dialog."""
    folder = Path(path).expanduser().resolve().parent
    (settings or QSettings()).setValue(KEY, str(folder))


def safe_file_name(name: str, default: str = "arm") -> str:
    """``name`` as a file-name stem every file system takes: no path separators or reserved characters,
    no control characters, spaces as underscores, no leading or trailing dots."""
    cleaned = "".join("_" if c in _UNSAFE or ord(c) < 32 or c.isspace() else c for c in name)
    while "__" in cleaned:
        cleaned = cleaned.replace("__", "_")
    cleaned = cleaned.strip("._")
    return cleaned[:100] or default
