"""What cannot be represented is refused with one line naming the joint or link."""

from __future__ import annotations

import re

import pytest

from designer.cli import main
from designer.urdf import UrdfError, import_urdf

LINK = '<link name="{n}"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial></link>'


def robot(*joints: str, links=("a", "b", "c", "d"), bare=()) -> str:
    body = "".join(f'<link name="{n}"/>' if n in bare else LINK.format(n=n) for n in links)
    return f'<robot name="r">{body}{"".join(joints)}</robot>'


def joint(name, kind, parent, child, extra=""):
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="0 0 0.3"/><axis xyz="0 1 0"/><limit effort="10" velocity="2" lower="-1" upper="1"/>'
            f'{extra}</joint>')


CHAIN = [joint("j1", "revolute", "a", "b"), joint("j2", "revolute", "b", "c"), joint("j3", "continuous", "c", "d")]


def write(tmp_path, text: str, name: str = "r.urdf"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_plain_chain_imports(tmp_path):
    report = import_urdf(write(tmp_path, robot(*CHAIN)))
    assert [l.joint_name for l in report.model.links] == ["j1", "j2", "j3"]
    assert report.model.links[2].limits is None and report.model.links[0].limits is not None


@pytest.mark.parametrize("text,fragment", [
    (robot(CHAIN[0], joint("j2", "revolute", "b", "c", '<mimic joint="j1"/>'), CHAIN[2]),
     "joint 'j2' mimics joint 'j1'"),
    (robot(CHAIN[0], joint("j2", "floating", "b", "c"), CHAIN[2]), "joint 'j2' is floating"),
    (robot(CHAIN[0], joint("j2", "planar", "b", "c"), CHAIN[2]), "joint 'j2' is planar"),
    (robot(*CHAIN, joint("j4", "revolute", "a", "d")), "closed loop: link 'd' is the child of joints 'j3' and 'j4'"),
    (robot(*CHAIN, links=("a", "b", "c", "d", "e")), "separate trees"),
    # two chains of one joint each part at the base: two arms, not fingers
    (robot(CHAIN[0], joint("j2", "revolute", "a", "c"), links=("a", "b", "c")),
     "equally long chains of 1 moving joint, parting at 'a', to 'b', 'c': name the tip (--tip b or --tip c)"),
    (robot(*CHAIN, bare=("c",)), "link 'c' (moved by joint 'j2')"),
    ('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:macro name="m"/></robot>', "run xacro first"),
    ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "yyyy">]><robot name="r">&x;</robot>', "document type declaration"),
    ("<robot name='r'><link name='a'>", "not valid XML"),
    ("<model/>", "not a URDF"),
    (robot(joint("j1", "revolute", "a", "b", ""), links=("a", "b")).replace('xyz="0 1 0"', 'xyz="0 0 0"'),
     "axis is zero"),
])
def test_refused_with_a_message_naming_the_joint(tmp_path, text, fragment):
    with pytest.raises(UrdfError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        import_urdf(write(tmp_path, text))


def test_default_tip_is_where_a_moving_chain_branches(tmp_path):
    report = import_urdf(write(tmp_path, robot(CHAIN[0], joint("j2", "revolute", "b", "c"),
                                               joint("j3", "revolute", "b", "d"))))
    assert report.chain.tip == "b" and report.chain.locked == ["j2", "j3"] or report.chain.locked == ["j3", "j2"]
    assert float(report.model.links[0].mass) == 3.0  # b with c and d lumped in


def test_missing_inertial_may_import_massless(tmp_path):
    report = import_urdf(write(tmp_path, robot(*CHAIN, bare=("c",))), massless=True)
    assert report.model.links[1].mass == 0 and "imported massless" in report.text()


def test_tip_must_be_below_base(tmp_path):
    with pytest.raises(UrdfError, match="not below link 'c'"):
        import_urdf(write(tmp_path, robot(*CHAIN)), base="c", tip="b")
    with pytest.raises(UrdfError, match="no link named 'zz'"):
        import_urdf(write(tmp_path, robot(*CHAIN)), tip="zz")


def test_cli_refuses_with_exit_2_and_one_line(tmp_path, capsys):
    assert main(["import-urdf", str(write(tmp_path, robot(*CHAIN, joint("j4", "revolute", "a", "d"))))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "closed loop" in err


def test_cli_import_then_export(tmp_path, capsys):
    project = tmp_path / "p.json"
    assert main(["import-urdf", str(write(tmp_path, robot(*CHAIN))), "--convention", "modified",
                 "--out", str(project)]) == 0
    assert "imported" in capsys.readouterr().err
    assert main(["export-urdf", str(project), "--out", str(tmp_path / "back.urdf")]) == 0
    assert import_urdf(tmp_path / "back.urdf", tip="tool").model.n == 3


def test_export_names_a_symbol_without_value(tmp_path, capsys):
    project = tmp_path / "p.json"
    project.write_text('{"format": "manipulator-designer", "version": 2, '
                       '"links": [{"joint": "R", "a": "L", "mass": 1}]}')
    assert main(["export-urdf", str(project)]) == 2
    assert "symbol(s) without a value: L" in capsys.readouterr().err


@pytest.mark.parametrize("text,fragment", [
    # before: yourdfpy's bare KeyError or ValueError ("cannot read the URDF: 'name'", "could not convert
    # string to float: 'heavy'", "'NoneType' object has no attribute 'get'"), naming nothing
    ('<robot><link name="a"/></robot>', "the <robot> element has no name attribute"),
    (robot(*CHAIN).replace('<link name="c">', "<link>"), "line 1: a <link> without a name attribute"),
    (robot(*CHAIN).replace('<joint name="j2" ', "<joint "), "a <joint> without a name attribute"),
    (robot(*CHAIN).replace('<joint name="j2" type="revolute">', '<joint name="j2">'), "joint 'j2': no type attribute"),
    (robot(*CHAIN).replace('<child link="c"/>', ""), "joint 'j2': no <child link="),
    (robot(*CHAIN).replace('<parent link="b"/>', ""), "joint 'j2': no <parent link="),
    (robot(*CHAIN).replace('<mass value="1"/>', '<mass value="heavy"/>', 1),
     "link 'a': <mass value=\"heavy\">: must be"),
    (robot(*CHAIN).replace('<origin xyz="0 0 0.3"/>', '<origin xyz="0 0.3"/>', 1),
     "joint 'j1': <origin xyz=\"0 0.3\">: must be 3 finite numbers"),
    (robot(*CHAIN).replace('<origin xyz="0 0 0.3"/>', '<origin xyz="1e400 0 0"/>', 1), "must be 3 finite numbers"),
    (robot(*CHAIN).replace('lower="-1"', 'lower="-pi"', 1),
     "joint 'j1': <limit lower=\"-pi\">: must be a finite number"),
    ('<robot name="r"></robot>', "the file defines no links"),
])
def test_malformed_elements_are_named(tmp_path, text, fragment):
    with pytest.raises(UrdfError, match=re.escape(fragment)):
        import_urdf(write(tmp_path, text))


def test_a_chain_longer_than_a_project_holds_is_refused_before_the_work(tmp_path):
    # before: 300 joints imported in 40 s into a project file that the loader then refused
    names = [f"l{k}" for k in range(70)]
    joints = [joint(f"j{k}", "revolute", names[k - 1], names[k]) for k in range(1, 70)]
    with pytest.raises(UrdfError, match="69 movable joints .* at most 64"):
        import_urdf(write(tmp_path, robot(*joints, links=names)))


def test_a_floating_joint_on_the_way_names_the_base_to_start_below_it(tmp_path):
    text = robot(joint("j1", "floating", "a", "b"), joint("j2", "revolute", "b", "c"),
                 joint("j3", "revolute", "c", "d"))
    with pytest.raises(UrdfError, match=re.escape("start the arm below it: --base b")):
        import_urdf(write(tmp_path, text))
    assert [l.joint_name for l in import_urdf(write(tmp_path, text), base="b").model.links] == ["j2", "j3"]
