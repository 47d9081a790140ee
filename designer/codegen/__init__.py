"""Code generation: tau, M, G, h, the Coriolis matrix and the regressor as C (with header), Python/numpy
or MATLAB/Octave source, common subexpressions eliminated.

The front door is :mod:`.files`, the same for the command line's ``codegen`` and the window's
File > Export:

    >>> files = code_files(full_plan(eq), "c", "arm.c")    # {"arm.c": ..., "arm.h": ...}

:mod:`.plan` says what every function needs (:func:`plan_code`, :func:`plan_code_job` as a job that
honours a cancel within a fraction of a second); the writers read its :class:`CodePlan`.
"""

from __future__ import annotations

from .files import FUNCTIONS, LANGUAGES, code_files, full_plan, generate_files
from .plan import CodeForm, CodeFunction, CodePlan, plan_code, plan_code_job

__all__ = ["FUNCTIONS", "LANGUAGES", "code_files", "full_plan", "generate_files", "plan_code", "plan_code_job",
           "CodeForm", "CodePlan", "CodeFunction"]
