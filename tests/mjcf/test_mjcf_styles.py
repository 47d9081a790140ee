"""MJCF files written by hand in each style MJCF allows (tests/mjcf/files) and vendor arms
(tests/mjcf/files/vendor: robosuite's Kinova Gen3, dm_control's Jaco, with quaternions rounded to six
digits), imported and compared with MuJoCo's own compiled model: mj_fullM (with the armature as the
drives' N^2 Jm) and qfrc_bias at random states, the tip body's pose. The import reads rounded angles
as the exact ones they stand for, so it equals MuJoCo on the file with those written in full
(tests/support/exact_angles.py); with ``literal`` MuJoCo on the file as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.mjcf import import_mjcf
from designer.model import Convention

from tests.support.exact_angles import exact_mjcf
from tests.support.mjcf_reference import MujocoChain, compare_with_mujoco

FILES = Path(__file__).parent / "files"
# (file, tip, drop_rest)
CASES = [("frames.xml", None, False), ("defaults.xml", None, False),
         ("ur5e.xml", None, False), ("panda.xml", "hand", False), ("panda.xml", "hand", True),
         ("gen3.xml", None, False), ("iiwa14.xml", None, False),
         # a site as the tip: the tool flange Menagerie's files mark
         ("ur5e.xml", "attachment_site", False), ("gen3.xml", "pinch_site", False),
         ("vendor/kinova3_robosuite.xml", None, False), ("vendor/jaco_dm_control.xml", None, False),
         ("vendor/jaco_dm_control.xml", "wristsite", False)]
# the files that round angles, and by about how much (M, G and the tool pose relative)
ROUNDED = {"frames.xml": 3e-8, "panda.xml": 3e-8, "vendor/kinova3_robosuite.xml": 1e-5,
           "vendor/jaco_dm_control.xml": 6e-7}


@pytest.mark.parametrize("convention", list(Convention), ids=lambda c: c.value)
@pytest.mark.parametrize("name,tip,drop", CASES,
                         ids=[f"{c[0]}{'-' + c[1] if c[1] else ''}{'-drop' if c[2] else ''}" for c in CASES])
def test_import_matches_mujoco(name, tip, drop, convention, tmp_path):
    report = import_mjcf(FILES / name, tip=tip, convention=convention, drop_rest=drop)
    exact = tmp_path / "exact.xml"
    exact.write_text(exact_mjcf((FILES / name).read_text()))
    ref = MujocoChain(exact, report.chain.joints, report.chain.dropped)
    worst, pose = compare_with_mujoco(report.model, ref, report.chain.tip)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose, report.text())
    assert report.checked is not None and report.checked < 1e-12 and report.moved < 1e-12
    literal = import_mjcf(FILES / name, tip=tip, convention=convention, drop_rest=drop, literal=True)
    ref = MujocoChain(FILES / name, literal.chain.joints, literal.chain.dropped)
    worst, pose = compare_with_mujoco(literal.model, ref, literal.chain.tip)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose, literal.text())
    assert literal.as_written is None and not literal.moved and "--literal" not in literal.text()
    if name in ROUNDED:
        assert report.as_written is not None and ROUNDED[name] / 3 < report.as_written < ROUNDED[name] * 3, \
            report.text()
        [line] = [n for n in report.notes if "the file as written moves the link frames" in n]
        assert "--literal" in line
    else:
        assert report.as_written is None and "--literal" not in report.text()
