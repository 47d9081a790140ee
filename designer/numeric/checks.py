"""Checks of a model that need its numbers evaluated, beside :func:`designer.model.validate`: the
command line's ``validate`` and ``info`` and the window's Problems panel run :func:`model_problems`.

M(q) is positive definite for every real arm (the kinetic energy of moving masses is positive).
Sampled at a few poses, a negative eigenvalue means the model cannot be right: an inertia that is
not positive semi-definite, or numbers that cancel catastrophically (a URDF read with its common
normal 3e8 m out gave an M 2,000 times off with a negative eigenvalue, while tau looked right).
"""

from __future__ import annotations

import numpy as np

from ..kinematics import NumericArm
from ..model.manipulator import Manipulator
from ..model.validation import Problem, Severity, validate
from .batch import Batch

__all__ = ["POSES", "mass_matrix_problems", "model_problems"]

#: poses sampled (seeded, so that the same model always gives the same message)
POSES = 5
#: an eigenvalue below -NEGATIVE * the largest is beyond rounding
NEGATIVE = 1e-9


def mass_matrix_problems(model: Manipulator, poses: int = POSES, seed: int = 0) -> list[Problem]:
    """An error when M is not positive definite (a negative eigenvalue beyond rounding) at one of
    ``poses`` random poses; nothing for a model with symbols without values."""
    if not model.links or model.unvalued_symbols():
        return []
    try:
        arm = NumericArm.from_model(model)
    except (ValueError, ArithmeticError):
        return []   # validate names the field
    q = np.random.default_rng(seed).uniform(-np.pi, np.pi, (poses, arm.n))
    q[:, ~arm.revolute] = np.random.default_rng(seed + 1).uniform(-0.5, 0.5, (poses, int((~arm.revolute).sum())))
    with np.errstate(all="ignore"):
        try:
            Ms = Batch(arm, q).M
        except (ValueError, ArithmeticError):
            return []
    for qk, M in zip(q, Ms):
        if not np.all(np.isfinite(M)):
            return []   # numbers beyond the float range: validate says which
        ev = np.linalg.eigvalsh(0.5 * (M + M.T))
        if ev[0] < -NEGATIVE * max(float(np.abs(ev).max()), np.finfo(float).tiny):
            pose = ", ".join(f"{v:.3f}" for v in qk)
            return [Problem(Severity.ERROR, "links",
                            f"the mass matrix is not positive definite at q = ({pose}): eigenvalue {ev[0]:.3g} "
                            f"(largest {ev[-1]:.3g}); no real arm has that: an inertia that is not physical, or "
                            "numbers that cancel (a DH frame far out?)")]
    return []


def model_problems(model: Manipulator) -> list[Problem]:
    """Everything :func:`~designer.model.validate` finds, and the checks above when it finds no error
    (a negative mass or inertia makes M indefinite too: one message for one mistake)."""
    problems = validate(model)
    if any(p.severity is Severity.ERROR for p in problems):
        return problems
    return problems + mass_matrix_problems(model)
