"""Saving a project that was opened from an older format version tells the user, once.

The window asks :func:`upgrade_notice` before it writes: when the file the document came from
(its path on disk, still the old file until the first save) holds an older version, the
answer is a sentence for the status bar. After the save the file on disk is the new version,
so the user is told once.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..project.io import MAX_FILE_BYTES

__all__ = ["file_version", "upgrade_notice"]


def file_version(path: str | Path | None) -> int | None:
    """The ``version`` field of a project file; None when there is no readable project there."""
    if path is None:
        return None
    try:
        with Path(path).open("rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
        version = json.loads(raw).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return version if isinstance(version, int) and not isinstance(version, bool) else None


def upgrade_notice(source: str | Path | None, target: str | Path, written: int) -> str:
    """What to tell the user when the document read from ``source`` is written to ``target`` as
    version ``written`` (``project.io.written_version``); '' if nothing."""
    version = file_version(source)
    if source is None or version is None or version >= written:
        return ""
    return (f"{Path(source).name} was a version-{version} project; {Path(target).name} is written as "
            f"version {written} (older releases of the designer cannot open it)")
