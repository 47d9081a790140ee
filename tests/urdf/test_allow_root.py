"""--allow-root for URDF: a xacro file including a file outside its folder is refused, naming the
folder to allow; with the folder allowed it imports (docs/urdf.md)."""

from __future__ import annotations

import pytest

from designer.cli import main

pytest.importorskip("xacro")

PARTS = """<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:macro name="part" params="name">
    <link name="${name}"><inertial><mass value="1"/><origin xyz="0.1 0 0"/>
      <inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial></link>
  </xacro:macro>
</robot>"""

ARM = """<robot name="arm" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:include filename="../common/parts.xacro"/>
  <xacro:part name="base"/>
  <xacro:part name="l1"/>
  <joint name="j1" type="continuous"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/></joint>
</robot>"""


def write(tmp_path):
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "parts.xacro").write_text(PARTS)
    (tmp_path / "robot").mkdir()
    path = tmp_path / "robot" / "arm.urdf.xacro"
    path.write_text(ARM)
    return path


def test_xacro_include_outside_needs_allow_root(tmp_path, capsys):
    path = write(tmp_path)
    out = tmp_path / "p.json"
    assert main(["import-urdf", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "outside the file's folder" in err and not out.exists()
    assert main(["import-urdf", str(path), "--allow-root", str(tmp_path / "common"), "--out", str(out)]) == 0
    assert "1 joints from 'base' to 'l1'" in capsys.readouterr().err and out.is_file()
