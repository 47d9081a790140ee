"""Starting the window: one clear message and exit status 1 whenever it cannot open (designer/launch.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from designer.launch import debian_package, diagnose_import_error, display_problem, missing_libraries

ROOT = Path(__file__).resolve().parents[1]


def test_no_display_is_named_with_the_xvfb_way_round():
    problem = display_problem({})
    assert problem is not None and "DISPLAY" in problem and "xvfb-run" in problem
    assert display_problem({"DISPLAY": ":99"}) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}) is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}) is None


def test_import_error_names_the_library_and_its_debian_package():
    msg = diagnose_import_error(ImportError("libGL.so.1: cannot open shared object file: No such file or directory"))
    assert "libGL.so.1" in msg and "libgl1" in msg and "make run" in msg
    msg = diagnose_import_error(ModuleNotFoundError("No module named 'PySide6'", name="PySide6"))
    assert "PySide6" in msg and "make run" in msg
    assert debian_package("libgomp.so.1") == "libgomp1"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed (make test installs it)")
def test_ldd_finds_a_library_that_is_gone(tmp_path):
    # a real shared object linked against a library that is then removed: ldd reports it "not found"
    (tmp_path / "gone.c").write_text("int gone(void) { return 1; }\n")
    (tmp_path / "user.c").write_text("int gone(void);\nint user(void) { return gone(); }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(tmp_path / "libgone.so.7"), str(tmp_path / "gone.c"),
                    "-Wl,-soname,libgone.so.7"], check=True)
    os.symlink("libgone.so.7", tmp_path / "libgone.so")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(tmp_path / "libuser.so"), str(tmp_path / "user.c"),
                    f"-L{tmp_path}", "-lgone", f"-Wl,-rpath,{tmp_path}"], check=True)
    assert missing_libraries([tmp_path / "libuser.so"]) == []
    (tmp_path / "libgone.so.7").unlink()
    assert missing_libraries([tmp_path / "libuser.so"]) == ["libgone.so.7"]


def _run_main(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py")], capture_output=True, text=True, env=env,
                          timeout=60, cwd=ROOT)


def test_main_without_a_display_fails_with_one_line():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    run = _run_main(env)
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "xvfb-run" in lines[0]


def test_main_with_qt_unable_to_load_names_the_library(tmp_path):
    # a PySide6 whose extension modules fail the way they do when libGL.so.1 is absent
    fake = tmp_path / "PySide6"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "QtCore.py").write_text(
        "raise ImportError('libGL.so.1: cannot open shared object file: No such file or directory')\n")
    env = dict(os.environ, DISPLAY=":12345", PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    env.pop("QT_QPA_PLATFORM", None)
    run = _run_main(env)
    assert run.returncode == 1, run.stderr
    assert "libGL.so.1" in run.stderr and "libgl1" in run.stderr and "Traceback" not in run.stderr
