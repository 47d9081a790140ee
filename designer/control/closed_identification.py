"""Identification of a closed chain (issue 22): its base parameters as a table, and the condition
number of its base regressor over a trajectory of the actuated joints.

The grouping is the core's numeric one (:func:`~designer.numeric.closed_regressor.closed_base_parameters`:
QR with column pivoting of W^T Y_tree over random closed states); the base regressor Y_b is W^T Y_tree's
columns of the independent parameters, whose span the dropped ones add nothing to. The window's
Identification dialog and ``regressor --base`` show the same table.
"""

from __future__ import annotations

import numpy as np

from ..errors import DesignerError
from ..kinematics.closure import ClosureError
from ..model.manipulator import Manipulator
from ..numeric.closed import closed_dynamics
from ..numeric.closed_regressor import ClosedBaseParameters, ClosedRegressor, closed_base_parameters

__all__ = ["combination_text", "closed_base_table", "closed_condition_number", "closed_excitation",
           "read_actuated_trajectory"]


def combination_text(combo: dict[str, float]) -> str:
    """``m3 + 0.380952 mx2 + ...``: a base parameter's standard parameters and their coefficients."""
    return " + ".join(f"{c:.6g} {k}" if c != 1 else k for k, c in combo.items())


def closed_base_table(model: Manipulator) -> tuple[ClosedBaseParameters, list[dict]]:
    """The base parameters of a closed chain and one row each (name, formula text, value at the
    model's defaults): the Identification dialog's table."""
    bp = closed_base_parameters(closed_dynamics(model))
    rows = [{"name": name, "formula": combination_text(combo), "value": float(v)}
            for (name, combo), v in zip(bp.base, bp.values)]
    return bp, rows


def read_actuated_trajectory(path: str, model: Manipulator) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(names, Q, QD, QDD) of a trajectory CSV of a closed chain's actuated joints, its columns named by
    their links as ``torques`` reads them (``q1, q2, q4, q6, qd1, ...`` for the palletizer); a UserError
    names a missing column or a bad cell."""
    from ..model.mechanism import actuated_indices
    from ..tables import read_columns
    act = actuated_indices(model)
    columns = [f"{p}{j + 1}" for p in ("q", "qd", "qdd") for j in act]
    _, _header, _data, values = read_columns(path, "trajectory", columns,
                                             "columns " + ", ".join(columns) + " (the actuated joints)")
    n = len(act)
    return columns[:n], values[:, :n], values[:, n:2 * n], values[:, 2 * n:]


def closed_condition_number(model: Manipulator, bp: ClosedBaseParameters, Q, QD, QDD) -> float:
    """cond(Y_b) of the closed chain's base regressor stacked over the actuated states (rows of Q, QD,
    QDD: one column per actuated joint); a state whose loops cannot close is named."""
    cd = closed_dynamics(model)
    reg = ClosedRegressor(cd.following())
    columns = [reg.names.index(name) for name, _combo in bp.base]
    rows = []
    for k, (q, qd, qdd) in enumerate(zip(np.asarray(Q, float), np.asarray(QD, float), np.asarray(QDD, float))):
        try:
            rows.append(reg.actuated(q, qd, qdd)[:, columns])
        except ClosureError as exc:
            raise DesignerError(f"sample {k + 1}: {exc}") from None
    if not rows:
        raise DesignerError("the trajectory has no samples")
    s = np.linalg.svd(np.vstack(rows), compute_uv=False)
    return float(s[0] / s[-1]) if s[-1] > 0 else float("inf")


class _Actuated:
    """The actuated joints' count, limits and kinds: what the Fourier excitation reads of an arm."""

    def __init__(self, model: Manipulator):
        cd = closed_dynamics(model)
        act = list(cd.act)
        self.n = len(act)
        self.limits = np.asarray(cd.tree.arm.limits, float)[act]
        self.revolute = np.asarray(cd.tree.arm.revolute)[act]


def closed_excitation(model: Manipulator, bp: ClosedBaseParameters, period: float = 10.0, harmonics: int = 5,
                      samples: int = 200, speed=None, acceleration=None, draws: int = 20, seed: int = 0):
    """A closed chain's excitation: the best conditioned of ``draws`` random Fourier trajectories of the
    actuated joints within their limits (:func:`~designer.control.excitation.fourier_excitation`), rated
    by cond(Y_b) of the closed-loop base regressor; a draw passing where a loop cannot close is left out."""
    from .excitation import fourier_excitation

    def condition(q, qd, qdd) -> float:
        return closed_condition_number(model, bp, q.T, qd.T, qdd.T)
    return fourier_excitation(None, _Actuated(model), period, harmonics, samples, speed, acceleration, draws, seed,
                              condition=condition)
