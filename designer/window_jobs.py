"""What the window runs in its worker processes (:mod:`designer.jobs.process`), without Qt: the
jobs it sends by reference and the modules the process server imports once.

At the top of the layer order beside :mod:`designer.gui` (which imports it): a worker process imports
this module, and with it no Qt, to run a job.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from .jobs import CancelToken, Job

if TYPE_CHECKING:   # the window imports this module at start; the derivations load in the worker
    from .dynamics import Equations, Method, SimplifyMode
    from .model import Manipulator

__all__ = ["PRELOAD", "window_derive_job"]

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
    eq = yield from derive_job(model, method, simplify, token)
    return replace(eq, extras={k: v for k, v in eq.extras.items() if k != "christoffel"})
