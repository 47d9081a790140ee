"""The checks of a model that need its numeric dynamics, after :func:`designer.model.validate`:
M(q) singular at every pose in the general case (a massless arm, two coaxial revolute or parallel
prismatic joints in a row), which the model's own checks cannot see without computing M; and M
not positive definite at a sampled pose.

:func:`check_model` is what the command line's ``validate`` and ``info`` and the window's Problems
panel show; loading a project runs only the model's checks (its errors refuse the file).

M(q) is positive definite for every real arm (the kinetic energy of moving masses is positive).
Sampled at a few poses, a negative eigenvalue means the model cannot be right: an inertia that is
not positive semi-definite, or numbers that cancel catastrophically (a URDF read with its common
normal 3e8 m out gave an M 2,000 times off with a negative eigenvalue, while tau looked right).
"""

from __future__ import annotations

import numpy as np

from ..kinematics import NumericArm
from ..model.manipulator import Manipulator
from ..model.validation import SINGULAR_AT_EVERY_POSE, Problem, Severity, drive_note, validate
from .batch import Batch   # numpy over the Jacobians: no code traced for a passing edit

__all__ = ["NEGATIVE", "POSES", "SINGULAR", "check_model", "mass_matrix_problems"]

#: M is singular where its smallest eigenvalue is below this share of its largest (as the explore metrics judge it)
SINGULAR = 1e-12
#: poses sampled for the positive-definite check (seeded, so that the same model always gives the same message)
POSES = 5
#: an eigenvalue below -NEGATIVE * the largest is beyond rounding
NEGATIVE = 1e-9


def check_model(model: Manipulator) -> list[Problem]:
    """:func:`~designer.model.validate` of ``model``, then (when it found no error) whether M is not
    positive definite at a sampled pose, and (when it found no singular M already) whether M is
    singular at every pose; numeric models only, a few milliseconds. (A negative mass or inertia
    makes M indefinite too: validate's error is the one message for that mistake.)"""
    out = validate(model)
    if not model.is_serial:   # the checks below read the links as one chain (closed chains: kinematics.closure)
        return out
    if any(p.severity is Severity.ERROR for p in out):
        return out
    out += mass_matrix_problems(model)
    if any(p.severity is Severity.ERROR or p.message.startswith(SINGULAR_AT_EVERY_POSE) for p in out):
        return out
    _singular_everywhere(model, lambda where, msg: out.append(Problem(Severity.WARNING, where, msg)))
    return out


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
