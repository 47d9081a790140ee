"""The parameters the dynamics are linear in, for identification: standard or base parameters,
their grouping formulas and values, the dropped parameters, and the excitation's condition number.
JSON, LaTeX, Markdown or HTML."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import sympy as sp

from ..identification.base_params import BaseParameters
from ..dynamics.inertial import parameter_names, standard_parameters
from ..model.manipulator import Manipulator
from .printing import latex_escape, to_text

__all__ = ["regressor_report", "parameter_rows", "base_parameter_section", "with_base_parameters"]


def _value(expr: sp.Expr, model: Manipulator) -> float | None:
    value = expr.xreplace(model.substitutions(require_all=False))
    return float(value) if not value.free_symbols else None


def parameter_rows(model: Manipulator, bp: BaseParameters | None, drives: bool = False) -> list[dict]:
    """[{name, formula (expression), value or None}] of the standard (with ``drives``, and the drive)
    parameters, or of the base parameters."""
    from ..dynamics.inertial import drive_parameter_values, drive_slots
    standard = standard_parameters(model)
    if drives or (bp is not None and len(bp.standard_symbols) > 10 * model.n):
        standard += [sp.Float(v) for v in drive_parameter_values(model)]
    names = parameter_names(model.n) + [f"{kind}{j + 1}" for j, kind in drive_slots(model)]
    if bp is None:
        return [{"name": name, "formula": e, "value": _value(e, model)} for name, e in zip(names, standard)]
    subs = dict(zip(bp.standard_symbols, standard))
    return [{"name": name, "formula": f, "value": _value(sp.expand(f.xreplace(subs)), model)}
            for name, f in zip(bp.names, bp.formulas)]


def base_parameter_table(model: Manipulator) -> tuple[Any, list[dict]]:
    """The base parameters of any mechanism (:func:`~designer.identification.base_params.mechanism_base_parameters`)
    and one row each, name, formula and value: the Identification dialog's table. A serial arm's formulas are
    expressions (:func:`parameter_rows`; symbolic, seconds to a minute for six joints: the window computes it in a
    worker process), a closed chain's numeric grouping's a text."""
    from ..identification.base_params import combination_text, mechanism_base_parameters
    bp = mechanism_base_parameters(model)
    if isinstance(bp, BaseParameters):
        return bp, parameter_rows(model, bp)
    return bp, [{"name": name, "formula": combination_text(combo), "value": float(v)}
                for (name, combo), v in zip(bp.base, bp.values)]


def regressor_report(model: Manipulator, bp, condition: dict | None, fmt: str, drives: bool = False,
                     base: bool = True, project: str = "the mechanism") -> str:
    """What ``regressor`` writes of any mechanism: its standard parameters, or with ``base`` the base parameters
    ``bp`` (:func:`~designer.identification.base_params.mechanism_base_parameters`'s), and the excitation's
    ``condition``. A closed chain's grouping: numbers (:func:`_numeric_grouping_report`), in every format."""
    if not isinstance(bp, BaseParameters):   # a numeric grouping (W^T Y_tree's): its combinations are numbers
        return _numeric_grouping_report(model, bp, condition, fmt, drives, base, project)
    if not base:
        bp = None
    rows = parameter_rows(model, bp, drives)
    kind = "base" if bp is not None else "standard"
    title = f"{kind.capitalize()} inertial parameters of {model.name or 'the arm'}"
    notes = []
    if bp is not None:
        notes.append(f"{bp.count} base parameters of {10 * model.n} standard ones (numerical rank of Y: {bp.rank}); "
                     "each is the combination of standard parameters shown (link frames, about the frame origin).")
        notes.append("Dropped (grouped into others or without effect): " + ", ".join(bp.dropped))
        notes += [f"Numeric grouping: {g}" for g in bp.numeric_groups]
    else:
        notes.append("Per link, in link frame j about its origin: m, first moments m c, inertia tensor entries.")
        if drives:
            notes.append("Per joint with drive data: Ia (reflected rotor inertia N^2 Jm), fv (viscous), fc (Coulomb).")
    if condition:
        notes.append(f"Condition number of Y_b over {condition['trajectory']} ({condition['samples']} samples): "
                     f"{condition['condition']:.6g}")
    if fmt == "json":
        data = {"model": model.name, "kind": kind, "count": len(rows),
                "parameters": [{"name": r["name"], "formula": to_text(r["formula"]), "value": r["value"]}
                               for r in rows]}
        if bp is not None:
            data.update({"dropped": list(bp.dropped), "numeric_groups": list(bp.numeric_groups), "rank": bp.rank})
        if condition:
            data["excitation"] = {k: (v if not isinstance(v, (float, np.floating)) or np.isfinite(v) else None)
                                  for k, v in condition.items()}
        return json.dumps(data, indent=1) + "\n"
    from .document import Bullets, Document, Math, Table
    from .writing import write
    table = Table((("parameter",), ("formula",), ("value",)),
                  tuple(((r["name"],), (Math(r["formula"]),), (_value_text(r["value"]),)) for r in rows), "lll")
    return write(Document(title, "", "", "", (table, Bullets(tuple((n,) for n in notes)))), fmt)


def _value_text(v: float | None) -> str:
    return "" if v is None else f"{v:.6g}"


def _numeric_grouping_report(model: Manipulator, bp, condition: dict | None, fmt: str, drives: bool,
                             base: bool, project: str) -> str:
    """A closed chain's standard parameters (per link of the tree, :class:`~designer.identification.regressor
    .Regressor`'s) or its base parameters ``bp`` (numeric grouping of W^T Y_tree, which carries both)."""
    from ..identification.base_params import combination_text
    from .document import Document, Para, Table
    from .writing import write
    data: dict = {"model": model.name, "standard": dict(zip(bp.names, bp.standard.tolist()))}
    if base:
        data.update({"base_count": bp.count, "dropped": bp.dropped,
                     "base": [{"name": name, "combination": combo, "value": float(v)}
                              for (name, combo), v in zip(bp.base, bp.values)]})
    if condition:
        data["condition"] = condition
    if fmt == "json":
        return json.dumps(data, indent=1) + "\n"
    blocks: list = [Para(("tau_a = W^T Y_tree pi: per link, in link frame j about its origin: m, m c, inertia entries"
                          + ("; then the drive parameters of the tree joints with drive data (Ia = N^2 Jm, fv, fc; "
                             "columns W^T e_j times qdd_j, qd_j, sign(qd_j))." if drives else "."),))]
    if base:
        blocks += [Para((f"{data['base_count']} base parameters of {len(bp.names)} standard ones (numeric grouping "
                         "of W^T Y_tree over random closed states):",)),
                   Table((("base",), ("combination",), ("value",)),
                         tuple(((r["name"],), (combination_text(r["combination"]),), (f"{r['value']:.6g}",))
                               for r in data["base"]), "lll"),
                   Para(("Dropped: " + ", ".join(data["dropped"]),))]
    else:
        blocks.append(Table((("parameter",), ("value",)),
                            tuple(((k,), (f"{v:.6g}",)) for k, v in data["standard"].items()), "lr"))
    if condition:
        blocks.append(Para((f"Condition number of Y_b over {condition['trajectory']} ({condition['samples']} "
                            f"samples): {condition['condition']:.6g}",)))
    title = f"Inertial parameters of {model.name or project} (closed chain)"
    return write(Document(title, "", "", "", tuple(blocks)), fmt)


def _section_notes(model: Manipulator, bp: BaseParameters) -> list[str]:
    notes = [f"{bp.count} base parameters of {10 * model.n} standard ones (numerical rank of the regressor: "
             f"{bp.rank}); each is the combination of standard parameters shown (m, first moments mx, my, mz and "
             "the inertia tensor XX..ZZ of each link, in link frame j about its origin).",
             "Dropped (grouped into others or without effect on tau): " + (", ".join(bp.dropped) or "none")]
    return notes + [f"Numeric grouping: {g}" for g in bp.numeric_groups]


def base_parameter_section(model: Manipulator, bp: BaseParameters, fmt: str):
    """The base parameters as a section of an equations report: a dict for JSON, else text."""
    rows = parameter_rows(model, bp)
    notes = _section_notes(model, bp)
    if fmt == "json":
        return {"count": bp.count, "rank": bp.rank,
                "parameters": [{"name": r["name"], "formula": to_text(r["formula"]), "value": r["value"]}
                               for r in rows],
                "dropped": list(bp.dropped), "numeric_groups": list(bp.numeric_groups)}
    from .document import Bullets, Formulas, Heading
    from .writing import write
    return write([Heading(2, ("Base parameters",), numbered=False),
                  Formulas(("parameter", "grouping formula", "value"),
                           tuple((r["name"], r"\mathrm{" + latex_escape(r["name"]) + "}", r["formula"],
                                  to_text(r["formula"]), _value_text(r["value"])) for r in rows)),
                  Bullets(tuple((n,) for n in notes))], fmt)


def with_base_parameters(text: str, fmt: str, model: Manipulator, bp: BaseParameters) -> str:
    """An equations report ``text`` in ``fmt`` with the base-parameter section added at its end."""
    from .writing import with_section
    return with_section(text, fmt, "base_parameters", base_parameter_section(model, bp, fmt))
