"""Random arms written as URDF with every number rounded to 4-9 decimals, as other tools write them
(angles 1.5708, 1.570796325): the import reads the rounded angles as the exact ones they stand for and
is then the arm the file means, Pinocchio on the file with those angles written in full (to 1e-12); with
``literal`` it is the file as written, Pinocchio on the rounded file (to 1e-12). Never a frame far out."""

from __future__ import annotations

import re

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.model import Convention
from designer.numeric.recursive import gravity_torque, mass_matrix, rnea
from designer.urdf import import_urdf, urdf_text

from tests.support.exact_angles import exact_urdf
from tests.support.random_models import random_model
from tests.support.urdf_reference import PinChain

pytest.importorskip("pinocchio")


def _rounded(text: str, decimals: int) -> str:
    return re.sub(r"-?\d+\.\d+(e-?\d+)?", lambda m: f"{round(float(m.group(0)), decimals):.{decimals}f}", text)


def _worst(arm: NumericArm, ref: PinChain) -> float:
    """The largest difference of M, G, tau and the tool pose at random states, each relative to the
    arm's own scale (m reach^2, m g reach, m reach^2 per s^2, the reach)."""
    mass = float(sum(arm.mass)) + sum(m for _, m, _ in arm.point_masses)
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(10):
        q, qd, qdd = rng.uniform(-np.pi, np.pi, arm.n), rng.normal(size=arm.n), rng.normal(size=arm.n)
        tool = ref.frame("tool", q)
        reach = max(1.0, float(np.linalg.norm(tool[:3, 3] - arm.base[:3, 3])))
        worst = max(worst, float(np.abs(mass_matrix(arm, q) - ref.M(q)).max()) / (mass * reach ** 2),
                    float(np.abs(gravity_torque(arm, q) - ref.G(q)).max()) / (mass * 9.81 * reach),
                    float(np.abs(rnea(arm, q, qd, qdd) - ref.tau(q, qd, qdd)).max()) / (mass * 9.81 * reach),
                    float(np.abs(arm.tool_pose(q) - tool).max()) / reach)
    return worst


@pytest.mark.parametrize("seed", range(12))
def test_rounded_files_import_as_the_arm_meant_or_as_written(seed, tmp_path):
    rng = np.random.default_rng(seed)
    convention = list(Convention)[seed % 2]
    model = random_model(rng, int(rng.integers(3, 7)), convention, right_angles=True)
    decimals = int(rng.integers(4, 10))
    path = tmp_path / "arm.urdf"
    path.write_text(_rounded(urdf_text(model), decimals))
    exact = tmp_path / "exact.urdf"
    exact.write_text(exact_urdf(path.read_text()))
    convention = list(Convention)[(seed // 2) % 2]
    report = import_urdf(path, tip="tool", convention=convention)
    literal = import_urdf(path, tip="tool", convention=convention, literal=True)
    for made in (report, literal):
        # no frame far out: the lengths of the table stay within a few arm lengths (the random arms reach ~2 m)
        assert max(abs(float(v)) for l in made.model.links for v in (l.a, l.d)) < 10.0, made.text()
    meant = _worst(NumericArm.from_model(report.model), PinChain(exact, report.chain.joints))
    written = _worst(NumericArm.from_model(literal.model), PinChain(path, literal.chain.joints))
    assert meant < 1e-12 and written < 1e-12, (decimals, meant, written, report.text())
    # the rounded right angles were read as exact ones, and the report says how far the file lies from them
    assert report.as_written is not None and report.as_written < 1e-3 and "--literal" in report.text()
    assert literal.as_written is None and not literal.moved
