"""A project's name goes into comments and docstrings of generated code. A name from a stranger's file
holding a newline, a docstring's end or a C comment's end put code into the generated module: the
module ran ``INJECTED = 1`` on import, and the C header declared ``int evil``."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess

import pytest

from designer.cli import main
from tests.support.codegen import generate
from designer.codegen.matlab_code import emit_matlab
from designer.codegen.plan import plan_code
from designer.dynamics import Method, derive
from designer.model import Link, Manipulator

EVIL = 'arm */ int evil; /* """\nINJECTED = 1\n\'\'\' \\ %{\r\n}%'


def _model() -> Manipulator:
    return Manipulator(links=(Link(a=0.3, alpha=0.4, mass=1.0, com=(0.1, 0, 0)), Link(a=0.2, mass=0.5)),
                       name=EVIL, gravity=(0, 0, -9.81))


def test_python_module_runs_no_line_of_the_name(tmp_path):
    path = tmp_path / "arm.py"
    path.write_text(generate(derive(_model(), Method.NEWTON_EULER), "python"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("arm_injected", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert not hasattr(module, "INJECTED")
    assert module.tau([0.1, 0.2], [0, 0], [0, 0]).shape == (2,)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_c_declares_nothing_from_the_name(tmp_path):
    source = generate(derive(_model(), Method.NEWTON_EULER), "c", prefix="arm")
    (tmp_path / "arm.c").write_text(source, encoding="utf-8")
    run = subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-c", str(tmp_path / "arm.c"), "-o",
                          str(tmp_path / "arm.o")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    symbols = subprocess.run(["nm", str(tmp_path / "arm.o")], capture_output=True, text=True).stdout
    assert "evil" not in symbols


def test_matlab_keeps_the_name_on_comment_lines():
    files = emit_matlab(plan_code(derive(_model(), Method.NEWTON_EULER)))
    for text in files.values():
        assert all(line.lstrip().startswith("%") for line in text.splitlines() if "INJECTED" in line)


def test_linearize_python_runs_no_line_of_the_name(tmp_path, capsys):
    project = tmp_path / "arm.json"
    project.write_text(json.dumps({"format": "manipulator-designer", "version": 2, "name": EVIL,
                                   "gravity": [0, 0, -9.81], "links": [
                                       {"joint": "R", "a": 0.3, "alpha": 0.4, "mass": 1.0, "com": [0.1, 0, 0]},
                                       {"joint": "R", "a": 0.2, "mass": 0.5}]}))
    assert main(["linearize", str(project), "--q", "0.1", "0.2", "--format", "python"]) == 0
    space: dict = {}
    exec(compile(capsys.readouterr().out, "linearized.py", "exec"), space)
    assert "INJECTED" not in space and "A" in space
