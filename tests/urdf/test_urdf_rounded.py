"""Random arms written as URDF with every number rounded to 4-9 decimals, as other tools write them
(angles 1.5708, 1.570796325): the import never builds a frame far out, and agrees with Pinocchio on
the rounded file to 1e-9 plus what its report says it changed (axes made parallel, angles read as
exact multiples of pi/12)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.model import Convention
from designer.numeric.recursive import gravity_torque, mass_matrix
from designer.urdf import import_urdf, urdf_text

from tests.support.random_models import random_model
from tests.support.urdf_reference import PinChain

pytest.importorskip("pinocchio")


def _rounded(text: str, decimals: int) -> str:
    return re.sub(r"-?\d+\.\d+(e-?\d+)?", lambda m: f"{round(float(m.group(0)), decimals):.{decimals}f}", text)


@pytest.mark.parametrize("seed", range(12))
def test_rounded_files_import_close_to_what_they_say(seed, tmp_path):
    rng = np.random.default_rng(seed)
    convention = list(Convention)[seed % 2]
    model = random_model(rng, int(rng.integers(3, 7)), convention, right_angles=True)
    decimals = int(rng.integers(4, 10))
    path = tmp_path / "arm.urdf"
    path.write_text(_rounded(urdf_text(model), decimals))
    report = import_urdf(path, tip="tool", convention=list(Convention)[(seed // 2) % 2])
    arm = NumericArm.from_model(report.model)
    # no frame far out: the lengths of the table stay within a few arm lengths (the random arms reach ~2 m)
    assert max(abs(float(v)) for l in report.model.links for v in (l.a, l.d)) < 10.0, report.text()
    # M, G and the tool pose against Pinocchio on the rounded file, each relative to the arm's own
    # scale (m reach^2, m g reach, the reach): an angle changed by e moves them by about e of it
    ref = PinChain(path, report.chain.joints)
    mass = float(sum(arm.mass)) + sum(m for _, m, _ in arm.point_masses)
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(10):
        q = rng.uniform(-np.pi, np.pi, arm.n)
        tool = ref.frame("tool", q)
        reach = max(1.0, float(np.linalg.norm(tool[:3, 3] - arm.base[:3, 3])))
        worst = max(worst, float(np.abs(mass_matrix(arm, q) - ref.M(q)).max()) / (mass * reach ** 2),
                    float(np.abs(gravity_torque(arm, q) - ref.G(q)).max()) / (mass * 9.81 * reach),
                    float(np.abs(arm.tool_pose(q) - tool).max()) / reach)
    assert worst < 1e-9 + 10 * report.moved, (decimals, worst, report.text())
