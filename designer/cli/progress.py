"""Progress on standard error for long commands: one tqdm bar with rate and time left.

The bar shows only when standard error is a terminal and ``--quiet`` was not
given: a log file or a pipe gets nothing but the command's own messages. Every
long command takes ``--quiet`` (:func:`add_quiet`) and feeds the bar either the
:class:`~designer.jobs.Progress` steps of a job (:func:`job_bar`) or the items of
a loop (:func:`loop_bar`).
"""

from __future__ import annotations

import contextlib
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

from ..jobs import Progress

if TYPE_CHECKING:
    from tqdm import tqdm

__all__ = ["add_quiet", "shown", "job_bar", "loop_bar"]

T = TypeVar("T")
# rate and time left are what a user waiting on a sweep wants; the bar itself stays short
_FORMAT = "{desc}: {percentage:3.0f}%|{bar:20}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]{postfix}"


def add_quiet(parser) -> None:
    parser.add_argument("--quiet", action="store_true", help="no progress bar on standard error")


def shown(quiet: bool = False) -> bool:
    """Whether a bar is drawn: standard error is a terminal and ``--quiet`` was not given."""
    try:
        return not quiet and sys.stderr.isatty()
    except (AttributeError, ValueError):   # replaced or closed stderr (tests, embedding)
        return False


class _Feed:
    """What :func:`job_bar` hands out: call it with each :class:`~designer.jobs.Progress` step."""

    def __init__(self, bar: tqdm, count: int):
        self.bar, self.count = bar, count

    def __call__(self, step: Progress) -> None:
        bar = self.bar
        if bar.disable:
            return
        if step.stage and step.stage != bar.desc:
            bar.set_description_str(step.stage, refresh=False)
        if step.fraction is not None:
            bar.update(max(0, round(step.fraction * self.count) - bar.n))
            if bar.n >= self.count:
                bar.refresh()      # the last step shows even inside the minimum interval
        else:
            bar.refresh()

    def done(self) -> None:
        """Nothing to do: the bar goes when the ``with`` block ends (kept for callers that finish early)."""


@contextlib.contextmanager
def job_bar(quiet: bool = False, total: int | None = None, unit: str = "%",
            desc: str = "") -> Iterator[Callable[[Progress], None]]:
    """A callback for :func:`designer.jobs.run`: each step's fraction moves the bar over ``total`` units
    (default: percent); its stage names the bar. Steps without a fraction only change the name."""
    from tqdm import tqdm   # here: --help and the quick commands start without it
    count = 100 if total is None else max(int(total), 1)
    bar = tqdm(total=count, unit=unit, desc=desc or "working", file=sys.stderr, disable=not shown(quiet),
               leave=False, bar_format=_FORMAT, mininterval=0.2, **_size())
    try:
        yield _Feed(bar, count)
    finally:
        bar.close()


def loop_bar(items: Iterable[T], quiet: bool = False, total: int | None = None, unit: str = "it",
             desc: str = "") -> Iterator[T]:
    """``items`` with a bar that advances one unit per item."""
    from tqdm import tqdm
    yield from tqdm(items, total=total, unit=unit, desc=desc or None, file=sys.stderr, disable=not shown(quiet),
                    leave=False, mininterval=0.2, **_size())


def _size() -> dict[str, int]:
    # a terminal that reports no size (a fresh pseudo-terminal, some CI consoles) has 0 rows: tqdm then
    # counts -1 rows and draws nothing at all
    size = shutil.get_terminal_size((100, 24))
    return {"ncols": min(size.columns, 120), "nrows": max(size.lines, 2)}
