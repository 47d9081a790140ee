"""Dynamic design metrics, each for many configurations at once.

Every metric is a function of a :class:`~designer.explore.batch.Batch` (and of
the joints' ratings where it says so) returning an array with the states
first: ``(N,)`` for a scalar, ``(N, n)`` per joint, ``(N, n, n)`` per pair.
The exact definitions, units and references are in docs/metrics.md.

A metric is picked by a short text, e.g. ``coupling[1,2]``, ``gravity[2]``,
``cond`` or ``coupling`` (no index: the metric's worst case over its
components, see :class:`Metric`). Joints are numbered from 1 in these texts.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, replace
from enum import Enum
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..numeric.batch import CHUNK, Batch
from ..numeric.elastic import ElasticJoints, ElasticModelError
from ..numeric.modes import lowest_frequency
from ..numeric.stiffness import compliance_axes, joint_compliance, sag
from .batch import batch_of
from .joint_names import joint_label, joint_numbers, joint_position
from .metric_error import MetricError

__all__ = ["Ratings", "Shape", "Reduce", "Metric", "METRICS", "MetricSpec", "parse_metric", "evaluate",
           "compute", "evaluate_many", "task_jacobian", "cartesian_inertia", "speed_corners",
           "MetricError", "joint_numbers", "joint_label", "joint_position", "ELASTIC_METRICS", "drive_ratings",
           "design_ratings", "joints_of", "explored_drive_values", "elastic_setup"]


@dataclass(frozen=True)
class Ratings:
    """Rated values per joint (SI: N m or N, rad/s or m/s, rad/s^2 or m/s^2); None where not given."""

    torque: np.ndarray | None = None
    speed: np.ndarray | None = None
    acceleration: np.ndarray | None = None
    #: elastic joints (docs/metrics.md, "Stiffness and frequency"): joint stiffness (inf: rigid), gear
    #: ratio and rotor inertia per joint, and the payload (kg) at the tool
    stiffness: np.ndarray | None = None
    gear: np.ndarray | None = None
    rotor: np.ndarray | None = None
    payload: float = 0.0

    @classmethod
    def of(cls, n: int, torque=None, speed=None, acceleration=None, stiffness=None, gear=None, rotor=None,
           payload: float = 0.0) -> Ratings:
        def arr(v, what):
            if v is None:
                return None
            a = np.broadcast_to(np.asarray(v, float), (n,)).copy()
            if not np.all(a > 0):
                raise MetricError(f"rated {what} must be positive for every joint")
            return a
        if not (np.isfinite(payload) and payload >= 0):
            raise MetricError(f"payload must be a number >= 0 (kg), not {payload}")
        return cls(arr(torque, "torque"), arr(speed, "speed"), arr(acceleration, "acceleration"),
                   arr(stiffness, "stiffness (inf for a rigid joint)"), arr(gear, "gear ratio"),
                   None if rotor is None else np.broadcast_to(np.asarray(rotor, float), (n,)).copy(), float(payload))

    def need(self, what: str, metric: str) -> np.ndarray:
        value = getattr(self, what)
        if value is None:
            raise MetricError(f"metric '{metric}' needs the joints' {_NEEDED.get(what, 'rated ' + what)}")
        return value


#: what a metric lacking an elastic-joint entry of the ratings asks for (the drive data's keys)
_NEEDED = {"stiffness": "stiffness (drive data 'stiffness', N m/rad)",
           "rotor": "rotor inertia (drive data 'motor_inertia')"}


class Shape(str, Enum):
    SCALAR = "scalar"
    JOINT = "joint"
    PAIR = "pair"


class Reduce(str, Enum):
    """How a metric without an index becomes one number per state."""

    MAX = "max"                 # largest component
    MIN = "min"                 # smallest component
    MAX_ABS_OFF = "max_abs_off"  # largest |value| off the diagonal


@dataclass(frozen=True)
class Metric:
    name: str
    shape: Shape
    unit: str
    reduce: Reduce
    func: Callable[[Batch, Ratings], np.ndarray]
    description: str


# -- task space ------------------------------------------------------------------
def task_jacobian(b: Batch, task: str = "auto") -> np.ndarray:
    """The tool Jacobian rows of the task: ``translation`` (3 x n), ``full`` (6 x n) or ``auto``
    (full when n >= 6, else translation)."""
    J = b.tool_jacobian
    if task == "auto":
        task = "full" if b.n >= 6 else "translation"
    if task == "translation":
        return J[:, :3]
    if task == "full":
        return J
    raise MetricError(f"unknown task space '{task}' (translation, full or auto)")


def _rank(b: Batch, m: int) -> int:
    return min(m, b.n)


#: M is singular where its smallest eigenvalue is below this share of its largest (rounding level:
#: a point mass on the last joint's axis leaves 1e-17 there, not 0)
SINGULAR = 1e-12
#: two quantities below this share of the largest entry of their matrix both vanish up to rounding
ROUNDING = 1e-12


def singular(b: Batch) -> np.ndarray:
    """(N,) True where M is singular: metrics that need M^-1 are NaN there ("singular")."""
    ev = np.linalg.eigvalsh(b.M)
    return ev[:, 0] <= SINGULAR * np.maximum(np.abs(ev[:, -1]), np.finfo(float).tiny)


def _eigvalsh(A: np.ndarray) -> np.ndarray:
    """Batched eigenvalues, NaN for the matrices holding NaN (M^-1 where M is exactly singular),
    on which LAPACK would fail for the whole batch."""
    bad = ~np.isfinite(A).all(axis=(-2, -1))
    if not bad.any():
        return np.linalg.eigvalsh(A)
    ev = np.linalg.eigvalsh(np.where(bad[:, None, None], 0.0, A))
    ev[bad] = np.nan
    return ev


def _masked(b: Batch, values: np.ndarray) -> np.ndarray:
    bad = singular(b)
    if not bad.any():
        return values
    values = np.array(values, dtype=float, copy=True)
    values[bad] = np.nan
    return values


def cartesian_inertia(b: Batch, task: str = "translation") -> np.ndarray:
    """Eigenvalues (N, r) of the Cartesian inertia Lambda = (J M^-1 J^T)^-1, ascending.

    Only the r = min(rows, n) largest eigenvalues of J M^-1 J^T are kept (the
    rest are zero for an arm with fewer joints than task directions); Lambda's
    eigenvalues are their reciprocals.
    """
    J = task_jacobian(b, task)
    A = J @ b.M_inv @ np.swapaxes(J, 1, 2)
    ev = _eigvalsh(A)[:, ::-1][:, :_rank(b, J.shape[1])]   # largest r, descending
    with np.errstate(divide="ignore"):
        return _masked(b, 1.0 / ev)                                    # ascending


def speed_corners(speed: np.ndarray) -> np.ndarray:
    """(2^(n-1), n) corners of the box |qd_i| <= speed_i, one of each +- pair (h is even in qd)."""
    n = len(speed)
    if n == 1:   # one joint: one corner (np.meshgrid of nothing is empty)
        return np.asarray(speed, float).reshape(1, 1)
    signs = np.array(np.meshgrid(*([[1.0, -1.0]] * (n - 1)), indexing="ij")).reshape(n - 1, -1).T
    return np.column_stack([np.ones(len(signs)), signs]) * speed


# -- the metrics ---------------------------------------------------------------------
def _coupling(b, r):
    diag = np.einsum("nii->ni", b.M)
    # a joint that moves nothing (its M_ii zero up to rounding: 1e-34 for a point mass on its axis): NaN,
    # not the ratio of two rounding errors
    nothing = diag <= ROUNDING * np.abs(diag).max(axis=1, keepdims=True)
    d = np.sqrt(np.where(nothing, np.nan, diag))
    with np.errstate(divide="ignore", invalid="ignore"):
        return b.M / (d[:, :, None] * d[:, None, :])


def _locked(b, r):
    return np.einsum("nii->ni", b.M).copy()


def _free(b, r):
    with np.errstate(divide="ignore"):
        return _masked(b, 1.0 / np.einsum("nii->ni", b.M_inv))


def _ratio(b, r):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _free(b, r) / _locked(b, r)


def _cond(b, r):
    return np.where(singular(b), np.inf, np.linalg.cond(b.M))


def _isotropy(b, r):
    lam = cartesian_inertia(b, "translation")
    return lam[:, 0] / lam[:, -1]


def _lambda_min(b, r):
    return cartesian_inertia(b, "translation")[:, 0]


def _lambda_max(b, r):
    return cartesian_inertia(b, "translation")[:, -1]


def _dyn_manip(b, r):
    tau = r.need("torque", "dyn_manipulability")
    J = task_jacobian(b, "translation")
    # (M^T W M)^-1 = M^-1 W^-1 M^-T with W = diag(1 / tau_rated^2)
    Winv = np.diag(tau**2)
    A = J @ b.M_inv @ Winv @ np.swapaxes(b.M_inv, 1, 2) @ np.swapaxes(J, 1, 2)
    ev = _eigvalsh(A)[:, ::-1][:, :_rank(b, J.shape[1])]
    return _masked(b, np.sqrt(np.prod(np.clip(ev, 0.0, None), axis=1)))


def _coriolis(b, r):
    speed = r.need("speed", "coriolis")
    acc = r.need("acceleration", "coriolis")
    corners = speed_corners(speed)
    h = np.einsum("nijk,cj,ck->nci", b.gamma, corners, corners)
    return np.abs(h).max(axis=1) / (np.einsum("nii->ni", b.M) * acc)


def _gravity(b, r):
    return np.abs(b.G)


def _gravity_ratio(b, r):
    return np.abs(b.G) / r.need("torque", "gravity_ratio")


def _share(tra, rot):
    tot = np.abs(tra) + np.abs(rot)
    # NaN where both vanish up to rounding, judged against the largest entry of the state's matrix
    scale = tot.reshape(tot.shape[0], -1).max(axis=1).reshape((-1,) + (1,) * (tot.ndim - 1))
    real = tot > ROUNDING * scale
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(real, np.abs(tra) / np.where(real, tot, 1.0), np.nan)


def _tra_share(b, r):
    return _share(b.D_tra, b.D_rot)


def _tra_share_h(b, r):
    speed = r.speed if r.speed is not None else np.ones(b.n)
    h_tra, h_rot = b.lee_h(speed)
    return _share(h_tra, h_rot)


def _M(b, r):
    return b.M


def _torque_bound(b, r):
    """|G_i| + sum_j |M_ij| a_j (+ the largest |h_i| over the rated-speed corners): no state of rated
    accelerations (and speeds) at this pose needs more; the first two terms are reached by the worst
    signs of the accelerations."""
    acc = r.need("acceleration", "torque_bound")
    out = np.abs(b.G) + np.einsum("nij,j->ni", np.abs(b.M), acc)
    if r.speed is not None:
        corners = speed_corners(r.speed)
        out = out + np.abs(np.einsum("nijk,cj,ck->nci", b.gamma, corners, corners)).max(axis=1)
    return out


# -- the stiffness and frequency metrics of elastic joints and part-made links ------------------------------------
# The stiffness and frequency metrics of an arm with elastic joints (docs/metrics.md).
#
# Each is a function of a :class:`~designer.numeric.batch.Batch` and the ratings (which carry the
# joints' stiffness, gear ratios, rotor inertias and the payload), one value per state:
#
# - ``frequency`` (Hz): the lowest natural frequency with the motors locked, K v = w^2 M(q) v;
# - ``frequency_links`` (Hz): the same with the links' own bending (part-made links as beams, virtual
#   joints: the batch's ``frequency_links``, :mod:`designer.numeric.flex_modes`; a closed chain's with the
#   loops closed over the slices, :mod:`designer.numeric.closed_flex`); ``frequency`` itself stays the
#   rigid-link figure, the fast one for maps (the two side by side say how much the links cost);
# - ``frequency_free`` (Hz): the lowest vibration frequency of the full elastic-joint model with the
#   rotor inertias and free motors (:func:`designer.numeric.modes.free_modes`);
# - ``deflection`` (mm): the tool's static sag under gravity and the payload (motors holding);
# - ``compliance`` (mm/N): the tool's largest translational compliance, the longest semi-axis of
#   J K^-1 J^T's translational block (plus the links' own term).
#
# Registered in :data:`METRICS` below as (name, shape, unit, reduction, function, description) rows.

def explored_drive_values(model) -> dict:
    """:func:`designer.model.drives.drive_values` for the joints explore rates: the actuated ones (every joint
    of a serial arm; a closed chain's motors, a passive joint's drive data being its bearing's)."""
    from ..model.drives import drive_values
    values = drive_values(model)
    act = [i for i, link in enumerate(model.links) if link.actuated]
    return {k: v[act] if isinstance(v, np.ndarray) else v for k, v in values.items()}


def drive_ratings(model) -> dict:
    """The ratings' elastic-joint entries (stiffness, gear, rotor) from a project's drive data."""
    if model is None:
        return {}
    values = explored_drive_values(model)
    return {k: values[k] for k in ("stiffness", "gear", "rotor")}


def design_ratings(model, ratings, values: dict[str, float]):
    """The ratings of one design of a sweep (``values``: the swept parameters): a joint whose drive stiffness
    is named by a swept parameter (``k2``) gets the design's value; the others keep the ratings' own. The
    same ratings when no stiffness depends on ``values``."""
    from ..model.drives import numeric_drives
    swept = set(values)
    named = [i for i, link in enumerate(model.links) if link.drive is not None
             and swept & {s.name for s in getattr(link.drive.stiffness, "free_symbols", ())}]
    if not named:
        return ratings
    design = np.array([np.inf if d is None or d.stiffness is None else d.stiffness
                       for d in numeric_drives(model, values)], dtype=float)
    # the ratings hold the actuated joints (a closed chain's motors): the named ones by their place there
    act = [i for i, link in enumerate(model.links) if link.actuated]
    named = [act.index(i) for i in named if i in act]
    design, number = design[act], [i + 1 for i in act]   # each rated joint's link number
    if not named:
        return ratings
    if ratings.stiffness is None:
        k = design
    else:
        k = ratings.stiffness.copy()
        k[named] = design[named]
    if not np.all(k > 0):
        raise ElasticModelError(f"stiffness of joint(s) {', '.join(str(number[i]) for i in named if not k[i] > 0)}: "
                                f"must be positive, is {', '.join(f'{k[i]:g}' for i in named if not k[i] > 0)}")
    return replace(ratings, stiffness=k)


def passive_stiffness_refused(model, what: str) -> None:
    """A closed chain's elastic joints are its actuated ones (the gearboxes sit at the motors): a passive
    joint given a stiffness is refused in one line naming it (its spring would sit inside the loops)."""
    from ..model.drives import passive_stiffness
    passive = passive_stiffness(model)
    if passive:
        raise MetricError(f"{what}: passive joint(s) {', '.join(map(str, passive))} of the closed chain have a "
                          "drive stiffness; only the actuated joints (the motors' gearboxes) can be elastic")


def _refuse_passive(b, metric: str) -> None:
    """A closed chain's passive joint with a stiffness refused (its arm carries the model; a serial arm's joints
    are all actuated)."""
    model = getattr(b.arm, "model", None)
    if model is not None:
        passive_stiffness_refused(model, f"metric '{metric}'")


def joints_of(b, r, metric: str, rotors: bool = False) -> ElasticJoints:
    """The elastic joints the ratings describe (a closed chain's: its actuated joints, in the actuated
    coordinates of M_a and J W); a metric without stiffness data says so."""
    _refuse_passive(b, metric)
    r.need("stiffness", metric)
    if rotors and np.any(r.need("rotor", metric)[np.isfinite(r.stiffness)] <= 0):
        raise ElasticModelError(f"metric '{metric}' needs every elastic joint's rotor inertia "
                                "(drive data 'motor_inertia')")
    gear = r.gear if r.gear is not None else np.ones(b.n)
    rotor = r.rotor if r.rotor is not None else np.zeros(b.n)
    return ElasticJoints.of(b.n, r.stiffness, 0.0, gear, rotor)


def _frequency(b, r):
    return lowest_frequency(b.M, joints_of(b, r, "frequency"))


def _frequency_free(b, r):
    return lowest_frequency(b.M, joints_of(b, r, "frequency_free", rotors=True), motors="free")


def _gearboxes_or_links(b, r, metric: str) -> ElasticJoints:
    """The elastic joints, or rigid ones when only the links bend (links as parts); neither: say so (a closed
    chain's: its actuated joints' gearboxes, :func:`joints_of`)."""
    _refuse_passive(b, metric)
    if r.stiffness is None and b.arm.beams:
        return ElasticJoints.of(b.n)
    if r.stiffness is None:
        raise MetricError(f"metric '{metric}' needs the joints' stiffness (drive data 'stiffness', N m/rad) "
                          "or links given as parts (a section and a material)")
    return joints_of(b, r, metric)


#: slices per link for the metric, which maps and sweeps evaluate at thousands of poses: 2 (half the time of 4);
#: over the tube arm's 100 x 100 map the lowest frequency differs from 8 slices' by at most 0.1 % (motors, gearboxes
#: and the payload carry most of the mass), a bare cantilever's by 0.8 % (benchmarks/bench_flex.py, docs/elastic.md)
METRIC_SEGMENTS = 2


def _frequency_links(b, r):
    return b.frequency_links(_gearboxes_or_links(b, r, "frequency_links"), METRIC_SEGMENTS)


def _deflection(b, r):
    # gearboxes and links superposed (small deflections): the joints' sag over G and the tool Jacobian (a closed
    # chain's G_a and J W: dq_a = K^-1 (J_v^T m_p g - G_a)) plus the links' share (a closed chain's with the loops
    # closed over their slices; the two add exactly: numeric/closed_flex.py)
    joints = _gearboxes_or_links(b, r, "deflection")
    total = sag(b.arm, joints, b.q, r.payload, J=b.tool_jacobian, G=b.G) \
        + b.links_sag(r.payload, METRIC_SEGMENTS)[:, :3]
    return 1e3 * np.linalg.norm(total, axis=-1)


def _compliance(b, r):
    # J K^-1 J^T (a closed chain's J W, the tool Jacobian in the actuated rates) plus the links' share
    joints = _gearboxes_or_links(b, r, "compliance")
    J = b.tool_jacobian
    C = (J * joint_compliance(joints)) @ np.swapaxes(J, -1, -2) + b.links_compliance(METRIC_SEGMENTS)
    return 1e3 * compliance_axes(C)[0][:, -1]


ELASTIC_METRICS = (
    ("frequency", "scalar", "Hz", "min", _frequency,
     "lowest natural frequency, motors locked: K v = w^2 M(q) v over the elastic joints"),
    ("frequency_links", "scalar", "Hz", "min", _frequency_links,
     "lowest natural frequency, motors locked, with the links' bending (part-made links; virtual joints)"),
    ("frequency_free", "scalar", "Hz", "min", _frequency_free,
     "lowest vibration frequency of the elastic-joint model with rotor inertias, motors free"),
    ("deflection", "scalar", "mm", "max", _deflection,
     "static tool sag under gravity and the payload: gearboxes |J_v K^-1 (J_v^T m_p g - G)| plus the links' bending"),
    ("compliance", "scalar", "mm/N", "max", _compliance,
     "largest translational tool compliance: top eigenvalue of (J K^-1 J^T + C_links)_vv"),
)


# -- one pose: what ``modes`` and the window (read-out, mode animation, compliance ellipsoid) read ---------------
# The elastic joints are the actuated ones (every joint of a serial arm; a closed chain's motors, whose gearboxes
# sit there: a passive joint with a stiffness is refused naming it). At the actuated values q the mechanism's
# batch (a closed chain's with the loops closed on the nominal pose's branch, held to Pinocchio's CRBA and RNEA on
# the spanning tree projected by W in the tests) gives M, G and the tool Jacobian in the actuated rates, and from
# them the locked modes K v = w^2 M v, the free modes with the rotors, the tool compliance J K^-1 J^T and the sag
# J_v K^-1 (J_v^T m_p g - G); the links' bending: :meth:`ElasticPose.frequency_links` (numeric/modes.py: elastic_at).

def elastic_setup(model, what: str = "the mechanism", overrides=None) -> tuple[Any, ElasticJoints]:
    """The arm the metrics take (:func:`~designer.explore.joints.explore_arm`) and its elastic joints (the actuated
    ones with a drive stiffness; ``joints.m`` is 0 when none has one). A DesignerError names a passive joint given a
    stiffness, a missing parameter or drive value, a loop that cannot close. ``overrides``: parameter values."""
    from .joints import explore_arm
    passive_stiffness_refused(model, what)
    arm = explore_arm(model, overrides)
    values = drive_ratings(model)
    return arm, ElasticJoints.of(arm.n, values["stiffness"], None, values["gear"], values["rotor"])


def _need_beams(b, name: str):
    if not b.arm.beams:
        raise MetricError(f"metric '{name}' needs links given as parts (a section and a material)")


def _deflection_links(b, r):
    """The links' bending alone (a closed chain's with the loops closed over the slices)."""
    _need_beams(b, "deflection_links")
    return 1e3 * np.linalg.norm(b.links_sag(r.payload, METRIC_SEGMENTS)[:, :3], axis=1)


def _compliance_links(b, r):
    _need_beams(b, "compliance_links")
    return 1e3 * compliance_axes(b.links_compliance(METRIC_SEGMENTS))[0][:, -1]


METRICS: dict[str, Metric] = {m.name: m for m in [
    Metric("M", Shape.PAIR, "kg m^2 / kg m / kg", Reduce.MAX_ABS_OFF, _M, "mass-matrix entry M_ij"),
    Metric("coupling", Shape.PAIR, "1", Reduce.MAX_ABS_OFF, _coupling, "inertial coupling M_ij / sqrt(M_ii M_jj)"),
    Metric("inertia_locked", Shape.JOINT, "kg m^2 or kg", Reduce.MAX, _locked,
           "effective inertia, others locked: M_ii"),
    Metric("inertia_free", Shape.JOINT, "kg m^2 or kg", Reduce.MAX, _free,
           "effective inertia, others free: 1/(M^-1)_ii"),
    Metric("inertia_ratio", Shape.JOINT, "1", Reduce.MIN, _ratio, "free / locked effective inertia"),
    Metric("cond", Shape.SCALAR, "1", Reduce.MAX, _cond, "condition number of M (2-norm)"),
    Metric("isotropy", Shape.SCALAR, "1", Reduce.MIN, _isotropy,
           "Asada: smallest / largest eigenvalue of the translational Cartesian inertia"),
    Metric("cartesian_min", Shape.SCALAR, "kg", Reduce.MIN, _lambda_min,
           "smallest eigenvalue of the Cartesian inertia"),
    Metric("cartesian_max", Shape.SCALAR, "kg", Reduce.MAX, _lambda_max, "largest eigenvalue of the Cartesian inertia"),
    Metric("dyn_manipulability", Shape.SCALAR, "(m/s^2)^r, r = min(3, n)", Reduce.MIN, _dyn_manip,
           "Yoshikawa: sqrt det(J (M^T W M)^-1 J^T), W = diag(1/tau_rated^2)"),
    Metric("coriolis", Shape.JOINT, "1", Reduce.MAX, _coriolis,
           "max |qd^T Gamma_i qd| over rated-speed corners / (M_ii * rated acceleration_i)"),
    Metric("gravity", Shape.JOINT, "N m or N", Reduce.MAX, _gravity, "|G_i|"),
    Metric("gravity_ratio", Shape.JOINT, "1", Reduce.MAX, _gravity_ratio, "|G_i| / rated torque_i"),
    Metric("tra_share", Shape.PAIR, "1", Reduce.MIN, _tra_share, "Lee: |D_tra,ij| / (|D_tra,ij| + |D_rot,ij|)"),
    Metric("tra_share_h", Shape.JOINT, "1", Reduce.MIN, _tra_share_h,
           "Lee: |H_tra,i| / (|H_tra,i| + |H_rot,i|) at the rated speeds (1 rad/s without ratings)"),
    Metric("torque_bound", Shape.JOINT, "N m or N", Reduce.MAX, _torque_bound,
           "largest joint torque at rated accelerations (and speeds, when given): |G_i| + sum_j |M_ij| a_j "
           "+ max |h_i| over the speed corners"),
    *(Metric(name, Shape(shape), unit, Reduce(how), func, text)
      for name, shape, unit, how, func, text in ELASTIC_METRICS),
    Metric("deflection_links", Shape.SCALAR, "mm", Reduce.MAX, _deflection_links,
           "the links' share of the tool sag: their bending under gravity and the payload (parts)"),
    Metric("compliance_links", Shape.SCALAR, "mm/N", Reduce.MAX, _compliance_links,
           "the links' share of the tool compliance: largest eigenvalue of C_links' translational block (parts)"),
]}


@dataclass(frozen=True)
class MetricSpec:
    """A metric and, optionally, the component picked (0-based); ``numbers`` the joints' names in the label
    (a closed chain's actuated joints by their link numbers; empty: 1..n)."""

    metric: Metric
    index: tuple[int, ...] = ()
    numbers: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        if not self.index:
            return self.metric.name
        return f"{self.metric.name}[{','.join(str(joint_label(i, self.numbers)) for i in self.index)}]"


_SPEC_RE = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\[\s*([0-9]+)\s*(?:,\s*([0-9]+)\s*)?\])?\s*$")


def parse_metric(text: str, n: int, numbers: Sequence[int] = ()) -> MetricSpec:
    """``name``, ``name[i]`` or ``name[i,j]`` for an arm with ``n`` joints, numbered 1..n or by ``numbers``
    (:func:`joint_numbers`: a closed chain's link numbers)."""
    m = _SPEC_RE.match(text or "")
    if not m:
        raise MetricError(f"metric '{text}': write name, name[i] or name[i,j]")
    name, i, j = m.groups()
    if name not in METRICS:
        raise MetricError(f"unknown metric '{name}' (known: {', '.join(METRICS)})")
    metric = METRICS[name]
    numbers = tuple(int(v) for v in numbers) if numbers and tuple(numbers) != tuple(range(1, n + 1)) else ()
    given = tuple(int(v) for v in (i, j) if v is not None)
    want = {Shape.SCALAR: 0, Shape.JOINT: 1, Shape.PAIR: 2}[metric.shape]
    if given and len(given) != want:
        raise MetricError(f"metric '{name}' takes {want} index(es), got {len(given)}")
    if numbers:
        if any(k not in numbers for k in given):
            raise MetricError(f"metric '{text}': the joints are {', '.join(map(str, numbers))}")
        return MetricSpec(metric, tuple(numbers.index(k) for k in given), numbers)
    if any(not 1 <= k <= n for k in given):
        raise MetricError(f"metric '{text}': joint numbers run from 1 to {n}")
    return MetricSpec(metric, tuple(k - 1 for k in given))


def _reduce(values: np.ndarray, how: Reduce) -> np.ndarray:
    if values.ndim == 1:
        return values
    if how is Reduce.MAX_ABS_OFF:
        n = values.shape[1]
        off = ~np.eye(n, dtype=bool)
        return np.abs(values[:, off]).max(axis=1) if n > 1 else np.abs(values[:, 0, 0])
    flat = values.reshape(values.shape[0], -1)
    with warnings.catch_warnings():   # a state where every entry is NaN ("singular") reduces to NaN, quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmax(flat, axis=1) if how is Reduce.MAX else np.nanmin(flat, axis=1)


def compute(arm, q, name: str, ratings: Ratings | None = None, chunk: int = CHUNK, compiled=None) -> np.ndarray:
    """The full metric ``name`` at states q (N, n): (N,), (N, n) or (N, n, n).

    ``compiled``: optional compiled dynamics of the same model for M and G (see :class:`Batch`).
    """
    if name not in METRICS:
        raise MetricError(f"unknown metric '{name}'")
    ratings = ratings or Ratings()
    q = np.atleast_2d(np.asarray(q, float))
    parts = [METRICS[name].func(batch_of(arm, q[s:s + chunk], compiled), ratings) for s in range(0, len(q), chunk)]
    return np.concatenate(parts) if parts else np.empty((0,))


def _pick(values: np.ndarray, spec: MetricSpec) -> np.ndarray:
    if spec.index:
        return values[(slice(None),) + spec.index]
    return _reduce(values, spec.metric.reduce)


def evaluate(arm, q, spec: MetricSpec | str, ratings: Ratings | None = None, chunk: int = CHUNK,
             compiled=None) -> np.ndarray:
    """One number per state (N,): the picked component, or the metric's reduction."""
    if isinstance(spec, str):
        spec = parse_metric(spec, arm.n, joint_numbers(arm))
    return _pick(compute(arm, q, spec.metric.name, ratings, chunk, compiled), spec)


def evaluate_many(arm, q, specs: Sequence[MetricSpec], ratings: Ratings | None = None,
                  chunk: int = CHUNK) -> list[np.ndarray]:
    """Several metrics at the same states, sharing one :class:`Batch` per block of states."""
    ratings = ratings or Ratings()
    q = np.atleast_2d(np.asarray(q, float))
    out: list[list[np.ndarray]] = [[] for _ in specs]
    for s in range(0, len(q), chunk):
        b = batch_of(arm, q[s:s + chunk])
        for k, spec in enumerate(specs):
            out[k].append(_pick(spec.metric.func(b, ratings), spec))
    return [np.concatenate(parts) for parts in out]


