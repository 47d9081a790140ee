"""Sweeps streamed to a CSV file as they finish, in design order, and resumable after an interruption.

Rows reach the file strictly in design order (the block runner hands them over
in order), so at any moment the file is a prefix of the finished one and a
resumed sweep only has to count its rows. Memory holds a few blocks, whatever
the number of designs. A small sidecar ``FILE.sweep.json`` describes the sweep
(its grid, metrics, samples, seed, ratings and a fingerprint of the model) while
it is unfinished: ``resume`` refuses a file written by another sweep, and the
sidecar is removed when the last row is written.

Numbers are written with ``repr(float)``: they read back exactly, and a resumed
sweep gives the same bytes as one that ran through.

CSV rather than Parquet: appending a line is what makes the prefix property and
the resume trivial; Parquet writes whole row groups and would need pyarrow for a
file that compresses to about half.

A JSON file (:func:`sweep_to_json`) is the same stream: the rows go to a CSV
beside it (``FILE.json.part.csv``, resumable as above) and, once the last one
is in, are copied one at a time into the JSON document, which replaces the
file in one step; an interrupted sweep never leaves a half-written JSON file.
The JSON is byte for byte what the command line wrote from a sweep held in
memory.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DesignerError
from ..jobs import CancelToken, Job, Progress
from ..model.manipulator import Manipulator
from .sweep import SweepSpec, design_count, design_values, pareto_front, sweep_blocks

__all__ = ["SweepFileError", "SweepFileSummary", "columns", "sweep_to_csv", "sweep_to_json", "part_path",
           "sidecar_path", "rows_on_disk"]


class SweepFileError(DesignerError):
    """The output file cannot be resumed or written (one line, names the file)."""


@dataclass(frozen=True)
class SweepFileSummary:
    path: Path
    total: int
    resumed_from: int    # rows that were already on disk
    errors: int          # designs with a reason instead of values (this run)


def columns(spec: SweepSpec) -> list[str]:
    """The file's header: swept parameters, ``metric:stat`` summaries, design quantities, then ``error``."""
    return [a.name for a in spec.axes] + spec.keys() + ["error"]


def sidecar_path(path: str | os.PathLike) -> Path:
    return Path(f"{os.fspath(path)}.sweep.json")


def _describe(model: Manipulator, spec: SweepSpec) -> dict:
    r = spec.ratings
    ratings = None if r is None else {k: None if getattr(r, k) is None else [float(v) for v in getattr(r, k)]
                                      for k in ("torque", "speed", "acceleration")}
    # a material axis' values are indexes into its materials, which the sidecar names
    return {"axes": [[a.name, [float(v) for v in a.values]] + ([list(a.labels)] if a.labels else [])
                     for a in spec.axes], "metrics": list(spec.metrics),
            "stats": list(spec.stats), "samples": spec.samples, "sampling": spec.sampling.value, "seed": spec.seed,
            "ratings": ratings, "model": hashlib.sha256(repr(model).encode()).hexdigest()}


def _format(value) -> str:
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


def _line(cells: list) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([_format(c) for c in cells])
    return buf.getvalue()


def rows_on_disk(path: Path, spec: SweepSpec) -> int:
    """How many whole rows of this sweep the file holds (-1: not even the header); a torn last line (the
    writer was killed mid-line) is cut off. :class:`SweepFileError` if the rows are not this sweep's designs
    in order."""
    names, header = [a.name for a in spec.axes], columns(spec)
    total = design_count(spec)
    good_end, count = 0, -1        # -1: the header is not read yet
    with open(path, "rb") as f:
        offset = 0
        for raw in f:
            if not raw.endswith(b"\n"):
                break              # torn: not counted, cut below
            cells = next(csv.reader([raw.decode("utf-8").rstrip("\n")]))
            where = f"{path}, line {count + 2}"
            if count < 0:
                if cells != header:
                    raise SweepFileError(f"{path}: its columns are not this sweep's; give another --out or remove it")
            else:
                if count >= total or len(cells) != len(header):
                    raise SweepFileError(f"{where}: not a row of this sweep")
                want = design_values(spec, count, count + 1)[0]
                try:
                    got = tuple(float(c) for c in cells[:len(names)])
                except ValueError:
                    raise SweepFileError(f"{where}: parameter values are not numbers") from None
                if got != want:
                    raise SweepFileError(f"{where}: design {count + 1} should have "
                                         f"{', '.join(f'{n}={v!r}' for n, v in zip(names, want))}")
            count += 1
            offset += len(raw)
            good_end = offset
    with open(path, "r+b") as f:
        f.truncate(good_end)
    return count


def _prepare(model: Manipulator, spec: SweepSpec, path: Path, resume: bool) -> int:
    """Rows already done (0 for a new file, header written); checks the sidecar when resuming."""
    side = sidecar_path(path)
    described = _describe(model, spec)
    done = -1
    if resume and path.exists():
        if side.exists():
            try:
                old = json.loads(side.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise SweepFileError(f"{side}: cannot read the sweep it describes: {exc}") from None
            if old != described:
                what = [k for k in described if old.get(k) != described[k]]
                raise SweepFileError(f"{path}: written by another sweep (differs in: {', '.join(what)}); "
                                     f"give another --out or leave out --resume")
        elif path.stat().st_size:
            raise SweepFileError(f"{path}: finished already, or not written by a sweep (no {side.name} beside "
                                 f"it): nothing to resume; leave out --resume to run it afresh")
        done = rows_on_disk(path, spec)
    try:
        side.write_text(json.dumps(described) + "\n", encoding="utf-8")
        if done < 0:
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(_line(columns(spec)))
            done = 0
    except OSError as exc:
        raise SweepFileError(f"{path}: cannot write: {exc.strerror or exc}") from None
    return done


def _check_pareto(spec: SweepSpec, pareto: tuple[str, str] | None) -> None:
    have = columns(spec)[:-1]
    for key in pareto or ():
        if key not in have:
            raise SweepFileError(f"--pareto: no column '{key}' (have: {', '.join(have)})")


def _front(path: Path, spec: SweepSpec, pareto: tuple[str, str], maximize: tuple[bool, bool]) -> np.ndarray:
    """The Pareto mask of the finished file's rows (two columns held, not the rows)."""
    header = columns(spec)
    ia, ib = header.index(pareto[0]), header.index(pareto[1])
    a, b = [], []
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        next(reader)
        for cells in reader:
            a.append(float(cells[ia]) if cells[ia] else np.nan)
            b.append(float(cells[ib]) if cells[ib] else np.nan)
    return pareto_front(a, b, (not maximize[0], not maximize[1]))


def _add_pareto(path: Path, spec: SweepSpec, pareto: tuple[str, str], maximize: tuple[bool, bool]) -> None:
    """Rewrite the finished file with a ``pareto`` column before ``error``."""
    header = columns(spec)
    front = _front(path, spec, pareto, maximize)
    tmp = path.with_name(path.name + ".tmp")
    with open(path, encoding="utf-8", newline="") as src, open(tmp, "w", encoding="utf-8", newline="") as dst:
        reader, writer = csv.reader(src), csv.writer(dst, lineterminator="\n")
        writer.writerow(header[:-1] + ["pareto", "error"])
        next(reader)
        for cells, on in zip(reader, front):
            writer.writerow(cells[:-1] + [str(bool(on)), cells[-1]])
    os.replace(tmp, path)


def _stream(model: Manipulator, spec: SweepSpec, path: Path, executor, slots: int, resume: bool,
            block: int | None, token: CancelToken | None) -> Job[SweepFileSummary]:
    """Every row of the sweep appended to ``path`` in design order; the sidecar stays (the caller finishes)."""
    done = _prepare(model, spec, path, resume)
    total = design_count(spec)
    errors = 0
    keys = spec.keys()
    try:
        out = open(path, "a", encoding="utf-8", newline="")
    except OSError as exc:
        raise SweepFileError(f"{path}: cannot write: {exc.strerror or exc}") from None

    def sink(first: int, results: list) -> None:
        nonlocal errors
        designs = design_values(spec, first, first + len(results))
        text = []
        for design, r in zip(designs, results):
            if isinstance(r, str):
                errors += 1
                text.append(_line([*design, *([""] * len(keys)), " ".join(r.split())]))
            else:
                text.append(_line([*design, *(r[k] for k in keys), ""]))
        out.write("".join(text))
        out.flush()     # a row on disk is a row a resume does not recompute

    with out:
        if done < total:
            yield from sweep_blocks(model, spec, executor, sink, slots=slots, start=done, block=block, token=token)
        os.fsync(out.fileno())
    return SweepFileSummary(path, total, done, errors)


def sweep_to_csv(model: Manipulator, spec: SweepSpec, path: str | os.PathLike, executor, *, slots: int = 4,
                 resume: bool = False, pareto: tuple[str, str] | None = None,
                 maximize: tuple[bool, bool] = (False, False), block: int | None = None,
                 token: CancelToken | None = None) -> Job[SweepFileSummary]:
    """Run the sweep on ``executor`` and append its rows to ``path`` as they finish (see the module notes).

    ``resume`` continues an unfinished file of the same sweep; without it the file is started afresh.
    ``pareto`` (two column names) adds a ``pareto`` column once every row is in. Interrupted (cancel,
    Ctrl+C, a failure), the file keeps every row finished in order and the sidecar stays for ``resume``.
    """
    path = Path(path)
    _check_pareto(spec, pareto)
    summary = yield from _stream(model, spec, path, executor, slots, resume, block, token)
    if pareto:
        yield Progress("pareto", None, "marking the non-dominated designs")
        _add_pareto(path, spec, pareto, maximize)
    sidecar_path(path).unlink(missing_ok=True)
    return summary


def part_path(path: str | os.PathLike) -> Path:
    """Where :func:`sweep_to_json` streams the rows of ``path`` before they become its JSON."""
    return Path(f"{os.fspath(path)}.part.csv")


def sweep_to_json(model: Manipulator, spec: SweepSpec, path: str | os.PathLike, executor, *, slots: int = 4,
                  resume: bool = False, pareto: tuple[str, str] | None = None,
                  maximize: tuple[bool, bool] = (False, False), block: int | None = None,
                  token: CancelToken | None = None) -> Job[SweepFileSummary]:
    """The sweep's rows streamed to :func:`part_path` as :func:`sweep_to_csv` streams them, then copied into
    ``{"parameters": [...], "rows": [...]}`` at ``path`` (see the module notes). ``resume`` continues the part
    file of an interrupted sweep (also one interrupted while its JSON was being written)."""
    path = Path(path)
    part = part_path(path)
    _check_pareto(spec, pareto)
    summary = yield from _stream(model, spec, part, executor, slots, resume, block, token)
    yield Progress("json", None, f"writing {path.name}")
    front = _front(part, spec, pareto, maximize) if pareto else None
    tmp = path.with_name(path.name + ".tmp")
    try:
        _csv_to_json(part, tmp, [a.name for a in spec.axes], front)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SweepFileError(f"{path}: cannot write: {exc.strerror or exc}") from None
    sidecar_path(part).unlink(missing_ok=True)
    part.unlink()
    return SweepFileSummary(path, summary.total, summary.resumed_from, summary.errors)


def _json_number(text: str) -> float | str | None:
    """A CSV cell as the JSON writer of the command line gives it: NaN (and an empty cell) null, infinities
    as strings."""
    value = float(text) if text else math.nan
    if math.isfinite(value):
        return value
    return None if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _csv_to_json(source: Path, target: Path, parameters: list[str], front: np.ndarray | None = None) -> None:
    """Copy the finished CSV of a sweep into a JSON document one row at a time (indent 1, as
    ``json.dumps(..., indent=1)`` lays the whole document out); ``front``: a ``pareto`` value per row, put
    before ``error``."""
    with open(source, encoding="utf-8", newline="") as src, open(target, "w", encoding="utf-8") as out:
        reader = csv.reader(src)
        header = next(reader)
        head = json.dumps({"parameters": parameters}, indent=1)
        out.write(head[:-2] + ',\n "rows": [')
        count = 0
        for cells in reader:
            row: dict = {}
            for name, cell in zip(header, cells):
                if name == "error":
                    if front is not None:
                        row["pareto"] = bool(front[count])
                    row[name] = cell
                elif name == "pareto":
                    row[name] = cell == "True"
                else:
                    row[name] = _json_number(cell)
            out.write(("\n" if count == 0 else ",\n") + textwrap.indent(json.dumps(row, indent=1), "  "))
            count += 1
        out.write("\n ]\n}\n" if count else "]\n}\n")
        out.flush()
        os.fsync(out.fileno())
