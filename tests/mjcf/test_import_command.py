"""`import` decides by the file: URDF by a .urdf name or a <robot> top element (whatever the suffix),
MJCF by <mujoco>; anything else is one line naming the top element."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.cli import main
from designer.mjcf import import_mjcf
from designer.project import load_project
from designer.urdf import import_urdf

pytest.importorskip("mujoco")
FILES = Path(__file__).parent / "files"
URDF = """<?xml version="1.0"?>
<!-- a comment first, as generated files have -->
<robot name="r"><link name="base"/><link name="l1"><inertial><mass value="1"/>
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><origin xyz="0 0 0.1" rpy="0 0 0"/>
<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>"""


def test_import_decides_by_the_top_element(tmp_path, capsys):
    urdf = tmp_path / "robot.xml"          # a URDF with an .xml name
    urdf.write_text(URDF)
    out = tmp_path / "a.json"
    assert main(["import", str(urdf), "--out", str(out)]) == 0
    assert load_project(out) == import_urdf(urdf).model
    out = tmp_path / "b.json"
    assert main(["import", str(FILES / "iiwa14.xml"), "--convention", "modified", "--out", str(out)]) == 0
    assert load_project(out) == import_mjcf(FILES / "iiwa14.xml", convention="modified").model
    other = tmp_path / "scene.xml"
    other.write_text("<?xml version='1.0'?><sdf version='1.6'><model name='m'/></sdf>")
    capsys.readouterr()
    assert main(["import", str(other)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "<sdf>" in err and "neither URDF nor MJCF" in err
