"""The stiffness and frequency metrics of an arm with elastic joints (docs/metrics.md).

Each is a function of a :class:`~designer.numeric.batch.Batch` and the ratings (which carry the
joints' stiffness, gear ratios, rotor inertias and the payload), one value per state:

- ``frequency`` (Hz): the lowest natural frequency with the motors locked, K v = w^2 M(q) v;
- ``frequency_free`` (Hz): the lowest vibration frequency of the full elastic-joint model with the
  rotor inertias and free motors (:func:`designer.numeric.modes.free_modes`);
- ``deflection`` (mm): the tool's static sag under gravity and the payload (motors holding);
- ``compliance`` (mm/N): the tool's largest translational compliance, the longest semi-axis of
  J K^-1 J^T's translational block (plus the links' own term).

Registered in :data:`designer.explore.metrics.METRICS` as (name, shape, unit, reduction, function,
description) rows, kept here so that metrics.py stays one module.
"""

from __future__ import annotations

import numpy as np

from ..numeric.beams import tool_sag_many
from ..numeric.elastic import ElasticJoints, ElasticModelError
from ..numeric.modes import lowest_frequency
from ..numeric.stiffness import compliance_axes, sag, tool_compliance
from .metric_error import MetricError

__all__ = ["ELASTIC_METRICS", "drive_ratings", "joints_of"]


def drive_ratings(model) -> dict:
    """The ratings' elastic-joint entries (stiffness, gear, rotor) from a project's drive data."""
    if model is None:
        return {}
    from ..model.drives import drive_values
    values = drive_values(model)
    return {k: values[k] for k in ("stiffness", "gear", "rotor")}


def joints_of(b, r, metric: str, rotors: bool = False) -> ElasticJoints:
    """The elastic joints the ratings describe; a metric without stiffness data says so."""
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
    """The elastic joints, or rigid ones when only the links bend (links as parts); neither: say so."""
    if not hasattr(b.arm, "beams"):   # a closed chain (explore/closed.py): its tree's sag is not projected yet
        raise MetricError(f"metric '{metric}' of a closed chain: not computed yet (the tool's sag through the "
                          "loops)")
    if r.stiffness is None and b.arm.beams:
        return ElasticJoints.of(b.n)
    if r.stiffness is None:
        raise MetricError(f"metric '{metric}' needs the joints' stiffness (drive data 'stiffness', N m/rad) "
                          "or links given as parts (a section and a material)")
    return joints_of(b, r, metric)


def _deflection(b, r):
    joints = _gearboxes_or_links(b, r, "deflection")
    # gearboxes and links superposed (small deflections): the joints' sag plus the beams' own
    total = sag(b.arm, joints, b.q, r.payload, J=b.tool_jacobian, G=b.G) + tool_sag_many(b.arm, b.q, r.payload)[:, :3]
    return 1e3 * np.linalg.norm(total, axis=-1)


def _compliance(b, r):
    C = tool_compliance(b.arm, _gearboxes_or_links(b, r, "compliance"), b.q, J=b.tool_jacobian)
    return 1e3 * compliance_axes(C)[0][:, -1]


ELASTIC_METRICS = (
    ("frequency", "scalar", "Hz", "min", _frequency,
     "lowest natural frequency, motors locked: K v = w^2 M(q) v over the elastic joints"),
    ("frequency_free", "scalar", "Hz", "min", _frequency_free,
     "lowest vibration frequency of the elastic-joint model with rotor inertias, motors free"),
    ("deflection", "scalar", "mm", "max", _deflection,
     "static tool sag under gravity and the payload: gearboxes |J_v K^-1 (J_v^T m_p g - G)| plus the links' bending"),
    ("compliance", "scalar", "mm/N", "max", _compliance,
     "largest translational tool compliance: top eigenvalue of (J K^-1 J^T + C_links)_vv"),
)
