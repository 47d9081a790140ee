"""A copy of a URDF or MJCF text with its rounded angles written in full precision (1.5708 as
1.5707963267948966, a quaternion 0.707107 0 0 0.707107 as cos(pi/4) 0 0 sin(pi/4)): the file its
author meant, for Pinocchio and MuJoCo to read as the reference of the snapped import.

Written apart from designer/urdf/numbers.py on purpose: an angle here is replaced number by number
(each rpy, euler, axis-angle angle or hinge ref within 1e-5 rad of a multiple of pi/12), and a
quaternion or direction component by component (every component within 1e-5 of a product of at
most three cosines of multiples of pi/24, else the element is left as written), where the import
snaps whole rotations and directions.
"""

from __future__ import annotations

import itertools
import math

from lxml import etree

TOL = 1e-5
_STEP = math.pi / 12
_COSINES = [math.cos(k * math.pi / 24) for k in range(13)]   # 1 ... 0, the sines among them
_NICE = sorted({round(a * b * c, 17) for a, b, c in itertools.combinations_with_replacement(_COSINES + [1.0], 3)})


def _angle(x: float, unit: float) -> float:
    k = round(x * unit / _STEP)
    if abs(x * unit - k * _STEP) <= TOL:
        return k * 15.0 if unit != 1.0 else k * math.pi / 12
    return x


def _component(x: float) -> float | None:
    best = min(_NICE, key=lambda v: abs(abs(x) - v))
    return math.copysign(best, x) if abs(abs(x) - best) <= TOL else None


def _components(values: list[float]) -> list[float]:
    """Every component replaced by its exact value, or the values as written when one has none or
    when that turns the direction (quaternion) by more than 1e-5 rad."""
    norm = math.sqrt(sum(v * v for v in values))
    if norm == 0:
        return values
    out = [_component(v / norm) for v in values]
    if any(v is None for v in out):
        return values
    exact = [float(v) for v in out if v is not None]
    size = math.sqrt(sum(v * v for v in exact))
    if size == 0:
        return values
    cos = min(1.0, abs(sum(a * b for a, b in zip(values, exact))) / (norm * size))
    # a quaternion's angle to another is half the turn between the rotations
    turn = math.acos(cos) * (2 if len(values) == 4 else 1)
    return exact if turn <= TOL else values


def _write(el, attr: str, values: list[float]) -> None:
    el.set(attr, " ".join(repr(float(v)) for v in values))


def exact_urdf(text: str) -> str:
    """The URDF ``text`` with every ``rpy`` angle and joint axis in full precision."""
    root = etree.fromstring(text.encode())
    for el in root.iter("origin"):
        if el.get("rpy"):
            _write(el, "rpy", [_angle(float(v), 1.0) for v in el.get("rpy").split()])
    for el in root.iter("axis"):
        if el.get("xyz"):
            _write(el, "xyz", _components([float(v) for v in el.get("xyz").split()]))
    return etree.tostring(root).decode()


def exact_mjcf(text: str) -> str:
    """The MJCF ``text`` (one file, no includes) with every orientation (quat, euler, axisangle, xyaxes,
    zaxis), joint axis and hinge ref in full precision, in the compiler's angle unit."""
    root = etree.fromstring(text.encode())
    degree = all(c.get("angle", "degree") == "degree" for c in root.iter("compiler"))
    unit = math.pi / 180 if degree else 1.0
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for attr in ("quat", "axisangle", "xyaxes", "zaxis", "axis", "euler", "ref"):
            text_value = el.get(attr)
            if text_value is None or (attr == "axis" and el.tag != "joint"):
                continue
            values = [float(v) for v in text_value.split()]
            if attr == "euler":
                values = [_angle(v, unit) for v in values]
            elif attr == "ref":
                if el.tag != "joint" or el.get("type", "hinge") != "hinge":
                    continue
                values = [_angle(values[0], unit)]
            elif attr == "axisangle":
                values = _components(values[:3]) + [_angle(values[3], unit)]
            elif attr == "xyaxes":
                values = _components(values[:3]) + _components(values[3:])
            else:
                values = _components(values)
            _write(el, attr, values)
    return etree.tostring(root).decode()
