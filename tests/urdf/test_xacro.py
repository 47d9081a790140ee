"""xacro files: run by the xacro package in a limited child process, $(find) without ROS, hostile files refused.

The independent side: the same arm written out by hand as plain URDF (what the macros expand
to), imported the ordinary way.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from designer.urdf import UrdfError, import_urdf
from designer.urdf.pipeline import FileOptions, import_file
from designer.urdf.xacro_run import parse_package_options, parse_xacro_args

pytest.importorskip("xacro")

PARTS = """<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:macro name="arm_link" params="name length mass radius:=0.05">
    <link name="${name}">
      <inertial><origin xyz="0 0 ${length/2}" rpy="0 0 0"/><mass value="${mass}"/>
        <inertia ixx="${mass*(3*radius**2 + length**2)/12}" iyy="${mass*(3*radius**2 + length**2)/12}"
                 izz="${mass*radius**2/2}" ixy="0" ixz="0" iyz="0"/></inertial>
    </link>
  </xacro:macro>
</robot>
"""
ARM = """<?xml version="1.0"?>
<robot name="hand_arm" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:arg name="upper" default="0.4"/>
  <xacro:property name="upper" value="$(arg upper)"/>
  <xacro:property name="fore" value="0.3"/>
  <xacro:include filename="$(find my_parts)/urdf/parts.xacro"/>
  <xacro:include filename="joints.xacro"/>
  <link name="base"/>
  <xacro:arm_link name="upper_arm" length="${upper}" mass="2"/>
  <xacro:arm_link name="forearm" length="${fore}" mass="1.5" radius="0.04"/>
  <xacro:arm_link name="hand" length="0.1" mass="0.5"/>
  <xacro:rev name="shoulder" parent="base" child="upper_arm" xyz="0 0 0.1" axis="0 0 1"/>
  <xacro:rev name="elbow" parent="upper_arm" child="forearm" xyz="0 0 ${upper}" axis="0 1 0"/>
  <xacro:rev name="wrist" parent="forearm" child="hand" xyz="0.02 0 ${fore}" axis="0 1 0"/>
</robot>
"""
JOINTS = """<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:macro name="rev" params="name parent child xyz axis">
    <joint name="${name}" type="revolute"><parent link="${parent}"/><child link="${child}"/>
      <origin xyz="${xyz}" rpy="0 0 0"/><axis xyz="${axis}"/>
      <limit lower="${-pi}" upper="${pi}" effort="20" velocity="2"/></joint>
  </xacro:macro>
</robot>
"""


def _link(name, length, mass, radius=0.05):
    ixx = mass * (3 * radius ** 2 + length ** 2) / 12
    return (f'<link name="{name}"><inertial><origin xyz="0 0 {length / 2!r}"/><mass value="{mass}"/>'
            f'<inertia ixx="{ixx!r}" iyy="{ixx!r}" izz="{mass * radius ** 2 / 2!r}" ixy="0" ixz="0" iyz="0"/>'
            '</inertial></link>')


def _joint(name, parent, child, xyz, axis):
    return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}"/><axis xyz="{axis}"/>'
            '<limit lower="-3.141592653589793" upper="3.141592653589793" effort="20" velocity="2"/></joint>')


def expanded(upper: float) -> str:
    """The arm as plain URDF, written from the macros' definitions by hand."""
    return ('<robot name="hand_arm"><link name="base"/>' + _link("upper_arm", upper, 2)
            + _link("forearm", 0.3, 1.5, 0.04) + _link("hand", 0.1, 0.5)
            + _joint("shoulder", "base", "upper_arm", "0 0 0.1", "0 0 1")
            + _joint("elbow", "upper_arm", "forearm", f"0 0 {upper}", "0 1 0")
            + _joint("wrist", "forearm", "hand", "0.02 0 0.3", "0 1 0") + "</robot>")


@pytest.fixture
def workspace(tmp_path):
    """A ROS-style workspace: src/my_arm (the arm, package.xml) and src/my_parts (the macros)."""
    src = tmp_path / "ws" / "src"
    for pkg in ("my_arm", "my_parts"):
        (src / pkg / "urdf").mkdir(parents=True)
        (src / pkg / "package.xml").write_text(f"<package format='3'><name>{pkg}</name></package>")
    (src / "my_parts" / "urdf" / "parts.xacro").write_text(PARTS)
    (src / "my_arm" / "urdf" / "joints.xacro").write_text(JOINTS)
    (src / "my_arm" / "urdf" / "arm.urdf.xacro").write_text(ARM)
    return src


def _same(a, b):
    assert a.links == b.links
    assert (a.base, a.tool) == (b.base, b.tool)


@pytest.mark.parametrize("upper", [None, 0.55])
def test_xacro_imports_as_the_expanded_urdf(workspace, tmp_path, upper):
    args = {} if upper is None else {"upper": str(upper)}
    # my_parts is a sibling package: found only in the folder named (never by walking up the tree)
    report = import_file(workspace / "my_arm" / "urdf" / "arm.urdf.xacro",
                         FileOptions(xacro_args=args, package_paths=[str(workspace)]))
    plain = tmp_path / "plain.urdf"
    plain.write_text(expanded(0.4 if upper is None else upper))
    _same(report.model, import_urdf(plain).model)


def test_package_named_by_the_user_outside_the_tree(tmp_path, workspace):
    alone = tmp_path / "elsewhere"
    alone.mkdir()
    text = (workspace / "my_arm" / "urdf" / "arm.urdf.xacro").read_text()
    (alone / "arm.urdf.xacro").write_text(text.replace('filename="joints.xacro"',
                                                       'filename="$(find my_arm)/urdf/joints.xacro"'))
    with pytest.raises(UrdfError, match=r"my_parts.*--package-path"):
        import_file(alone / "arm.urdf.xacro")
    paths, named = parse_package_options([str(workspace), f"my_parts={workspace / 'my_parts'}"])
    report = import_file(alone / "arm.urdf.xacro", FileOptions(package_paths=paths, packages=named))
    plain = tmp_path / "plain.urdf"
    plain.write_text(expanded(0.4))
    _same(report.model, import_urdf(plain).model)


@pytest.mark.parametrize("body, message", [
    ('<xacro:include filename="self.xacro"/>', "nested more than"),
    ('<xacro:include filename="/etc/hostname"/>', "outside the file's folder"),
    ('<xacro:include filename="../secret.xacro"/>', "outside the file's folder"),
    ('<link name="${\'x\' * 10**10}"/>', "refused"),
    ('<link name="${().__class__}"/>', "refused"),
    ('<link name="$(arg nothing)"/>', "--xacro-arg nothing:=VALUE"),
    ('<xacro:include filename="$(find no_such_pkg)/a.xacro"/>', "no_such_pkg"),
    ('<link name="$(env HOME)"/>', "environment variables are not read"),
    ('<link name="$(eval __import__(\'os\').getcwd())"/>', "$(eval __import__('os'"),
    ('<link name="${open(\'/etc/hostname\')}"/>', "calling 'open'"),
])
def test_hostile_xacro_is_refused_with_one_line(tmp_path, body, message):
    folder = tmp_path / "pkg"
    folder.mkdir()
    (tmp_path / "secret.xacro").write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro"/>')
    path = folder / "self.xacro"
    path.write_text(f'<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">{body}</robot>')
    with pytest.raises(UrdfError) as info:
        import_file(path)
    text = str(info.value)
    assert message in text and str(path) in text and "\n" not in text


def test_entity_in_an_included_file_is_refused(tmp_path):
    (tmp_path / "inc.xacro").write_text('<!DOCTYPE r [<!ENTITY a "aaaa">]><robot xmlns:xacro="http://www.ros.org/wiki/xacro"/>')
    (tmp_path / "main.xacro").write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                                         '<xacro:include filename="inc.xacro"/></robot>')
    with pytest.raises(UrdfError, match="DOCTYPE"):
        import_file(tmp_path / "main.xacro")


@pytest.mark.parametrize("items", [["upper"], ["=3"], [":=3"]])
def test_bad_xacro_argument_is_named(items):
    with pytest.raises(UrdfError, match="name:=value"):
        parse_xacro_args(items)


def test_command_line_runs_xacro(workspace, tmp_path):
    out = tmp_path / "arm.json"
    xacro_file = str(workspace / "my_arm/urdf/arm.urdf.xacro")
    run = subprocess.run([sys.executable, "-m", "designer", "import-urdf", xacro_file, "--package-path", str(workspace),
                          "--xacro-arg", "upper:=0.55", "--out", str(out)], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert run.returncode == 0, run.stderr
    from designer.project import load_project
    plain = tmp_path / "plain.urdf"
    plain.write_text(expanded(0.55))
    _same(load_project(out), import_urdf(plain).model)
    bad = subprocess.run([sys.executable, "-m", "designer", "import-urdf", xacro_file,
                          "--package-path", str(tmp_path / "nowhere")], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "nowhere" in bad.stderr


def test_expansion_without_end_stops_before_the_cpu_limit(tmp_path, monkeypatch):
    """Macros calling macros ten-fold six levels deep (a million links): stopped by the count of elements expanded
    (xacro_worker.MAX_ELEMENTS), within a CPU limit of 2 s here (instead of 15), with one line, not left running."""
    from designer.urdf import xacro_run
    monkeypatch.setattr(xacro_run, "CPU_SECONDS", 2)
    macros = ['<xacro:macro name="m0"><link name="a"/></xacro:macro>']
    for level in range(1, 7):
        macros.append(f'<xacro:macro name="m{level}">' + f"<xacro:m{level - 1}/>" * 10 + "</xacro:macro>")
    path = tmp_path / "bomb.xacro"
    path.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">' + "".join(macros)
                    + "<xacro:m6/></robot>")
    with pytest.raises(UrdfError, match="more than 20000 elements expanded") as info:
        import_file(path)
    assert "\n" not in str(info.value)
