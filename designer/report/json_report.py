"""The equations as JSON: every matrix entry as text sympy parses back.

Read an entry back with the model's symbols as locals, so that names such as
``beta`` or ``N`` stay symbols::

    names = doc["symbols"]["q"] + doc["symbols"]["qd"] + doc["symbols"]["qdd"] + doc["symbols"]["parameters"]
    local = {name: sympy.Symbol(name, real=True) for name in names}
    M11 = sympy.sympify(doc["matrices"]["M"]["entries"][0][0], locals=local)
"""

from __future__ import annotations

import json

from ..dynamics.results import Equations, Method
from ..model.expr import format_expr
from ..dynamics.closed_nonlinear import NUMERIC_CLOSURE
from .loop_section import loop_items, loop_symbol_names
from .printing import to_text
from .tables import parameter_rows

__all__ = ["render_json", "equations_dict", "FORM"]

FORM = {
    Method.LAGRANGE: "tau = M*qdd + 2*B*velocity_products + C*velocity_squares + G",
    Method.NEWTON_EULER: "tau = tau(q, qd, qdd)",
    Method.DALEMBERT: "tau = (D_rot + D_tra)*qdd + H_rot + H_tra + G",
}


def _matrix(mat) -> dict:
    # terms in tree order: sorting them costs half the printing time of a 6-link arm
    return {"shape": list(mat.shape),
            "entries": [[to_text(mat[i, j], ordered=False) for j in range(mat.shape[1])]
                        for i in range(mat.shape[0])]}


def _vector(mat) -> list[str]:
    return [to_text(v, ordered=False) for v in mat]


def equations_dict(eq: Equations) -> dict:
    """The JSON document as a dict."""
    model = eq.model
    qd = model.qd
    used = set(model.symbol_names())
    for mat in [*eq.matrices.values(), eq.tau]:
        used |= {s.name for s in mat.free_symbols}
    for _, value, _ in loop_items(eq):
        used |= {s.name for s in getattr(value, "free_symbols", ())}
    joint_names = {s.name for s in (*model.q, *qd, *model.qdd)} | loop_symbol_names(eq)
    doc = {
        "format": "manipulator-designer-equations",
        "version": 1,
        "model": model.name,
        "method": eq.method.value,
        "simplify": eq.simplify.value,
        "n": eq.n,
        "convention": model.convention.value,
        "gravity": [format_expr(g) for g in model.gravity_frame0],   # in frame 0, as the equations use it
        "symbols": {
            "q": [s.name for s in model.q],
            "qd": [s.name for s in qd],
            "qdd": [s.name for s in model.qdd],
            "parameters": sorted(used - joint_names),
        },
        "parameters": {name: value for name, value in parameter_rows(model) if value is not None},
        "form": FORM.get(eq.method, ""),
    }
    if eq.method is Method.LAGRANGE:
        doc["velocity_products"] = [f"{qd[j].name}*{qd[k].name}"
                                    for j in range(eq.n) for k in range(j + 1, eq.n)]
        doc["velocity_squares"] = [f"{v.name}**2" for v in qd]
    loops = loop_items(eq)
    if loops:   # defined in order, above their use: a nonlinear closed chain (dynamics/closed_nonlinear.py)
        doc["loop_quantities"] = [{"symbol": s.name, "kind": kind,
                                   "value": NUMERIC_CLOSURE if v is None else to_text(v, ordered=False)}
                                  for s, v, kind in loops]
    doc["matrices"] = {name: _matrix(mat) for name, mat in eq.matrices.items()}
    if eq.method is Method.NEWTON_EULER:
        # the other forms contain M, G and h (tau follows from "form"); tau alone does not show them.
        # "bias" is h(q, qd) = tau(q, qd, 0) - G, the Coriolis and centrifugal torques (not the Coriolis
        # matrix), named as the generated code names it
        doc["derived"] = {"mass_matrix": _matrix(eq.mass_matrix), "gravity_torques": _vector(eq.gravity),
                          "bias": _vector(eq.coriolis)}
    return doc


def render_json(eq: Equations) -> str:
    return json.dumps(equations_dict(eq), indent=1, ensure_ascii=False) + "\n"
