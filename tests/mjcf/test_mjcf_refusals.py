"""Hostile and broken MJCF files are refused with one line naming the file (and the body or joint),
before MuJoCo's parser sees what it must not: entities, huge files, include loops, includes from
outside the model's folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from designer.mjcf import MjcfError, import_mjcf
from designer.mjcf import source

pytest.importorskip("mujoco")

ARM = """<mujoco model="m">{extra}<worldbody><body name="a" pos="{pos}"><joint name="j" type="{kind}"/>
<geom type="sphere" size="0.1"/><body name="b" pos="0.3 0 0"><joint name="k" axis="0 1 0"/>
<geom type="box" size="0.1 0.05 0.02"/></body></body></worldbody></mujoco>"""


def _arm(tmp_path, name="arm.xml", pos="0 0 0.1", kind="hinge", extra="", head=""):
    path = tmp_path / name
    path.write_text(head + ARM.format(pos=pos, kind=kind, extra=extra))
    return path


def _refused(path, *pattern):
    with pytest.raises(MjcfError) as info:
        import_mjcf(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    for p in pattern:
        assert p in message, message
    return message


def test_a_plain_arm_imports(tmp_path):
    assert import_mjcf(_arm(tmp_path)).model.n == 2


def test_entities_are_refused(tmp_path):
    laughs = '<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
    _refused(_arm(tmp_path, head=laughs), "document type declaration")
    external = '<?xml version="1.0"?><!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    _refused(_arm(tmp_path, head=external), "document type declaration")


def test_a_huge_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(source, "MAX_MJCF_BYTES", 2000)
    path = _arm(tmp_path, extra="<!--" + "x" * 3000 + "-->")
    _refused(path, "bytes")


def test_includes_together_may_not_exceed_the_size(tmp_path, monkeypatch):
    monkeypatch.setattr(source, "MAX_MJCF_BYTES", 2000)
    for k in range(3):
        (tmp_path / f"part{k}.xml").write_text("<mujoco><!--" + "x" * 800 + "--></mujoco>")
    path = _arm(tmp_path, extra="".join(f'<include file="part{k}.xml"/>' for k in range(3)))
    _refused(path, "bytes")


def test_include_loops_are_refused(tmp_path):
    (tmp_path / "b.xml").write_text('<mujoco><include file="c.xml"/></mujoco>')
    (tmp_path / "c.xml").write_text('<mujoco><include file="b.xml"/></mujoco>')
    _refused(_arm(tmp_path, extra='<include file="b.xml"/>'), "include loop")
    _refused(_arm(tmp_path, name="self.xml", extra='<include file="self.xml"/>'), "include loop")


def test_includes_outside_the_folder_are_refused(tmp_path):
    inner = tmp_path / "model"
    inner.mkdir()
    (tmp_path / "secret.xml").write_text("<mujoco/>")
    _refused(_arm(inner, extra='<include file="../secret.xml"/>'), "outside the model's folder")
    _refused(_arm(inner, name="abs.xml", extra=f'<include file="{tmp_path / "secret.xml"}"/>'), "outside")


def test_an_include_inside_the_folder_is_read(tmp_path):
    (tmp_path / "opt.xml").write_text('<mujoco><option gravity="0 0 -3.7"/></mujoco>')
    report = import_mjcf(_arm(tmp_path, extra='<include file="opt.xml"/>'))
    assert dict(report.model.parameters)["g"] == pytest.approx(3.7)   # Mars


def test_broken_files(tmp_path):
    _refused(_arm(tmp_path, pos="0 0 1e308"), '<body name="a"> pos="0 0 1e308"', "line 1")
    _refused(_arm(tmp_path, pos="0 0 zz"), "MuJoCo cannot read it")
    # MuJoCo's second line says where: the element and its line, kept in the one line of the refusal
    _refused(_arm(tmp_path, extra='<option iterations="2e+01"/>'), "MuJoCo cannot read it: XML Error: bad format in "
             "attribute 'iterations' (Element 'option', line 1)")
    (tmp_path / "robot.xml").write_text('<robot name="r"><link name="a"/></robot>')
    _refused(tmp_path / "robot.xml", "not an MJCF model")
    (tmp_path / "bad.xml").write_text("<mujoco><worldbody>")
    _refused(tmp_path / "bad.xml", "not valid XML")
    _refused(tmp_path / "none.xml", "no such file")
    _refused(_arm(tmp_path, kind="ball"), "'j' is ball")


def test_the_command_line_says_one_line_and_exits_2(tmp_path):
    path = _arm(tmp_path, head='<!DOCTYPE m [<!ENTITY a "x">]>')
    for command in ("import-mjcf", "import"):
        done = subprocess.run([sys.executable, "-m", "designer", command, str(path)], capture_output=True, text=True,
                              cwd=Path(__file__).parents[2])
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "document type" in done.stderr
