"""``codegen --elastic``: the generated elastic forward dynamics (Python and C) against the numeric engine's
(:class:`designer.numeric.elastic.ElasticArm`, whose physics the Pinocchio tests check)."""

from __future__ import annotations

import ctypes
import dataclasses
import shutil
import subprocess

import numpy as np
import pytest

from designer.cli import main
from designer.kinematics import NumericArm
from designer.model import Drive
from designer.numeric.elastic import ElasticArm, elastic_joints
from designer.project import load_project
from designer.project.io import dumps_project
from tests.support import robot_path


def _project(tmp_path):
    model = load_project(robot_path("puma560_three_link"))
    drives = (Drive(stiffness=2e4, damping=3.0, gear_ratio=60.0, motor_inertia=2e-4),
              Drive(gear_ratio=100.0, motor_inertia=2e-4),                 # rigid, with reflected inertia
              Drive(stiffness=8e3, gear_ratio=50.0, motor_inertia=1e-4))
    links = tuple(dataclasses.replace(l, drive=d) for l, d in zip(model.links, drives))
    model = dataclasses.replace(model, links=links)
    path = tmp_path / "elastic.json"
    path.write_text(dumps_project(model))
    return model, path


def _states(model, count=5):
    rng = np.random.default_rng(1)
    ours = ElasticArm(NumericArm.from_model(model), elastic_joints(model))
    for _ in range(count):
        y = rng.normal(size=ours.size)
        y[3:5] *= 50
        tau_m = rng.normal(size=3)
        yield ours, y, tau_m


def test_python_elastic_forward_matches_the_numeric_engine(tmp_path, capsys):
    model, path = _project(tmp_path)
    out = tmp_path / "arm.py"
    assert main(["codegen", str(path), "--lang", "python", "--elastic", "--out", str(out), "--quiet"]) == 0
    space: dict = {}
    exec(compile(out.read_text(), str(out), "exec"), space)
    for ours, y, tau_m in _states(model):
        q, th, qd, thd = ours.split(y)
        qdd, thdd = space["elastic_forward"](q, th, qd, thd, tau_m)
        ref_qdd, ref_thdd = ours.accelerations(y, tau_m)
        np.testing.assert_allclose(qdd, ref_qdd, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(thdd, ref_thdd, rtol=1e-9, atol=1e-9)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_c_elastic_forward_matches_the_numeric_engine(tmp_path):
    model, path = _project(tmp_path)
    src = tmp_path / "arm.c"
    argv = ["codegen", str(path), "--lang", "c", "--elastic", "--prefix", "arm", "--out", str(src), "--quiet"]
    assert main(argv) == 0
    assert "arm_elastic_forward" in (tmp_path / "arm.h").read_text()
    lib = tmp_path / "libarm.so"
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", str(src), "-o", str(lib), "-lm"], check=True)
    fn = ctypes.CDLL(str(lib)).arm_elastic_forward
    P = ctypes.POINTER(ctypes.c_double)
    for ours, y, tau_m in _states(model):
        q, th, qd, thd = (np.ascontiguousarray(a) for a in ours.split(y))
        qdd, thdd = np.zeros(3), np.zeros(2)
        args = [a.ctypes.data_as(P) for a in (q, th, qd, thd, np.ascontiguousarray(tau_m))]
        assert fn(*args, None, qdd.ctypes.data_as(P), thdd.ctypes.data_as(P)) == 0
        ref_qdd, ref_thdd = ours.accelerations(y, tau_m)
        np.testing.assert_allclose(qdd, ref_qdd, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(thdd, ref_thdd, rtol=1e-9, atol=1e-9)


def test_elastic_code_without_stiffness_is_one_line(capsys):
    code = main(["codegen", str(robot_path("double_pendulum")), "--lang", "python", "--elastic", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "stiffness" in err and len(err.strip().splitlines()) == 1


def _tube_states(model, count=4):
    rng = np.random.default_rng(2)
    ours = ElasticArm(NumericArm.from_model(model), elastic_joints(model))
    for _ in range(count):
        y = ours.equilibrium(rng.uniform(-1, 1, 3)) + 1e-3 * rng.normal(size=ours.size)
        yield ours, y, rng.normal(size=3)


def test_a_named_stiffness_is_read_from_p_in_python_and_c(tmp_path):
    """The tube arm names its shoulder stiffness k2: the generated elastic_forward takes k2 from p (a value other
    than the default changes it), as the numeric engine of the project with that value does."""
    path = robot_path("tube_arm")
    out = tmp_path / "tube.py"
    assert main(["codegen", str(path), "--lang", "python", "--elastic", "--out", str(out), "--quiet"]) == 0
    space: dict = {}
    exec(compile(out.read_text(), str(out), "exec"), space)
    names = list(space["PARAMETERS"])
    model = load_project(path).with_parameter("k2", 2.0e4)
    p = np.array([model.parameter_values[n] for n in names])
    cc = shutil.which("cc")
    if cc:
        src = tmp_path / "tube.c"
        assert main(["codegen", str(path), "--lang", "c", "--elastic", "--prefix", "tube", "--out", str(src),
                     "--quiet"]) == 0
        lib = tmp_path / "libtube.so"
        subprocess.run([cc, "-O1", "-shared", "-fPIC", str(src), "-o", str(lib), "-lm"], check=True)
        fn = ctypes.CDLL(str(lib)).tube_elastic_forward
    P = ctypes.POINTER(ctypes.c_double)
    for ours, y, tau_m in _tube_states(model):
        q, th, qd, thd = (np.ascontiguousarray(a) for a in ours.split(y))
        ref_qdd, ref_thdd = ours.accelerations(y, tau_m)
        qdd, thdd = space["elastic_forward"](q, th, qd, thd, tau_m, p)
        np.testing.assert_allclose(qdd, ref_qdd, rtol=1e-8, atol=1e-8)
        np.testing.assert_allclose(thdd, ref_thdd, rtol=1e-8, atol=1e-8)
        if cc:
            qdd, thdd = np.zeros(3), np.zeros(3)
            args = [a.ctypes.data_as(P) for a in (q, th, qd, thd, np.ascontiguousarray(tau_m), p)]
            assert fn(*args, qdd.ctypes.data_as(P), thdd.ctypes.data_as(P)) == 0
            np.testing.assert_allclose(qdd, ref_qdd, rtol=1e-8, atol=1e-8)
            np.testing.assert_allclose(thdd, ref_thdd, rtol=1e-8, atol=1e-8)
    # with the default k2 the spring of joint 2 differs: the value is not a constant written in
    default = np.array([load_project(path).parameter_values[n] for n in names])
    ours, y, tau_m = next(_tube_states(model))
    q, th, qd, thd = ours.split(y)
    assert not np.allclose(space["elastic_forward"](q, th, qd, thd, tau_m, default)[1],
                           space["elastic_forward"](q, th, qd, thd, tau_m, p)[1])
