"""Metrics on arms whose mass matrix is singular: exactly (a massless arm) or up to rounding (a point
mass on the last joint's axis). Metrics that need M^-1 are NaN ("singular"), cond is inf, and ratios
of two quantities that both vanish up to rounding are NaN, never an error or noise."""

from __future__ import annotations

import math

import numpy as np

from designer.explore.metrics import compute
from designer.kinematics import NumericArm
from designer.model import Inertia, Link, Manipulator, PointMass

Q = [[0.3, -0.7, 1.1], [1.2, 0.4, -0.5]]


def _arm(scale: float, load: bool) -> NumericArm:
    """Links 1 and 2 with their masses and inertias times ``scale``, link 3 massless."""
    inertia = Inertia(0.01 * scale, 0.02 * scale, 0.03 * scale)
    links = (Link(alpha=math.pi / 2, d=0.3, mass=2.0 * scale, inertia=inertia),
             Link(a=0.4, mass=scale, com=(-0.2, 0, 0), inertia=inertia),
             Link(mass=0.0))
    # standard DH, a = alpha = 0 on link 3: its joint axis is frame 3's z axis through the origin
    loads = (PointMass(3, 0.5, (0.0, 0.0, 0.1)),) if load else ()
    return NumericArm.from_model(Manipulator(links=links, gravity=(0, 0, -9.81), point_masses=loads))


def test_a_massless_arm_gives_nan_and_inf_not_an_error():
    arm = _arm(0.0, load=False)
    assert not np.any(compute(arm, Q, "M"))
    for name in ("inertia_free", "inertia_ratio", "isotropy", "cartesian_min", "cartesian_max", "coupling"):
        assert np.all(np.isnan(compute(arm, Q, name))), name
    assert np.all(np.isinf(compute(arm, Q, "cond")))


def test_coupling_of_a_joint_that_moves_nothing_is_nan():
    arm = _arm(1.0, load=True)
    M = compute(arm, Q, "M")
    # the point mass on the last joint's axis leaves rounding on M's last row, not an exact zero
    assert np.all(np.abs(M[:, 2, :]) < 1e-15)
    coupling = compute(arm, Q, "coupling")
    assert np.all(np.isnan(coupling[:, 2, :])) and np.all(np.isnan(coupling[:, :, 2]))
    top = M[:, :2, :2] / np.sqrt(np.einsum("nii->ni", M[:, :2, :2])[:, :, None] *
                                 np.einsum("nii->ni", M[:, :2, :2])[:, None, :])
    np.testing.assert_allclose(coupling[:, :2, :2], top, rtol=1e-14)


def test_a_reduced_metric_that_is_nan_everywhere_is_nan_without_a_warning():
    import warnings

    from designer.explore.metrics import evaluate
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # numpy's "All-NaN slice encountered" printed two lines per chunk
        values = evaluate(_arm(0.0, load=False), Q, "inertia_free")
    assert values.shape == (2,) and np.all(np.isnan(values))
