"""validate on arms from other tools: floats read as exact angles, R D R^T accepted, a mass matrix
singular at every pose flagged; tra_share NaN where both parts vanish up to rounding."""

from __future__ import annotations

import math

import numpy as np

from designer.explore.metrics import _share
from designer.model import Inertia, Link, Manipulator, PointMass
from designer.model.validation import validate
from designer.numeric.checks import check_model
from designer.project import from_dict


def _project(inertia) -> dict:
    return {"format": "manipulator-designer", "version": 1, "name": "x", "convention": "standard",
            "gravity": [0, 0, -9.81], "parameters": {},
            "links": [{"joint": "R", "a": 0.3, "alpha": math.pi / 2, "d": 0, "theta": 0, "mass": 1.0,
                       "com": [0.1, 0, 0], "inertia": inertia}]}


def test_inertia_symmetric_to_rounding_is_accepted():
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    I = Q @ np.diag([0.1, 0.2, 0.25]) @ Q.T
    I[0, 1] += abs(I[0, 1]) * 1e-15  # asymmetric at rounding level, [1][0] unchanged
    model = from_dict(_project(I.tolist()))
    assert abs(float(model.links[0].inertia.xy) - I[0, 1]) < 1e-12


def test_float_twist_is_reported_as_read_exactly():
    model = from_dict(_project([[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]))
    notes = [str(p) for p in validate(model)]
    assert "links[1].alpha: 1.5707963267948966 read as pi/2 (a multiple of pi/12 to machine precision)" in notes


def test_mass_on_the_last_axis_makes_m_singular():
    """Corke's UR5 wrist with its last link massless and a point load on the last joint's axis."""
    links = (Link(a=0.4, mass=2.0, com=(-0.2, 0, 0), inertia=Inertia(0.01, 0.02, 0.02)),
             Link(alpha=math.pi / 2, mass=0.0))
    # standard DH: joint 2 turns about z_1, which in frame 2 is the y axis through the origin (alpha = pi/2)
    model = Manipulator(links=links, point_masses=(PointMass(2, 0.5, (0.0, 0.3, 0.0)),))
    assert any("singular at every pose" in str(p) for p in validate(model))
    off_axis = Manipulator(links=links, point_masses=(PointMass(2, 0.5, (0.1, 0.3, 0.0)),))
    assert not any("singular" in str(p) for p in check_model(off_axis))


def test_share_is_nan_where_both_vanish_up_to_rounding():
    tra = np.array([[[1.0, 1e-18], [0.5, 0.0]]])
    rot = np.array([[[1.0, -2e-18], [0.5, 0.0]]])
    out = _share(tra, rot)
    assert out[0, 0, 0] == 0.5 and np.isnan(out[0, 0, 1]) and np.isnan(out[0, 1, 1])
