"""MJCF files written by hand in each style MJCF allows (tests/mjcf/files), imported and compared
with MuJoCo's own compiled model of the file: mj_fullM (with the armature as the drives' N^2 Jm)
and qfrc_bias at random states, the tip body's pose."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.mjcf import import_mjcf
from designer.model import Convention

from tests.support.mjcf_reference import MujocoChain, compare_with_mujoco

FILES = Path(__file__).parent / "files"
# (file, tip, drop_rest)
CASES = [("frames.xml", None, False), ("defaults.xml", None, False),
         ("ur5e.xml", None, False), ("panda.xml", "hand", False), ("panda.xml", "hand", True),
         ("gen3.xml", None, False), ("iiwa14.xml", None, False),
         # a site as the tip: the tool flange Menagerie's files mark
         ("ur5e.xml", "attachment_site", False), ("gen3.xml", "pinch_site", False)]


@pytest.mark.parametrize("convention", list(Convention), ids=lambda c: c.value)
@pytest.mark.parametrize("name,tip,drop", CASES,
                         ids=[f"{c[0]}{'-' + c[1] if c[1] else ''}{'-drop' if c[2] else ''}" for c in CASES])
def test_import_matches_mujoco(name, tip, drop, convention):
    report = import_mjcf(FILES / name, tip=tip, convention=convention, drop_rest=drop)
    ref = MujocoChain(FILES / name, report.chain.joints, report.chain.dropped)
    worst, pose = compare_with_mujoco(report.model, ref, report.chain.tip)
    assert worst < 1e-9 + 10 * report.moved and pose < 1e-12 + 10 * report.moved, (worst, pose, report.text())
    assert report.checked is not None and report.checked < 1e-9 + 10 * report.moved
