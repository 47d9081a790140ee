"""Argument parsing and output for ``explore`` (numbers, poses, ratings, CSV/JSON writing)."""

from __future__ import annotations

import csv
import functools
import io
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .common import UserError, load_model, number, write_output
from .ranges import FINITE, PAYLOAD, RATING, Bounded

if TYPE_CHECKING:
    import numpy as np

__all__ = ["guard", "number", "overrides", "parse_sets", "model_and_arm", "vector", "ratings", "pose",
           "pose_from", "output_format", "emit"]


def guard(func):
    """Turn the core's ValueErrors (bad metric, missing parameter, bad range) into one-line user errors."""
    @functools.wraps(func)
    def wrapper(args):
        import numpy as np
        from ..model import MissingParameterError
        from ..model.expr import ExpressionError
        try:
            return func(args)
        except UserError:
            raise
        except (MissingParameterError, ExpressionError, ValueError, np.linalg.LinAlgError) as exc:
            raise UserError(f"explore {args.what}: {exc}") from None
    return wrapper


def overrides(args) -> dict[str, float]:
    return parse_sets(args.set)


def parse_sets(items: list[str]) -> dict[str, float]:
    out = {}
    for item in items:
        if "=" not in item:
            raise UserError(f"--set {item}: write NAME=VALUE")
        name, text = item.split("=", 1)
        out[name.strip()] = FINITE.parse(text, f"--set {name.strip()}")
    return out


def model_and_arm(args):
    """(model, arm) with the --set overrides: the arm the metrics take (:func:`arm_of`)."""
    model = load_model(args.project)
    sets = overrides(args)
    unknown = sorted(set(sets) - set(model.symbol_names()))
    if unknown:
        raise UserError(f"--set: {', '.join(unknown)} is not a parameter of {args.project}")
    model = model.with_parameters(sets)
    return model, arm_of(model, args.project)


def arm_of(model, where: str):
    """The arm the metrics take (explore/joints.py: explore_arm, a NumericArm or a closed chain's ActuatedArm);
    one-line errors."""
    from ..explore.joints import explore_arm
    from ..kinematics.closure import ClosureError
    from ..model import MissingParameterError
    try:
        return explore_arm(model)
    except (MissingParameterError, ClosureError) as exc:
        raise UserError(f"{where}: {exc}") from None


def vector(text: str | None, n: int, what: str, bound: Bounded = RATING):
    """One value for every joint or n values (commas or spaces), each in ``bound`` (default: a rating, positive)."""
    import numpy as np
    if text is None:
        return None
    parts = [p for p in text.replace(",", " ").split() if p]
    values = [bound.parse(p, what) for p in parts]
    if len(values) not in (1, n):
        raise UserError(f"{what}: give one value or {n}, got {len(values)}")
    return np.broadcast_to(np.array(values), (n,)).copy()


def ratings(args, n: int, model=None):
    """The rated values: the command line's, else the project's drive data (said on standard error)."""
    from ..explore.metrics import Ratings
    torque, speed = vector(args.torque, n, "--torque"), vector(args.speed, n, "--speed")
    if model is not None:
        torque = from_drives(model, "torque", torque, "--torque")
        speed = from_drives(model, "speed", speed, "--speed")
    return Ratings.of(n, torque, speed, vector(args.acceleration, n, "--acceleration"),
                      **elastic_ratings(model, getattr(args, "payload", None)))


def elastic_ratings(model, payload) -> dict:
    """The elastic joints' data for the stiffness and frequency metrics: the project's drive data
    (stiffness, gear ratio, rotor inertia) and the --payload in kg."""
    from ..explore.metrics import drive_ratings
    return {"payload": 0.0 if payload is None else PAYLOAD.parse(payload, "--payload"), **drive_ratings(model)}


def from_drives(model, what: str, given, flag: str):
    """``given`` (a command-line value) if any, else the project's drive value of ``what``, noted on stderr."""
    if given is not None:
        return given
    from ..explore.metrics import explored_drive_values
    values = explored_drive_values(model)
    value = values[what]
    if value is not None:
        kind = {"torque": f"{values['torque_kind']} torque", "speed": "rated speed", "gear": "gear ratio",
                "rotor": "motor inertia"}[what]
        sys.stderr.write(f"note: {kind} from the project's drive data ({flag} overrides): "
                         + ", ".join(f"{v:g}" for v in value) + "\n")
    return value


def pose(args, n: int) -> np.ndarray:
    return pose_from(getattr(args, "q", None), n, "--q")


def pose_from(texts: list[str] | None, n: int, flag: str) -> np.ndarray:
    import numpy as np
    if not texts:
        return np.zeros(n)
    if len(texts) != n:
        raise UserError(f"{flag}: {n} joint values needed, {len(texts)} given")
    return np.array([FINITE.parse(t, f"{flag}[{k}]") for k, t in enumerate(texts, start=1)])


def _clean(value):
    import numpy as np
    if isinstance(value, np.ndarray):
        return _clean(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else (None if math.isnan(v) else ("inf" if v > 0 else "-inf"))
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def output_format(args, table: bool) -> str:
    if args.format:
        return args.format
    if args.out:
        suffix = Path(args.out).suffix.lower()
        if suffix in (".csv", ".json"):
            return suffix[1:]
        raise UserError(f"--out {args.out}: use a .csv or .json file, or give --format")
    return "csv" if table else "json"


def emit(args, rows: list[dict] | None = None, data: dict | None = None) -> int:
    """Write ``rows`` as CSV, or ``data`` (default: {"rows": rows}) as JSON."""
    fmt = output_format(args, table=rows is not None)
    if fmt == "csv":
        if rows is None:
            raise UserError(f"explore {args.what}: this result is not a table; write it as JSON")
        buf = io.StringIO()
        keys = list(dict.fromkeys(k for r in rows for k in r))
        w = csv.DictWriter(buf, fieldnames=keys, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: _csv_value(v) for k, v in r.items()})
        write_output(buf.getvalue(), args.out)
    else:
        write_output(json.dumps(_clean(data if data is not None else {"rows": rows}), indent=1) + "\n", args.out)
    return 0


def _csv_value(v):
    import numpy as np
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return v
