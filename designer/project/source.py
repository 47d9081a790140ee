"""A project file's first reading: its bytes to a checked JSON document, with no sympy (issue 29's start).

Both readings of a project start here: :func:`designer.project.io.load_project`, which builds the model
(sympy), and :func:`designer.glance.glance`, which reads the numbers the window's first look draws
before sympy is imported. The bounds on a file (its size, its JSON), the format and the version are checked
once, here, for both.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import DesignerError
from ..tables import json_problem

__all__ = ["FORMAT", "VERSION", "MAX_FILE_BYTES", "INERTIA_KEYS", "ProjectError", "read_bytes", "parse_document",
           "check_header", "read_document"]

FORMAT = "manipulator-designer"
VERSION = 4
MAX_FILE_BYTES = 5_000_000
MAX_LINKS = 64
MAX_PARAMETERS = 2000
MAX_EXPRESSION_CHARS = 100_000
#: an inertia written as an object: its keys, in the order of Inertia's entries (xx, yy, zz, xy, xz, yz)
INERTIA_KEYS = ("xx", "yy", "zz", "xy", "xz", "yz")

#: a message shows this many of a file's problems (the rest counted) and this many characters of each: a
#: value the file repeats back (an unknown key of 30,000 characters) would otherwise make a line nobody reads
MAX_PROBLEMS_SHOWN = 10
MAX_PROBLEM_CHARS = 300


def _clipped(problem: str) -> str:
    """``problem`` in about MAX_PROBLEM_CHARS characters: its start (the field) and end (the hint) kept (a line
    break in it is escaped by DesignerError)."""
    if len(problem) <= MAX_PROBLEM_CHARS:
        return problem
    keep = (MAX_PROBLEM_CHARS - 5) // 2
    return f"{problem[:keep]} ... {problem[-keep:]}"


class ProjectError(DesignerError):
    """A project that cannot be used; ``problems`` lists every error found (field: message)."""

    def __init__(self, problems: list[str] | str, source: str = ""):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.source = source
        head = f"{source}: " if source else ""
        shown = [_clipped(p) for p in self.problems[:MAX_PROBLEMS_SHOWN]]
        if len(self.problems) == 1:
            msg = head + shown[0]
        else:
            more = len(self.problems) - len(shown)
            msg = head + f"{len(self.problems)} problems: " + "; ".join(shown) + (f"; and {more} more" if more else "")
        super().__init__(msg)


def read_bytes(path: str | os.PathLike) -> bytes:
    """A project file's bytes, at most MAX_FILE_BYTES; every failure is a :class:`ProjectError` naming the file."""
    path = Path(path)
    source = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ProjectError(f"file is {size} bytes, larger than the {MAX_FILE_BYTES} a project may be", source)
        with path.open("rb") as fh:
            # bounded: a device such as /dev/zero reports size 0 and never ends
            raw = fh.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise ProjectError(f"file is larger than the {MAX_FILE_BYTES} bytes a project may be", source)
    except FileNotFoundError:
        raise ProjectError("no such file", source) from None
    except IsADirectoryError:
        raise ProjectError("is a folder, not a project file", source) from None
    except OSError as exc:
        raise ProjectError(f"cannot read: {exc.strerror or exc}", source) from None
    return raw


def parse_document(text: str | bytes, source: str = "") -> Any:
    """The JSON document of project text (UTF-8, a byte-order mark allowed; no NaN or Infinity, no key twice in
    an object); a :class:`ProjectError` says where it is not."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")  # a byte-order mark (Windows editors) is harmless
        except UnicodeDecodeError as exc:
            raise ProjectError(f"not UTF-8 text (byte {exc.start})", source) from None
    text = text.removeprefix("\ufeff")
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ProjectError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
                           + _other_format(text), source) from None
    except (ValueError, RecursionError) as exc:
        raise ProjectError(f"not valid JSON: {json_problem(exc)}", source) from None


def check_header(data: Any, source: str = "") -> int:
    """The document's format version, once it is an object of this program's format and of a version it reads."""
    if not isinstance(data, dict):
        raise ProjectError("the file must hold a JSON object", source)
    fmt, version = data.get("format"), data.get("version")
    if fmt != FORMAT:
        raise ProjectError("format: not a Manipulator Designer project "
                           f"(expected \"{FORMAT}\", found {json.dumps(fmt)})", source)
    if isinstance(version, bool) or not isinstance(version, int):
        raise ProjectError(f"version: must be a whole number, found {json.dumps(version)}", source)
    if version > VERSION:
        raise ProjectError(f"version: made by a newer version of Manipulator Designer (file version {version}, "
                           f"this program reads up to {VERSION}); please update", source)
    if version < 1:
        raise ProjectError(f"version: unknown version {version}", source)
    return version


def read_document(path: str | os.PathLike) -> tuple[dict, int]:
    """A project file's document and version (:func:`read_bytes`, :func:`parse_document`, :func:`check_header`)."""
    source = str(path)
    data = parse_document(read_bytes(path), source)
    return data, check_header(data, source)


def _other_format(text: str) -> str:
    """What to do with a robot description given where a project goes (it starts with an XML tag)."""
    if text.lstrip()[:1] != "<":
        return ""
    return ("; it is XML: a URDF, xacro or MJCF file is imported into a project (the import command, "
            "File > Import URDF… or Import MJCF…)")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    # json keeps the last of repeated keys without a word: a hand-edited file with two "mass"
    # entries would load a value the author may not have meant
    data = dict(pairs)
    if len(data) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"key {json.dumps(key, ensure_ascii=False)} appears twice in one object")
            seen.add(key)
    return data


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")
