"""The source text of one language for an Equations, as the codegen tests compile and load it: one C
file without header (:func:`designer.codegen.c_code.emit_c`) or one Python module. The product's
front door is :mod:`designer.codegen.files` (the command line's ``codegen`` and the window's export).
"""

from __future__ import annotations

from enum import Enum

from designer.codegen.plan import CodeForm, plan_code_job
from designer.dynamics.results import Equations
from designer.jobs import NEVER, CancelToken, Job, Progress, run


class Language(str, Enum):
    C = "c"
    PYTHON = "python"


SUFFIX = {Language.C: ".c", Language.PYTHON: ".py"}


def generate(eq: Equations, lang: Language | str = Language.C, *, prefix: str | None = None,
             form: CodeForm | str = CodeForm.COMPACT, drives: bool = False) -> str:
    """Source code for ``eq`` in ``lang``.

    Parameters
    ----------
    eq:
        A derivation's result.
    lang:
        ``"c"`` (C99, one .c file) or ``"python"`` (a module needing only numpy).
    prefix:
        C only: function name prefix (default: from the model's name).
    form:
        ``"compact"`` (recursive forms, fewest operations) or ``"derived"`` (the expressions of ``eq``).
    drives:
        Add the project's drive terms (reflected motor inertia, friction) to M and tau.
    """
    return run(generate_job(eq, lang, prefix=prefix, form=form, drives=drives))


def generate_job(eq: Equations, lang: Language | str = Language.C, *, prefix: str | None = None,
                 form: CodeForm | str = CodeForm.COMPACT, drives: bool = False,
                 token: CancelToken = NEVER) -> Job[str]:
    """:func:`generate` as a job: progress per function, and a cancel through ``token`` honoured
    within a fraction of a second at every stage (the graph walks and sympy's CSE check it)."""
    lang = Language(lang)
    plan = yield from plan_code_job(eq, form, drives, token=token)
    yield Progress("writing code", 1.0, lang.value)
    if lang is Language.C:
        from designer.codegen.c_code import emit_c
        return emit_c(plan, prefix)
    from designer.codegen.python_code import emit_python
    return emit_python(plan)
