"""Reading catalog files strictly: JSON, units in the field names (docs/catalogs.md), every bad field named.

A file: ``{"format": "manipulator-designer catalog", "version": 1, "gearboxes": [...], "motors": [...]}``.
Figures are written as datasheets print them (N m, rpm, kg cm^2, N m/arcmin or N m/rad, arcmin, kg, V) and
turned into SI here. Nothing in a file is run: numbers are JSON numbers, names are strings.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import re

from ..errors import UserError
from ..tables import json_problem, read_text
from .items import ARCMIN, GEARBOX_KINDS, Catalog, CatalogError, Gearbox, MaterialPrice, Motor, StiffnessCurve, rpm

__all__ = ["read_catalog", "load_catalog", "bundled_catalog_files", "user_catalog_files", "FORMAT", "MAX_BYTES"]

FORMAT = "manipulator-designer catalog"
VERSION = 1
#: a catalog file larger than this is refused (a real catalog of thousands of items is far smaller)
MAX_BYTES = 20_000_000
#: the largest figure read (no torque, speed or inertia in SI units comes near it)
MAX_VALUE = 1e9
#: beside a project: every file whose name ends so is a user catalog
USER_SUFFIX = ".catalog.json"

_TEXT = ("series", "source", "date")
#: gearbox keys: (attribute, factor to SI, required)
_GEARBOX = {
    "ratio": ("ratio", 1.0, True),
    "rated_torque_Nm": ("rated_torque", 1.0, True),
    "peak_torque_Nm": ("peak_torque", 1.0, True),
    "momentary_torque_Nm": ("momentary_torque", 1.0, False),
    "lost_motion_arcmin": ("lost_motion", ARCMIN, False),
    "mass_kg": ("mass", 1.0, False),
    "inertia_kgcm2": ("inertia", 1e-4, False),
    "max_input_speed_rpm": ("max_input_speed", rpm(1.0), False),
}
_STIFFNESS = ("stiffness_Nm_per_arcmin", "stiffness_Nm_per_rad", "stiffness_curve")
_CURVE = {"K1_Nm_per_rad": "k1", "K2_Nm_per_rad": "k2", "K3_Nm_per_rad": "k3", "T1_Nm": "t1", "T2_Nm": "t2"}
_MOTOR = {
    "rated_torque_Nm": ("rated_torque", 1.0, True),
    "peak_torque_Nm": ("peak_torque", 1.0, True),
    "rated_speed_rpm": ("rated_speed", rpm(1.0), True),
    "max_speed_rpm": ("max_speed", rpm(1.0), True),
    "rotor_inertia_kgcm2": ("rotor_inertia", 1e-4, True),
    "mass_kg": ("mass", 1.0, False),
    "voltage_V": ("voltage", 1.0, False),
}


def _number(value: Any, where: str, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CatalogError(f"{where}: must be a number, not {json.dumps(value)[:40]}")
    v = float(value)
    if not math.isfinite(v) or v < 0 or (positive and v == 0) or v > MAX_VALUE:
        bound = "> 0" if positive else ">= 0"
        raise CatalogError(f"{where}: must be a finite number {bound} and at most {MAX_VALUE:g}, not {value}")
    return v


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) > 500:
        raise CatalogError(f"{where}: must be a text of at most 500 characters")
    return value


def _check_keys(entry: dict, known: set[str], where: str) -> None:
    unknown = sorted(set(entry) - known)
    if unknown:
        raise CatalogError(f"{where}: unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")


def _fields(entry: dict, table: dict, where: str) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for key, (attr, factor, required) in table.items():
        if key not in entry:
            if required:
                raise CatalogError(f"{where}: missing field {key}")
            out[attr] = None
            continue
        out[attr] = _number(entry[key], f"{where}.{key}") * factor
    return out


def _name(entry: dict, where: str) -> str:
    if "name" not in entry:
        raise CatalogError(f"{where}: missing field name")
    name = _text(entry["name"], f"{where}.name").strip()
    if not name:
        raise CatalogError(f"{where}.name: must not be empty")
    return name


def _stiffness(entry: dict, where: str) -> StiffnessCurve | None:
    given = [k for k in _STIFFNESS if k in entry]
    if len(given) > 1:
        raise CatalogError(f"{where}: give one of {', '.join(given)}, not both")
    if not given:
        return None
    key = given[0]
    if key == "stiffness_Nm_per_arcmin":
        return StiffnessCurve.linear(_number(entry[key], f"{where}.{key}") / ARCMIN)
    if key == "stiffness_Nm_per_rad":
        return StiffnessCurve.linear(_number(entry[key], f"{where}.{key}"))
    curve = entry[key]
    cw = f"{where}.{key}"
    if not isinstance(curve, dict):
        raise CatalogError(f"{cw}: must be an object with {', '.join(_CURVE)}")
    _check_keys(curve, set(_CURVE), cw)
    missing = [k for k in _CURVE if k not in curve]
    if missing:
        raise CatalogError(f"{cw}: missing field(s) {', '.join(missing)}")
    v = {attr: _number(curve[k], f"{cw}.{k}") for k, attr in _CURVE.items()}
    if not v["t1"] < v["t2"]:
        raise CatalogError(f"{cw}: T1_Nm ({v['t1']:g}) must be below T2_Nm ({v['t2']:g})")
    return StiffnessCurve(**v)


def _printed(entry: dict, where: str) -> tuple[tuple[str, str], ...]:
    """The optional ``printed`` object: for a figure's field (or a curve's K1_Nm_per_rad ...), the text the
    source prints for it, kept so the figure can be checked against its source."""
    if "printed" not in entry:
        return ()
    printed, pw = entry["printed"], f"{where}.printed"
    if not isinstance(printed, dict):
        raise CatalogError(f"{pw}: must be an object of field: printed text")
    curve = entry.get("stiffness_curve")
    figures = {k for k, v in entry.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    figures |= set(curve) if isinstance(curve, dict) else set()
    unknown = sorted(set(printed) - figures)
    if unknown:
        raise CatalogError(f"{pw}: {', '.join(unknown)} is not a figure of this item")
    return tuple((k, _text(v, f"{pw}.{k}")) for k, v in printed.items())


def _gearbox(entry: Any, where: str) -> Gearbox:
    if not isinstance(entry, dict):
        raise CatalogError(f"{where}: must be an object")
    price, keys = _price(entry, where)
    _check_keys(entry, {"name", "kind", "printed", *_GEARBOX, *_STIFFNESS, *_TEXT, *keys}, where)
    name = _name(entry, where)
    kind = entry.get("kind")
    if kind not in GEARBOX_KINDS:
        raise CatalogError(f"{where}.kind: must be one of {', '.join(GEARBOX_KINDS)}, not {json.dumps(kind)[:40]}")
    values = _fields(entry, _GEARBOX, where)
    if values["peak_torque"] < values["rated_torque"]:  # type: ignore[operator]
        raise CatalogError(f"{where}.peak_torque_Nm: below rated_torque_Nm")
    texts = {k: _text(entry[k], f"{where}.{k}") for k in _TEXT if k in entry}
    return Gearbox(name=name, kind=kind, stiffness=_stiffness(entry, where), **values, **texts,  # type: ignore[arg-type]
                   **price, printed=_printed(entry, where))


def _motor(entry: Any, where: str) -> Motor:
    if not isinstance(entry, dict):
        raise CatalogError(f"{where}: must be an object")
    price, keys = _price(entry, where)
    _check_keys(entry, {"name", "printed", *_MOTOR, *_TEXT, *keys}, where)
    name = _name(entry, where)
    values = _fields(entry, _MOTOR, where)
    if values["peak_torque"] < values["rated_torque"]:  # type: ignore[operator]
        raise CatalogError(f"{where}.peak_torque_Nm: below rated_torque_Nm")
    if values["max_speed"] < values["rated_speed"]:  # type: ignore[operator]
        raise CatalogError(f"{where}.max_speed_rpm: below rated_speed_rpm")
    texts = {k: _text(entry[k], f"{where}.{k}") for k in _TEXT if k in entry}
    return Motor(name=name, **values, **texts, **price, printed=_printed(entry, where))  # type: ignore[arg-type]


#: a price field: its currency's code in the name (price_eur, price_usd; a material's price_eur_per_kg)
_PRICE = re.compile(r"^price_([a-z]{3})$")
_PRICE_PER_KG = re.compile(r"^price_([a-z]{3})_per_kg$")


def _price(entry: dict, where: str, pattern=_PRICE) -> tuple[dict[str, Any], set[str]]:
    """(price and currency, the price key) of an entry: at most one price field."""
    keys = [k for k in entry if isinstance(k, str) and pattern.match(k)]
    if len(keys) > 1:
        raise CatalogError(f"{where}: give one price, not {', '.join(keys)}")
    if not keys:
        return {}, set()
    code = pattern.match(keys[0]).group(1)
    return {"price": _number(entry[keys[0]], f"{where}.{keys[0]}", positive=False),
            "currency": code.upper()}, {keys[0]}


def _material(entry: Any, where: str) -> MaterialPrice:
    if not isinstance(entry, dict):
        raise CatalogError(f"{where}: must be an object")
    price, keys = _price(entry, where, _PRICE_PER_KG)
    _check_keys(entry, {"name", "source", "date", *keys}, where)
    if not price:
        raise CatalogError(f"{where}: missing a price per kg (a field price_CUR_per_kg, e.g. price_eur_per_kg)")
    texts = {k: _text(entry[k], f"{where}.{k}") for k in ("source", "date") if k in entry}
    return MaterialPrice(_name(entry, where), price["price"], price["currency"], **texts)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise CatalogError(f"key '{k}' given twice")
        out[k] = v
    return out


def _no_constant(name: str):
    raise CatalogError(f"{name} is not a number JSON allows")


def read_catalog(path: str | os.PathLike) -> Catalog:
    """One catalog file; CatalogError naming the file and the field for anything wrong."""
    where = str(path)
    try:
        if os.path.getsize(path) > MAX_BYTES:
            raise CatalogError(f"{where}: larger than {MAX_BYTES // 1_000_000} MB, not a catalog")
    except OSError as exc:
        raise CatalogError(f"{where}: cannot read: {exc.strerror or exc}") from None
    try:   # bounded, a device (--catalog /dev/zero, size 0, read without end before) refused, UTF-8 checked
        text = read_text(where, "the catalog")
    except UserError as exc:
        raise CatalogError(str(exc)) from None
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise CatalogError(f"{where}: not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except CatalogError as exc:
        raise CatalogError(f"{where}: {exc}") from None
    except (RecursionError, ValueError) as exc:   # ValueError: a number of more than 4300 digits
        raise CatalogError(f"{where}: not JSON: {json_problem(exc)}") from None
    return catalog_from_dict(data, where)


def catalog_from_dict(data: Any, where: str) -> Catalog:
    if not isinstance(data, dict):
        raise CatalogError(f"{where}: must be a JSON object")
    _check_keys(data, {"format", "version", "gearboxes", "motors", "materials", "description"}, where)
    if data.get("format") != FORMAT:
        raise CatalogError(f"{where}.format: must be \"{FORMAT}\"")
    if data.get("version") != VERSION:
        raise CatalogError(f"{where}.version: must be {VERSION}")
    out: dict[str, dict] = {"gearboxes": {}, "motors": {}, "materials": {}}
    read: dict[str, Callable[[Any, str], Any]] = {"gearboxes": _gearbox, "motors": _motor, "materials": _material}
    for key in ("gearboxes", "motors", "materials"):
        items = data.get(key, [])
        if not isinstance(items, list):
            raise CatalogError(f"{where}.{key}: must be a list")
        for i, entry in enumerate(items):
            item = read[key](entry, f"{where}: {key}[{i}]")
            if item.name in out[key]:
                raise CatalogError(f"{where}: {key}[{i}].name: '{item.name}' given twice in this file")
            out[key][item.name] = item
    return Catalog(out["gearboxes"], out["motors"], (where,), out["materials"])


def bundled_catalog_files() -> list[Path]:
    """The catalogs shipped with the program, in name order: resources/catalogs/ of a source checkout, else the
    copy an installed wheel carries (designer/_catalogs, setup.py)."""
    here = Path(__file__).resolve()
    for folder in (here.parents[2] / "resources" / "catalogs", here.parents[1] / "_catalogs"):
        if folder.is_dir():
            return sorted(folder.glob("*.json"))
    return []


def user_catalog_files(project: str | os.PathLike | None) -> list[Path]:
    """The user catalogs beside a project file: ``*.catalog.json`` in its folder, in name order."""
    if project is None:
        return []
    folder = Path(project).resolve().parent
    return sorted(p for p in folder.glob("*" + USER_SUFFIX) if p.is_file())


def load_catalog(project: str | os.PathLike | None = None,
                 extra: Sequence[str | os.PathLike] | None = None) -> Catalog:
    """The bundled catalogs, then the user catalogs beside ``project``, then ``extra`` files; a later item of a
    name replaces an earlier one."""
    out = Catalog()
    for path in [*bundled_catalog_files(), *user_catalog_files(project), *(extra or [])]:
        out = out.merged(read_catalog(path))
    return out
