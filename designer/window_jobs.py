"""What the window runs in its worker processes (:mod:`designer.jobs.process`), without Qt: the
jobs it sends by reference and the modules the process server imports once.

At the top of the layer order beside :mod:`designer.gui` (which imports it): a worker process imports
this module, and with it no Qt, to run a job.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .jobs import CancelToken, Job

if TYPE_CHECKING:   # the window imports this module at start; the derivations load in the worker
    from .dynamics import Equations, Method, SimplifyMode
    from .model import Manipulator

__all__ = ["PRELOAD", "window_derive_job", "window_code_files", "COMPACT_CODE_NOTE", "identification_table",
           "identification_condition", "identification_excitation"]

# what the server process imports once, so that a job's process starts with it ready; with what the
# derivations import on first use (each job's process is new: a PUMA 560 fast Lagrange derivation took
# 0.73 s the first time in a process and 0.67 s after, sympy's cache cleared, mostly sympy.combinatorics)
PRELOAD = ("designer.window_jobs", "designer.dynamics", "designer.explore.conditions",
           "designer.explore.significance", "designer.report", "designer.codegen",
           "designer.dynamics.bodies", "designer.dynamics.customized", "designer.dynamics.lagrange",
           "designer.dynamics.newton_euler", "designer.dynamics.dalembert", "designer.dynamics.recursive_form",
           "sympy.combinatorics", "sympy.tensor.tensor", "sympy.sets.setexpr")


def window_derive_job(model: Manipulator, method: Method, simplify: SimplifyMode, token: CancelToken | None = None
                      ) -> Job[Equations]:
    """:func:`derive_job` for the window's worker process: the result without the Christoffel symbols a
    Lagrange derivation keeps for :func:`coriolis_matrix`, which the window never calls (PUMA 560: 375 of the
    465 KB sent back, 20-30 ms of the round trip of a 0.5 s derivation)."""
    from .dynamics import derive_job
    # the front door decides serial or closed; a nonlinear loop's closed form comes with its named loop
    # quantities, which the Equations view lists first (the compact form where there is none within the budget)
    eq = yield from derive_job(model, method, simplify, token)
    return replace(eq, extras={k: v for k, v in eq.extras.items() if k != "christoffel"})


#: the one line generated code of a nonlinear loop's closed form starts with (codegen refuses that form)
COMPACT_CODE_NOTE = ("the loop does not close linearly: this code is the compact (recursive) form, not the closed "
                     "form on display, which reads loop quantities (qp, W, dW) that code generation does not write")

_COMMENT = {".c": "// ", ".h": "// ", ".py": "# ", ".m": "% "}


def window_code_files(eq: Equations, lang: str, target: str, prefix: str | None = None,
                      drives: bool = False) -> dict[str, str]:
    """Export > code of the equations on display (:func:`~designer.codegen.files.generate_files`); a nonlinear
    loop's closed form (the four-bar's, with loop quantities) is written as its mechanism's compact form,
    each file's first line saying so (:data:`COMPACT_CODE_NOTE`), as ``codegen`` writes it."""
    from .codegen.files import generate_files
    if "loop_quantities" not in eq.extras:
        return generate_files(eq, lang, target, prefix, drives)
    from .dynamics.engine import closed_chain_job as closed_job
    from .dynamics.results import Form
    from .jobs import NEVER, run
    mechanism = cast("dict", eq.extras["closed_chain"])["mechanism"]
    compact = run(closed_job(mechanism, eq.method, eq.simplify, NEVER, Form.COMPACT))
    files = generate_files(compact, lang, target, prefix, drives)
    return {path: _COMMENT.get(path[path.rfind("."):], "# ") + COMPACT_CODE_NOTE + "\n" + text
            for path, text in files.items()}


# -- the Identification dialog's three computations, for any mechanism (each core entry decides inside: a serial
# arm's base parameters are symbolic, a closed chain's a numeric grouping of W^T Y_tree).
def identification_table(model: Manipulator) -> tuple[Any, list[dict]]:
    """(base parameters, one row each: name, formula, value): the Identification dialog's table, in a worker
    process (symbolic for a serial arm: seconds to a minute for six joints)."""
    from .report.identification import base_parameter_table
    return base_parameter_table(model)


def identification_condition(model: Manipulator, bp, Q, QD, QDD) -> float:
    """cond(Y_b) of the base regressor of ``bp`` (:func:`identification_table`'s) stacked over the states, rows of
    Q, QD, QDD (N, actuated joints)."""
    from .control.excitation import condition_number
    from .identification.base_params import MechanismRegressor
    return condition_number(MechanismRegressor(model, bp), np.asarray(Q).T, np.asarray(QD).T, np.asarray(QDD).T)


def identification_excitation(model: Manipulator, bp, period: float, harmonics: int):
    """The best conditioned Fourier excitation of the actuated joints within their limits, rated on ``bp``'s base
    regressor (:class:`~designer.control.excitation.Excitation`)."""
    from .control.excitation import excitation
    return excitation(model, bp, period, harmonics)
