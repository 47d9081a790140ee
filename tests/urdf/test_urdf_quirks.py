"""URDFs as other tools write them: quirks that must give a model that opens, or one line naming the joint."""

from __future__ import annotations

import pytest

from designer.project import dumps_project, loads_project
from designer.urdf import UrdfError
from designer.urdf import import_urdf

_LINK = ('<link name="{n}"><inertial><origin xyz="0.1 0 0"/><mass value="1"/>'
         '<inertia ixx="{ixx}" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>')
_JOINT = ('<joint name="{n}" type="revolute"><parent link="{p}"/><child link="{c}"/>'
          '<origin xyz="0 0 0.2" rpy="0.4 0 0"/><axis xyz="{axis}"/>'
          '<limit lower="{lo}" upper="{hi}" effort="10" velocity="1"/></joint>')


def _urdf(tmp_path, ixx="0.01", axis="0 0 1", lo="-3", hi="3"):
    text = ('<?xml version="1.0"?><robot name="q"><link name="base"/>' +
            _LINK.format(n="l1", ixx="0.01") + _LINK.format(n="l2", ixx=ixx) +
            _JOINT.format(n="j1", p="base", c="l1", axis="0 0 1", lo=lo, hi=hi) +
            _JOINT.format(n="j2", p="l1", c="l2", axis=axis, lo="-3", hi="3") + "</robot>")
    path = tmp_path / "arm.urdf"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_plain_file_imports_and_opens(tmp_path):
    model = loads_project(dumps_project(import_urdf(_urdf(tmp_path)).model))
    assert len(model.links) == 2 and model.links[0].limits is not None


def test_an_inertia_that_is_not_positive_semi_definite_is_refused_naming_the_link(tmp_path):
    # before: the import succeeded and wrote a project file that the loader then refused
    with pytest.raises(UrdfError, match=r"link 'l2' \(moved by joint 'j2'\), inertia: not positive semi-definite"):
        import_urdf(_urdf(tmp_path, ixx="-0.01"))


def test_limits_with_lower_above_upper_are_left_out_with_a_warning(tmp_path):
    report = import_urdf(_urdf(tmp_path, lo="3", hi="-3"))
    assert report.model.links[0].limits is None
    assert any("joint 'j1'" in w and "lower 3 > upper -3" in w for w in report.warnings)


def test_equal_limits_are_the_no_limits_placeholder_without_a_warning(tmp_path):
    report = import_urdf(_urdf(tmp_path, lo="0", hi="0"))
    assert report.model.links[0].limits is None and not report.warnings


def test_a_nan_axis_is_named_as_such(tmp_path):
    with pytest.raises(UrdfError, match=r"joint 'j2': <axis xyz=\"nan 0 1\">: must be 3 finite numbers"):
        import_urdf(_urdf(tmp_path, axis="nan 0 1"))
