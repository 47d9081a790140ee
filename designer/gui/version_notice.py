"""Saving a project that was opened from an older format version tells the user, once.

The window asks :func:`upgrade_notice` before it writes: when the file the document came from
(its path on disk, still the old file until the first save) holds an older version, the
answer is a sentence for the status bar. After the save the file on disk is the new version,
so the user is told once.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..project.io import BASE_VERSION, MAX_FILE_BYTES

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


def upgrade_notice(source: str | Path | None, target: str | Path) -> str:
    """What to tell the user when the document read from ``source`` is written to ``target``; '' if nothing."""
    version = file_version(source)
    # a file is written as version 3 only when it uses a version-3 field, and such a file was
    # opened as version 3 (an older one could not hold the field): the upgrade to tell is to 2
    if source is None or version is None or version >= BASE_VERSION:
        return ""
    return (f"{Path(source).name} was a version-{version} project; {Path(target).name} is written as "
            f"version {BASE_VERSION} (older releases of the designer cannot open it)")
