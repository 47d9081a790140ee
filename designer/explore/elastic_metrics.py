"""The stiffness and frequency metrics of an arm with elastic joints (docs/metrics.md).

Each is a function of a :class:`~designer.numeric.batch.Batch` and the ratings (which carry the
joints' stiffness, gear ratios, rotor inertias and the payload), one value per state:

- ``frequency`` (Hz): the lowest natural frequency with the motors locked, K v = w^2 M(q) v;
- ``frequency_links`` (Hz): the same with the links' own bending (part-made links as beams, virtual
  joints: the batch's ``frequency_links``, :mod:`designer.numeric.flex_modes`; a closed chain's with the
  loops closed over the slices, :mod:`designer.numeric.closed_flex`); ``frequency`` itself stays the
  rigid-link figure, the fast one for maps (the two side by side say how much the links cost);
- ``frequency_free`` (Hz): the lowest vibration frequency of the full elastic-joint model with the
  rotor inertias and free motors (:func:`designer.numeric.modes.free_modes`);
- ``deflection`` (mm): the tool's static sag under gravity and the payload (motors holding);
- ``compliance`` (mm/N): the tool's largest translational compliance, the longest semi-axis of
  J K^-1 J^T's translational block (plus the links' own term).

Registered in :data:`designer.explore.metrics.METRICS` as (name, shape, unit, reduction, function,
description) rows, kept here so that metrics.py stays one module.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..kinematics.closure import ClosureError
from ..numeric.elastic import ElasticJoints, ElasticModelError
from ..numeric.flex_modes import SEGMENTS
from ..numeric.modes import Modes, free_modes, locked_modes, lowest_frequency
from ..numeric.stiffness import compliance_axes, joint_compliance, sag
from .batch import batch_of
from .metric_error import MetricError

__all__ = ["ELASTIC_METRICS", "drive_ratings", "design_ratings", "joints_of", "explored_drive_values",
           "ElasticPose", "elastic_setup", "elastic_at"]


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
# J_v K^-1 (J_v^T m_p g - G); the links' bending: :meth:`ElasticPose.frequency_links`.

def elastic_setup(model, what: str = "the mechanism") -> tuple[Any, ElasticJoints]:
    """The arm the metrics take (:func:`~designer.explore.joints.explore_arm`) and its elastic joints (the actuated
    ones with a drive stiffness; ``joints.m`` is 0 when none has one). A DesignerError names a passive joint given a
    stiffness, a missing parameter or drive value, a loop that cannot close."""
    from .joints import explore_arm
    passive_stiffness_refused(model, what)
    arm = explore_arm(model)
    values = drive_ratings(model)
    return arm, ElasticJoints.of(arm.n, values["stiffness"], None, values["gear"], values["rotor"])


@dataclass(frozen=True)
class ElasticPose:
    """The elastic quantities of a mechanism at actuated values ``q`` (n,)."""

    arm: Any
    joints: ElasticJoints
    q: np.ndarray
    M: np.ndarray   # (n, n)
    J: np.ndarray   # (6, n) the tool's [v; w] in the actuated rates, frame 0
    G: np.ndarray   # (n,)
    tool: np.ndarray   # (3,) the tool point, frame 0

    def locked(self, shapes: bool = True) -> Modes:
        """Motors locked: K v = w^2 M v over the elastic joints."""
        return locked_modes(self.M, self.joints, shapes=shapes)

    def free(self) -> Modes:
        """Motors free: the 2 n model with the rotors (ValueError when an elastic joint has no rotor inertia)."""
        return free_modes(self.M, self.joints)

    def compliance(self) -> np.ndarray:
        """(6, 6) J K^-1 J^T (m/N in the translation block), frame 0."""
        return (self.J * joint_compliance(self.joints)) @ self.J.T

    def links_compliance(self) -> np.ndarray:
        """(6, 6) the links' own share of the tool's compliance (links made as parts; zero without), frame 0."""
        if not getattr(self.arm, "beams", ()):
            return np.zeros((6, 6))
        return batch_of(self.arm, self.q[None]).links_compliance(SEGMENTS)[0]

    def sag(self, payload: float = 0.0) -> np.ndarray:
        """(3,) the tool's static displacement (m) under gravity and ``payload`` kg at the tool, frame 0."""
        return sag(self.arm, self.joints, self.q, payload, J=self.J, G=self.G)

    def frequency_links(self) -> float | None:
        """The lowest natural frequency (Hz), motors locked, with the links' bending (links made as parts); None
        when no link is one."""
        if not getattr(self.arm, "beams", ()):
            return None
        return float(batch_of(self.arm, self.q[None]).frequency_links(self.joints, SEGMENTS)[0])


def elastic_at(arm, joints: ElasticJoints, q) -> ElasticPose:
    """:class:`ElasticPose` at actuated values ``q``; ClosureError (a DesignerError, one line) where the loops
    cannot close or stand at a dead centre."""
    q = np.asarray(q, dtype=float).ravel()
    b = batch_of(arm, q[None])
    M, J, G, tool = b.M[0], b.tool_jacobian[0], b.G[0], b.tool_position[0]
    if not (np.isfinite(M).all() and np.isfinite(J).all() and np.isfinite(G).all()):
        raise ClosureError(f"the loops cannot close at q = ({', '.join(f'{v:.4g}' for v in q)}) "
                           "(or stand at a dead centre)")
    return ElasticPose(arm, joints, q, M, J, G, tool)
