"""Random arms written as MJCF (export-mjcf) with every number rounded to 6-9 decimals, as other tools
write them (quaternions 0.707107 0.707107 0 0): the import reads the rounded rotations as the exact
ones they stand for and equals MuJoCo on the file with those written in full (tests/support/
exact_angles.py), to 1e-12; with ``literal`` MuJoCo on the rounded file as written, to 1e-12."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pytest

from designer.mjcf import import_mjcf
from designer.mjcf.exporter import mjcf_text
from designer.model import Convention

from tests.support.exact_angles import exact_mjcf
from tests.support.mjcf_reference import MujocoChain, compare_with_mujoco
from tests.support.random_models import random_model

pytest.importorskip("mujoco")


def _rounded(text: str, decimals: int) -> str:
    # every number of the body (the comment at the top keeps its own)
    head, body = text.split("<mujoco", 1)
    return head + "<mujoco" + re.sub(r"-?\d+\.\d+(e-?\d+)?",
                                     lambda m: f"{round(float(m.group(0)), decimals):.{decimals}f}", body)


@pytest.mark.parametrize("seed", range(8))
def test_rounded_mjcf_imports_as_the_arm_meant_or_as_written(seed, tmp_path):
    rng = np.random.default_rng(seed)
    model = random_model(rng, int(rng.integers(3, 7)), list(Convention)[seed % 2], right_angles=True)
    # twists and offsets of multiples of pi/12 (15 degrees), written as floats: quaternions whose
    # components differ (cos 7.5 deg ...), which rounding really moves
    model = replace(model, links=tuple(replace(l, alpha=int(rng.integers(-12, 13)) * math.pi / 12,
                                               theta=int(rng.integers(-12, 13)) * math.pi / 12) for l in model.links))
    # 6-9 decimals: a quaternion to 4 or 5 may turn by more than the 1e-5 rad read as exact
    decimals = int(rng.integers(6, 10))
    path = tmp_path / "arm.xml"
    path.write_text(_rounded(mjcf_text(model), decimals))
    exact = tmp_path / "exact.xml"
    exact.write_text(exact_mjcf(path.read_text()))
    convention = list(Convention)[(seed // 2) % 2]
    for literal, reference in ((False, exact), (True, path)):
        report = import_mjcf(path, tip="tool", convention=convention, literal=literal)
        ref = MujocoChain(reference, report.chain.joints, report.chain.dropped)
        worst, pose = compare_with_mujoco(report.model, ref, report.chain.tip)
        assert worst < 1e-12 and pose < 1e-12, (decimals, literal, worst, pose, report.text())
        if literal:
            assert report.as_written is None and "--literal" not in report.text()
        else:   # the twists of pi/2 were rounded: read as exact, and the report says how far the file lies
            assert report.as_written is not None and 1e-16 < report.as_written < 1e-3, report.text()
