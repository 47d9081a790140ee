"""The review's text (issue 32, item 5): a unit the joint's kind decides is said by the joint, and a deflection says
what it includes (the window's read-out "tool sag" is the gearboxes' share without the payload)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from designer.model.requirements import Payload, Requirement, Requirements, Where
from designer.project import load_project
from designer.review import review

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def test_units_by_the_joint_s_kind():
    scara = load_project(ROBOTS / "scara.json")   # joints R R P R
    reqs = (Requirement("gravity[3]", "<=", 1e6), Requirement("gravity[2]", "<=", 1e6),
            Requirement("gravity", "<=", 1e6), Requirement("peak_torque[3]", "<=", 1e6),
            Requirement("peak_torque[1]", "<=", 1e6))
    out = review(replace(scara, requirements=Requirements(reqs)))
    assert [o.unit for o in out[:3]] == ["N", "N m", "N m or N"]   # the worst over R and P joints: both
    assert out[3].unit == "N" and out[4].unit == "N m"
    # the prismatic joint carries the weight of what it lifts: |G_3| = (m3 + m4) g (the SCARA's axis is vertical)
    assert out[0].value == pytest.approx((1.0 + 0.5) * 9.81, rel=1e-9)


def _tube(payload=None):
    tube = load_project(ROBOTS / "tube_arm_requirements.json")
    r = (Requirement("deflection", "<=", 1e6, Where("poses", ((0.3, -0.5, 1.0),))),)
    return replace(tube, requirements=Requirements(r, payload, None))


def test_deflection_note_and_the_payload_s_share():
    bare, loaded = review(_tube())[0], review(_tube(Payload(4.0, (0, 0, 0.05))))[0]
    assert "gearboxes' share plus the links' bending" in bare.note and "payload" not in bare.note.split(":")[0]
    assert "the 4 kg payload" in loaded.note and "read-out says the gearboxes' share without the payload" in loaded.note
    assert loaded.value > bare.value   # the payload adds sag
    assert np.isfinite(bare.value)


def test_the_table_says_the_notes_once_with_their_requirements(capsys):
    from designer.cli import main
    main(["review", str(ROBOTS / "tube_arm_requirements.json")])
    out = capsys.readouterr().out
    assert "note (requirement 1): tool sag under gravity on the arm and the 5 kg payload" in out
    assert out.count("cycle of quintic moves sharing 3 s") == 1
