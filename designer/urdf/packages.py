"""Finding ROS package folders without ROS: ``$(find pkg)`` in xacro and ``package://pkg/...`` in URDF.

The standard library only: the xacro worker process (:mod:`designer.urdf.xacro_worker`) loads
this file by its path, without importing the rest of the program.

A package is looked up, in this order, in the folders the user named (``PKG=DIR``, or a folder
that is the package or holds packages one level down), then in the file's own tree: each of
its folder's ancestors (at most :data:`ANCESTORS` levels up) and their subfolders, a folder
counting when its ``package.xml`` names the package, else when the folder has the package's
name (example-robot-data's files say ``package://example-robot-data/...`` while its
package.xml says ``example_robot_descriptions``).

xacro's ``$(find pkg)`` looks no further than what the user named and the file's own package
(``own_only=True``, :func:`own_package`): a file must not reach ``/etc`` by writing ``$(find etc)``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["ANCESTORS", "PackageResolver", "own_package", "package_name"]

#: how far up from the file the search goes: vendor packages keep urdf/ and meshes/ two or three
#: levels below the package (ur_description/urdf/inc/...), and a few levels more reach the sibling
#: packages of a workspace's src/ folder; the whole disk is never scanned
ANCESTORS = 5
#: subfolders looked at per ancestor (a home folder with thousands of entries is not listed in full)
MAX_CHILDREN = 500

_NAME = re.compile(rb"<name>\s*([^<\s]+)\s*</name>")


def package_name(folder: Path) -> str | None:
    """The name in ``folder/package.xml``, or None (no file, unreadable, no name)."""
    try:
        with open(folder / "package.xml", "rb") as fh:
            head = fh.read(20_000)
    except OSError:
        return None
    match = _NAME.search(head)
    return match.group(1).decode("utf-8", "replace") if match else None


def own_package(start: str | os.PathLike) -> tuple[str, Path]:
    """``(name, folder)`` of the package the file (or folder) ``start`` belongs to: the nearest ancestor
    (at most :data:`ANCESTORS` levels up) holding a package.xml, named by it, else the file's own folder,
    named by the folder's name."""
    start = Path(start).resolve()
    folder = start if start.is_dir() else start.parent
    for depth, ancestor in enumerate([folder, *folder.parents]):
        if depth > ANCESTORS:
            break
        name = package_name(ancestor)
        if name is not None:
            return name, ancestor
    return folder.name, folder


class PackageResolver:
    """Package name -> folder, from named folders and the tree of a file."""

    def __init__(self, start: str | os.PathLike | None = None, package_paths=(), packages=None,
                 own_only: bool = False):
        """``start``: the file (or folder) whose tree is searched; ``package_paths``: folders that
        are packages or hold packages; ``packages``: explicit ``{name: folder}``; ``own_only``: of
        the file's tree only its own package (:func:`own_package`), no search of the ancestors."""
        self.explicit = {k: Path(v).resolve() for k, v in (packages or {}).items()}
        self.package_paths = [Path(p).resolve() for p in package_paths]
        self.start = None if start is None else Path(start).resolve()
        self.own = own_package(self.start) if self.start is not None and own_only else None
        self.found: dict[str, Path] = {}

    def roots(self) -> list[Path]:
        """The folders the user named, the file's own package (``own_only``) and the packages found so
        far (where included files may lie)."""
        own = [] if self.own is None else [self.own[1]]
        return [*self.explicit.values(), *self.package_paths, *own, *self.found.values()]

    def _candidates(self):
        yield from ((p, True) for p in self.package_paths)
        if self.own is not None:
            yield self.own[1], False
            return
        if self.start is None:
            return
        folder = self.start if self.start.is_dir() else self.start.parent
        for depth, ancestor in enumerate([folder, *folder.parents]):
            if depth > ANCESTORS:
                break
            yield ancestor, True

    def find(self, name: str) -> Path | None:
        if name in self.explicit:
            return self.explicit[name]
        if name in self.found:
            return self.found[name]
        by_folder_name = None
        for folder, look_below in self._candidates():
            for candidate in [folder, *(_children(folder) if look_below else [])]:
                pkg = package_name(candidate)
                if pkg == name:
                    self.found[name] = candidate
                    return candidate
                if by_folder_name is None and candidate.name == name and candidate.is_dir():
                    by_folder_name = candidate
        if by_folder_name is not None:
            self.found[name] = by_folder_name
        return by_folder_name


def _children(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as it:
            out: list[Path] = []
            for entry in it:
                if len(out) >= MAX_CHILDREN:
                    break
                if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                    out.append(Path(entry.path))
            return sorted(out)
    except OSError:
        return []
