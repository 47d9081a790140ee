"""Drive terms added to the rigid-body equations on request (off by default; docs/urdf.md).

The reflected motor inertia N^2 Jm of each joint adds to the diagonal of M(q), and joint
friction (viscous b qd plus Coulomb fc sign(qd)) adds to tau. They are kept apart from the
derivations: a caller that wants them adds these terms to what a derivation or the numeric
dynamics returned, and says so in its report.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy as sp

from .extras import Drive
from .manipulator import Manipulator, MissingParameterError

__all__ = ["drive_arrays", "drive_statement", "drive_values", "has_drive_terms", "symbolic_drive_terms",
           "reflected_inertia", "friction_torque", "with_drives", "numeric_drives", "elastic_links",
           "passive_stiffness"]


def numeric_drives(model: Manipulator, overrides=None, missing: float | None = None) -> list[Drive | None]:
    """Each joint's drive with its named fields (a stiffness ``k2``) valued by the model's parameters and
    ``overrides``; MissingParameterError names a parameter without a value, unless ``missing`` is given:
    then such a field takes that value (NaN for a table that shows what is known)."""
    values = {**model.parameter_values, **(overrides or {})}
    if missing is not None:
        values.update({name: missing for name in model.symbol_names() if name not in values})
    out: list[Drive | None] = []
    for link in model.links:
        try:
            out.append(None if link.drive is None else link.drive.resolved(values))
        except KeyError as exc:
            raise MissingParameterError(exc.args[0].split(", ")) from None
    return out


def drive_arrays(model: Manipulator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N^2 Jm, viscous b, Coulomb fc) per joint; 0 where the project has no value."""
    refl, visc, coul = (np.zeros(model.n) for _ in range(3))
    for i, link in enumerate(model.links):
        if link.drive is not None:
            refl[i] = link.drive.reflected_inertia
            visc[i] = link.drive.viscous or 0.0
            coul[i] = link.drive.coulomb or 0.0
    return refl, visc, coul


def reflected_inertia(model: Manipulator) -> np.ndarray:
    """The n x n diagonal matrix of N^2 Jm to add to M(q)."""
    return np.diag(drive_arrays(model)[0])


def friction_torque(model: Manipulator, qd) -> np.ndarray:
    """b qd + fc sign(qd) per joint."""
    _, visc, coul = drive_arrays(model)
    qd = np.asarray(qd, dtype=float)
    return visc * qd + coul * np.sign(qd)


def with_drives(model: Manipulator, M: np.ndarray, tau: np.ndarray, qd, qdd) -> tuple[np.ndarray, np.ndarray]:
    """(M + diag(N^2 Jm), tau + N^2 Jm qdd + friction) for one state."""
    refl = drive_arrays(model)[0]
    return M + np.diag(refl), tau + refl * np.asarray(qdd, dtype=float) + friction_torque(model, qd)


def drive_values(model: Manipulator) -> dict[str, Any]:
    """What the explore tools and motor sizing read from the project instead of asking.

    ``torque`` (rated torque of every joint, else the peak torque of every joint: a URDF's
    ``effort`` is a peak), ``speed`` (rated speed): an array only when every joint has a value,
    since a rating must cover every joint. ``gear`` and ``rotor`` (N, Jm): an array when any
    joint has one, the others direct drive (N = 1) and without rotor (Jm = 0), as when not given.
    ``torque_kind`` is "rated" or "peak" (which one ``torque`` is), or None. ``stiffness``: an
    array when any joint is elastic, inf at the rigid joints (a named one at its parameter's value, NaN
    while that parameter has none: the arm cannot be evaluated then anyway).
    """
    drives = numeric_drives(model, missing=math.nan)

    def every(name: str) -> np.ndarray | None:
        values = [getattr(d, name) if d is not None else None for d in drives]
        return None if any(v is None for v in values) else np.array(values, dtype=float)

    def some(name: str, default: float) -> np.ndarray | None:
        values = [getattr(d, name) if d is not None else None for d in drives]
        if all(v is None for v in values):
            return None
        return np.array([default if v is None else v for v in values], dtype=float)

    torque, kind = every("rated_torque"), "rated"
    if torque is None:
        torque, kind = every("peak_torque"), "peak"
    return {"torque": torque, "torque_kind": kind if torque is not None else None, "speed": every("rated_speed"),
            "gear": some("gear_ratio", 1.0), "rotor": some("motor_inertia", 0.0),
            "stiffness": some("stiffness", np.inf)}


def has_drive_terms(model: Manipulator) -> bool:
    """Whether any joint has a reflected inertia or friction for :func:`with_drives` to add."""
    return any(np.any(a != 0) for a in drive_arrays(model))


def symbolic_drive_terms(model: Manipulator) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix]:
    """(diag(N^2 Jm) for M, N^2 Jm qdd for tau, friction b qd + fc sign(qd)), sympy, n x n, n x 1, n x 1."""
    refl, visc, coul = drive_arrays(model)

    def num(v: float) -> sp.Expr:
        return sp.Float(v) if v else sp.Integer(0)
    dM = sp.diag(*[num(r) for r in refl])
    inertia = sp.Matrix([num(r) * qdd for r, qdd in zip(refl, model.qdd)])
    friction = sp.Matrix([num(b) * qd + num(c) * sp.sign(qd) for b, c, qd in zip(visc, coul, model.qd)])
    return dM, inertia, friction


def drive_statement(model: Manipulator, applied: bool) -> str:
    """What a report says about the drive terms: '' for a project without any."""
    if applied:
        return ("drive terms added: N^2 Jm on the diagonal of M and N^2 Jm qdd in tau, friction b qd + fc sign(qd) "
                "in tau and h")
    return "drive terms of the project not added" if has_drive_terms(model) else ""


# -- elastic joints of a closed chain (docs/elastic.md, "Closed chains") --------------------------------
def elastic_links(model: Manipulator) -> tuple[int, ...]:
    """0-based links whose joints the elastic-joint model takes, in its coordinates' order: every joint of a
    serial arm, the actuated ones of a closed chain (the gearboxes sit at the motors)."""
    return tuple(i for i, link in enumerate(model.links) if model.is_serial or link.actuated)


def passive_stiffness(model: Manipulator) -> list[int]:
    """1-based numbers of the passive joints whose drive gives a stiffness: a closed chain's elastic joints
    are its actuated ones, so these are refused (the spring would sit inside a loop)."""
    return [i + 1 for i, link in enumerate(model.links) if not link.actuated
            and link.drive is not None and link.drive.stiffness is not None]
