"""Inertial coupling and Coriolis/centrifugal coefficients of a joint pair, over many states at once.

For a pair of joints (i, j) the designer looks at the coupling inertia M_ij,
the normalised coupling M_ij / sqrt(M_ii M_jj), and the coefficients of
ROBMAT's form tau = M qdd + 2 B [qd_j qd_k] + C [qd_j^2] + G that link the two
joints: B_i,(ij) and B_j,(ij) (Coriolis), C_ij and C_ji (centrifugal).

Joint sweeps evaluate all states at once with :class:`designer.explore.batch.Batch`
(the vectorised Jacobian dynamics); a parameter sweep builds its arms once
(:class:`ParameterGrid`) so that following the joint sliders only re-evaluates
them. The tests check the numbers against Pinocchio.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from enum import Enum
from typing import TextIO
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .joint_names import joint_numbers   # re-exported: the coupling sweeps name joints as explore does
from ..model import Manipulator
from ..jobs import NEVER, CancelToken, Job, Progress, run
from .batch import batch_of
from .metric_error import MetricError

__all__ = ["Quantity", "Sweep", "joint_numbers", "pair_quantities", "sweep_joint", "ParameterGrid",
           "parameter_grid", "parameter_grid_job", "default_range", "write_csv",
           "joints_moving_inertia", "default_map_joints"]


class Quantity(str, Enum):
    """What is plotted for a joint pair (i, j)."""

    COUPLING = "coupling"              # M_ij
    NORMALISED = "normalised"          # M_ij / sqrt(M_ii M_jj)
    CORIOLIS_I = "coriolis_i"          # B_i,(ij): torque at joint i per 2 qd_i qd_j
    CORIOLIS_J = "coriolis_j"          # B_j,(ij): torque at joint j per 2 qd_i qd_j
    CENTRIFUGAL_IJ = "centrifugal_ij"  # C_ij: torque at joint i per qd_j^2
    CENTRIFUGAL_JI = "centrifugal_ji"  # C_ji: torque at joint j per qd_i^2

    def label(self, i: int, j: int, numbers: Sequence[int] | None = None) -> str:
        """Plain-text name for 0-based joints i, j, e.g. ``M_12`` or ``B_2,12``; ``numbers``: the joints'
        numbers when they are not 1..n (a closed chain's actuated joints by their links: M_24)."""
        a, b = (i + 1, j + 1) if numbers is None else (numbers[i], numbers[j])
        lo, hi = min(a, b), max(a, b)
        return {
            Quantity.COUPLING: f"M_{a}{b}",
            Quantity.NORMALISED: f"M_{a}{b}/sqrt(M_{a}{a} M_{b}{b})",
            Quantity.CORIOLIS_I: f"B_{a},{lo}{hi}",
            Quantity.CORIOLIS_J: f"B_{b},{lo}{hi}",
            Quantity.CENTRIFUGAL_IJ: f"C_{a}{b}",
            Quantity.CENTRIFUGAL_JI: f"C_{b}{a}",
        }[self]


def _pair(b, i: int, j: int) -> tuple[dict[Quantity, np.ndarray], str]:
    """The pair's quantities, and why the Coriolis/centrifugal ones are NaN ("" when they are not):
    a closed chain whose Christoffel symbols the core does not give says so (MetricError)."""
    try:
        return _quantities(b, i, j, b.gamma), ""
    except MetricError as exc:
        n = b.M.shape[-1]
        return _quantities(b, i, j, np.full((len(b.M), n, n, n), np.nan)), str(exc)


#: a term this small beside the largest of its kind at the same state is round-off, drawn as the zero it is
ROUND_OFF = 1e-11


def _zero_round_off(values: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``values`` with those within round-off of zero (``ROUND_OFF`` times ``scale``, per state) set to 0: the
    palletizer's M_12, zero by its symmetry, came out as 1e-14 and was plotted as a jagged curve."""
    values = np.array(values, dtype=float)
    with np.errstate(invalid="ignore"):
        values[np.abs(values) <= ROUND_OFF * np.abs(scale)] = 0.0
    return values


def _quantities(b, i: int, j: int, gamma: np.ndarray) -> dict[Quantity, np.ndarray]:
    M = b.M
    diagonal = np.abs(np.diagonal(M, axis1=1, axis2=2)).max(axis=1)   # the largest inertia at each state
    coupling = _zero_round_off(M[:, i, j], diagonal)
    with np.errstate(divide="ignore", invalid="ignore"):
        normalised = coupling / np.sqrt(M[:, i, i] * M[:, j, j])
        # the largest Christoffel symbol at each state, NaNs left out (all NaN: a closed chain whose symbols the
        # core does not give, _pair; np.nanmax warned for each such state)
        flat = np.abs(gamma).reshape(len(gamma), -1)
        largest = np.where(np.isnan(flat), 0.0, flat).max(axis=1) if flat.size else np.zeros(len(M))

    def christoffel(g: np.ndarray) -> np.ndarray:
        return _zero_round_off(g, largest)
    return {
        Quantity.COUPLING: coupling,
        Quantity.NORMALISED: normalised,
        Quantity.CORIOLIS_I: christoffel(gamma[:, i, i, j]),
        Quantity.CORIOLIS_J: christoffel(gamma[:, j, i, j]),
        Quantity.CENTRIFUGAL_IJ: christoffel(gamma[:, i, j, j]),
        Quantity.CENTRIFUGAL_JI: christoffel(gamma[:, j, i, i]),
    }


def _check_pair(n: int, i: int, j: int) -> None:
    if not (0 <= i < n and 0 <= j < n) or i == j:
        raise ValueError(f"joint pair ({i + 1}, {j + 1}) is not two different joints of 1..{n}")


def pair_quantities(arm, q, i: int, j: int) -> dict[Quantity, np.ndarray]:
    """Every :class:`Quantity` of joints i, j (0-based, i != j) at the states ``q`` (N, n) or (n,).

    ROBMAT's B_i,(jk) and C_ij are the Christoffel symbols Gamma_ijk and
    Gamma_ijj of M (h_i = qd^T Gamma_i qd), taken from
    :class:`designer.explore.batch.Batch`.
    """
    _check_pair(arm.n, i, j)
    return _pair(batch_of(arm, np.atleast_2d(np.asarray(q, dtype=float))), i, j)[0]


@dataclass(frozen=True)
class Sweep:
    """Curves against one swept variable: ``curves[label][quantity]`` has the shape of ``x``."""

    x: np.ndarray
    x_label: str
    pair: tuple[int, int]  # 0-based
    curves: Mapping[str, Mapping[Quantity, np.ndarray]] = field(default_factory=dict)
    numbers: tuple[int, ...] | None = None   # the joints' numbers when not 1..n (a closed chain's)
    note: str = ""   # why some quantities are NaN (a closed chain's missing Christoffel symbols)

    def label(self, quantity: Quantity) -> str:
        return quantity.label(*self.pair, self.numbers)


def sweep_joint(arm, q, i: int, j: int, joint: int, values) -> Sweep:
    """The pair's quantities with joint ``joint`` (0-based) at ``values`` and the others at ``q``."""
    values = np.asarray(values, dtype=float)
    Q = np.tile(np.asarray(q, dtype=float), (len(values), 1))
    Q[:, joint] = values
    unit = "rad" if arm.revolute[joint] else "m"
    _check_pair(arm.n, i, j)
    result, note = _pair(batch_of(arm, Q), i, j)
    numbers = joint_numbers(arm)
    return Sweep(values, f"q{numbers[joint]} ({unit})", (i, j), {"": result},
                 None if numbers == tuple(range(1, arm.n + 1)) else numbers, note)


def default_range(model: Manipulator, name: str) -> tuple[float, float]:
    """A range around a parameter's default value: half to one and a half times it; for a zero default
    -0.5..0.5, or 0..0.5 for a mass or an inertia (never negative)."""
    from ..model.units import INERTIA, MASS, parameter_units
    value = model.parameter_values.get(name)
    if value is None:
        raise ValueError(f"parameter {name!r} has no default value")
    if value == 0:
        return (0.0, 0.5) if parameter_units(model).get(name) in (MASS, INERTIA) else (-0.5, 0.5)
    return tuple(sorted((0.5 * value, 1.5 * value)))  # type: ignore[return-value]


@dataclass(frozen=True)
class ParameterGrid:
    """Arms for every (second value, value) pair, built once and evaluated at any joint values."""

    name: str
    values: np.ndarray
    second: str | None
    second_values: np.ndarray
    arms: tuple  # NumericArm or ActuatedArm, second value major, then value

    def evaluate(self, q, i: int, j: int) -> Sweep:
        """The pair's quantities of every arm of the grid at joint values ``q`` (n,)."""
        _check_pair(self.arms[0].n, i, j)
        q = np.atleast_2d(np.asarray(q, dtype=float))
        pairs = [_pair(batch_of(arm, q), i, j) for arm in self.arms]
        parts = [p for p, _note in pairs]
        result = {k: np.concatenate([p[k] for p in parts]) for k in Quantity}
        m = len(self.values)
        curves = {}
        for s, second_value in enumerate(self.second_values):
            label = "" if self.second is None else f"{self.second} = {second_value:.4g}"
            curves[label] = {k: v[s * m:(s + 1) * m] for k, v in result.items()}
        numbers = joint_numbers(self.arms[0])
        return Sweep(self.values, self.name, (i, j), curves,
                     None if numbers == tuple(range(1, len(numbers) + 1)) else numbers, pairs[0][1])


def parameter_grid(model: Manipulator, name: str, values, second: str | None = None,
                   second_values: Iterable[float] = ()) -> ParameterGrid:
    """Build the arms of a parameter sweep (symbols not swept keep their default values).

    Raises
    ------
    ValueError
        A parameter is not a symbol of the model, or a value makes the model unusable.
    """
    return run(parameter_grid_job(model, name, values, second, second_values))


def parameter_grid_job(model: Manipulator, name: str, values, second: str | None = None,
                       second_values: Iterable[float] = (), token: CancelToken = NEVER) -> Job[ParameterGrid]:
    """:func:`parameter_grid` as a job: progress and cancel per arm (a closed chain's
    :class:`~designer.numeric.actuated_arm.ActuatedArm` takes ~30 ms to build: 1.2 s for 41 designs)."""
    from .joints import explore_arm
    used = set(model.symbol_names())
    for p in (name, second):
        if p is not None and p not in used:
            raise ValueError(f"{p!r} is not a symbol of the model (symbols: {', '.join(sorted(used))})")
    values = np.asarray(values, dtype=float)
    seconds = np.asarray(list(second_values), dtype=float) if second is not None else np.array([np.nan])
    if second is not None and len(seconds) == 0:
        seconds = np.array([model.parameter_values.get(second, 0.0)])
    arms = []
    total = len(seconds) * len(values)
    for s in seconds:
        for v in values:
            token.check()
            overrides = {name: float(v)} if second is None else {name: float(v), second: float(s)}
            arms.append(explore_arm(model, overrides))   # a closed chain's ActuatedArm
            yield Progress("designs", len(arms) / total, f"{len(arms)} of {total}")
    return ParameterGrid(name, values, second, seconds, tuple(arms))


def write_csv(sweep: Sweep, stream: TextIO, quantities: Sequence[Quantity] | None = None) -> None:
    """One row per swept value: x, then a column per (curve, quantity)."""
    quantities = list(quantities or Quantity)
    columns, data = [sweep.x_label], [sweep.x]
    for label, curve in sweep.curves.items():
        for quantity in quantities:
            columns.append(sweep.label(quantity) + (f" [{label}]" if label else ""))
            data.append(curve[quantity])
    writer = csv.writer(stream)
    writer.writerow(columns)
    for row in zip(*data):
        writer.writerow([f"{v:.10g}" for v in row])


#: a joint "moves" M when a step of it changes an entry by more than this share of M's largest entry
#: (rounding in M is about 1e-16 of it; a real dependence is percents)
DEPENDS = 1e-9


def _inertia_changes(arm, seed: int = 0) -> np.ndarray:
    """How much each entry of M(q) changes when one joint moves, relative to M's largest entry: (n, n, n),
    joint first (0-based). Each joint is stepped by about 40 deg (revolute) or a tenth of the reach
    (prismatic) from a few random poses."""
    rng = np.random.default_rng(seed)
    n = arm.n
    q = rng.uniform(-np.pi, np.pi, size=(4, n))
    reach = float(np.abs(arm.dh[:, [0, 2]]).sum()) if hasattr(arm, "dh") else 1.0   # a closed chain: no DH
    step = np.where(arm.revolute, 0.7, 0.1 * max(reach, 0.1))
    moved = [q] + [q + step[k] * np.eye(n)[k] for k in range(n)]
    M = batch_of(arm, np.vstack(moved)).M.reshape(n + 1, len(q), n, n)
    # a closed chain's pose whose loop cannot close is NaN: those states say nothing either way
    with np.errstate(invalid="ignore"):
        change = np.array([np.nan_to_num(np.abs(M[k + 1] - M[0]), nan=0.0).max(axis=0) for k in range(n)])
    scale = max(float(np.nan_to_num(np.abs(M[0]), nan=0.0).max()), np.finfo(float).tiny)
    return change / scale


def joints_moving_inertia(arm, seed: int = 0) -> list[int]:
    """The joints (1-based) that M(q) depends on, found numerically (:func:`_inertia_changes`). The first
    joint never appears (M does not change when the whole chain turns about or slides along the base
    axis).
    """
    change = _inertia_changes(arm, seed).max(axis=(1, 2))
    return [k + 1 for k in range(arm.n) if change[k] > DEPENDS]


def joint_moving_entry(arm, i: int, j: int, preferred: int | None = None) -> int:
    """A joint (0-based) that M_ij (0-based) varies with, to sweep it over: ``preferred`` when M_ij
    depends on it, else the one it changes most with (never q1 of a serial arm whose first joint turns
    about gravity: its M does not depend on it). ``preferred`` (or the last joint) when M_ij is constant."""
    _check_pair(arm.n, i, j)
    change = _inertia_changes(arm)[:, i, j]
    if preferred is not None and change[preferred] > DEPENDS:
        return preferred
    if change.max() > DEPENDS:
        return int(np.argmax(change))
    return arm.n - 1 if preferred is None else preferred


def default_map_joints(arm) -> tuple[int, int]:
    """Two joints (1-based) over which a map of the dynamics shows something: the first two that M
    depends on (q2, q3 for a PUMA-like arm; q1, q2 gave a flat coupling map), completed by the
    lowest other joint when only one moves it."""
    if arm.n < 2:
        raise ValueError("a map needs at least two joints")
    moving = joints_moving_inertia(arm)
    others = [k for k in range(1, arm.n + 1) if k not in moving]
    pair = sorted((moving + others)[:2]) if len(moving) < 2 else moving[:2]
    return pair[0], pair[1]
