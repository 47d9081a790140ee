"""The simulate command: its CSV against the Python simulation and physics, and its one-line refusals."""

from __future__ import annotations

import csv
import json
import os
import re
import pty
import signal
import subprocess

import numpy as np
import pytest

from designer.cli import main
from designer.kinematics import NumericArm
from designer.model import Convention
from designer.numeric import arm_dynamics
from designer.numeric.simulate import simulate
from designer.project import from_dict

from tests.support import robot_path
from tests.support.pin_reference import random_arm
from tests.support.terminal import cli, read_pty, read_pty_until


def project_of(arm: NumericArm) -> dict:
    """The project file of a numeric arm (inertias symmetrised: R D R^T is asymmetric by rounding)."""
    links = []
    for i in range(arm.n):
        a, alpha, d, theta = (float(v) for v in arm.dh[i])
        I = 0.5 * (arm.inertia[i] + arm.inertia[i].T)
        links.append({"joint": "R" if arm.revolute[i] else "P", "a": a, "alpha": alpha, "d": d, "theta": theta,
                      "mass": float(arm.mass[i]), "com": [float(c) for c in arm.com[i]], "inertia": I.tolist()})
    return {"format": "manipulator-designer", "version": 1, "convention": arm.convention.value,
            "gravity": [float(g) for g in arm.gravity], "links": links,
            "point_masses": [{"link": k + 1, "mass": m, "position": [float(c) for c in p]}
                             for k, m, p in arm.point_masses]}


@pytest.fixture
def arm_file(tmp_path):
    arm = random_arm(np.random.default_rng(2), 7, Convention.MODIFIED, "RRPRRRR")
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(project_of(arm)))
    return arm, path


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_command_round_trip(arm_file, tmp_path, capsys):
    arm, path = arm_file
    model_arm = NumericArm.from_model(from_dict(json.loads(path.read_text())))
    q0 = [0.3, -0.2, 0.1, 0.5, -0.4, 0.2, 0.1]
    out = tmp_path / "run.csv"
    code, stdout, err = _run(capsys, "simulate", path, "--q0", *q0, "--t", "0.4", "--dt", "0.05",
                             "--rtol", "1e-11", "--atol", "1e-12", "--out", out)
    assert code == 0, err
    rows = list(csv.reader(out.open()))
    n = 7
    assert rows[0] == (["t"] + [f"{p}{j}" for p in ("q", "qd", "tau") for j in range(1, n + 1)]
                       + ["kinetic", "potential", "energy"])
    data = np.array(rows[1:], dtype=float)
    np.testing.assert_allclose(data[:, 0], np.linspace(0, 0.4, 9), atol=1e-12)
    np.testing.assert_allclose(data[0, 1:n + 1], q0)
    # the same motion from Python, and the energy of a passive arm is constant
    traj = simulate(model_arm, q0, np.zeros(n), (0, 0.4), t_eval=np.linspace(0, 0.4, 9), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(data[:, 1:n + 1], traj.q, atol=1e-8)
    np.testing.assert_allclose(data[:, -1], data[:, -3] + data[:, -2])
    assert np.ptp(data[:, -1]) < 1e-6 * np.ptp(data[:, -3])
    assert np.all(data[:, 2 * n + 1:3 * n + 1] == 0.0)
    assert f"{traj.steps} time steps" in stdout and "9 rows" in stdout


def test_command_pd_and_torque_table(arm_file, tmp_path, capsys):
    arm, path = arm_file
    table = tmp_path / "tau.csv"
    table.write_text("t," + ",".join(f"tau{j}" for j in range(1, 8)) + "\n0,1,2,3,4,5,6,7\n1,0,0,0,0,0,0,0\n")
    out = tmp_path / "run.csv"
    code, _, err = _run(capsys, "simulate", path, "--q0", "0,0,0,0,0,0,0", "--t", "0.1", "--torque", table,
                        "--out", out)
    assert code == 0, err
    data = np.array(list(csv.reader(out.open()))[1:], dtype=float)
    np.testing.assert_allclose(data[:, 15:22], (1 - data[:, :1]) * np.arange(1, 8), atol=1e-12)
    code, _, err = _run(capsys, "simulate", path, "--q0", *[0] * 7, "--t", "0.05", "--pd", "20", "5",
                        "--target", "0.1", "--out", out)
    assert code == 0, err
    data = np.array(list(csv.reader(out.open()))[1:], dtype=float)
    G0 = arm_dynamics(NumericArm.from_model(from_dict(json.loads(path.read_text())))).G(np.zeros(7))
    np.testing.assert_allclose(data[0, 15:22], 20 * 0.1 + G0)


@pytest.mark.parametrize("args,message", [
    (["--q0", "0", "0", "--t", "1"], "--q0: 2 values, the arm has 7 joints"),
    (["--q0", *["0"] * 7, "--t", "-1"], "--t: -1 is out of range: give above 0 up to 1e6"),
    (["--q0", *["0"] * 7, "--t", "x"], "--t"),
    (["--q0", *["0"] * 6, "abc", "--t", "1"], "--q0"),
    (["--q0", *["0"] * 7, "--t", "1", "--target", "0"], "--target: only with --pd"),
    (["--q0", *["0"] * 7, "--t", "1", "--pd", "1,2", "3"], "--pd KP: 2 values"),
    (["--q0", *["0"] * 7, "--t", "1", "--torque", "missing.csv"], "missing.csv: cannot read"),
    (["--q0", *["0"] * 7, "--t", "1", "--torque", "{bad}"], "line 2: column tau3: 'x' is not a number"),
    (["--q0", *["0"] * 7, "--t", "1", "--torque", "{short}"], "missing column 'tau2'"),
    (["--q0", *["0"] * 7, "--t", "1", "--dt", "0"], "--dt: 0 is out of range"),
])
def test_command_bad_inputs(arm_file, tmp_path, capsys, monkeypatch, args, message):
    _, path = arm_file
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.csv").write_text("t,tau1,tau2,tau3,tau4,tau5,tau6,tau7\n0,1,2,x,4,5,6,7\n")
    (tmp_path / "short.csv").write_text("t,tau1\n0,1\n")
    args = [a.format(bad="bad.csv", short="short.csv") for a in args]
    code, out, err = _run(capsys, "simulate", path, *args, "--out", tmp_path / "run.csv")
    assert code == 2 and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "run.csv").exists()


def test_command_refuses_a_singular_arm(tmp_path, capsys):
    """A massless last link: M is singular at every pose; one line naming q, exit 2, no file."""
    path = tmp_path / "limp.json"
    path.write_text(json.dumps({"format": "manipulator-designer", "version": 1, "convention": "standard",
                                "gravity": [0, 0, -9.81],
                                "links": [{"joint": "R", "a": 1, "alpha": 0, "d": 0, "theta": 0, "mass": 1},
                                          {"joint": "R", "a": 0.5, "alpha": 0, "d": 0, "theta": 0, "mass": 0}]}))
    code, _, err = _run(capsys, "simulate", path, "--q0", "0.1", "0.2", "--t", "1", "--out", tmp_path / "run.csv")
    assert code == 2 and "mass matrix singular at q = [0.1, 0.2]" in err and err.count("\n") == 1
    assert not (tmp_path / "run.csv").exists()


def test_command_refuses_a_motion_that_leaves_the_float_range(tmp_path, capsys):
    """qd0 = 1e200: the integrator's first trial state overflows; before, LAPACK's 'SVD did not converge'
    on the NaN mass matrix came out as a traceback. The command line refuses such a speed by its range
    (designer/cli/ranges.py); the simulation itself says the state left the float range."""
    from designer.numeric.simulate import SimulationError
    code, _, err = _run(capsys, "simulate", robot_path("double_pendulum"), "--q0", "0.1", "0.2",
                        "--qd0", "1e200", "0", "--t", "0.1", "--out", tmp_path / "run.csv")
    assert code == 2 and "--qd0: 1e200 is out of range" in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "run.csv").exists()
    arm = NumericArm.from_model(from_dict(json.loads(robot_path("double_pendulum").read_text())))
    with pytest.raises(SimulationError, match="the state is no longer finite"):
        simulate(arm, [0.1, 0.2], [1e200, 0.0], (0.0, 0.1))


# -- progress on a terminal, Ctrl+C ---------------------------------------------------------------------
def _long_run(path, t: str) -> tuple[str, ...]:
    # a passive seven-joint arm never comes to rest: the integrator keeps taking small steps to the end
    return ("simulate", str(path), "--q0", "0.3", "-0.2", "0.1", "0.5", "-0.4", "0.2", "0.1", "--t", t,
            "--rtol", "1e-11", "--atol", "1e-12")


@pytest.mark.slow
def test_progress_bar_on_a_terminal_only(arm_file, tmp_path):
    _, path = arm_file
    master, slave = pty.openpty()
    proc = cli(*_long_run(path, "40"), "--out", str(tmp_path / "a.csv"), stderr=slave, stdout=subprocess.DEVNULL)
    os.close(slave)
    text = read_pty(master, proc).decode(errors="replace")
    os.close(master)
    assert proc.wait(120) == 0
    assert "simulate:" in text and "%/s" in text and "<" in text, text   # rate, time left
    # the bar moves while the integrator steps (seconds of work here), not only at the start and the end
    shown = {int(v) for v in re.findall(r"simulate:\s+(\d+)%\|", text)}
    assert {0, 100} < shown, text
    # through a pipe, and with --quiet on a terminal: not a character on standard error
    proc = cli(*_long_run(path, "0.5"), "--out", str(tmp_path / "b.csv"), stderr=subprocess.PIPE,
               stdout=subprocess.DEVNULL)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b""
    master, slave = pty.openpty()
    proc = cli(*_long_run(path, "0.5"), "--out", str(tmp_path / "c.csv"), "--quiet", stderr=slave,
               stdout=subprocess.DEVNULL)
    os.close(slave)
    text = read_pty(master, proc).decode(errors="replace")
    os.close(master)
    assert proc.wait(120) == 0 and text == ""
    assert (tmp_path / "b.csv").read_bytes() == (tmp_path / "c.csv").read_bytes()


@pytest.mark.slow
def test_ctrl_c_stops_a_simulation_with_one_line(arm_file, tmp_path):
    _, path = arm_file
    out = tmp_path / "never.csv"
    master, slave = pty.openpty()
    proc = cli(*_long_run(path, "10000"), "--out", str(out), stderr=slave, stdout=subprocess.DEVNULL)
    os.close(slave)
    seen = read_pty_until(master, proc, b"simulate:")
    proc.send_signal(signal.SIGINT)
    text = (seen + read_pty(master, proc)).decode(errors="replace")
    os.close(master)
    assert proc.wait(60) == 130
    tail = text[text.index("interrupted"):]
    assert tail.startswith("interrupted at t = ") and " s of 10000 s; nothing written" in tail, text
    assert tail.strip().count("\n") == 0 and "Traceback" not in text, text
    assert not out.exists()
