"""Hostile and broken files through every reader of the command line: a project, a trajectory or torque
CSV, a states JSON, a regressor trajectory, URDF, xacro and MJCF. Each ends in exit 2 with exactly one line
on standard error that names the file, nothing on standard output, no traceback, and no output file.

The corpus is made here, per format, from the ways a file goes wrong: truncated, empty, binary garbage,
not UTF-8, a number beyond float (1e999), NaN and infinities, 1e308 where a length goes, deep nesting,
wrong types and missing keys, a 20 MB line, a link to /dev/zero, a folder where a file should be, XML
entities (billion laughs, external entities reading /etc/passwd), includes and packages outside the folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from designer.cli import main

ROOT = Path(__file__).resolve().parents[2]
PENDULUM = ROOT / "robots" / "double_pendulum.json"
TRAJ = ["q1", "q2", "qd1", "qd2", "qdd1", "qdd2"]

URDF_OK = """<?xml version="1.0"?>
<robot name="two">
  <link name="base"/>
  <link name="l1"><inertial><mass value="1"/><origin xyz="0.5 0 0"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l2"><inertial><mass value="1"/><origin xyz="0.5 0 0"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <origin xyz="0 0 0.1" rpy="0 0 0"/><limit effort="10" velocity="1" lower="-1" upper="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><axis xyz="0 0 1"/>
    <origin xyz="1 0 0" rpy="0 0 0"/><limit effort="10" velocity="1" lower="-1" upper="1"/></joint>
</robot>
"""

MJCF_OK = """<mujoco model="two">
  <worldbody>
    <body name="l1" pos="0 0 0.1">
      <joint name="j1" axis="0 0 1"/>
      <inertial pos="0.5 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      <body name="l2" pos="1 0 0">
        <joint name="j2" axis="0 0 1"/>
        <inertial pos="0.5 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""

XACRO_OK = URDF_OK.replace('<robot name="two">', '<robot name="two" xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
                           '  <xacro:property name="L" value="1"/>').replace('xyz="0 0 0.1"', 'xyz="0 0 ${L / 10}"')

LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
          + "".join(f'<!ENTITY lol{k} "{("&lol" + (str(k - 1) if k > 1 else "") + ";") * 10}">' for k in range(1, 10))
          + ']>\n')
EXTERNAL = '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'


def _xml_corpus(ok: str, root: str) -> dict[str, str | bytes]:
    """Ways an XML robot file goes wrong, from a good one (``root``: its root element)."""
    return {
        "truncated": ok[: len(ok) // 2],
        "billion laughs": LAUGHS + ok.replace('name="l1"', 'name="&lol9;"', 1).split("\n", 1)[1],
        "external entity": EXTERNAL + ok.replace('name="l1"', 'name="&xxe;"', 1).split("\n", 1)[1],
        "deep nesting": f"<{root}>" + "<a>" * 100_000 + "</a>" * 100_000 + f"</{root}>",
        "huge number": ok.replace('xyz="1 0 0"', 'xyz="1e999 0 0"').replace('pos="1 0 0"', 'pos="1e999 0 0"'),
        "nan": ok.replace('mass value="1"', 'mass value="nan"', 1).replace('mass="1"', 'mass="nan"', 1),
        "1e308 length": ok.replace('xyz="1 0 0"', 'xyz="1e308 0 0"').replace('pos="1 0 0"', 'pos="1e308 0 0"'),
        "wrong type": ok.replace('xyz="1 0 0"', 'xyz="one 0 0"').replace('pos="1 0 0"', 'pos="one 0 0"'),
        "not UTF-8": ok.replace('name="l2"', 'name="l\udcff2"').encode("utf-8", "surrogateescape"),
    }


def _json_corpus() -> dict[str, str | bytes]:
    doc = json.loads(PENDULUM.read_text())
    good = json.dumps(doc)
    bad_mass = json.loads(good)
    bad_mass["links"][0]["mass"] = {"nested": [1, 2]}
    no_links = {k: v for k, v in doc.items() if k != "links"}
    return {
        "truncated": good[: len(good) // 2],
        "nan": good.replace('"links": [', '"links": [{"joint": "R", "mass": NaN}, ', 1),
        "huge number": good.replace('"links": [', '"links": [{"joint": "R", "mass": 1e999}, ', 1),
        "deep nesting": "[" * 100_000 + "]" * 100_000,
        "wrong type": json.dumps(bad_mass),
        "missing key": json.dumps(no_links),
        "a list": "[1, 2, 3]",
        "not UTF-8": b'{"format": "\xff\xfe"}',
    }


def _csv_corpus(header: list[str]) -> dict[str, str | bytes]:
    """Ways a CSV table with these columns goes wrong (rows of 0.1 are valid data)."""
    head, row, width = ",".join(header), ",".join(["0.1"] * len(header)), len(header)
    return {
        "nan": f"{head}\n{row}\n" + ",".join(["nan"] * width) + "\n",
        "huge number": f"{head}\n{row}\n" + ",".join(["1e999"] * width) + "\n",
        "text in a cell": f"{head}\n{row}\n" + ",".join(["x"] * width) + "\n",
        "wrong width": f"{head}\n0.1\n",
        "header only": f"{head}\n",
        "missing column": ",".join(header[1:]) + "\n" + ",".join(["0.1"] * (width - 1)) + "\n",
        "not UTF-8": f"{head}\n".encode() + b"\xff\xfe,\x00\n",
    }


def _states_corpus() -> dict[str, str | bytes]:
    """Ways an ``eval --states`` file goes wrong."""
    good = {"states": [{"q": [0.1, 0.2], "qd": [0, 0], "qdd": [0, 0]}]}
    short = {"states": [{"q": [0.1], "qd": [0, 0], "qdd": [0, 0]}]}
    text = json.dumps(good)
    return {
        "truncated": text[: len(text) // 2],
        "nan": text.replace("0.1", "NaN"),
        "huge number": text.replace("0.1", "1e999"),
        "deep nesting": "[" * 100_000 + "]" * 100_000,
        "wrong type": text.replace("0.1", '"zero"'),
        "too few values": json.dumps(short),
        "missing key": json.dumps({"poses": good["states"]}),
        "not UTF-8": b'{"states": "\xff\xfe"}',
    }


def _common() -> dict[str, str | bytes | None]:
    """What any file can be: None stands for 'not a regular file' (made by the test)."""
    return {
        "empty": "",
        "binary garbage": bytes(range(256)) * 64,
        "20 MB line": "9" * 20_000_000,
        "/dev/zero": None,
        "a folder": None,
    }


def _place(tmp_path: Path, name: str, case: str, content) -> Path:
    path = tmp_path / "in" / name
    path.parent.mkdir(exist_ok=True)
    if case == "/dev/zero":
        os.symlink("/dev/zero", path)
    elif case == "a folder":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def _readers():
    """(reader, file name, corpus, argv(path, out))."""
    p = str(PENDULUM)
    xml_urdf, xml_mjcf, xml_xacro = _xml_corpus(URDF_OK, "robot"), _xml_corpus(MJCF_OK, "mujoco"), \
        _xml_corpus(XACRO_OK, "robot")
    xml_xacro["include outside"] = XACRO_OK.replace("</robot>", '<xacro:include filename="../../secret.xacro"/>'
                                                    "</robot>")
    xml_xacro["find outside"] = XACRO_OK.replace("</robot>", '<xacro:include filename="$(find etc)/passwd"/></robot>')
    xml_xacro["env"] = XACRO_OK.replace('value="1"', 'value="$(env HOME)"')
    xml_xacro["code"] = XACRO_OK.replace('value="1"', 'value="${[c for c in ().__class__.__base__.__subclasses__()]}"')
    xml_mjcf["include outside"] = MJCF_OK.replace("<worldbody>", '<include file="../../secret.xml"/><worldbody>')
    return [
        ("project", "arm.json", _json_corpus(), lambda f, o: ["derive", f, "--out", o]),
        ("trajectory CSV", "traj.csv", _csv_corpus(TRAJ), lambda f, o: ["torques", p, f, "--out", o]),
        ("torque CSV", "tau.csv", _csv_corpus(["t", "tau1", "tau2"]),
         lambda f, o: ["simulate", p, "--q0", "0", "0", "--t", "0.1", "--torque", f, "--out", o]),
        ("states JSON", "states.json", _states_corpus(), lambda f, o: ["eval", p, "--states", f]),
        ("regressor trajectory", "traj.csv", _csv_corpus(TRAJ), lambda f, o: ["regressor", p, "--trajectory", f]),
        ("URDF", "arm.urdf", xml_urdf, lambda f, o: ["import-urdf", f, "--out", o]),
        ("xacro", "arm.urdf.xacro", xml_xacro, lambda f, o: ["import-urdf", f, "--out", o]),
        ("MJCF", "arm.xml", xml_mjcf, lambda f, o: ["import-mjcf", f, "--out", o]),
    ]


CASES = [(reader, name, case, content, argv)
         for reader, name, corpus, argv in _readers()
         for case, content in {**_common(), **corpus}.items()]


@pytest.mark.parametrize("reader, name, case, content, argv", CASES,
                         ids=[f"{c[0]}: {c[2]}" for c in CASES])
def test_a_hostile_file_ends_in_one_line_and_creates_nothing(reader, name, case, content, argv, tmp_path, capsys):
    (tmp_path / "secret.xacro").write_text("<robot/>")
    (tmp_path / "secret.xml").write_text("<mujoco/>")
    path = _place(tmp_path, name, case, content)
    out = tmp_path / "out" / ("result.csv" if "CSV" in reader and reader != "regressor trajectory" else "result.json")
    out.parent.mkdir()
    code = main(argv(str(path), str(out)))
    got = capsys.readouterr()
    assert code == 2, (case, code, got.err[:300])
    lines = got.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), (case, got.err[:600])
    assert "Traceback" not in got.err and got.out == "", case
    assert name in lines[0] or str(path) in lines[0], (case, lines[0][:300])   # names the file
    assert "root:" not in got.err and len(lines[0]) < 2000, case                # nothing of /etc/passwd, short
    assert list(out.parent.iterdir()) == [], (case, list(out.parent.iterdir()))   # nothing created
