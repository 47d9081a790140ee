"""The model commands of the command line: info, validate, fk, and their error handling."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from designer.cli import main

ROOT = Path(__file__).resolve().parents[2]
PENDULUM = str(ROOT / "robots" / "double_pendulum.json")
L1, L2 = 1.0, 0.8  # the file's default values


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, doc, name="arm.json") -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def small_doc(**changes) -> dict:
    doc = {"format": "manipulator-designer", "version": 1, "gravity": [0, 0, -9.81],
           "links": [{"joint": "R", "a": 0.5, "mass": 1}]}
    doc.update(changes)
    return doc


# -- happy paths ------------------------------------------------------------------------------

def test_help_in_a_subprocess():
    proc = subprocess.run([sys.executable, "-m", "designer", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0
    for command in ("info", "validate", "fk"):
        assert command in proc.stdout
    assert proc.stderr == ""


def test_no_command_prints_help(capsys):
    code, out, _ = run(capsys)
    assert code == 0 and "usage:" in out


def test_info(capsys):
    code, out, err = run(capsys, "info", PENDULUM)
    assert code == 0 and err == ""
    assert out.startswith("Double pendulum: 2 links, standard DH convention")
    rows = [line.split() for line in out.splitlines() if line[:2] in ("1 ", "2 ")]
    assert rows[0][:4] == ["1", "upper", "R", "L1"] and rows[1][:4] == ["2", "lower", "R", "L2"]
    assert "gravity: [g, 0, 0]" in out
    assert "L2 = 0.8" in out


def test_validate(capsys, tmp_path):
    code, out, err = run(capsys, "validate", PENDULUM)
    assert code == 0 and err == ""
    assert out.strip().endswith("valid (2 links, 0 warning(s))")
    # warnings are printed but do not fail validation
    path = write(tmp_path, small_doc(links=[{"joint": "R", "mass": 0, "inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 3]]}]))
    code, out, err = run(capsys, "validate", path)
    assert code == 0
    assert "warning: links[1].inertia: breaks the triangle inequality" in out
    assert "warning: links[1].mass: massless link" in out
    assert "2 warning(s)" in out


@pytest.mark.parametrize("q", [(0.3, math.pi / 4), (-math.pi / 2, -0.5), (2.0, -2.5)])
def test_fk_by_hand_trigonometry(capsys, q):
    argv = ["fk", PENDULUM, f"--q={q[0]!r},{q[1]!r}"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    result = json.loads(out)
    q1, q2 = q
    elbow = [L1 * math.cos(q1), L1 * math.sin(q1), 0]
    tip = [elbow[0] + L2 * math.cos(q1 + q2), elbow[1] + L2 * math.sin(q1 + q2), 0]
    assert result["q"] == pytest.approx(list(q))
    assert result["tool_position"] == pytest.approx(tip, abs=1e-12)
    assert len(result["frames"]) == 3
    assert [row[3] for row in result["frames"][1][:3]] == pytest.approx(elbow, abs=1e-12)
    assert result["frames"][2][0][:2] == pytest.approx([math.cos(q1 + q2), -math.sin(q1 + q2)], abs=1e-12)
    np.testing.assert_allclose(result["joint_origins"], [[0, 0, 0], elbow], atol=1e-12)
    assert result["joint_axes"] == [[0, 0, 1], [0, 0, 1]]


@pytest.mark.parametrize("argv", [["--q", "pi/2", "-pi/4"], ["--q=pi/2,-pi/4"], ["--q", "pi/2,", "-pi/4"],
                                  ["--q", "-(-pi/2)", "-0.7853981633974483"]])
def test_fk_expression_forms(capsys, argv):
    code, out, err = run(capsys, "fk", PENDULUM, *argv)
    assert code == 0, err
    q1, q2 = math.pi / 2, -math.pi / 4
    tip = json.loads(out)["tool_position"]
    assert tip == pytest.approx([L1 * math.cos(q1) + L2 * math.cos(q1 + q2),
                                 L1 * math.sin(q1) + L2 * math.sin(q1 + q2), 0], abs=1e-12)


def test_fk_prismatic_and_modified(capsys, tmp_path):
    doc = small_doc(convention="modified",
                    links=[{"joint": "R", "mass": 1}, {"joint": "P", "a": 0.5, "alpha": "pi/2", "mass": 1}])
    code, out, _ = run(capsys, "fk", write(tmp_path, doc), "--q", "0.3", "0.2")
    assert code == 0
    c, s = math.cos(0.3), math.sin(0.3)
    # frame 2 = Rz(0.3) Tx(0.5) Rx(pi/2) Tz(0.2): z2 = R1 (-y) direction
    assert json.loads(out)["tool_position"] == pytest.approx([0.5 * c + 0.2 * s, 0.5 * s - 0.2 * c, 0], abs=1e-12)


# -- user errors: exit 2, one line on stderr, no traceback -----------------------------------------

def _bad_cases(tmp_path):
    return {
        "missing file": ["info", str(tmp_path / "nope.json")],
        "folder": ["validate", str(tmp_path)],
        "not json": ["info", write(tmp_path, "{ not json", "a.json")],
        "binary": ["validate", write(tmp_path, "\x00\x01", "b.json")],
        "wrong format": ["info", write(tmp_path, small_doc(format="other"), "c.json")],
        "newer": ["validate", write(tmp_path, small_doc(version=99), "d.json")],
        "hostile": ["info", write(tmp_path, small_doc(links=[{"joint": "R", "mass": "__import__('os')"}]), "e.json")],
        "negative mass": ["validate", write(tmp_path, small_doc(links=[{"joint": "R", "mass": -1}]), "f.json")],
        "too few q": ["fk", PENDULUM, "--q", "1"],
        "too many q": ["fk", PENDULUM, "--q", "1", "2", "3"],
        "bad q": ["fk", PENDULUM, "--q", "1", "foo(2)"],
        "symbol q": ["fk", PENDULUM, "--q", "1", "L1"],
        "hostile q": ["fk", PENDULUM, "--q", "__import__('os').system('true')", "1"],
        "huge q": ["fk", PENDULUM, "--q", "1e400", "1"],
        "infinite q": ["fk", PENDULUM, "--q", "tan(pi/2)", "1"],
        "complex q": ["fk", PENDULUM, "--q", "sqrt(-1)", "1"],
        "missing parameter": ["fk", write(tmp_path, small_doc(links=[{"joint": "R", "a": "L", "mass": 1}]), "g.json"),
                              "--q", "0"],
    }


def test_user_errors_exit_2_with_one_line(capsys, tmp_path):
    for case, argv in _bad_cases(tmp_path).items():
        code, out, err = run(capsys, *argv)
        assert code == 2, (case, code, out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (case, err)
        assert "Traceback" not in err and out == "", case


def test_messages_name_the_field(capsys, tmp_path):
    cases = _bad_cases(tmp_path)
    expect = {"hostile": "links[1].mass", "negative mass": "links[1].mass: must be >= 0", "bad q": "--q[2]",
              "symbol q": "--q[2]: must be a number", "infinite q": "--q[1]", "missing parameter": "L",
              "newer": "newer version", "missing file": "no such file"}
    for case, fragment in expect.items():
        _, _, err = run(capsys, *cases[case])
        assert fragment in err, (case, err)


def test_errors_in_a_subprocess_have_no_traceback(tmp_path):
    for argv in (["fk", PENDULUM, "--q", "tan(pi/2)", "1"], ["info", str(tmp_path / "missing.json")]):
        proc = subprocess.run([sys.executable, "-m", "designer", *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 2
        assert proc.stdout == ""
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["fk", PENDULUM])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["no-such-command"])
    assert info.value.code == 2


def test_read_json_refuses_nan_and_deep_nesting(tmp_path):
    from designer.cli.common import UserError, read_json
    assert read_json(write(tmp_path, '{"q": [1, 2.5]}', "ok.json"), "states") == {"q": [1, 2.5]}
    for name, text, fragment in [("nan.json", '{"q": [NaN]}', "NaN"), ("inf.json", '{"q": [-Infinity]}', "Infinity"),
                                 ("deep.json", "[" * 100000 + "]" * 100000, "not valid JSON"),
                                 ("bad.json", "{", "not valid JSON")]:
        with pytest.raises(UserError, match=fragment) as info:
            read_json(write(tmp_path, text, name), "states")
        assert str(info.value).startswith(str(tmp_path / name) + ": states is not valid JSON")
    with pytest.raises(UserError, match="cannot read states"):
        read_json(str(tmp_path / "missing.json"), "states")


def test_unwrapped_project_and_parameter_errors_still_exit_2(capsys, monkeypatch):
    from designer.cli import model_commands
    from designer.model import MissingParameterError
    from designer.project import ProjectError

    for exc in (ProjectError("links[1].a: bad", "x.json"), MissingParameterError(["L9"])):
        def fail(args, exc=exc):
            raise exc
        monkeypatch.setattr(model_commands, "cmd_info", fail)
        code, out, err = run(capsys, "info", PENDULUM)
        assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1
