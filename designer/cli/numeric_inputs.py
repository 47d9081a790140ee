"""The inputs of the numeric commands: states files, joint vectors on the command line, torque
tables and simulate's options (shared by the serial and the closed-chain commands)."""

from __future__ import annotations

import json
import math

from .common import UserError, number, read_json

__all__ = ["read_states", "read_torque_table", "simulation_inputs", "segments_of"]


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
            scalar: bool = False) -> list[float]:
    """n numbers from the command line: separate words or commas; ``scalar`` also takes one for all."""
    if tokens is None:
        if default is None:
            raise UserError(f"{what}: missing")
        return default
    words = [w for t in tokens for w in t.split(",") if w.strip()]
    values = [number(w, what) for w in words]
    if scalar and len(values) == 1:
        values = values * n
    if len(values) != n:
        raise UserError(f"{what}: {len(values)} value{'' if len(values) == 1 else 's'}, the arm has {n} joints")
    bad = next((v for v in values if not math.isfinite(v)), None)
    if bad is not None:
        raise UserError(f"{what}: {bad} is not a finite number")
    return values


def read_torque_table(path: str, n: int):
    """A :class:`~designer.numeric.simulate.TorqueTable` from CSV columns t, tau1..taun."""
    from ..tables import read_columns
    from ..numeric.simulate import TorqueTable
    names = ["t"] + [f"tau{j}" for j in range(1, n + 1)]
    _, _, data, values = read_columns(path, "torque table", names, f"t, tau1..tau{n}")
    for r in range(1, len(data)):
        if values[r, 0] <= values[r - 1, 0]:
            raise UserError(f"{path}, line {data[r][0]}: t = {values[r, 0]:g} does not come after the row before")
    return TorqueTable(values[:, 0], values[:, 1:])


def _positive(text: str, what: str) -> float:
    v = number(text, what)
    if not (math.isfinite(v) and v > 0):
        raise UserError(f"{what}: must be a positive number, not '{text}'")
    return v


def simulation_inputs(args, n: int):
    """(q0, qd0, duration, rtol, atol, t_eval, torque) of ``simulate``'s options for n joints."""
    import numpy as np
    from ..numeric.simulate import PDControl
    q0 = _values(args.q0, n, "--q0")
    qd0 = _values(args.qd0, n, "--qd0", [0.0] * n)
    duration = _positive(args.t, "--t")
    rtol, atol = _positive(args.rtol, "--rtol"), _positive(args.atol, "--atol")
    t_eval = None
    if args.dt is not None:
        dt = _positive(args.dt, "--dt")
        if duration / dt > 1e7:
            raise UserError(f"--dt: {duration / dt:.3g} rows is too many (at most 10,000,000)")
        t_eval = np.append(np.arange(0.0, duration, dt), duration)
        t_eval = t_eval[np.concatenate([np.diff(t_eval) > 1e-12 * duration, [True]])]
    if args.target is not None and args.pd is None:
        raise UserError("--target: only with --pd KP KD")
    torque = None
    if args.torque:
        torque = read_torque_table(args.torque, n)
    elif args.pd:
        kp = _values([args.pd[0]], n, "--pd KP", scalar=True)
        kd = _values([args.pd[1]], n, "--pd KD", scalar=True)
        if min(kp + kd) < 0:
            raise UserError("--pd: gains must not be negative")
        torque = PDControl(kp, kd, _values(args.target, n, "--target", q0, scalar=True))
    return q0, qd0, duration, rtol, atol, t_eval, torque


def segments_of(segments: int | None) -> int:
    """``modes --segments``: the virtual joints per part-made link (default SEGMENTS), 1 to 64."""
    from ..numeric.flex_modes import SEGMENTS
    segments = SEGMENTS if segments is None else segments
    if not 1 <= segments <= 64:
        raise UserError(f"--segments: give 1 to 64 virtual joints per link, not {segments}")
    return segments
