"""The inputs of the numeric commands: states files, joint vectors on the command line, torque
tables and simulate's options (shared by the serial and the closed-chain commands)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
import math
import re

from .common import UserError, read_json
from .ranges import ATOL, DURATION, FINITE, GAIN, REPORT_STEP, RTOL, SEGMENTS, Bounded

if TYPE_CHECKING:
    import numpy as np

__all__ = ["read_states", "read_torque_table", "simulation_inputs", "simulation_times", "segments_of"]


def _vector(value, n: int, where: str) -> list[float]:
    if not isinstance(value, list):
        raise UserError(f"{where}: must be a list of {n} numbers")
    if len(value) != n:
        raise UserError(f"{where}: {len(value)} values, the arm has {n} joints")
    for k, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not _finite(v):
            text = json.dumps(v)
            raise UserError(f"{where}[{k}]: {text if len(text) <= 40 else text[:37] + '...'} is not a finite number")
    return [float(v) for v in value]


def _finite(v: int | float) -> bool:
    try:
        return math.isfinite(float(v))
    except OverflowError:  # an integer beyond the float range
        return False


def read_states(path: str, n: int) -> list[tuple[list[float], list[float], list[float]]]:
    data = read_json(path, "states file")
    if not isinstance(data, dict) or not isinstance(data.get("states"), list):
        raise UserError(f'{path}: expected an object {{"states": [...]}}')
    out = []
    for i, state in enumerate(data["states"]):
        if not isinstance(state, dict):
            raise UserError(f"{path}: states[{i}]: must be an object with q, qd, qdd")
        extra = sorted(set(state) - {"q", "qd", "qdd"})
        if extra:
            raise UserError(f"{path}: states[{i}]: unknown key '{extra[0]}' (expected q, qd, qdd)")
        vecs = []
        for key in ("q", "qd", "qdd"):
            if key not in state:
                raise UserError(f"{path}: states[{i}].{key}: missing")
            vecs.append(_vector(state[key], n, f"{path}: states[{i}].{key}"))
        out.append((vecs[0], vecs[1], vecs[2]))
    return out


def _values(tokens: list[str] | None, n: int, what: str, default: list[float] | None = None,
            scalar: bool = False, bound: Bounded = FINITE) -> list[float]:
    """n numbers from the command line, each in ``bound``: separate words or commas; ``scalar`` also takes one
    for all."""
    if tokens is None:
        if default is None:
            raise UserError(f"{what}: missing")
        return default
    words = [w for t in tokens for w in t.split(",") if w.strip()]
    values = [bound.parse(w, what) for w in words]
    if scalar and len(values) == 1:
        values = values * n
    if len(values) != n:
        raise UserError(f"{what}: {len(values)} value{'' if len(values) == 1 else 's'}, the arm has {n} joints")
    return values


def read_torque_table(path: str, n: int, numbers: list[int] | None = None):
    """A :class:`~designer.numeric.simulate.TorqueTable` from CSV columns t, tau1..taun, or with ``numbers``
    (a closed chain's actuated joints by their link numbers, as every output names them) t, tau{k} for each.
    Other columns are passed over (simulate's own output reads as a table), but a ``tau`` column of no such
    joint is refused: it would act on nothing."""
    from ..tables import read_columns
    from ..numeric.simulate import TorqueTable
    numbers = list(range(1, n + 1)) if numbers is None else list(numbers)
    names = ["t"] + [f"tau{j}" for j in numbers]
    expected = (f"t, tau1..tau{n}" if numbers == list(range(1, n + 1))
                else "t, " + ", ".join(names[1:]) + " (the actuated joints by their link numbers)")
    header_line, header, data, values = read_columns(path, "torque table", names, expected)
    stray = next((c for c in header if re.fullmatch(r"tau\d+", c) and c not in names), None)
    if stray is not None:
        raise UserError(f"{path}, line {header_line}: column '{stray}' is no actuated joint's (expected {expected})")
    for r in range(1, len(data)):
        if values[r, 0] <= values[r - 1, 0]:
            raise UserError(f"{path}, line {data[r][0]}: t = {values[r, 0]:g} does not come after the row before")
    return TorqueTable(values[:, 0], values[:, 1:])


# rows of simulate --dt: at most this many (a CSV row of a six-joint arm is about 500 bytes)
MAX_ROWS = 10_000_000


def simulation_times(args) -> tuple[float, float, float, np.ndarray | None]:
    """(duration, rtol, atol, t_eval) of ``--t``, ``--rtol``, ``--atol`` and ``--dt`` (each in its range,
    cli/ranges.py); t_eval None without ``--dt`` (every integrator step is a row)."""
    import numpy as np
    duration = DURATION.parse(args.t, "--t")
    rtol, atol = RTOL.parse(args.rtol, "--rtol"), ATOL.parse(args.atol, "--atol")
    if args.dt is None:
        return duration, rtol, atol, None
    dt = REPORT_STEP.parse(args.dt, "--dt")
    if duration / dt > MAX_ROWS:
        raise UserError(f"--dt: {duration / dt:.3g} rows is too many (at most {MAX_ROWS:,}: a larger --dt)")
    t_eval = np.append(np.arange(0.0, duration, dt), duration)
    return duration, rtol, atol, t_eval[np.concatenate([np.diff(t_eval) > 1e-12 * duration, [True]])]


def integrator(args) -> str | None:
    """simulate's ``--method``: None for auto (the problem chooses), else the method named."""
    method = getattr(args, "method", "auto")
    return None if method == "auto" else method


def simulation_inputs(args, n: int, numbers: list[int] | None = None):
    """(q0, qd0, duration, rtol, atol, t_eval, torque) of ``simulate``'s options for n joints (``numbers``: a
    closed chain's actuated joints by their link numbers, which its torque table's columns name)."""
    from ..numeric.simulate import PDControl
    q0 = _values(args.q0, n, "--q0")
    qd0 = _values(args.qd0, n, "--qd0", [0.0] * n)
    duration, rtol, atol, t_eval = simulation_times(args)
    if args.target is not None and args.pd is None:
        raise UserError("--target: only with --pd KP KD")
    torque = None
    if args.torque:
        torque = read_torque_table(args.torque, n, numbers)
    elif args.pd:
        kp = _values([args.pd[0]], n, "--pd KP", scalar=True, bound=GAIN)
        kd = _values([args.pd[1]], n, "--pd KD", scalar=True, bound=GAIN)
        torque = PDControl(kp, kd, _values(args.target, n, "--target", q0, scalar=True))
    return q0, qd0, duration, rtol, atol, t_eval, torque


def segments_of(segments: int | None) -> int:
    """``modes --segments`` (its range checked by argparse: ranges.SEGMENTS) or, without it, the default."""
    from ..numeric.flex_modes import SEGMENTS as DEFAULT
    return DEFAULT if segments is None else SEGMENTS.check(segments, "--segments")
