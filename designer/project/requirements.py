"""Reading and writing a project's requirements, payload and cycle (format version 4).

The fields are in docs/project-format.md, "Requirements, version 4". Every value is a plain JSON number
(no expressions, nothing run). Each bad field is reported naming it (``requirements[2].bound: ...``)
through the project reader's ``fail``, all in one pass."""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..model.requirements import BOUNDS, Cycle, Payload, Requirement, Requirements, Where

__all__ = ["V4_TOP_KEYS", "MAX_REQUIREMENTS", "MAX_POSES", "MAX_SAMPLES", "read_requirements", "requirements_json",
           "check_sizes", "absolute_cycle", "relative_cycle"]

#: the top-level fields of version 4: a file of an older version holding one is refused; a model using them is
#: written as 4
V4_TOP_KEYS = {"requirements", "payload", "cycle"}
MAX_REQUIREMENTS = 200
MAX_POSES = 1000          # poses of one requirement, waypoints of the cycle
MAX_SAMPLES = 10_000      # samples of a box
MAX_NAME = 200
_METRIC_RE = re.compile(r"^[A-Za-z_]+(\[[0-9]+(,[0-9]+)?\])?$")
_REQUIREMENT_KEYS = {"metric", "bound", "value", "where", "name"}


def _number(fail, value, where: str, positive: bool = False, minimum: float | None = None) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(where, f"must be a number, not {json.dumps(value)[:40]}")
        return None
    value = float(value)
    if not math.isfinite(value) or abs(value) > 1e300:
        fail(where, "not a finite number")
        return None
    if positive and not value > 0:
        fail(where, f"must be positive, is {value:g}")
        return None
    if minimum is not None and value < minimum:
        fail(where, f"must be at least {minimum:g}, is {value:g}")
        return None
    return value


def _vector(fail, value, where: str, length: int | None = None) -> tuple[float, ...] | None:
    if not isinstance(value, list) or not value or (length is not None and len(value) != length):
        fail(where, f"must be a list of {length if length is not None else 'joint'} numbers")
        return None
    if len(value) > 64:
        fail(where, "more than 64 numbers")
        return None
    items = [_number(fail, v, f"{where}[{k}]") for k, v in enumerate(value, start=1)]
    return None if any(v is None for v in items) else tuple(float(v) for v in items)   # type: ignore[arg-type]


def _poses(fail, value, where: str) -> tuple[tuple[float, ...], ...] | None:
    if not isinstance(value, list) or not value:
        fail(where, "must be a list of poses (each a list of joint values)")
        return None
    if len(value) > MAX_POSES:
        fail(where, f"more than {MAX_POSES} poses")
        return None
    poses = [_vector(fail, p, f"{where}[{k}]") for k, p in enumerate(value, start=1)]
    if any(p is None for p in poses):
        return None
    if len({len(p) for p in poses if p is not None}) > 1:
        fail(where, "the poses have different numbers of joint values")
        return None
    return tuple(p for p in poses if p is not None)


def _object(fail, value, where: str, keys: set[str]) -> dict | None:
    if not isinstance(value, dict):
        fail(where, "must be an object with " + ", ".join(sorted(keys)))
        return None
    unknown = set(value) - keys
    if unknown:
        fail(where, "unknown key(s) " + ", ".join(sorted(map(str, unknown))) + " (use " + ", ".join(sorted(keys)) + ")")
        return None
    return value


def _where(fail, value, where: str) -> Where | None:
    if value is None or value == "zero":
        return Where()
    if value == "cycle":
        return Where("cycle")
    if isinstance(value, str):
        fail(where, "must be \"zero\", \"cycle\", {\"poses\": [...]} or {\"box\": {...}}, "
                    f"not {json.dumps(value)[:40]}")
        return None
    data = _object(fail, value, where, {"poses", "box"})
    if data is None:
        return None
    if len(data) != 1:
        fail(where, "give one of poses or box")
        return None
    if "poses" in data:
        poses = _poses(fail, data["poses"], f"{where}.poses")
        return None if poses is None else Where("poses", poses=poses)
    box = _object(fail, data["box"], f"{where}.box", {"lo", "hi", "samples"})
    if box is None:
        return None
    lo, hi = _vector(fail, box.get("lo"), f"{where}.box.lo"), _vector(fail, box.get("hi"), f"{where}.box.hi")
    samples = box.get("samples", 64)
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
        fail(f"{where}.box.samples", f"must be a whole number from 1 to {MAX_SAMPLES}")
        return None
    if lo is None or hi is None:
        return None
    if len(lo) != len(hi):
        fail(f"{where}.box", f"lo has {len(lo)} values, hi {len(hi)}")
        return None
    if any(b < a for a, b in zip(lo, hi)):
        fail(f"{where}.box", "hi must not be below lo")
        return None
    return Where("box", lo=lo, hi=hi, samples=samples)


def _requirement(fail, value, where: str) -> Requirement | None:
    data = _object(fail, value, where, _REQUIREMENT_KEYS)
    if data is None:
        return None
    ok = True
    metric = data.get("metric")
    if not isinstance(metric, str) or not _METRIC_RE.match(metric.replace(" ", "")):
        fail(f"{where}.metric", "write a metric name, name[i] or name[i,j] (an `explore metric` spec or a "
                                "review metric such as peak_torque, mass)")
        ok = False
    bound = data.get("bound")
    if bound not in BOUNDS:
        fail(f"{where}.bound", f"must be \"<=\" or \">=\", not {json.dumps(bound)[:40]}")
        ok = False
    number = _number(fail, data.get("value"), f"{where}.value")
    place = _where(fail, data.get("where"), f"{where}.where")
    name = data.get("name", "")
    if not isinstance(name, str) or len(name) > MAX_NAME:
        fail(f"{where}.name", f"must be text of at most {MAX_NAME} characters")
        ok = False
    elif any(ord(ch) < 32 or ord(ch) == 127 for ch in name) or name != name.strip():
        fail(f"{where}.name", "must be one line of text, without control characters or spaces at its ends")
        ok = False
    if not ok or number is None or place is None:
        return None
    return Requirement(str(metric).replace(" ", ""), str(bound), number, place, str(name))


def read_requirements(fail, data: dict) -> Requirements:
    """The requirements, payload and cycle of a project document (absent ones: none); problems to ``fail``."""
    items: list[Requirement] = []
    raw = data.get("requirements")
    if raw is not None:
        if not isinstance(raw, list):
            fail("requirements", "must be a list of requirements")
        elif len(raw) > MAX_REQUIREMENTS:
            fail("requirements", f"more than {MAX_REQUIREMENTS} requirements")
        else:
            read = [_requirement(fail, r, f"requirements[{k}]") for k, r in enumerate(raw, start=1)]
            items = [r for r in read if r is not None]
            named: dict[str, int] = {}
            for k, r in enumerate(read, start=1):
                if r is not None and r.name:
                    if r.name in named:
                        fail(f"requirements[{k}].name", f"'{r.name}' names requirements[{named[r.name]}] already "
                                                        "(each requirement's name is its own)")
                    named.setdefault(r.name, k)
    payload = None
    if data.get("payload") is not None:
        p = _object(fail, data["payload"], "payload", {"mass", "offset"})
        if p is not None:
            mass = _number(fail, p.get("mass"), "payload.mass", minimum=0.0)
            offset = _vector(fail, p.get("offset", [0, 0, 0]), "payload.offset", 3)
            if mass is not None and offset is not None:
                payload = Payload(mass, offset)   # type: ignore[arg-type]
    cycle = None
    if data.get("cycle") is not None:
        cycle = _cycle(fail, data["cycle"])
    if any(r.where.kind == "cycle" for r in items) and cycle is None and data.get("cycle") is None:
        fail("requirements", "a requirement holds along the cycle, but the project has no \"cycle\"")
    return Requirements(tuple(items), payload, cycle)


def _cycle(fail, value) -> Cycle | None:
    c = _object(fail, value, "cycle", {"waypoints", "time", "trajectory", "timing"})
    if c is None:
        return None
    timing = c.get("timing", "")
    if timing not in ("", "time-optimal"):
        fail("cycle.timing", "must be \"time-optimal\" (or absent, with a \"time\" or a \"trajectory\")")
        return None
    if "trajectory" in c:
        if not set(c) <= {"trajectory", "timing"}:
            fail("cycle", "give waypoints with a time, or a trajectory file (optionally with \"timing\": "
                          "\"time-optimal\"), not both")
            return None
        path = c["trajectory"]
        if not isinstance(path, str) or not path.strip() or len(path) > 4096 or "\x00" in path:
            fail("cycle.trajectory", "must be the path of a CSV file (t, q1..qn), relative to the project's folder")
            return None
        return Cycle(trajectory=path, timing=timing)
    waypoints = _poses(fail, c.get("waypoints"), "cycle.waypoints")
    if timing and "time" in c:
        fail("cycle", "give a time, or \"timing\": \"time-optimal\", not both")
        return None
    time = 0.0 if timing else _number(fail, c.get("time"), "cycle.time", positive=True)
    if waypoints is not None and len(waypoints) < 2:
        fail("cycle.waypoints", "needs at least two waypoints")
        return None
    if waypoints is None or time is None:
        return None
    return Cycle(waypoints=waypoints, time=time, timing=timing)


def check_sizes(model, fail) -> None:
    """Every pose, box and waypoint has one value per joint the metrics take (a closed chain's actuated ones)."""
    n = sum(1 for link in model.links if link.actuated)
    req = model.requirements

    def check(values, where: str) -> None:
        if len(values) != n:
            fail(where, f"has {len(values)} joint value(s), the arm's metrics take {n}")

    for k, r in enumerate(req.items, start=1):
        if r.where.kind == "poses" and r.where.poses:
            check(r.where.poses[0], f"requirements[{k}].where.poses")
        if r.where.kind == "box":
            check(r.where.lo, f"requirements[{k}].where.box.lo")
    if req.cycle is not None and req.cycle.waypoints:
        check(req.cycle.waypoints[0], "cycle.waypoints")


def requirements_json(req: Requirements) -> dict[str, Any]:
    """The top-level fields of ``req`` (empty when it holds nothing)."""
    out: dict[str, Any] = {}
    if req.payload is not None:
        out["payload"] = {"mass": req.payload.mass, "offset": list(req.payload.offset)}
    if req.cycle is not None:
        c = req.cycle
        out["cycle"] = {"trajectory": c.trajectory, **({"timing": c.timing} if c.timing else {})} if c.trajectory else \
            {"waypoints": [list(p) for p in c.waypoints], **({"timing": c.timing} if c.timing else {"time": c.time})}
    if req.items:
        out["requirements"] = [_requirement_json(r) for r in req.items]
    return out


def _requirement_json(r: Requirement) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if r.name:
        entry["name"] = r.name
    entry.update({"metric": r.metric, "bound": r.bound, "value": r.value})
    w = r.where
    if w.kind == "cycle":
        entry["where"] = "cycle"
    elif w.kind == "poses":
        entry["where"] = {"poses": [list(p) for p in w.poses]}
    elif w.kind == "box":
        entry["where"] = {"box": {"lo": list(w.lo), "hi": list(w.hi), "samples": w.samples}}
    return entry


def absolute_cycle(model, folder: Path):
    """The model with its cycle's trajectory file resolved against the project's folder (as meshes are)."""
    c = model.requirements.cycle
    if c is None or not c.trajectory or os.path.isabs(c.trajectory):
        return model
    cycle = replace(c, trajectory=str((folder / c.trajectory).resolve()))
    return replace(model, requirements=replace(model.requirements, cycle=cycle))


def relative_cycle(model, folder: Path):
    """The model with its cycle's trajectory file written relative to ``folder`` when it lies beside or below."""
    c = model.requirements.cycle
    if c is None or not c.trajectory or not os.path.isabs(c.trajectory):
        return model
    try:
        rel = Path(c.trajectory).resolve().relative_to(folder.resolve())
    except ValueError:
        return model
    cycle = replace(c, trajectory=rel.as_posix())
    return replace(model, requirements=replace(model.requirements, cycle=cycle))
