"""Recent files, example projects and crash recovery files."""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, QStandardPaths

if TYPE_CHECKING:
    from ..model import Manipulator

__all__ = ["ROBOTS_DIR", "RecentFiles", "Recovery", "RecoveredSession", "default_project", "examples",
           "default_recovery_dir"]

ROBOTS_DIR = Path(__file__).resolve().parents[2] / "robots"
RECOVERY_FORMAT = "manipulator-designer-recovery"


def examples(folder: Path = ROBOTS_DIR) -> list[tuple[str, Path]]:
    """(display name, path) of every example project, sorted by name; unreadable files skipped."""
    out = []
    for path in sorted(folder.glob("*.json")):
        try:
            name = json.loads(path.read_text(encoding="utf-8")).get("name") or path.stem
        except (OSError, ValueError, AttributeError):
            continue
        out.append((str(name), path))
    return sorted(out, key=lambda item: item[0].lower())


def default_project(folder: Path = ROBOTS_DIR) -> Path:
    """The example opened when no file is given: the PUMA 560, else the double pendulum."""
    for name in ("puma560.json", "double_pendulum.json"):
        if (folder / name).exists():
            return folder / name
    return folder / "puma560.json"


class RecentFiles:
    """The most recently opened or saved projects, newest first, kept in QSettings."""

    KEY = "recentFiles"

    def __init__(self, settings: QSettings, limit: int = 8):
        self.settings = settings
        self.limit = limit

    def paths(self) -> list[str]:
        value = self.settings.value(self.KEY, [])
        if isinstance(value, str):  # QSettings gives a lone entry back as a string
            value = [value]
        return [str(v) for v in value] if isinstance(value, list | tuple) else []

    def add(self, path: str | Path) -> None:
        path = str(Path(path).resolve())
        paths = [p for p in self.paths() if p != path]
        self.settings.setValue(self.KEY, [path, *paths][: self.limit])
        self.settings.sync()

    def remove(self, path: str | Path) -> None:
        self.settings.setValue(self.KEY, [p for p in self.paths() if p != str(path)])
        self.settings.sync()


def default_recovery_dir() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or tempfile.gettempdir()) / "recovery"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class RecoveredSession:
    """Unsaved work found in a recovery file."""

    file: Path
    saved_at: float
    path: Path | None      # the project file it belonged to, if any
    origin: str
    model: Manipulator


class Recovery:
    """This session's recovery file: written after edits, deleted on a clean save or exit.

    One file per process (``session-<pid>.json``) so two windows never clash; at
    start, files of processes that are no longer running are offered.
    """

    def __init__(self, folder: Path | None = None, pid: int | None = None):
        self.folder = Path(folder) if folder else default_recovery_dir()
        self.pid = os.getpid() if pid is None else pid
        self.file = self.folder / f"session-{self.pid}.json"

    def write(self, model: Manipulator, path: Path | None, origin: str = "") -> None:
        from ..project import to_dict
        doc = {"format": RECOVERY_FORMAT, "saved_at": time.time(), "path": str(path) if path else None,
               "origin": origin, "project": to_dict(model)}
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".session.", suffix=".tmp", dir=self.folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(doc, fh)
            os.replace(tmp, self.file)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def discard(self) -> None:
        self.file.unlink(missing_ok=True)

    def orphan_files(self) -> list[Path]:
        """The recovery files of processes that are no longer running (not read: :meth:`orphans` reads them)."""
        if not self.folder.is_dir():
            return []
        files = []
        for file in self.folder.glob("session-*.json"):
            try:
                pid = int(file.stem.split("-", 1)[1])
            except ValueError:
                continue
            if pid == self.pid or not _alive(pid):
                files.append(file)
        return files

    def orphans(self) -> list[RecoveredSession]:
        """Sessions left by processes that ended without a clean exit, newest first.

        Files of other running processes are left alone; unreadable files are deleted.
        """
        from ..project import ProjectError, from_dict
        found: list[RecoveredSession] = []
        for file in self.orphan_files():
            try:
                doc = json.loads(file.read_text(encoding="utf-8"))
                if doc.get("format") != RECOVERY_FORMAT:
                    raise ValueError("not a recovery file")
                model = from_dict(doc["project"], str(file))
                found.append(RecoveredSession(file, float(doc.get("saved_at", 0)),
                                              Path(doc["path"]) if doc.get("path") else None,
                                              str(doc.get("origin") or ""), model))
            except (OSError, ValueError, KeyError, TypeError, ProjectError):
                file.unlink(missing_ok=True)
        return sorted(found, key=lambda s: s.saved_at, reverse=True)


