"""Reading and writing links as parts (format version 3): a link's ``part`` and the ``materials`` table.

``"part": {"shape": "tube", "material": "aluminium 6061-T6", "outer_diameter": "D2", "wall": 0.004}``
with optional ``start``/``end`` points in the link frame. A material is a name from the built-in
table (``designer.model.parts.MATERIALS``) or from the project's ``materials`` object,
``{"name": {"density": .., "young": .., "shear": ..}}``, which may also redefine a built-in name.
"""

from __future__ import annotations

from typing import Any

from ..model.expr import format_expr
from ..model.parts import MATERIALS, SHAPES, Material, Part, wall_problem

__all__ = ["read_materials", "read_part", "part_json", "materials_json", "PART_KEYS"]

_MATERIAL_KEYS = ("density", "young", "shear")
PART_KEYS = {"shape", "material", "start", "end"} | {k for dims in SHAPES.values() for k in dims}


def read_materials(reader, data) -> dict[str, Material]:
    """The project's own materials (built-ins included) from the top-level ``materials`` object."""
    table = dict(MATERIALS)
    if data is None:
        return table
    if not isinstance(data, dict):
        reader.fail("materials", "must be an object of name: {density, young, shear}")
        return table
    for name, value in data.items():
        where = f"materials.{name}"
        if not isinstance(value, dict):
            reader.fail(where, "must be an object with density (kg/m^3), young and shear (Pa)")
            continue
        unknown = set(value) - set(_MATERIAL_KEYS)
        missing = [k for k in _MATERIAL_KEYS if k not in value]
        if unknown:
            reader.fail(where, "unknown key(s) " + ", ".join(sorted(map(str, unknown)))
                        + " (use density, young, shear)")
        if missing:
            reader.fail(where, "missing " + ", ".join(missing))
        numbers = {k: reader.number(value[k], f"{where}.{k}") for k in _MATERIAL_KEYS if k in value}
        bad = [k for k, v in numbers.items() if v is not None and v <= 0]
        for k in bad:
            reader.fail(f"{where}.{k}", f"must be positive, found {numbers[k]!r}")
        if unknown or missing or bad or any(v is None for v in numbers.values()):
            continue
        table[name] = Material(name, numbers["density"], numbers["young"], numbers["shear"])
    return table


def read_part(reader, value, where: str, materials: dict[str, Material],
              values: dict[str, float] | None = None) -> Part | None:
    """A link's part; ``values`` (the parameters' defaults) let the wall be checked against the
    section's size when either is written with names."""
    if not isinstance(value, dict):
        reader.fail(where, "must be an object with shape, material and the shape's dimensions")
        return None
    shape = value.get("shape")
    if not isinstance(shape, str) or shape not in SHAPES:   # a list or object is no shape's name (nor hashable)
        reader.fail(f"{where}.shape", "must be one of " + ", ".join(f'"{s}"' for s in SHAPES)
                    + (f", not {shape!r}" if shape is not None else " (missing)"))
        return None
    allowed = {"shape", "material", "start", "end", *SHAPES[shape]}
    unknown = set(value) - allowed
    if unknown:
        reader.fail(where, "unknown field(s) " + ", ".join(sorted(map(str, unknown)))
                    + f" (a {shape} takes " + ", ".join(SHAPES[shape]) + ")")
    material_name = value.get("material")
    material = materials.get(material_name) if isinstance(material_name, str) else None
    if material is None:
        reader.fail(f"{where}.material", (f"unknown material {material_name!r}" if material_name is not None
                                          else "missing") + " (built in: " + ", ".join(MATERIALS)
                    + "; or define it under materials)")
    dims = {}
    for key in SHAPES[shape]:
        if key not in value:
            reader.fail(f"{where}.{key}", "missing")
            continue
        expr = reader.expr(value[key], f"{where}.{key}")
        if expr is None:
            continue
        if expr.is_number and not float(expr) > 0:
            reader.fail(f"{where}.{key}", f"must be positive, found {format_expr(expr)}")
            continue
        dims[key] = expr
    start = reader.vec3(value["start"], f"{where}.start") if "start" in value else None
    end = reader.vec3(value["end"], f"{where}.end") if "end" in value else None
    if material is not None and len(dims) == len(SHAPES[shape]):
        problem = wall_problem(Part(shape, material, tuple(dims.items())), values or {})
        if problem:
            reader.fail(f"{where}.wall", problem)
    if material is None or len(dims) != len(SHAPES[shape]) or ("start" in value and start is None) \
            or ("end" in value and end is None) or unknown:
        return None
    return Part(shape, material, tuple(dims.items()), start, end)


def part_json(part: Part) -> dict[str, Any]:
    out: dict[str, Any] = {"shape": part.shape, "material": part.material.name}
    out.update({k: format_expr(v) for k, v in part.dims})
    for key in ("start", "end"):
        v = getattr(part, key)
        if v is not None:
            out[key] = [format_expr(c) for c in v]
    return out


def materials_json(parts: list[Part]) -> dict[str, dict[str, float]]:
    """The ``materials`` entries a file needs: every material used that is not a built-in as is."""
    out: dict[str, dict[str, float]] = {}
    for part in parts:
        m = part.material
        if MATERIALS.get(m.name) != m:
            out[m.name] = m.as_dict()
    return out
