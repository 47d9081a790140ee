"""Input files other than projects, read bounded: text (:func:`read_text`), CSV columns of numbers
(:func:`read_columns`) and trajectories of q, qd, qdd (:func:`read_trajectory`). Every mistake is a
:class:`~designer.errors.UserError` naming the file, the line as a person counts it and the column.
The command line (``torques``, ``simulate``, ``regressor``, ``eval``'s states) and the window (the
excitation dialog) read them the same way. At the bottom of the layer order: numpy and the errors only.
"""

from __future__ import annotations

import csv
import io
import math
import re
import sys
from pathlib import Path

import numpy as np

from .errors import UserError

__all__ = ["MAX_TEXT_BYTES", "json_problem", "read_text", "read_columns", "read_trajectory"]


#: states, trajectories and torque tables larger than this are refused (a device such as /dev/zero never ends)
MAX_TEXT_BYTES = 200_000_000


def json_problem(exc: Exception) -> str:
    """What the json module's non-syntax failures mean, in the reader's words (not Python's advice
    to call sys.set_int_max_str_digits)."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    text = str(exc)
    if "integer string conversion" in text:
        return "a number of more than 4300 digits"
    return text


def read_text(path: str, what: str) -> str:
    """The text of a UTF-8 file (a byte-order mark is dropped); user errors name the file."""
    if Path(path).exists() and not Path(path).is_file() and not Path(path).is_dir():
        raise UserError(f"{path}: {what} is not a regular file (a device or a pipe)")
    try:
        with Path(path).open("rb") as fh:
            raw = fh.read(MAX_TEXT_BYTES + 1)
    except OSError as exc:
        raise UserError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    if len(raw) > MAX_TEXT_BYTES:
        raise UserError(f"{path}: {what} is larger than {MAX_TEXT_BYTES} bytes")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"{path}: {what} is not UTF-8 text") from None


def read_columns(path: str, what: str, names: list[str], expected: str):
    """(header line, header, data rows as (line, cells), values of ``names`` per row) of a CSV file.

    Every user error names the line as a person counts it (blank lines skipped) and the column."""
    reader = csv.reader(io.StringIO(read_text(path, what)))
    try:
        rows = list(reader)
    except csv.Error as exc:   # a field over the csv module's limit (131,072 characters), a NUL byte
        raise UserError(f"{path}, line {reader.line_num}: not a CSV table ({exc})") from None
    numbered = [(k, r) for k, r in enumerate(rows, start=1) if any(c.strip() for c in r)]
    if not numbered:
        raise UserError(f"{path}: empty file (expected a header row {expected})")
    header_line, header = numbered[0][0], [c.strip() for c in numbered[0][1]]
    for name in names:
        if name not in header:
            raise UserError(f"{path}, line {header_line}: missing column '{name}' (expected {expected})")
    dup = next((c for c in header if header.count(c) > 1), None)
    if dup:
        raise UserError(f"{path}, line {header_line}: column '{dup}' appears twice")
    index = [header.index(name) for name in names]
    values = np.empty((len(numbered) - 1, len(names)))
    for r, (line, row) in enumerate(numbered[1:]):
        if len(row) != len(header):
            raise UserError(f"{path}, line {line}: {len(row)} fields, the header has {len(header)}")
        for k, (name, col) in enumerate(zip(names, index)):
            cell = row[col].strip()
            try:
                v = float(cell)
            except ValueError:
                raise UserError(f"{path}, line {line}: column {name}: '{cell}' is not a number") from None
            if not math.isfinite(v):
                raise UserError(f"{path}, line {line}: column {name}: '{cell}' is not a finite number")
            values[r, k] = v
    if values.shape[0] == 0:
        raise UserError(f"{path}: no data rows after the header")
    return header_line, header, numbered[1:], values


def read_trajectory(path: str, n: int, strict: bool = False,
                    numbers: list[int] | None = None) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, dict]:
    """(header, Q, QD, QDD, other columns) of a trajectory CSV; user errors name the line.

    Joint columns beyond the arm's n joints (q3.. for a 2-joint arm: a trajectory of another arm?)
    are passed through with a warning on standard error, or refused when ``strict``. ``numbers``: the
    coordinates' joints by their link numbers where they are not 1..n (a closed chain's actuated joints: columns
    q1, q2, q4 ...; the others, passive joints' included, are passed through)."""
    numbers = list(range(1, n + 1)) if numbers is None else list(numbers)
    chain = numbers == list(range(1, n + 1))
    if chain:
        names = [f"{p}{j}" for p in ("q", "qd", "qdd") for j in range(1, n + 1)]
        expected = f"q1..q{n}, qd1..qd{n}, qdd1..qdd{n} for an arm of {n} joints"
    else:
        names = [f"{p}{j}" for p in ("q", "qd", "qdd") for j in numbers]
        expected, strict = "columns " + ", ".join(names) + " (the actuated joints)", False
    header_line, header, data, values = read_columns(path, "trajectory", names, expected)
    beyond = [c for c in header if (m := re.fullmatch(r"(?:q|qd|qdd)(\d+)", c)) and int(m.group(1)) > n]
    if beyond and chain:
        what = (f"{path}, line {header_line}: column{'s' if len(beyond) > 1 else ''} {', '.join(beyond)} "
                f"{'are' if len(beyond) > 1 else 'is'} for joints beyond the arm's {n}")
        if strict:
            raise UserError(f"{what} (a trajectory of another arm?)")
        print(f"warning: {what}: copied to the output unchanged (--strict refuses them)", file=sys.stderr)
    others = {c: [row[header.index(c)].strip() for _, row in data] for c in header if c not in names}
    return header, values[:, :n], values[:, n:2 * n], values[:, 2 * n:], others
