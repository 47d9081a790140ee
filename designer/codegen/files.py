"""The files ``codegen`` writes, the same from the command line and from the window's File > Export.

C: ``X.c`` and its header ``X.h`` (:mod:`.c_library`); Python: one module; MATLAB/Octave: a folder
of ``<prefix>_<function>.m`` files (:mod:`.matlab_code`). Every language gets tau, M, G, the bias
h, the Coriolis matrix C(q, qd) and the regressor (:func:`.control_plan.extra_functions`).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import cast

from ..dynamics.results import Equations, Form
from ..jobs import NEVER, CancelToken
from .plan import BASIC_FUNCTIONS, CodeForm, CodePlan, plan_code

__all__ = ["LANGUAGES", "FUNCTIONS", "PARAMETER_SETS", "GRAPHS", "graphs_for", "parse_functions", "full_plan",
           "code_files", "generate_files"]

LANGUAGES = ("c", "python", "matlab")
#: the inertial inputs of the generated code: mass, COM and inertia of each link, or the base parameters
PARAMETER_SETS = ("standard", "base")


#: every function ``codegen`` can write, in the order it writes them
FUNCTIONS = BASIC_FUNCTIONS + ("coriolis_matrix", "regressor")


#: the compact graph each function is generated from (the Coriolis matrix differentiates M; the
#: regressor is built from the model, not from a derivation)
GRAPHS = {"tau": "tau", "mass_matrix": "M", "gravity": "G", "bias": "h", "coriolis_matrix": "M"}


def graphs_for(only: tuple[str, ...] | None) -> set[str]:
    """The compact graphs (of tau, M, G, h) that the functions ``only`` (None: all) read."""
    return set(GRAPHS.values()) if only is None else {GRAPHS[f] for f in only if f in GRAPHS}


def parse_functions(text: str) -> tuple[str, ...]:
    """The names of a comma-separated list (``tau,mass_matrix``), checked against :data:`FUNCTIONS`
    (``M``, ``G``, ``h``, ``C``, ``Y`` accepted for short); a ValueError names an unknown one."""
    chosen = []
    for word in filter(None, (w.strip() for w in text.split(","))):
        name = SHORT.get(word, word)
        if name not in FUNCTIONS:
            raise ValueError(f"unknown function {word!r}: choose from {', '.join(FUNCTIONS)} "
                             f"(or {', '.join(SHORT)})")
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        raise ValueError("no function named: give e.g. tau,mass_matrix")
    return tuple(name for name in FUNCTIONS if name in chosen)


SHORT = {"M": "mass_matrix", "G": "gravity", "h": "bias", "C": "coriolis_matrix", "Y": "regressor"}


def full_plan(eq: Equations, form: CodeForm | str = CodeForm.COMPACT, drives: bool = False,
              token: CancelToken = NEVER, only: Collection[str] | None = None) -> CodePlan:
    """tau, M, G, h (``form``, with the drive terms on request), the Coriolis matrix and the
    regressor (with the drive terms: and the drive parameters' columns); ``only``: those of
    :data:`FUNCTIONS` named (default all)."""
    from .control_plan import extra_functions
    chosen = FUNCTIONS if only is None else tuple(only)
    if "closed_compact" in eq.extras:   # the compact form of any closed chain: every function, over its steps
        return plan_code(eq, form, drives, token=token, only=chosen)
    elif "loop_quantities" in eq.extras:
        raise ValueError("a nonlinear loop's closed form reads loop quantities (qp, W, dW): its code is the "
                         "compact form's")
    elif "closed_chain" in eq.extras:   # a linear closure's closed forms in the actuated coordinates, whatever ``form``
        from .control_plan import closed_chain_plan
        closed = cast("dict", eq.extras["closed_chain"])
        return closed_chain_plan(eq, closed["mechanism"], drives, chosen, token)
    # a compact derivation's M (without drive terms: they leave C alone) is the graph C is differentiated from
    mass = eq.mass_matrix if eq.form is Form.COMPACT and CodeForm(form) is CodeForm.COMPACT else None
    plan = plan_code(eq, form, drives, token=token, only=[f for f in chosen if f in BASIC_FUNCTIONS])
    if "coriolis_matrix" not in chosen and "regressor" not in chosen:
        return plan
    return extra_functions(plan, eq.model, mass=mass, token=token, coriolis="coriolis_matrix" in chosen,
                           regressor="regressor" in chosen, drives=drives)


def code_files(plan: CodePlan, lang: str, target: str | Path, prefix: str | None = None,
               header: str | Path | None = None) -> dict[str, str]:
    """{path: text} of ``plan`` in ``lang``: for C ``target`` and the header (default ``target``
    with .h); for MATLAB one file per function in the folder ``target``; for Python ``target``."""
    target = Path(target)
    if lang == "python":
        from .python_code import emit_python
        return {str(target): emit_python(plan)}
    if lang == "matlab":
        from .matlab_code import emit_matlab
        return {str(target / name): text for name, text in emit_matlab(plan, prefix).items()}
    if lang != "c":
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGUAGES)}")
    from .c_library import emit_c_library
    header_path = Path(header) if header else target.with_suffix(".h")
    source, text = emit_c_library(plan, prefix, header_path.name)
    return {str(target): source, str(header_path): text}


def generate_files(eq: Equations, lang: str, target: str, prefix: str | None = None,
                   drives: bool = False) -> dict[str, str]:
    """:func:`code_files` of :func:`full_plan` (compact forms): what ``codegen --lang LANG --out
    TARGET [--drives]`` writes for the equations ``eq``."""
    return code_files(full_plan(eq, drives=drives), lang, target, prefix)
