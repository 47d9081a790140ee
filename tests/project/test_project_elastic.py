"""Project format version 3: a drive's stiffness and damping (elastic joints)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from designer.model import Drive
from designer.model.validation import Severity, validate
from designer.project import ProjectError, from_dict, to_dict
from designer.project.io import dumps_project
from tests.project.test_project_v2 import doc


def test_stiffness_and_damping_read_and_write_back_as_version_3():
    d = doc(version=3)
    d["links"][0]["drive"] = {"gear_ratio": 100, "motor_inertia": 1.2e-5, "stiffness": "2.5e4", "damping": 3}
    model = from_dict(d)
    assert model.links[0].drive.stiffness == 2.5e4 and model.links[0].drive.damping == 3.0
    out = to_dict(model)
    assert out["version"] == 3 and out["links"][0]["drive"]["stiffness"] == 2.5e4
    assert from_dict(json.loads(dumps_project(model))) == model


def test_a_project_without_elastic_joints_is_still_written_as_version_2():
    d = doc(version=2)
    d["links"][0]["drive"] = {"gear_ratio": 100}
    assert to_dict(from_dict(d))["version"] == 2
    assert to_dict(from_dict(doc(version=3)))["version"] == 2


@pytest.mark.parametrize("version", [2, 1])
def test_older_versions_refuse_the_elastic_fields(version):
    d = doc(version=version)
    d["links"][1]["drive"] = {"stiffness": 1e4}
    with pytest.raises(ProjectError, match=r"links\[2\]"):
        from_dict(d)


@pytest.mark.parametrize("value, message", [(0, "positive"), (-5, "negative"), ("k +", "syntax"),
                                            ("q1", "joint variable")])
def test_a_bad_stiffness_names_its_place(value, message):
    d = doc(version=3)
    d["links"][0]["drive"] = {"stiffness": value}
    with pytest.raises(ProjectError, match=r"links\[1\]\.drive\.stiffness.*" + message):
        from_dict(d)


def test_validation_of_drives_built_in_python():
    model = from_dict(doc(version=3))
    bad = model.with_link(0, dataclasses.replace(model.links[0], drive=Drive(stiffness=-1.0, damping=float("nan"))))
    problems = {p.where: p for p in validate(bad)}
    assert problems["links[1].drive.stiffness"].severity is Severity.ERROR
    assert problems["links[1].drive.damping"].severity is Severity.ERROR
    soft = model.with_link(0, dataclasses.replace(model.links[0], drive=Drive(stiffness=1e3)))
    assert "motor_inertia" in {p.where: p for p in validate(soft)}["links[1].drive.stiffness"].message
    assert np.isfinite(soft.links[0].drive.stiffness)
