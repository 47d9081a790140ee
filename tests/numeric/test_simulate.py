"""Simulation: physical laws on random arms, PD regulation, torque tables, the job, and the simulate command."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from designer.cli import main
from designer.jobs import CancelToken, Cancelled, run
from designer.kinematics import NumericArm
from designer.model import Convention
from designer.numeric import arm_dynamics
from designer.numeric.simulate import PDControl, TorqueTable, Trajectory, energy, simulate, simulate_job
from designer.project import from_dict

from pin_reference import random_arm


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


@pytest.mark.parametrize("convention,joints", [(Convention.STANDARD, "RRPRRRR"), (Convention.MODIFIED, "RPRRRPRR")])
def test_passive_arm_conserves_energy(convention, joints):
    arm = random_arm(np.random.default_rng(21), 7, convention, joints)
    q0 = np.random.default_rng(1).uniform(-1, 1, arm.n)
    traj = simulate(arm, q0, np.zeros(arm.n), (0, 0.5), rtol=1e-11, atol=1e-12)
    kinetic, potential = arm_dynamics(arm).energy(traj.q, traj.qd)
    E = kinetic + potential
    # relative to the energy that moves between kinetic and potential over the run
    assert np.ptp(kinetic) > 0.1
    assert np.max(np.abs(E - E[0])) / np.ptp(kinetic) < 1e-7
    np.testing.assert_allclose(energy(arm, traj.q, traj.qd), E)
    assert traj.tau is None and traj.steps == len(traj.t) - 1 and traj.evaluations > traj.steps


def test_pd_regulation_reaches_the_target():
    """Kp (r - q) - Kd qd + G(q) brings any arm to rest at r (Takegaki & Arimoto)."""
    arm = random_arm(np.random.default_rng(8), 4, Convention.STANDARD, "RPRR", loads=False)
    target = np.array([0.8, 0.1, -0.6, 1.2])
    pd = PDControl([40.0] * 4, [25.0] * 4, target.tolist())
    traj = simulate(arm, np.zeros(4), np.zeros(4), (0, 8.0), torque=pd, t_eval=np.linspace(0, 8, 81))
    assert np.max(np.abs(traj.q[0] - target)) > 0.5
    np.testing.assert_allclose(traj.q[-1], target, atol=1e-4)
    np.testing.assert_allclose(traj.qd[-1], 0.0, atol=1e-3)
    # the recorded torque at rest is the gravity torque alone
    np.testing.assert_allclose(traj.tau[-1], arm_dynamics(arm).G(traj.q[-1]), atol=1e-2)


def test_torque_table_is_read_linearly():
    arm = random_arm(np.random.default_rng(3), 3, Convention.MODIFIED, "RRP")
    times, tau = np.array([0.0, 0.2, 0.5]), np.array([[1.0, -2.0, 3.0], [0.0, 1.0, 2.0], [4.0, 0.0, -1.0]])
    table = TorqueTable(times, tau)
    np.testing.assert_allclose(table(0.1), [0.5, -0.5, 2.5])
    np.testing.assert_allclose(table(0.9), tau[-1])  # held after the last row

    def by_hand(t, q, qd):
        return [np.interp(t, times, tau[:, j]) for j in range(3)]

    t = np.linspace(0, 0.6, 7)
    a = simulate(arm, np.zeros(3), np.zeros(3), (0, 0.6), torque=table, t_eval=t, rtol=1e-10, atol=1e-12)
    b = simulate(arm, np.zeros(3), np.zeros(3), (0, 0.6), torque=by_hand, t_eval=t, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.q, b.q, atol=1e-9)
    with pytest.raises(ValueError, match="times must increase"):
        TorqueTable([0.0, 0.0], [[1.0], [2.0]])


def test_job_reports_progress_and_cancels():
    arm = random_arm(np.random.default_rng(5), 3, Convention.STANDARD, "RRR")
    steps = []
    pd = PDControl([10.0] * 3, [5.0] * 3, [0.1, 0.2, 0.3])
    traj = run(simulate_job(arm, np.zeros(3), np.zeros(3), (0, 1.0), torque=pd, chunks=4), steps.append)
    assert [s.fraction for s in steps] == [0.25, 0.5, 0.75, 1.0]
    assert isinstance(traj, Trajectory) and f"{traj.steps} steps" in steps[-1].detail
    token = CancelToken()
    with pytest.raises(Cancelled):
        run(simulate_job(arm, np.zeros(3), np.zeros(3), (0, 1.0), torque=pd, chunks=4), lambda p: token.cancel(), token)


# -- the simulate command ------------------------------------------------------------------

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
    (["--q0", *["0"] * 7, "--t", "-1"], "--t: must be a positive number"),
    (["--q0", *["0"] * 7, "--t", "x"], "--t"),
    (["--q0", *["0"] * 6, "abc", "--t", "1"], "--q0"),
    (["--q0", *["0"] * 7, "--t", "1", "--target", "0"], "--target: only with --pd"),
    (["--q0", *["0"] * 7, "--t", "1", "--pd", "1,2", "3"], "--pd KP: 2 values"),
    (["--q0", *["0"] * 7, "--t", "1", "--torque", "missing.csv"], "missing.csv: cannot read"),
    (["--q0", *["0"] * 7, "--t", "1", "--torque", "{bad}"], "line 2: column tau3: 'x' is not a number"),
    (["--q0", *["0"] * 7, "--t", "1", "--torque", "{short}"], "missing column 'tau2'"),
    (["--q0", *["0"] * 7, "--t", "1", "--dt", "0"], "--dt: must be a positive number"),
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
