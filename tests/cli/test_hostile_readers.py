"""Hostile robot descriptions through the readers in-process (generated with a fixed seed), and a handful
through the command line as a user runs it. Each ends in the reader's own error, one line naming the file,
or reads; the work each asks for is bounded before MuJoCo or the reader starts on it (a test waits for the
result: before the bounds, ``<replicate count="100000000">`` and ``<hfield nrow="100000" ncol="100000">``
kept MuJoCo busy past a minute)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from designer.errors import DesignerError
from designer.mjcf import MjcfError, import_mjcf
from designer.mjcf.source import MAX_REPLICATED, MAX_SAMPLES
from designer.urdf.pipeline import import_file
from tests.cli.test_hostile_files import MJCF_OK, URDF_OK

pytest.importorskip("mujoco")

ROOT = Path(__file__).resolve().parents[2]


def _mjcf(tmp_path: Path, asset: str = "", world: str = "", name: str = "arm.xml") -> Path:
    path = tmp_path / name
    path.write_text(MJCF_OK.replace("<worldbody>", f"<asset>{asset}</asset><worldbody>{world}"))
    return path


def _refused(path: Path, *words: str) -> str:
    with pytest.raises(MjcfError) as info:
        import_mjcf(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}: "), message
    for word in words:
        assert word in message, message
    return message


@pytest.mark.parametrize("world, words", [
    ('<replicate count="100000000" offset="0 0 0.01"><geom type="sphere" size="0.01"/></replicate>',
     ('<replicate count="100000000">', "1e+08")),
    ('<replicate count="1000"><replicate count="1000"><geom type="sphere" size="0.01"/></replicate></replicate>',
     ('<replicate count="1000">', "1e+06")),
], ids=["one", "nested"])
def test_a_replicate_beyond_the_bound_is_refused_before_mujoco(tmp_path, world, words):
    _refused(_mjcf(tmp_path, world=world), "line 2", *words, str(MAX_REPLICATED))


def test_a_replicate_within_the_bound_is_mujocos_to_read(tmp_path):
    """The bound counts elements as MuJoCo repeats them: 4 spheres in the world are read, and MuJoCo's model
    holds them (a geom count independent of ours)."""
    import mujoco
    path = _mjcf(tmp_path, world='<replicate count="4" offset="0 0.3 0"><geom type="sphere" size="0.01"/></replicate>')
    assert import_mjcf(path).model.n == 2
    assert mujoco.MjModel.from_xml_path(str(path)).ngeom == 4


@pytest.mark.parametrize("asset, words", [
    ('<hfield name="h" nrow="100000" ncol="100000" size="1 1 1 1"/>', '<hfield nrow="100000" ncol="100000">'),
    ('<texture name="t" type="2d" builtin="checker" width="100000" height="100000"/>',
     '<texture width="100000" height="100000">'),
], ids=["hfield", "texture"])
def test_an_allocation_beyond_the_bound_is_refused_before_mujoco(tmp_path, asset, words):
    _refused(_mjcf(tmp_path, asset=asset), words, str(MAX_SAMPLES))


# -- generated: attributes of a good file replaced by hostile text ------------------------------------
HOSTILE_TEXT = ["", " ", "nan", "-inf", "1e999", "1e308", "-1e308", "1 2", "1 2 3 4 5 6 7 8 9", "x", "0x10", "1_0",
                "9" * 5000, "a" * 20_000, "&amp;", "&#10;", "${__import__('os')}", "$(env HOME)", "../../../etc/passwd",
                "/dev/zero", "package://nope/x.stl", "-0", "5e-324", "1e-400"]


def _attributes(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every attribute value of ``text`` but the root's."""
    import re
    return [m.span(1) for m in re.finditer(r'="([^"]*)"', text)][1:]


def _mutations(text: str, seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    spans = _attributes(text)
    out = []
    for _ in range(count):
        start, end = rng.choice(spans)
        out.append(text[:start] + rng.choice(HOSTILE_TEXT).replace('"', "&quot;") + text[end:])
    return out


@pytest.mark.parametrize("kind, good, read, seed", [
    ("URDF", URDF_OK, import_file, 1), ("MJCF", MJCF_OK, import_mjcf, 2)])
def test_a_hostile_attribute_anywhere_ends_in_one_line_or_reads(tmp_path, kind, good, read, seed):
    path = tmp_path / ("arm.urdf" if kind == "URDF" else "arm.xml")
    path.write_text(good)
    read(path)   # the file as made reads: the mutations alone fail
    for k, text in enumerate(_mutations(good, seed, 40)):
        path.write_text(text)
        try:
            read(path)
        except DesignerError as exc:
            message = str(exc)
            assert "\n" not in message and str(path) in message and len(message) < 2000, (k, message[:400])


# -- a handful through the command line, as a user runs it ---------------------------------------------
def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "designer", *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def _one_line_exit_2(run: subprocess.CompletedProcess, name: str) -> None:
    assert run.returncode == 2, (run.returncode, run.stderr[-800:])
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and name in lines[0], run.stderr[-800:]
    assert "Traceback" not in run.stderr and run.stdout == ""


def test_command_line_a_file_name_with_a_line_break_is_one_line(tmp_path):
    """The file's name comes back in the message: a line break in it split the line in two."""
    path = tmp_path / "two\nlines.json"
    path.write_text("{}")
    _one_line_exit_2(_run("validate", str(path)), "two\\nlines.json")


def test_command_line_a_part_shape_of_the_wrong_kind_is_one_line(tmp_path):
    """derive of a project whose part shape is a list: a traceback (TypeError: unhashable type) before."""
    doc = json.loads((ROOT / "robots" / "tube_arm.json").read_text())
    doc["links"][0]["part"]["shape"] = ["tube"]
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "out.json"
    _one_line_exit_2(_run("derive", str(path), "--out", str(out)), "links[1].part.shape")
    assert not out.exists()


def test_command_line_a_replicate_beyond_the_bound_is_one_line(tmp_path):
    path = _mjcf(tmp_path, world='<replicate count="100000000"><geom type="sphere" size="0.01"/></replicate>')
    out = tmp_path / "out.json"
    _one_line_exit_2(_run("import", str(path), "--out", str(out)), "<replicate")
    assert not out.exists()


def test_a_line_break_or_long_value_a_file_gives_comes_back_escaped_and_short(tmp_path):
    """A URDF number holding ``&#10;&#13;`` came back with its line breaks (two lines on the terminal), a joint type
    of 20,000 letters came back whole: every DesignerError is one line, long runs kept to their ends."""
    from designer.urdf import UrdfError
    path = tmp_path / "arm.urdf"
    path.write_text(URDF_OK.replace('<mass value="1"/>', '<mass value="1&#10;&#13;2"/>', 1))
    with pytest.raises(UrdfError) as info:
        import_file(path)
    message = str(info.value)
    assert '<mass value="1\\n\\r2">' in message and "\n" not in message and "\r" not in message, message
    path.write_text(URDF_OK.replace('type="revolute"', f'type="{"a" * 20_000}"', 1))
    with pytest.raises(UrdfError) as info:
        import_file(path)
    message = str(info.value)
    assert "unknown joint type 'aaaa" in message and " ... " in message and len(message) < 1000, message[:1200]


def test_a_xacro_macro_that_doubles_each_level_is_stopped_by_its_element_count(tmp_path):
    """A macro calling itself twice per level, 40 levels (2^40 elements): stopped when it has expanded more
    than 20,000 elements (xacro_worker.MAX_ELEMENTS; the worker is not imported here), one line naming the
    macro. It ran into the 30 s wall-clock limit before, or the CPU limit, whichever a busy machine reached
    first."""
    pytest.importorskip("xacro")
    from designer.urdf import UrdfError
    path = tmp_path / "arm.urdf.xacro"
    path.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="base"/>'
                    '<xacro:macro name="m" params="n"><xacro:if value="${n > 0}"><xacro:m n="${n-1}"/>'
                    '<xacro:m n="${n-1}"/></xacro:if></xacro:macro><xacro:m n="40"/></robot>')
    with pytest.raises(UrdfError) as info:
        import_file(path)
    message = str(info.value)
    assert "more than 20000 elements expanded" in message and "in macro 'm'" in message, message
    assert str(path) in message


@pytest.mark.parametrize("trajectory, words", [
    ("/dev/zero", "not a regular file"),          # read until the memory ran out (24 GB, killed) before
    ("long.csv", "not a CSV table"),              # a field over the csv module's limit: csv.Error, a traceback
    ("latin1.csv", "not UTF-8 text"),
], ids=["device", "long field", "not UTF-8"])
def test_a_cycle_trajectory_that_is_no_csv_is_one_line(tmp_path, capsys, trajectory, words):
    from designer.cli import main
    doc = json.loads((ROOT / "robots" / "tube_arm_requirements.json").read_text())
    doc["cycle"] = {"trajectory": trajectory}
    (tmp_path / "long.csv").write_text("t,q1,q2,q3\n" + "1" * 200_000 + ",0,0,0\n")
    (tmp_path / "latin1.csv").write_bytes("t,q1,q2,q3\n0,0,0,0\n# \xe9\n".encode("latin-1"))
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(doc))
    code = main(["review", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"error: {path}: "), err[:500]
    assert "cycle.trajectory" in err and words in err, err[:500]


def test_a_catalog_beside_the_project_with_a_number_of_5000_digits_is_one_line(tmp_path, capsys):
    """json's ValueError for a number beyond 4300 digits came out of the catalog reader as a traceback."""
    from designer.cli import main
    doc = json.loads((ROOT / "robots" / "tube_arm_requirements.json").read_text())
    doc["links"][0]["drive"] = {"gearbox": "NPT025-MF-5", "motor": "SGMSH-10A"}
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(doc))
    (tmp_path / "big.catalog.json").write_text('{"format": "manipulator-designer catalog", "version": 1, '
                                               '"gearboxes": [{"name": "G", "ratio": ' + "9" * 5000 + "}]}")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "big.catalog.json: not JSON: a number of more than 4300 digits" in err, err


def test_a_catalog_that_is_a_device_is_one_line(capsys):
    """``catalog --catalog /dev/zero``: its size is 0, and it was read without end."""
    from designer.cli import main
    assert main(["catalog", "--catalog", "/dev/zero"]) == 2
    err = capsys.readouterr().err
    assert err == "error: /dev/zero: the catalog is not a regular file (a device or a pipe)\n", err


@pytest.mark.parametrize("value", ["nan", "1e999", "9" * 5000], ids=["nan", "1e999", "5000 digits"])
def test_a_trajectory_value_that_is_not_finite_is_refused_naming_line_and_column(tmp_path, capsys, value):
    """float() reads these as nan or inf: explore sizing went on with them, printed numpy's RuntimeWarnings
    (five more lines) and exited 0 with a table of nan."""
    from designer.cli import main
    csv_path = tmp_path / "traj.csv"
    csv_path.write_text(f"t,q1,q2,q3\n0,0,0,0\n1,{value},0,0\n2,0,0,0\n")
    code = main(["explore", str(ROOT / "robots" / "tube_arm_requirements.json"), "sizing", "--trajectory",
                 str(csv_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err[:600]
    assert f"{csv_path}: line 3, column q1: not a finite number" in err, err
