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
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DesignerError
from ..jobs import CancelToken, Job, Progress
from ..model.manipulator import Manipulator
from .sweep import SweepSpec, design_count, design_values, pareto_front, sweep_blocks

__all__ = ["SweepFileError", "SweepFileSummary", "columns", "sweep_to_csv", "sidecar_path", "rows_on_disk"]


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
    return {"axes": [[a.name, [float(v) for v in a.values]] for a in spec.axes], "metrics": list(spec.metrics),
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


def _add_pareto(path: Path, spec: SweepSpec, pareto: tuple[str, str], maximize: tuple[bool, bool]) -> None:
    """Rewrite the finished file with a ``pareto`` column before ``error`` (two columns held, not the rows)."""
    header = columns(spec)
    for key in pareto:
        if key not in header[:-1]:
            raise SweepFileError(f"--pareto: no column '{key}' (have: {', '.join(header[:-1])})")
    ia, ib = header.index(pareto[0]), header.index(pareto[1])
    a, b = [], []
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        next(reader)
        for cells in reader:
            a.append(float(cells[ia]) if cells[ia] else np.nan)
            b.append(float(cells[ib]) if cells[ib] else np.nan)
    front = pareto_front(a, b, (not maximize[0], not maximize[1]))
    tmp = path.with_name(path.name + ".tmp")
    with open(path, encoding="utf-8", newline="") as src, open(tmp, "w", encoding="utf-8", newline="") as dst:
        reader, writer = csv.reader(src), csv.writer(dst, lineterminator="\n")
        writer.writerow(header[:-1] + ["pareto", "error"])
        next(reader)
        for cells, on in zip(reader, front):
            writer.writerow(cells[:-1] + [str(bool(on)), cells[-1]])
    os.replace(tmp, path)


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
    if pareto:
        for key in pareto:
            if key not in columns(spec)[:-1]:
                raise SweepFileError(f"--pareto: no column '{key}' (have: {', '.join(columns(spec)[:-1])})")
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
    if pareto:
        yield Progress("pareto", None, "marking the non-dominated designs")
        _add_pareto(path, spec, pareto, maximize)
    sidecar_path(path).unlink(missing_ok=True)
    return SweepFileSummary(path, total, done, errors)
