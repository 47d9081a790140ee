"""``simulate``, ``linearize``, ``codegen`` and ``eval --elastic`` of closed chains (the palletizer and four-bars with
gearboxes on their actuated joints) against independent sides, and their one-line refusals:

- linearize: A's eigenvalues at rest (gravity off) are +-i w of ``modes``' free modes, which explore's
  closed-chain batch computes from its own M_a (bodies' Jacobians times W) and K by scipy's eigh;
- simulate: a passive run keeps its energy with the loops closed; a motor-side PD move with gravity
  compensation at the reference reaches its target (De Luca's law: the only rest point);
- codegen: the generated Python (closed form of the palletizer, compact form of the four-bar) and C give the
  numeric model's q'' and theta'' (numeric/closed_elastic.py over the tree's RNEA and CRBA), and so does
  ``eval --elastic`` at the same states.
"""

from __future__ import annotations

import csv
import ctypes
import io
import json
import shutil
import subprocess
from dataclasses import replace

import numpy as np
import pytest

from designer.cli import main
from designer.model.extras import Drive
from designer.numeric.closed import ClosedDynamics
from designer.numeric.elastic import ElasticArm, elastic_joints
from designer.project import load_project
from designer.project.io import dumps_project
from tests.support import robot_path
from tests.support.closed_reference import four_bar

#: (link, stiffness N m/rad, damping N m s/rad, gear ratio, rotor kg m^2): the palletizer's four motors
PALLETIZER_DRIVES = ((0, 2e5, 0.0, 120.0, 5e-3), (1, 3e5, 0.0, 150.0, 8e-3), (3, 2e5, 0.0, 150.0, 8e-3),
                     (5, 2e4, 0.0, 80.0, 1e-3))


def _load(name):
    loaded = load_project(robot_path(name))
    return getattr(loaded, "model", loaded)


def with_drives(model, drives, gravity: float | None = None):
    links = list(model.links)
    for i, k, d, n, jm in drives:
        links[i] = replace(links[i], drive=Drive(stiffness=k, damping=d or None, gear_ratio=n, motor_inertia=jm))
    params = dict(model.parameters)
    if gravity is not None:
        params["g"] = gravity
    return replace(model, links=tuple(links), parameters=params)


def palletizer(gravity=None, drives=PALLETIZER_DRIVES):
    return with_drives(_load("palletizer_parallelogram"), drives, gravity)


def four_bar_file(gravity=None):
    return with_drives(_load("four_bar"), ((0, 500.0, 0.0, 30.0, 1e-4),), gravity)


def write(tmp_path, model, name="m.json"):
    path = tmp_path / name
    path.write_text(dumps_project(model))
    return str(path)


def _json(capsys):
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("which", ["palletizer", "four_bar"])
def test_linearize_eigenvalues_at_rest_are_the_free_modes(tmp_path, capsys, which):
    model = palletizer(gravity=0.0) if which == "palletizer" else four_bar_file(gravity=0.0)
    path = write(tmp_path, model)
    q = ["0.2", "-0.3", "0.4", "0.1"] if which == "palletizer" else ["0.7"]
    assert main(["linearize", path, "--elastic", "--q", *q]) == 0
    lin = _json(capsys)
    assert main(["modes", path, "--q", *q]) == 0
    modes = _json(capsys)
    names = modes["joints"]
    assert lin["state"] == names + ["theta" + v[1:] for v in names] + ["qd" + v[1:] for v in names] + \
        ["thetad" + v[1:] for v in names]
    eig = np.array(lin["eigenvalues"])
    w = np.sort(eig[eig[:, 1] > 1e-3, 1])
    assert np.abs(eig[:, 0]).max() < 1e-6 * w.max()        # undamped: on the imaginary axis
    np.testing.assert_allclose(w, 2 * np.pi * np.sort(modes["free"]["frequency_hz"]), rtol=1e-6)
    assert len(w) == len(names)
    # the Python text: the same A, its header naming the elastic state
    assert main(["linearize", path, "--elastic", "--q", *q, "--format", "python"]) == 0
    text = capsys.readouterr().out
    assert "x = [q; theta; qd; thetad]" in text and ", ".join(lin["state"]) in text
    space: dict = {}
    exec(text, space)
    np.testing.assert_array_equal(space["A"], lin["A"])


def test_simulate_elastic_palletizer_keeps_energy_and_closes_its_loops(tmp_path, capsys):
    path = write(tmp_path, palletizer())
    assert main(["simulate", path, "--elastic", "--q0", "0", "0.2", "0.3", "0", "--t", "0.3", "--rtol", "1e-9",
                 "--atol", "1e-11", "--quiet"]) == 0
    out = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out.out)))
    assert list(rows[0])[:9] == ["t", "q1", "q2", "q4", "q6", "theta1", "theta2", "theta4", "theta6"]
    energy = np.array([float(r["energy"]) for r in rows])
    q2 = np.array([float(r["q2"]) for r in rows])
    assert np.ptp(q2) > 0.02                                     # released, with free motors it falls
    assert np.ptp(energy) < 1e-7 * np.abs(energy).max()
    assert max(float(r["loop_residual"]) for r in rows) < 1e-9
    assert "closed chain" in out.err and "loop residual" in out.err


def test_a_motor_pd_move_of_the_palletizer_reaches_its_target(tmp_path, capsys):
    drives = tuple((i, k, 0.02 * k ** 0.5, n, jm) for i, k, _, n, jm in PALLETIZER_DRIVES)
    path = write(tmp_path, palletizer(drives=drives))
    target = [0.3, 0.1, 0.5, 0.4]
    assert main(["simulate", path, "--elastic", "--q0", "0", "0", "0.3", "0", "--t", "1.2", "--pd", "1e5", "1e4",
                 "--target", *map(str, target), "--move", "0.6", "--quiet"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    last = rows[-1]
    np.testing.assert_allclose([float(last[k]) for k in ("q1", "q2", "q4", "q6")], target, atol=1e-4)
    assert max(float(r["tool_deviation_mm"]) for r in rows) > 0.01      # the springs gave during the move


def _numeric(model):
    return ElasticArm(None, elastic_joints(model), ClosedDynamics(model))


def _states(ea, count=6, scale=0.3):
    rng = np.random.default_rng(7)
    for _ in range(count):
        y = rng.uniform(-scale, scale, ea.size)
        y[ea.n:ea.n + ea.m] *= ea.NE                            # motor angles near N q
        yield y, rng.normal(size=ea.n)


@pytest.mark.parametrize("which", ["palletizer", "four_bar", "mounted"])
def test_codegen_elastic_python_equals_the_numeric_model(tmp_path, capsys, which):
    model = {"palletizer": lambda: palletizer(), "four_bar": lambda: four_bar_file(),
             "mounted": lambda: with_drives(four_bar(np.random.default_rng(2), mounted=True),
                                            ((0, 3e4, 5.0, 50.0, 2e-4), (1, 800.0, 0.0, 40.0, 1e-4)))}[which]()
    path = write(tmp_path, model)
    out = tmp_path / "arm.py"
    assert main(["codegen", path, "--lang", "python", "--elastic", "--out", str(out), "--quiet"]) == 0
    space: dict = {}
    exec(compile(out.read_text(), str(out), "exec"), space)
    ea = _numeric(model)
    generated = []
    for y, tau_m in _states(ea):
        q, th, qd, thd = ea.split(y)
        qdd, thdd = space["elastic_forward"](q, th, qd, thd, tau_m)
        generated.append((qdd, thdd))
        ref_qdd, ref_thdd = ea.accelerations(y, tau_m)
        np.testing.assert_allclose(qdd, ref_qdd, rtol=1e-9, atol=1e-9 * np.abs(ref_qdd).max())
        np.testing.assert_allclose(thdd, ref_thdd, rtol=1e-9, atol=1e-9 * np.abs(ref_thdd).max())
    # eval --elastic: the same states through the command line
    states = [dict(zip(("q", "theta", "qd", "thetad"), map(np.ndarray.tolist, ea.split(y))), tau_m=t.tolist())
              for y, t in _states(ea)]
    (tmp_path / "states.json").write_text(json.dumps({"states": states}))
    assert main(["eval", path, "--elastic", "--states", str(tmp_path / "states.json")]) == 0
    got = _json(capsys)
    assert got["actuated"] == [f"q{i + 1}" for i, link in enumerate(model.links) if link.actuated]
    for row, (qdd, thdd) in zip(got["results"], generated):
        np.testing.assert_allclose(row["qdd"], qdd, rtol=1e-9, atol=1e-9 * np.abs(qdd).max())
        np.testing.assert_allclose(row["thetadd"], thdd, rtol=1e-9, atol=1e-9 * np.abs(thdd).max())


@pytest.mark.parametrize("which", ["palletizer", "four_bar"])
def test_codegen_elastic_with_the_base_parameters(tmp_path, which):
    """--parameters base: the closed-loop base parameters as p (their values the defaults): the palletizer's
    closed form, the four-bar's compact form (the passive positions from its two circles)."""
    model = palletizer() if which == "palletizer" else four_bar_file()
    path = write(tmp_path, model)
    out = tmp_path / "arm.py"
    assert main(["codegen", path, "--lang", "python", "--elastic", "--parameters", "base", "--out", str(out),
                 "--quiet"]) == 0
    space: dict = {}
    exec(compile(out.read_text(), str(out), "exec"), space)
    ea = _numeric(model)
    for y, tau_m in _states(ea):
        qdd, thdd = space["elastic_forward"](*ea.split(y), tau_m)
        ref_qdd, ref_thdd = ea.accelerations(y, tau_m)
        np.testing.assert_allclose(qdd, ref_qdd, rtol=1e-8, atol=1e-8 * np.abs(ref_qdd).max())
        np.testing.assert_allclose(thdd, ref_thdd, rtol=1e-9, atol=1e-9 * np.abs(ref_thdd).max())


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_codegen_elastic_c_of_the_palletizer(tmp_path):
    model = palletizer()
    src = tmp_path / "arm.c"
    assert main(["codegen", write(tmp_path, model), "--lang", "c", "--elastic", "--prefix", "arm", "--out", str(src),
                 "--quiet"]) == 0
    lib = tmp_path / "libarm.so"
    subprocess.run(["cc", "-O1", "-Wall", "-Werror", "-shared", "-fPIC", str(src), "-o", str(lib), "-lm"], check=True)
    fn = ctypes.CDLL(str(lib)).arm_elastic_forward
    P = ctypes.POINTER(ctypes.c_double)
    ea = _numeric(model)
    for y, tau_m in _states(ea):
        q, th, qd, thd = (np.ascontiguousarray(a) for a in ea.split(y))
        qdd, thdd = np.zeros(ea.n), np.zeros(ea.m)
        args = [a.ctypes.data_as(P) for a in (q, th, qd, thd, np.ascontiguousarray(tau_m))]
        assert fn(*args, None, qdd.ctypes.data_as(P), thdd.ctypes.data_as(P)) == 0
        ref_qdd, ref_thdd = ea.accelerations(y, tau_m)
        np.testing.assert_allclose(qdd, ref_qdd, rtol=1e-9, atol=1e-9 * np.abs(ref_qdd).max())
        np.testing.assert_allclose(thdd, ref_thdd, rtol=1e-9, atol=1e-9 * np.abs(ref_thdd).max())


def test_bad_inputs_give_one_line_and_exit_2(tmp_path, capsys):
    plain = str(robot_path("four_bar"))                                # no stiffness at all
    model = palletizer()
    links = list(model.links)
    links[2] = replace(links[2], drive=Drive(stiffness=1e4))            # the passive forearm joint
    passive = write(tmp_path, replace(model, links=tuple(links)), "passive.json")
    # a random four-bar whose crank cannot reach 3 rad (its coupler and rocker fall short)
    short = write(tmp_path, with_drives(four_bar(np.random.default_rng(0)), ((0, 500.0, 0.0, 30.0, 1e-4),)), "fb.json")
    cases = [
        (["simulate", plain, "--elastic", "--q0", "0", "--t", "0.1"], "no actuated joint has a drive stiffness"),
        (["linearize", plain, "--elastic"], "no actuated joint has a drive stiffness"),
        (["codegen", plain, "--elastic", "--lang", "python"], "no joint has a drive stiffness"),
        (["eval", plain, "--elastic", "--states", "s.json"], "no actuated joint has a drive stiffness"),
        (["simulate", passive, "--elastic", "--q0", "0", "0", "0", "0", "--t", "0.1"], "passive joint(s) 3"),
        (["linearize", passive, "--elastic"], "passive joint(s) 3"),
        (["codegen", passive, "--elastic", "--lang", "python"], "passive joint(s) 3"),
        (["simulate", short, "--elastic", "--q0", "3", "--t", "0.1"], "cannot close"),
        (["linearize", short, "--elastic", "--q", "3"], "cannot close"),
        (["simulate", write(tmp_path, palletizer(), "p.json"), "--elastic", "--q0", "0", "0", "--t", "0.1"],
         "q1, q2, q4, q6"),
    ]
    for argv, words in cases:
        assert main(argv + ["--quiet"] if argv[0] != "linearize" else argv) == 2, argv
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and words in err, (argv, err)


def test_eval_elastic_of_a_closed_chain_is_the_same_for_every_method(tmp_path, capsys):
    """eval --elastic asks one function (numeric/evaluable.py); a closed chain's elastic model is its numeric
    projected dynamics, the same for every method, as a serial arm's is: --method changes no number."""
    path = write(tmp_path, palletizer(), "p.json")
    states = tmp_path / "s.json"
    states.write_text(json.dumps({"states": [{"q": [0.1, -0.2, 0.3, 0.05], "qd": [0.2, 0.1, -0.3, 0.4],
                                              "theta": [0.11, -0.19, 0.32, 0.04], "thetad": [0.0] * 4}]}))
    outputs = []
    for method in ("lagrange", "newton-euler", "dalembert"):
        assert main(["eval", path, "--elastic", "--states", str(states), "--method", method, "--quiet"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0]["actuated"] == ["q1", "q2", "q4", "q6"]
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]
