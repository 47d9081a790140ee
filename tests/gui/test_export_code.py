"""File > Export > code writes what ``codegen`` writes: the C source with its header, the Python
module, the folder of MATLAB files; and the C compiles and agrees with the numeric dynamics."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from designer.cli import main
from designer.project.io import save_project
from tests.support import robot_path
from tests.support.windows import open_window


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, robot_path("planar_two_link"))
    with qtbot.waitSignal(w.derivation.derivationFinished, timeout=120_000):
        w.derivation.start()
    return w


def _cli(window, tmp_path, lang: str, out: Path) -> None:
    project = tmp_path / "project.json"
    save_project(window.document.model, project)
    assert main(["codegen", str(project), "--lang", lang, "--out", str(out), "--quiet"]) == 0


def _tree(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}


def test_c_export_is_the_commands_source_and_header(qtbot, window, tmp_path):
    from designer.gui import export
    (tmp_path / "gui").mkdir()
    (tmp_path / "cli").mkdir()
    with qtbot.waitSignal(window.exported, timeout=120000):
        assert export.export_code(window, "c", tmp_path / "gui" / "arm.c")
    _cli(window, tmp_path, "c", tmp_path / "cli" / "arm.c")
    gui, cli = _tree(tmp_path / "gui"), _tree(tmp_path / "cli")
    assert sorted(gui) == ["arm.c", "arm.h"] and gui == cli
    assert '#include "arm.h"' in gui["arm.c"] and "_coriolis_matrix(" in gui["arm.h"]
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    run = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-shared", "-fPIC",
                          str(tmp_path / "gui" / "arm.c"), "-o", str(tmp_path / "libarm.so"), "-lm"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lib = ctypes.CDLL(str(tmp_path / "libarm.so"))
    prefix = gui["arm.h"].split("void ")[1].split("_tau(")[0]
    from designer.kinematics import NumericArm
    from designer.numeric import rnea
    arm = NumericArm.from_model(window.document.model)
    dbl = ctypes.POINTER(ctypes.c_double)
    q, qd, qdd = np.random.default_rng(3).normal(size=(3, 2))
    out = np.zeros(2)
    getattr(lib, f"{prefix}_tau")(*(np.ascontiguousarray(a).ctypes.data_as(dbl) for a in (q, qd, qdd)), None,
                                  out.ctypes.data_as(dbl))
    np.testing.assert_allclose(out, rnea(arm, q, qd, qdd), rtol=1e-12, atol=1e-12)


def test_matlab_export_is_the_commands_folder(qtbot, window, tmp_path):
    from designer.gui import export
    with qtbot.waitSignal(window.exported, timeout=120000):
        assert export.export_code(window, "matlab", tmp_path / "gui")
    _cli(window, tmp_path, "matlab", tmp_path / "cli")
    gui = _tree(tmp_path / "gui")
    assert gui == _tree(tmp_path / "cli")
    prefix = next(name for name in gui if name.endswith("_coriolis_matrix.m"))[:-len("coriolis_matrix.m")]
    # the project's symbolic parameters: tau's parameter-only work in a prepare step (docs/codegen.md)
    assert sorted(gui) == sorted(prefix + f + ".m" for f in ("tau", "mass_matrix", "gravity", "bias", "coriolis_matrix",
                                                            "regressor", "prepare"))


def test_python_export_has_the_bias_and_the_coriolis_matrix(qtbot, window, tmp_path):
    from designer.gui import export
    with qtbot.waitSignal(window.exported, timeout=120000):
        assert export.export_code(window, "python", tmp_path / "arm.py")
    scope: dict = {}
    exec((tmp_path / "arm.py").read_text(encoding="utf-8"), scope)  # our own output: numpy only
    q, qd = np.random.default_rng(4).normal(size=(2, 2))
    np.testing.assert_allclose(scope["coriolis_matrix"](q, qd) @ qd, scope["bias"](q, qd), atol=1e-12)
