"""The project's drive data in use: explore ratings, sizing and payload read it; eval/torques --drives add it.

References: Pinocchio's armature (reflected inertia) plus friction written out by hand, and the
same commands given the values on the command line.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from designer.cli import main
from designer.model.drives import drive_values
from designer.kinematics import NumericArm
from designer.model import Drive
from designer.project import load_project, save_project

from tests.support import robot_path
from tests.support.pin_reference import pin, pin_model

GEAR = [120.0, 100.0, 80.0, 50.0, 50.0, 40.0]
JM = [2e-4, 1.5e-4, 1e-4, 3e-5, 3e-5, 2e-5]
VISC = [0.4, 0.3, 0.2, 0.1, 0.1, 0.05]
COUL = [0.5, 0.4, 0.3, 0.1, 0.1, 0.05]
RATED = [90.0, 160.0, 60.0, 12.0, 11.0, 9.0]
SPEED = [2.0, 2.0, 2.5, 4.0, 4.0, 5.0]


@pytest.fixture
def puma_with_drives(tmp_path) -> Path:
    model = load_project(robot_path("puma560"))
    drives = [Drive(rated_torque=t, peak_torque=3 * t, rated_speed=v, gear_ratio=n, motor_inertia=j, viscous=b,
                    coulomb=c) for t, v, n, j, b, c in zip(RATED, SPEED, GEAR, JM, VISC, COUL)]
    model = replace(model, links=tuple(replace(l, drive=d) for l, d in zip(model.links, drives)))
    path = tmp_path / "puma_drives.json"
    save_project(model, path)
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def test_drive_values_rated_then_peak_and_partial_gears():
    model = load_project(robot_path("puma560"))
    assert drive_values(model) == {"torque": None, "torque_kind": None, "speed": None, "gear": None, "rotor": None,
                                   "stiffness": None}
    links = list(model.links)
    links[0] = replace(links[0], drive=Drive(peak_torque=50, gear_ratio=100, rated_torque=20))
    links[2] = replace(links[2], drive=Drive(motor_inertia=1e-4))
    v = drive_values(replace(model, links=tuple(links)))
    # a rating must cover every joint: one joint's torque is not a rating
    assert v["torque"] is None and v["speed"] is None
    np.testing.assert_array_equal(v["gear"], [100, 1, 1, 1, 1, 1])
    np.testing.assert_array_equal(v["rotor"], [0, 0, 1e-4, 0, 0, 0])
    # peak torque of every joint (a URDF's effort) stands in when no rated torque is known
    all_peak = replace(model, links=tuple(replace(l, drive=Drive(peak_torque=10 + i)) for i, l in enumerate(links)))
    v = drive_values(all_peak)
    assert v["torque_kind"] == "peak"
    np.testing.assert_array_equal(v["torque"], 10 + np.arange(6))


def test_explore_metric_reads_rated_torque_and_speed_from_the_project(capsys, puma_with_drives):
    q = ["0.3", "-0.5", "0.8", "0.2", "0.9", "-0.4"]
    base = ["explore", puma_with_drives, "metric", "--q", *q, "--metric", "dyn_manipulability",
            "--metric", "gravity_ratio[2]", "--format", "json"]
    out, err = run(capsys, *base)
    assert "rated torque from the project's drive data" in err
    from_project = json.loads(out)["metrics"]
    given = ",".join(map(str, RATED))
    out, _ = run(capsys, *base, "--torque", given, "--speed", ",".join(map(str, SPEED)))
    assert json.loads(out)["metrics"] == from_project
    # the command line overrides the project
    out, err = run(capsys, *base, "--torque", "100")
    assert "drive data" not in err.split("speed")[0]
    assert json.loads(out)["metrics"] != from_project


def test_sizing_and_payload_read_gear_rotor_and_torque(capsys, puma_with_drives):
    move = ["--from", *["0"] * 6, "--to", "1", "-1", "0.5", "0.3", "0.2", "0.1", "--duration", "1", "--steps", "41"]
    out, err = run(capsys, "explore", puma_with_drives, "sizing", *move, "--format", "json")
    assert "gear ratio from the project" in err and "motor inertia from the project" in err
    ours = json.loads(out)["joints"]
    out, _ = run(capsys, "explore", robot_path("puma560"), "sizing", *move, "--format", "json",
                 "--gear", ",".join(map(str, GEAR)), "--rotor", ",".join(map(str, JM)))
    assert ours == json.loads(out)["joints"]
    grid = ["--z", "0", "0.2", "2", "--x", "0", "0.2", "2", "--samples", "20", "--format", "json"]
    out, err = run(capsys, "explore", puma_with_drives, "payload", *grid)
    assert "rated torque from the project" in err and json.loads(out)["torque"] == RATED


def _states(n, count, seed=5):
    rng = np.random.default_rng(seed)
    return [{"q": rng.uniform(-2, 2, n).tolist(), "qd": rng.uniform(-2, 2, n).tolist(),
             "qdd": rng.uniform(-2, 2, n).tolist()} for _ in range(count)]


def test_eval_drives_against_pinocchio_armature_and_friction(capsys, tmp_path, puma_with_drives):
    states = _states(6, 8)
    states[0]["qd"][1] = 0.0   # sign(0) = 0: no Coulomb friction at rest
    path = tmp_path / "states.json"
    path.write_text(json.dumps({"states": states}))
    out, _ = run(capsys, "eval", puma_with_drives, "--states", path)
    plain = json.loads(out)
    assert plain["drives"] is False
    out, err = run(capsys, "eval", puma_with_drives, "--states", path, "--drives")
    driven = json.loads(out)
    assert driven["drives"] is True
    model = pin_model(NumericArm.from_model(load_project(puma_with_drives)))
    model.armature = np.array(GEAR) ** 2 * np.array(JM)
    data = model.createData()
    for s, r, r0 in zip(states, driven["results"], plain["results"]):
        q, qd, qdd = (np.array(s[k]) for k in ("q", "qd", "qdd"))
        friction = np.array(VISC) * qd + np.array(COUL) * np.sign(qd)
        M_pin = pin.crba(model, data, q)
        M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
        np.testing.assert_allclose(r["M"], M_pin, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(r["tau"], pin.rnea(model, data, q, qd, qdd) + friction, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(r["G"], r0["G"], rtol=0, atol=0)
        np.testing.assert_allclose(r["friction"], friction, rtol=1e-12)
        # tau = M qdd + h + G + friction holds with the drive terms
        np.testing.assert_allclose(np.array(r["M"]) @ qdd + np.add(r["h"], r["G"]) + friction, r["tau"],
                                   rtol=1e-9, atol=1e-9)


def test_torques_drives_stated_and_added(capsys, tmp_path, puma_with_drives):
    rows = _states(6, 5, seed=9)
    header = [f"{p}{j}" for p in ("q", "qd", "qdd") for j in range(1, 7)]
    csv_path = tmp_path / "traj.csv"
    csv_path.write_text(",".join(header) + "\n" + "\n".join(
        ",".join(repr(v) for p in ("q", "qd", "qdd") for v in r[p]) for r in rows) + "\n")
    out, err = run(capsys, "torques", puma_with_drives, csv_path)
    assert "drive terms not added" in err
    plain = np.loadtxt(out.splitlines()[1:], delimiter=",")
    out, err = run(capsys, "torques", puma_with_drives, csv_path, "--drives")
    assert "drive terms added (--drives)" in err
    driven = np.loadtxt(out.splitlines()[1:], delimiter=",")
    qd, qdd = (np.array([r[p] for r in rows]) for p in ("qd", "qdd"))
    expected = np.array(GEAR) ** 2 * np.array(JM) * qdd + np.array(VISC) * qd + np.array(COUL) * np.sign(qd)
    np.testing.assert_allclose(driven - plain, expected, rtol=1e-9, atol=1e-9)


def test_drives_on_a_project_without_drive_data_says_so(capsys, tmp_path):
    path = tmp_path / "states.json"
    path.write_text(json.dumps({"states": _states(6, 1)}))
    out, err = run(capsys, "eval", robot_path("puma560"), "--states", path, "--drives")
    assert "nothing is added" in err and json.loads(out)["drives"] is True


def test_codegen_drives_python_against_pinocchio_and_c_header(capsys, tmp_path, puma_with_drives):
    import shutil
    import subprocess
    out = tmp_path / "puma.py"
    run(capsys, "codegen", puma_with_drives, "--lang", "python", "--drives", "--out", out)
    source = out.read_text()
    assert "drive terms added" in source.split('"""')[1]
    namespace: dict = {}
    exec(compile(source, str(out), "exec"), namespace)
    model = pin_model(NumericArm.from_model(load_project(puma_with_drives)))
    model.armature = np.array(GEAR) ** 2 * np.array(JM)
    data = model.createData()
    rng = np.random.default_rng(11)
    for _ in range(5):
        q, qd, qdd = rng.uniform(-2, 2, 6), rng.uniform(-2, 2, 6), rng.uniform(-2, 2, 6)
        friction = np.array(VISC) * qd + np.array(COUL) * np.sign(qd)
        M_pin = pin.crba(model, data, q)
        M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
        np.testing.assert_allclose(np.asarray(namespace["mass_matrix"](q, None)).reshape(6, 6), M_pin,
                                   rtol=1e-9, atol=1e-10)
        tau = np.asarray(namespace["tau"](q, qd, qdd, None)).ravel()
        np.testing.assert_allclose(tau, pin.rnea(model, data, q, qd, qdd) + friction, rtol=1e-9, atol=1e-9)
        # the header's identity bias = tau(q, qd, 0) - gravity holds with the drive terms
        h = np.asarray(namespace["bias"](q, qd, None)).ravel()
        G = np.asarray(namespace["gravity"](q, None)).ravel()
        np.testing.assert_allclose(h, np.asarray(namespace["tau"](q, qd, np.zeros(6), None)).ravel() - G,
                                   rtol=1e-9, atol=1e-9)
    # C: the header says it; the project's drive data left out is said too
    c_out = tmp_path / "puma.c"
    run(capsys, "codegen", puma_with_drives, "--lang", "c", "--drives", "--out", c_out)
    assert "drive terms added" in c_out.read_text().split("*/")[0]
    if shutil.which("gcc"):
        subprocess.run(["gcc", "-std=c99", "-fsyntax-only", str(c_out)], check=True)
    run(capsys, "codegen", puma_with_drives, "--lang", "c", "--out", c_out)
    assert "drive terms of the project not added" in c_out.read_text().split("*/")[0]
    run(capsys, "codegen", robot_path("puma560"), "--lang", "c", "--out", c_out)
    assert "drive terms" not in c_out.read_text().split("*/")[0]


def test_codegen_c_applies_the_drive_terms(capsys, tmp_path, puma_with_drives):
    # the C path (header + source) must not drop --drives: M's diagonal carries N^2 Jm
    plain, driven = tmp_path / "plain.c", tmp_path / "driven.c"
    run(capsys, "codegen", puma_with_drives, "--lang", "c", "--out", plain)
    run(capsys, "codegen", puma_with_drives, "--lang", "c", "--drives", "--out", driven)
    assert plain.read_text() != driven.read_text()


def _module(path: Path) -> dict:
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # our own output: numpy only
    return namespace


@pytest.mark.parametrize("arm", ["puma", "generic"])
def test_codegen_base_parameters_with_drives(capsys, tmp_path, puma_with_drives, arm):
    """The drive parameters are base parameters of their own, grouped where the numeric rank says so
    (Ia1 with ZZR1: joint 1 of the PUMA turns about the fixed vertical axis); the generated tau,
    M, G and h against Pinocchio with armature plus friction, and against the numeric regressor
    with the drive columns (Y_b beta)."""
    from designer.identification.base_params import base_parameters, base_regressor
    from designer.model import Convention
    from designer.identification.regressor import drive_regressor, regressor
    from tests.support.anyarm_arms import generic_arm
    if arm == "puma":
        path = puma_with_drives
    else:  # a prismatic third joint, twists no multiple of 90 degrees, drive data on every joint
        model = generic_arm(5, seed=3, convention=Convention.STANDARD, joints="RRPRR")
        drives = [Drive(gear_ratio=n, motor_inertia=j, viscous=b, coulomb=c)
                  for n, j, b, c in zip(GEAR, JM, VISC, COUL)]
        model = replace(model, links=tuple(replace(l, drive=d) for l, d in zip(model.links, drives)))
        path = tmp_path / "generic_drives.json"
        save_project(model, path)
    model = load_project(path)
    n = model.n
    out = tmp_path / "base.py"
    run(capsys, "codegen", path, "--lang", "python", "--parameters", "base", "--drives", "--out", out)
    ns = _module(out)
    bp = base_parameters(model, drives=True)
    assert tuple(ns["PARAMETERS"][:bp.count]) == bp.names
    assert "drive terms added" in out.read_text().split('"""')[1]
    assert all(f"{kind}{j}" in bp.names for kind in ("fv", "fc") for j in range(1, n + 1))
    if arm == "puma":  # Ia1 acts as ZZR1; ZZR2 acts as Ia2 (the gyroscopic terms of ZZ2 cancel in tau1)
        assert "Ia1" in bp.dropped and {"ZZR1", "IaR2"} <= set(bp.names)
    arm_n = NumericArm.from_model(model)
    rng = np.random.default_rng(5)
    Q, QD, QDD = rng.uniform(-2, 2, (3, n, 40))
    Y = np.concatenate([regressor(arm_n, Q, QD, QDD), drive_regressor(model, QD, QDD)], axis=-1)
    Y = Y.reshape(-1, 13 * n)
    assert bp.count == np.linalg.matrix_rank(Y, tol=1e-9 * np.abs(Y).max())
    pm = pin_model(arm_n)
    pm.armature = np.array(GEAR[:n]) ** 2 * np.array(JM[:n])
    data = pm.createData()
    beta = np.array(ns["DEFAULTS"][:bp.count])
    for k in range(5):
        q, qd, qdd = Q[:, k], QD[:, k], QDD[:, k]
        friction = np.array(VISC[:n]) * qd + np.array(COUL[:n]) * np.sign(qd)
        tau = np.asarray(ns["tau"](q, qd, qdd)).ravel()
        tau_ref = pin.rnea(pm, data, q, qd, qdd) + friction
        np.testing.assert_allclose(tau, tau_ref, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(base_regressor(bp, arm_n, q, qd, qdd) @ beta, tau_ref, rtol=1e-9, atol=1e-9)
        M_pin = pin.crba(pm, data, q)
        M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
        np.testing.assert_allclose(np.asarray(ns["mass_matrix"](q)).reshape(n, n), M_pin, rtol=1e-9, atol=1e-10)
        G = np.asarray(ns["gravity"](q)).ravel()
        np.testing.assert_allclose(G, pin.computeGeneralizedGravity(pm, data, q), rtol=1e-9, atol=1e-9)
        h_ref = pin.rnea(pm, data, q, qd, np.zeros(n)) + friction - G
        np.testing.assert_allclose(np.asarray(ns["bias"](q, qd)).ravel(), h_ref, rtol=1e-9, atol=1e-9)
