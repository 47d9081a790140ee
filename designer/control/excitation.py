"""Excitation trajectories for parameter identification, and how well they excite.

A finite Fourier series per joint (Swevers, Ganseman, Bilgin, De Schutter & Van Brussel):

    q_i(t) = q0_i + sum_l a_il / (w l) sin(w l t) - b_il / (w l) cos(w l t)

periodic in T = 2 pi / w, so its derivatives are exact and the trajectory can be repeated. The
coefficients are drawn at random and scaled so that position, speed and acceleration stay within
the limits; of several draws the one whose base regressor is best conditioned is kept.

Every mechanism takes the same path, over its coordinates (a closed chain's actuated joints): :func:`excitation`
and :func:`condition_number` read its base regressor through one interface
(:class:`~designer.identification.base_params.MechanismRegressor`: a closed chain's is W^T Y_tree's columns of
the independent parameters, the grouping being the core's numeric one,
:func:`~designer.identification.regressor.base_grouping`; a serial arm's is the case W = I). Any
mechanism's base parameters as a table: :func:`designer.report.identification.base_parameter_table` (the window's
Identification dialog; ``regressor --base`` shows the same).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import DesignerError
from ..identification.base_params import BaseParameters, MechanismRegressor, combination_text
from ..model.manipulator import Manipulator

if TYPE_CHECKING:
    from ..identification.regressor import BaseGrouping

__all__ = ["Excitation", "fourier_excitation", "excitation", "condition_number", "combination_text",
           "read_actuated_trajectory"]


@dataclass(frozen=True)
class Excitation:
    """Samples of a trajectory: t (N,), q, qd, qdd (n, N), and the condition number of Y_b on it."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    condition: float


def condition_number(reg: MechanismRegressor, Q, QD, QDD) -> float:
    """cond(Y_b) of any mechanism's base regressor stacked over the states (columns of Q, QD, QDD: its
    coordinates, a closed chain's actuated joints); a DesignerError names a state where the loops cannot close."""
    s = np.linalg.svd(reg.rows(Q, QD, QDD), compute_uv=False)
    return float(s[0] / s[-1]) if s[-1] > 0 else float("inf")


def _series(q0, a, b, w: float, t: np.ndarray):
    L = a.shape[1]
    wl = w * np.arange(1, L + 1)  # (L,)
    s, c = np.sin(np.outer(wl, t)), np.cos(np.outer(wl, t))  # (L, N)
    q = q0[:, None] + (a / wl) @ s - (b / wl) @ c
    qd = a @ c + b @ s
    qdd = (-a * wl) @ s + (b * wl) @ c
    return q, qd, qdd


def fourier_excitation(arm, period: float = 10.0, harmonics: int = 5, samples: int = 200, speed=None,
                       acceleration=None, draws: int = 20, seed: int = 0,
                       condition: Callable[..., float] | None = None) -> Excitation:
    """The best conditioned of ``draws`` random Fourier trajectories within the joint limits
    (arm.limits; +-pi or +-0.5 m where none), ``speed`` and ``acceleration`` (per joint or one value).

    ``arm`` needs ``n``, ``limits`` and ``revolute`` (a :class:`MechanismRegressor`: its coordinates);
    ``condition(q, qd, qdd)`` (columns the states) rates a draw, by default :func:`condition_number` of ``arm``'s
    base regressor. A draw that ``condition`` refuses (a DesignerError: a state where a loop cannot close) is
    passed over; when every draw is, a ValueError says so."""
    if condition is None:
        reg = arm

        def condition(q, qd, qdd):
            return condition_number(reg, q, qd, qdd)
    n = arm.n
    if period <= 0 or harmonics < 1 or samples < 2 or draws < 1:
        raise ValueError("period must be positive; harmonics, samples and draws at least 1, 1, 2, 1")
    lo, hi = arm.limits[:, 0].copy(), arm.limits[:, 1].copy()
    default = np.where(arm.revolute, np.pi, 0.5)
    lo = np.where(np.isfinite(lo), lo, -default)
    hi = np.where(np.isfinite(hi), hi, default)
    if np.any(hi <= lo):
        raise ValueError("a joint's upper limit is not above its lower limit")
    vmax = np.broadcast_to(np.inf if speed is None else np.asarray(speed, float), (n,))
    amax = np.broadcast_to(np.inf if acceleration is None else np.asarray(acceleration, float), (n,))
    q0, half = (lo + hi) / 2, 0.9 * (hi - lo) / 2
    w = 2 * np.pi / period
    t = np.linspace(0.0, period, samples, endpoint=False)
    rng = np.random.default_rng(seed)
    best = None
    for _ in range(draws):
        a, b = rng.normal(size=(2, n, harmonics))
        q, qd, qdd = _series(np.zeros(n), a, b, w, t)
        shift = (q.max(axis=1) + q.min(axis=1)) / 2  # centre each joint's swing on the middle of its range
        with np.errstate(divide="ignore"):
            ratios = np.stack([(q.max(axis=1) - q.min(axis=1)) / 2 / half, np.abs(qd).max(axis=1) / vmax,
                               np.abs(qdd).max(axis=1) / amax])
        scale = 1.0 / np.maximum(ratios.max(axis=0), 1e-300)
        q = q0[:, None] + (q - shift[:, None]) * scale[:, None]
        qd, qdd = qd * scale[:, None], qdd * scale[:, None]
        try:
            cond = condition(q, qd, qdd)
        except DesignerError:
            continue
        if best is None or cond < best.condition:
            best = Excitation(t, q, qd, qdd, cond)
    if best is None:
        raise ValueError(f"none of the {draws} random trajectories stays where the loops close: narrow the "
                         "actuated joints' limits")
    return best


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


def excitation(model: Manipulator, bp: BaseParameters | BaseGrouping, period: float = 10.0,
               harmonics: int = 5, samples: int = 200, speed=None, acceleration=None, draws: int = 20,
               seed: int = 0) -> Excitation:
    """Any mechanism's excitation: the best conditioned of ``draws`` random Fourier trajectories of its coordinates
    (a closed chain's actuated joints) within their limits (:func:`fourier_excitation`), rated by cond(Y_b) of
    ``bp``'s base regressor (:class:`MechanismRegressor`); a draw passing where a loop cannot close is left out."""
    return fourier_excitation(MechanismRegressor(model, bp), period, harmonics, samples, speed, acceleration, draws,
                              seed)
