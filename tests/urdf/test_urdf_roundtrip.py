"""Bundled robots: project -> URDF (checked in Pinocchio and MuJoCo) -> project, both conventions."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.model import Convention, Inertia
from designer.numeric.recursive import gravity_torque, mass_matrix, rnea
from designer.project import load_project
from designer.urdf import import_urdf, urdf_text
from designer.urdf.exporter import urdf_base

from tests.support import serial_robots
from tests.support.urdf_reference import PinChain, compare_with_pinocchio, mujoco_errors, rel_err

ROBOTS = serial_robots()   # URDF has no loops: the closed-chain examples are not exported (issue 22)


@pytest.mark.parametrize("robot", ROBOTS, ids=[p.stem for p in ROBOTS])
def test_project_to_urdf_to_project(robot, tmp_path):
    model = load_project(robot)
    arm = NumericArm.from_model(model)
    out = tmp_path / "arm.urdf"
    out.write_text(urdf_text(model))
    joints = [f"joint{i}" for i in range(1, model.n + 1)]
    worst, _ = compare_with_pinocchio(arm, PinChain(out, joints), None)
    assert worst < 1e-9
    for convention in (Convention.STANDARD, Convention.MODIFIED):
        # links without inertia import massless: the project's point masses have none
        back = NumericArm.from_model(import_urdf(out, tip="tool", convention=convention, massless=True).model)
        rng = np.random.default_rng(2)
        for _ in range(50):
            q, qd, qdd = rng.uniform(-1, 1, arm.n), rng.normal(size=arm.n), rng.normal(size=arm.n)
            assert rel_err(mass_matrix(back, q), mass_matrix(arm, q)) < 1e-10
            assert rel_err(gravity_torque(back, q), gravity_torque(arm, q)) < 1e-10
            assert rel_err(rnea(back, q, qd, qdd), rnea(arm, q, qd, qdd)) < 1e-10
            np.testing.assert_allclose(back.tool_pose(q), urdf_base(arm) @ arm.frames(q)[-1] @ arm.tool, atol=1e-12)


@pytest.mark.parametrize("robot", ROBOTS, ids=[p.stem for p in ROBOTS])
def test_exported_robot_in_mujoco(robot, tmp_path):
    """MuJoCo refuses point masses and inertias that break the triangle inequality (PUMA link 1):
    each link gets the same physical inertia added on both sides before comparing."""
    model = load_project(robot).numeric()
    def physical(link):
        extra = float(sum(abs(e) for e in link.inertia.entries())) + 1e-3
        return replace(link, mass=link.mass + 0.01, inertia=link.inertia + Inertia(extra, extra, extra))
    model = replace(model, links=tuple(physical(l) for l in model.links))
    assert mujoco_errors(urdf_text(model), NumericArm.from_model(model), tmp_path) < 1e-9
