"""The checks of a model that need its numeric dynamics, after :func:`designer.model.validate`:
M(q) singular at every pose in the general case (a massless arm, two coaxial revolute or parallel
prismatic joints in a row), which the model's own checks cannot see without computing M.

:func:`check_model` is what the command line's ``validate`` and ``info`` and the window's Problems
panel show; loading a project runs only the model's checks (its errors refuse the file).
"""

from __future__ import annotations

import numpy as np

from ..kinematics import NumericArm
from ..model.manipulator import Manipulator
from ..model.validation import SINGULAR_AT_EVERY_POSE, Problem, Severity, drive_note, validate
from .batch import Batch   # numpy over the Jacobians: no code traced for a passing edit

__all__ = ["check_model", "SINGULAR"]

#: M is singular where its smallest eigenvalue is below this share of its largest (as the explore metrics judge it)
SINGULAR = 1e-12


def check_model(model: Manipulator) -> list[Problem]:
    """:func:`~designer.model.validate` of ``model``, then (when it found no error and no singular M
    already) whether M is singular at every pose; numeric models only, a few milliseconds."""
    out = validate(model)
    if any(p.severity is Severity.ERROR or p.message.startswith(SINGULAR_AT_EVERY_POSE) for p in out):
        return out
    _singular_everywhere(model, lambda where, msg: out.append(Problem(Severity.WARNING, where, msg)))
    return out


def _singular_everywhere(model: Manipulator, warn) -> None:
    """The general case the named checks above miss (a massless arm, two coaxial revolute or
    parallel prismatic joints in a row): M(q) singular at three unrelated poses is singular at
    every pose for any practical purpose. Numeric models only; costs a few milliseconds."""
    if model.unvalued_symbols():
        return
    try:
        arm = NumericArm.from_model(model)
    except (ValueError, ArithmeticError):
        return
    rng = np.random.default_rng(0)
    with np.errstate(all="ignore"):
        poses = Batch(arm, rng.uniform(-np.pi, np.pi, (3, model.n))).M
    if not np.all(np.isfinite(poses)):
        return   # numbers beyond the float range: nothing to say about singularity
    null, zero = None, True
    for M in poses:
        ev, vec = np.linalg.eigh(M)
        if ev[0] > SINGULAR * max(float(np.abs(ev[-1])), np.finfo(float).tiny):
            return
        null, zero = vec[:, 0], zero and not np.any(M)
    assert null is not None
    if zero:
        warn("links", "the mass matrix is zero at every pose: nothing the joints move has mass or inertia"
             + drive_note(model, list(range(model.n))))
        return
    joints = [j for j in range(model.n) if abs(null[j]) > 0.1]
    names = ", ".join(str(j + 1) for j in joints)
    what = f"joint {names} moves" if len(joints) == 1 else f"joints {names} together move"
    warn(f"links[{joints[-1] + 1}]", SINGULAR_AT_EVERY_POSE + f": {what} no mass or inertia "
         "(a massless link, or joints along the same axis?)" + drive_note(model, joints))
