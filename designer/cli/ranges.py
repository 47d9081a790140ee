"""The allowed range of every numeric option, and the memory a grid or a sample count would take.

One :class:`Bounded` per kind of number (the constants below) serves both ways an option is read:
as argparse's ``type=`` (``--steps``, ``--samples``: a bad value is argparse's one-line error naming
the option) and, for the numbers read later (``--t``, the COUNT of ``--param``, each value of a list),
through :meth:`Bounded.parse` / :meth:`Bounded.check` (a :class:`UserError` naming the option). Either
way the message names the option and the range, on one line. Whole-number options also take a whole
number written as ``1e6``.

:func:`check_states` estimates the bytes that evaluating metrics at so many joint states takes (the
batched frames, Jacobians and mass matrices; measured on a PUMA 560: at most 23 kB a state, the
estimate is 41 kB) and refuses, before anything is allocated, when that exceeds half the memory
available (the machine's, or the container's limit).
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass
from pathlib import Path

from .common import UserError, number

__all__ = ["Bounded", "check_memory", "check_states", "states_bytes", "available_memory", "MEMORY_SHARE",
           "GRID_STEPS", "SAMPLES", "SEED", "WORKERS", "MAX_TERMS", "TIME_LIMIT", "DURATION", "REPORT_STEP", "RTOL",
           "ATOL", "GAIN", "PERIOD", "HARMONICS", "CHOOSE", "FRACTION", "CHECKS", "MOVE_STEPS", "COUNT",
           "PARAM_COUNT", "SEGMENTS", "DENSITY", "PAYLOAD", "SPEED", "LENGTH", "RATING", "NON_NEGATIVE", "FINITE",
           "JOINT"]


@dataclass(frozen=True)
class Bounded:
    """Numbers of ``kind`` (int or float) from ``low`` to ``high``; ``above``: strictly above ``low``.
    Floats may be written as expressions without names (``pi/2``); every value must be finite."""

    kind: type
    low: float
    high: float
    above: bool = False

    def text(self) -> str:
        """The range as the messages say it: ``2 to 100,000``, ``above 0 up to 1e+06``."""
        if self.kind is int:
            return f"{int(self.low):,} to {int(self.high):,}"
        return f"{'above' if self.above else 'from'} {_g(self.low)} {'up ' if self.above else ''}to {_g(self.high)}"

    def _problem(self, value: float) -> str | None:
        inside = (value > self.low if self.above else value >= self.low) and value <= self.high
        if math.isfinite(value) and inside:
            return None
        return f"{_shown(value)} is out of range: give {self.text()}"

    def _value(self, text: str, what: str):
        """The number ``text`` says, or a ValueError saying why not."""
        text = str(text).strip()
        if self.kind is int:
            try:
                return int(text)
            except ValueError:
                try:
                    value = float(text)
                except ValueError:
                    raise ValueError(f"'{text}' is not a whole number") from None
                if math.isfinite(value) and value != int(value):
                    raise ValueError(f"'{text}' is not a whole number") from None
                return int(value) if math.isfinite(value) else value
        try:
            return number(text, what)
        except UserError as exc:
            raise ValueError(str(exc).removeprefix(f"{what}: ")) from None

    def __call__(self, text: str):
        """argparse's ``type=``: the value, or an ArgumentTypeError (argparse names the option)."""
        try:
            value = self._value(text, "value")
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        problem = self._problem(value)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return value

    def parse(self, text: str, what: str):
        """``text`` read as the option ``what`` (a command-line word read after argparse)."""
        try:
            value = self._value(text, what)
        except ValueError as exc:
            raise UserError(f"{what}: {exc}") from None
        return self.check(value, what)

    def check(self, value, what: str):
        """``value`` if in range, else a UserError naming ``what`` and the range."""
        problem = self._problem(value)
        if problem:
            raise UserError(f"{what}: {problem}")
        return value


def _shown(value) -> str:
    if isinstance(value, int):
        return f"{value:,}" if abs(value) < 10**15 else _g(float(value))
    return _g(value)


def _g(value: float) -> str:
    """``1e6``, ``1e-13``, ``0.1``: a number as one writes it on the command line."""
    text = f"{value:g}"
    return text.replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


# -- the ranges (docs/option-ranges.md lists them per option) -------------------------------------
GRID_STEPS = Bounded(int, 2, 100_000)            # explore map --steps: points per joint (the grid is its square)
SAMPLES = Bounded(int, 1, 10_000_000)            # --samples of explore map, sweep, payload, compare, ...
SEED = Bounded(int, 0, 2**32 - 1)                # --seed: numpy's and scipy's Sobol seeds are unsigned 32-bit
WORKERS = Bounded(int, 1, 1024)                  # --workers
MAX_TERMS = Bounded(int, 1, 10**15)              # derive --max-terms (default 1e9)
TIME_LIMIT = Bounded(float, 0, 1e7)              # --time-limit in s (0: none)
DURATION = Bounded(float, 0, 1e6, above=True)    # simulate --t, --move, explore --duration: up to 11.6 days
REPORT_STEP = Bounded(float, 0, 1e6, above=True)  # simulate --dt, linearize --dt
RTOL = Bounded(float, 1e-13, 0.1)                # scipy raises a smaller rtol to 100 eps itself
ATOL = Bounded(float, 1e-16, 1.0)
GAIN = Bounded(float, 0, 1e12)                   # --pd KP, KD
PERIOD = Bounded(float, 0, 1e4, above=True)      # regressor --period in s
HARMONICS = Bounded(int, 1, 50)                  # regressor --harmonics
CHOOSE = Bounded(int, 1, 10_000)                 # explore conditions --choose
FRACTION = Bounded(float, 0, 1)                  # explore significance --threshold
CHECKS = Bounded(int, 0, 10_000_000)             # explore significance --check (0: skip)
MOVE_STEPS = Bounded(int, 2, 10_000_000)         # explore sizing/payload --steps of a move
COUNT = Bounded(int, 1, 10_000)                  # explore payload --z/--x COUNT
PARAM_COUNT = Bounded(int, 1, 1_000_000)         # explore sweep --param COUNT
SEGMENTS = Bounded(int, 1, 64)                   # modes --segments
DENSITY = Bounded(float, 0, 1e5, above=True)     # import --density in kg/m^3 (osmium: 22,590)
PAYLOAD = Bounded(float, 0, 1e6)                 # --payload in kg
SPEED = Bounded(float, 0, 1e3, above=True)       # --cube-speed in m/s
LENGTH = Bounded(float, 0, 1e3, above=True)      # --cube-edge in m
RATING = Bounded(float, 0, 1e12, above=True)     # rated torque, speed, acceleration, gear ratio; speed limits
NON_NEGATIVE = Bounded(float, 0, 1e12)           # rotor inertias
FINITE = Bounded(float, -1e12, 1e12)             # joint values, --set, grid bounds: any finite number of sane size
JOINT = Bounded(int, 1, 10_000)                  # explore map --joints I J (then checked against the arm)

# refuse a computation whose estimate exceeds this share of the memory available
MEMORY_SHARE = 0.5


def states_bytes(count: float, n: int) -> float:
    """Bytes that evaluating a metric at ``count`` joint states of an n-joint arm takes at most (the
    module docstring): 8 bytes times 128 n^2 (Jacobians, M, its derivatives) plus 64 (n + 1) (frames)."""
    return float(count) * 8.0 * (128 * n * n + 64 * (n + 1))


def available_memory() -> int | None:
    """Bytes this process can still take: the machine's MemAvailable, or less under a cgroup's limit;
    None where neither can be read (then nothing is refused)."""
    found = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        try:
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            used = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
            found.append(max(0, int(limit) - used))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


def _size(nbytes: float) -> str:
    for unit in ("bytes", "kB", "MB", "GB", "TB", "PB"):
        if nbytes < 1000 or unit == "PB":
            return f"{nbytes:.3g} {unit}"
        nbytes /= 1000
    return f"{nbytes:.3g} PB"


def check_memory(nbytes: float, what: str) -> None:
    """Refuse (one line: ``what`` would take ...) a computation estimated at ``nbytes`` beyond MEMORY_SHARE of
    the memory available; call it before allocating."""
    available = available_memory()
    if available is not None and nbytes > MEMORY_SHARE * available:
        raise UserError(f"{what} would take about {_size(nbytes)} of memory, more than half of the "
                        f"{_size(available)} available; ask for fewer")


def check_states(count: int, n: int, option: str, detail: str = "") -> None:
    """:func:`check_memory` of evaluating metrics at ``count`` states of an n-joint arm, asked for by ``option``
    (``detail``: how the count comes about, e.g. ``a grid of 50 x 50 = ``)."""
    check_memory(states_bytes(count, n), f"{option}: {detail}{count:,} joint states")
