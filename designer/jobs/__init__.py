"""The job protocol: long computations as generators that yield progress.

A job is a generator that yields :class:`Progress` between steps and returns its
result. The caller decides how to run it: :func:`run` is the plain loop for the
command line and the tests; the GUI's worker runs the same generator on a thread
pool and turns each yield into a signal. Cancelling sets a :class:`CancelToken`;
the runner checks it between yields, and long steps inside a job may call
``token.check()`` themselves.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TypeVar
from collections.abc import Callable, Generator

__all__ = ["Cancelled", "CancelToken", "Progress", "Job", "run", "sub_job", "NEVER"]

R = TypeVar("R")


class Cancelled(Exception):
    """The job was cancelled through its token."""


class CancelToken:
    """Thread-safe flag a job checks between steps."""

    def __init__(self):
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        """Raise :class:`Cancelled` if cancel was asked for."""
        if self._event.is_set():
            raise Cancelled("cancelled")


class _Never(CancelToken):
    def cancel(self) -> None:  # a shared token that nobody may trip
        raise RuntimeError("NEVER cannot be cancelled")


NEVER = _Never()


@dataclass(frozen=True)
class Progress:
    """One step of a job: the stage name, the fraction done (0..1, or None if unknown), a detail."""

    stage: str
    fraction: float | None = None
    detail: str = ""


Job = Generator[Progress, None, R]


def sub_job(job: Job[R], start: float, span: float, stage: str | None = None) -> Job[R]:
    """``job`` run inside another: its progress mapped to start..start + span of the whole (and renamed
    ``stage`` when given); closing the outer job closes ``job`` (a cancelled map cancels its blocks)."""
    try:
        while True:
            try:
                step = next(job)
            except StopIteration as stop:
                return stop.value
            fraction = None if step.fraction is None else start + span * step.fraction
            yield Progress(step.stage if stage is None else stage, fraction, step.detail)
    finally:
        job.close()


def run(job: Job[R], progress: Callable[[Progress], None] | None = None,
        token: CancelToken | None = None) -> R:
    """Run a job to its end, reporting each step; raise :class:`Cancelled` when the token is set."""
    try:
        while True:
            if token is not None:
                token.check()
            step = next(job)
            if progress is not None:
                progress(step)
    except StopIteration as stop:
        return stop.value
    finally:
        job.close()
