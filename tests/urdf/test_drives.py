"""Drive terms: the reflected inertia and friction, against Pinocchio's armature and by hand."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from designer.model.drives import friction_torque, with_drives
from designer.kinematics import NumericArm
from designer.model import Drive
from designer.numeric.recursive import mass_matrix, rnea
from designer.urdf import import_urdf

from tests.support.urdf_reference import PinChain, erd, pin


def test_reflected_inertia_is_pinocchio_armature():
    path = erd("ur_description/urdf/ur5_robot.urdf")
    model = import_urdf(path).model
    drives = [Drive(gear_ratio=100 + 10 * i, motor_inertia=1e-5 * (i + 1), viscous=0.3, coulomb=0.2) for i in range(6)]
    model = replace(model, links=tuple(replace(l, drive=d) for l, d in zip(model.links, drives)))
    arm = NumericArm.from_model(model)
    ref = PinChain(path, [l.joint_name for l in model.links])
    ref.model.armature = np.array([d.reflected_inertia for d in drives])
    ref.data = ref.model.createData()
    rng = np.random.default_rng(1)
    for _ in range(20):
        q, qd, qdd = rng.uniform(-3, 3, 6), rng.normal(size=6), rng.normal(size=6)
        M, tau = with_drives(model, mass_matrix(arm, q), rnea(arm, q, qd, qdd), qd, qdd)
        np.testing.assert_allclose(M, ref.M(q), atol=1e-10)
        np.testing.assert_allclose(tau - friction_torque(model, qd), ref.tau(q, qd, qdd), atol=1e-9)
    assert pin is not None
    np.testing.assert_allclose(friction_torque(model, [1.0, -2.0, 0, 0, 0, 0])[:3], [0.5, -0.8, 0.0])
