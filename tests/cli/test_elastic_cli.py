"""``simulate --elastic`` and ``modes`` on the command line: outputs against laws and Pinocchio, one-line errors."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
from scipy.linalg import eigh

from designer.cli import main
from designer.kinematics import NumericArm
from designer.project.io import dumps_project
from tests.explore.test_elastic_metrics import _elastic_two_link
from tests.support import robot_path
from tests.support.explore_pin import PinArm


def _path(tmp_path):
    path = tmp_path / "elastic.json"
    path.write_text(dumps_project(_elastic_two_link()))
    return path


def test_passive_elastic_simulation_keeps_its_energy_and_a_pd_move_reaches_the_target(tmp_path, capsys):
    path = _path(tmp_path)
    assert main(["simulate", str(path), "--elastic", "--q0", "0.3", "-0.2", "--t", "0.5", "--rtol", "1e-10",
                 "--atol", "1e-12", "--quiet"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    energy = np.array([float(r["energy"]) for r in rows])
    assert np.ptp(energy) < 1e-6 * np.abs(energy).max() and "theta1" in rows[0] and "tool_deviation_mm" in rows[0]
    assert max(abs(float(r["q1"]) - 0.3) for r in rows) > 1e-3      # the arm, released, did move
    assert main(["simulate", str(path), "--elastic", "--q0", "0", "0", "--t", "3", "--pd", "300", "30",
                 "--target", "0.4", "--move", "1", "--quiet"]) == 0
    last = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))[-1]
    assert abs(float(last["q1"]) - 0.4) < 1e-3 and abs(float(last["q2"]) - 0.4) < 1e-3


def test_modes_json_against_pinocchio(tmp_path, capsys):
    path = _path(tmp_path)
    assert main(["modes", str(path), "--q", "0.2", "1.0", "--payload", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    M = PinArm(NumericArm.from_model(_elastic_two_link())).M(np.array([0.2, 1.0]))
    w2 = eigh(np.diag([2e3, 1e3]), M, eigvals_only=True)
    np.testing.assert_allclose(out["locked"]["frequency_hz"], np.sqrt(w2) / (2 * np.pi), rtol=1e-9)
    assert len(out["free"]["frequency_hz"]) == 2 and np.shape(out["compliance"]["matrix"]) == (6, 6)
    assert len(out["sag_mm"]) == 3


def test_rigid_projects_and_wrong_options_give_one_line(tmp_path, capsys):
    rigid = str(robot_path("planar_two_link"))
    for argv in (["modes", rigid], ["simulate", rigid, "--elastic", "--q0", "0", "0", "--t", "1"],
                 ["simulate", str(_path(tmp_path)), "--elastic", "--q0", "0", "0", "--qd0", "1", "1", "--t", "1"],
                 ["simulate", rigid, "--q0", "0", "0", "--t", "1", "--move", "1"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1, err


def test_linearize_elastic_about_the_hanging_arm_is_a_conservative_oscillator(tmp_path, capsys):
    """Undamped springs, motors holding, the arm hanging: every eigenvalue on the imaginary axis."""
    path = _path(tmp_path)
    assert main(["linearize", str(path), "--elastic", "--q", str(-np.pi / 2), "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["state"] == ["q1", "q2", "theta1", "theta2", "qd1", "qd2", "thetad1", "thetad2"]
    eig = np.array(out["eigenvalues"])
    assert np.abs(eig[:, 0]).max() < 1e-6 * np.abs(eig[:, 1]).max() and np.abs(eig[:, 1]).max() > 10


def test_eval_elastic_matches_pinocchios_link_side(tmp_path, capsys, monkeypatch):
    """eval --elastic gives numbers from the numeric engine (compiling the symbolic form is refused here): the link
    side solved over Pinocchio's M, G, h with the rigid joints' N^2 Jm on M's diagonal, the motor side
    Jm theta'' = tau_m - tau_s / N (the spring torque tau_s the model's own)."""
    import designer.numeric.evaluable as evaluable
    from designer.numeric.elastic import ElasticArm, elastic_joints

    def refused(*args, **kwargs):
        raise AssertionError("eval --elastic compiled the symbolic form to give numbers")
    monkeypatch.setattr(evaluable, "compiled_equations", refused)
    path = _path(tmp_path)
    model = _elastic_two_link()
    joints = elastic_joints(model)
    ours = ElasticArm(NumericArm.from_model(model), joints)
    peer = PinArm(NumericArm.from_model(model))
    E = joints.elastic
    rng = np.random.default_rng(4)
    ys, us = rng.normal(size=(3, ours.size)), rng.normal(size=(3, 2))
    states = [{"q": y[:2].tolist(), "theta": y[2:4].tolist(), "qd": y[4:6].tolist(), "thetad": y[6:].tolist(),
               "tau_m": u.tolist()} for y, u in zip(ys, us)]
    (tmp_path / "states.json").write_text(json.dumps({"states": states}))
    for method in ("lagrange", "newton-euler"):
        assert main(["eval", str(path), "--elastic", "--states", str(tmp_path / "states.json"),
                     "--method", method, "--quiet"]) == 0
        out = json.loads(capsys.readouterr().out)
        for r, y, u in zip(out["results"], ys, us):
            q, theta, qd, thetad = y[:2], y[2:4], y[4:6], y[6:]
            spring = ours.spring(q, theta, qd, thetad)
            tau = joints.gear * u
            tau[E] = spring
            qdd = np.linalg.solve(peer.M(q) + np.diag(joints.reflected), tau - peer.G(q) - peer.h(q, qd))
            thdd = (u[E] - spring / joints.gear[E]) / joints.rotor[E]
            np.testing.assert_allclose(r["qdd"], qdd, rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(r["thetadd"], thdd, rtol=1e-9, atol=1e-9)
    (tmp_path / "bad.json").write_text(json.dumps({"states": [{"q": [0, 0], "qd": [0, 0], "theta": [1]}]}))
    assert main(["eval", str(path), "--elastic", "--states", str(tmp_path / "bad.json"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "states[0].theta" in err and len(err.strip().splitlines()) == 1
