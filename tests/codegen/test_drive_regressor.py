"""``codegen --drives``: the generated regressor has the drive parameters' columns after the ten
standard parameters per link, in the numeric regressor's order, so that Y pi (pi: the standard
parameters, then Ia, fv and fc of the joints with drive data) is the generated tau with its drive
terms, in Python, C and MATLAB; with the base parameters too."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from designer.cli import main
from designer.kinematics import NumericArm
from designer.model import Convention, Drive, Manipulator
from designer.identification.regressor import drive_regressor, regressor
from designer.dynamics.inertial import drive_parameter_values, standard_parameter_values
from designer.project import load_project
from designer.project.io import save_project
from tests.support import robot_path
from tests.support.random_models import random_model


def with_drives(model: Manipulator, skip: int) -> Manipulator:
    """``model`` with drive data on every joint but ``skip`` (0-based): the columns must follow the
    joints that have data, not the joint numbers."""
    links = tuple(link if j == skip else
                  replace(link, drive=Drive(gear_ratio=40.0 + 7 * j, motor_inertia=1.5e-4 * (j + 1),
                                            viscous=0.4 + 0.3 * j, coulomb=0.1 * j + 0.05))
                  for j, link in enumerate(model.links))
    return replace(model, links=links)


def arms() -> dict[str, Manipulator]:
    return {"puma560": with_drives(load_project(robot_path("puma560")), skip=3),
            "random": with_drives(random_model(np.random.default_rng(21), 5, Convention.MODIFIED), skip=1)}


def numeric_parameters(model: Manipulator) -> np.ndarray:
    """pi of the numeric regressor with the drive columns: the standard parameters, then the drives'."""
    return np.concatenate([standard_parameter_values(NumericArm.from_model(model)), drive_parameter_values(model)])


def numeric_regressor(model: Manipulator, q, qd, qdd) -> np.ndarray:
    return np.concatenate([regressor(NumericArm.from_model(model), q, qd, qdd), drive_regressor(model, qd, qdd)],
                          axis=-1)


def codegen(model: Manipulator, tmp_path: Path, lang: str, out: str, *extra: str) -> Path:
    project = tmp_path / "arm.json"
    save_project(model, project)
    assert main(["codegen", str(project), "--lang", lang, "--drives", "--prefix", "arm", *extra,
                 "--out", str(tmp_path / out), "--quiet"]) == 0
    return tmp_path / out


def python_module(path: Path) -> dict:
    scope: dict = {}
    exec(path.read_text(encoding="utf-8"), scope)  # our own output: numpy only
    return scope


def states(n: int, count: int, seed: int) -> np.ndarray:
    """(3, n, count) random q, qd, qdd; qd away from 0, where sign(qd) jumps."""
    rng = np.random.default_rng(seed)
    Q, QD, QDD = rng.uniform(-2.5, 2.5, (3, n, count))
    QD += np.where(QD >= 0, 0.1, -0.1)
    return np.stack([Q, QD, QDD])


@pytest.mark.parametrize("name", ["puma560", "random"])
def test_python_regressor_with_drive_columns_gives_tau(name, tmp_path):
    model = arms()[name]
    n, k = model.n, 3 * (model.n - 1)
    mod = python_module(codegen(model, tmp_path, "python", "arm.py"))
    pi = numeric_parameters(model)
    assert pi.shape == (10 * n + k,) and "Ia1" in mod["regressor"].__doc__ and f"fc{n}" in mod["regressor"].__doc__
    for q, qd, qdd in states(n, 6, 3).transpose(2, 0, 1):
        Y = mod["regressor"](q, qd, qdd)
        assert Y.shape == (n, 10 * n + k)
        tau = mod["tau"](q, qd, qdd)
        scale = max(1.0, np.abs(tau).max())
        np.testing.assert_allclose(Y, numeric_regressor(model, q, qd, qdd), atol=1e-10 * max(1.0, np.abs(Y).max()))
        np.testing.assert_allclose(Y @ pi, tau, atol=1e-10 * scale)
    # many states at once: the drive columns broadcast as the others
    Q, QD, QDD = states(n, 4, 5)
    np.testing.assert_allclose(np.einsum("ijN,j->iN", mod["regressor"](Q, QD, QDD), pi), mod["tau"](Q, QD, QDD),
                               atol=1e-9)


def test_without_drives_the_regressor_keeps_the_standard_columns(tmp_path):
    model = arms()["random"]
    save_project(model, tmp_path / "arm.json")
    assert main(["codegen", str(tmp_path / "arm.json"), "--lang", "python", "--functions", "Y",
                 "--out", str(tmp_path / "arm.py"), "--quiet"]) == 0
    q, qd, qdd = states(model.n, 1, 1)[..., 0]
    Y = python_module(tmp_path / "arm.py")["regressor"](q, qd, qdd)
    np.testing.assert_allclose(Y, regressor(NumericArm.from_model(model), q, qd, qdd), atol=1e-10)


def test_base_parameter_code_has_the_drive_columns_too(tmp_path):
    """--parameters base --drives: the regressor (standard parameters plus the drives') times pi is the
    base-parameter tau at the project's values."""
    model = arms()["random"]
    mod = python_module(codegen(model, tmp_path, "python", "arm.py", "--parameters", "base"))
    pi = numeric_parameters(model)
    for q, qd, qdd in states(model.n, 4, 7).transpose(2, 0, 1):
        Y = mod["regressor"](q, qd, qdd)
        np.testing.assert_allclose(Y, numeric_regressor(model, q, qd, qdd), atol=1e-10 * max(1.0, np.abs(Y).max()))
        tau = mod["tau"](q, qd, qdd)
        np.testing.assert_allclose(Y @ pi, tau, atol=1e-10 * max(1.0, np.abs(tau).max()))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_c_regressor_with_drive_columns_gives_tau(tmp_path):
    model = arms()["random"]
    n = model.n
    source = codegen(model, tmp_path, "c", "arm.c")
    run = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-shared", "-fPIC",
                          str(source), "-o", str(tmp_path / "libarm.so"), "-lm"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "Ia1" in (tmp_path / "arm.h").read_text()
    lib = ctypes.CDLL(str(tmp_path / "libarm.so"))
    dbl = ctypes.POINTER(ctypes.c_double)
    pi = numeric_parameters(model)

    def call(name: str, arrays, size: int) -> np.ndarray:
        out = np.zeros(size)
        getattr(lib, name)(*(np.ascontiguousarray(a).ctypes.data_as(dbl) for a in arrays), None,
                           out.ctypes.data_as(dbl))
        return out
    for q, qd, qdd in states(n, 5, 9).transpose(2, 0, 1):
        Y = call("arm_regressor", (q, qd, qdd), n * len(pi)).reshape(n, len(pi))
        tau = call("arm_tau", (q, qd, qdd), n)
        np.testing.assert_allclose(Y, numeric_regressor(model, q, qd, qdd), atol=1e-10 * max(1.0, np.abs(Y).max()))
        np.testing.assert_allclose(Y @ pi, tau, atol=1e-10 * max(1.0, np.abs(tau).max()))


OCTAVE = shutil.which("octave-cli")


@pytest.mark.skipif(OCTAVE is None, reason="GNU Octave (octave-cli) not installed")
def test_matlab_regressor_with_drive_columns_gives_tau(tmp_path):
    model = arms()["random"]
    n, N = model.n, 8
    folder = codegen(model, tmp_path, "matlab", "m")
    assert "Ia1" in (folder / "arm_regressor.m").read_text()
    Q, QD, QDD = states(n, N, 11)
    for name, a in (("Q", Q), ("QD", QD), ("QDD", QDD)):
        np.savetxt(folder / f"{name}.txt", a)
    run = subprocess.run([OCTAVE, "--no-gui", "--quiet", "--norc", "--eval",
                          "Q = load('Q.txt'); QD = load('QD.txt'); QDD = load('QDD.txt');"
                          "tau = arm_tau(Q, QD, QDD); Y = reshape(arm_regressor(Q, QD, QDD), [], size(Q, 2));"
                          "save('-ascii', '-double', 'tau.txt', 'tau'); save('-ascii', '-double', 'Y.txt', 'Y');"],
                         cwd=folder, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 or "ignoring const execution_exception" in run.stderr, run.stderr
    pi = numeric_parameters(model)
    tau = np.loadtxt(folder / "tau.txt").reshape(n, N)
    Y = np.loadtxt(folder / "Y.txt").reshape(n, len(pi), N, order="F")  # column-major reshape in Octave
    for k in range(N):
        q, qd, qdd = Q[:, k], QD[:, k], QDD[:, k]
        np.testing.assert_allclose(Y[:, :, k], numeric_regressor(model, q, qd, qdd),
                                   atol=1e-10 * max(1.0, np.abs(Y[:, :, k]).max()))
        np.testing.assert_allclose(Y[:, :, k] @ pi, tau[:, k], atol=1e-10 * max(1.0, np.abs(tau[:, k]).max()))
