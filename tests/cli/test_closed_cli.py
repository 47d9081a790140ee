"""eval, torques and simulate of a closed-chain project, and the refusal of serial-only commands."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from designer.cli import main
from designer.numeric.closed import ClosedDynamics
from tests.support import robot_path

PALLETIZER = str(robot_path("palletizer_parallelogram"))


def test_eval_gives_actuated_dynamics_and_cut_forces(tmp_path, capsys):
    states = tmp_path / "states.json"
    q, qd, qdd = [0.1, 0.2, -0.1, 0.3], [0.5, -0.2, 0.3, 0.1], [1.0, 0.5, -0.5, 0.2]
    states.write_text(json.dumps({"states": [{"q": q, "qd": qd, "qdd": qdd}]}))
    assert main(["eval", PALLETIZER, "--states", str(states), "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    result = out["results"][0]
    assert out["actuated"] == ["q1", "q2", "q4", "q6"]
    # tau = M qdd + h + G in the actuated coordinates
    M, h, G = np.array(result["M"]), np.array(result["h"]), np.array(result["G"])
    assert np.allclose(result["tau"], M @ qdd + h + G, rtol=1e-10, atol=1e-9)
    assert result["q_tree"][2] == np.float64(q[2] - q[1])      # q3 = q4 - q2, exactly
    assert len(result["cut_forces"]) == 1 and result["residual"] < 1e-12


def test_torques_and_simulate(tmp_path, capsys):
    traj = tmp_path / "traj.csv"
    rows = ["q1,q2,q4,q6,qd1,qd2,qd4,qd6,qdd1,qdd2,qdd4,qdd6"]
    for t in np.linspace(0, 1, 5):
        rows.append(",".join(str(v) for v in [0.1 * t, 0.2 * t, -0.1 * t, 0, 0.1, 0.2, -0.1, 0, 0, 0, 0, 0]))
    traj.write_text("\n".join(rows) + "\n")
    out = tmp_path / "tau.csv"
    assert main(["torques", PALLETIZER, str(traj), "--out", str(out), "--quiet"]) == 0
    table = list(csv.DictReader(io.StringIO(out.read_text())))
    assert set(table[0]) == {"tau1", "tau2", "tau4", "tau6", "f1x", "f1y", "f1z"}
    summary = capsys.readouterr().out
    assert "peak cut-joint force" in summary
    sim = tmp_path / "sim.csv"
    assert main(["simulate", str(robot_path("four_bar")), "--q0", "0", "--qd0", "3", "--t", "0.5",
                 "--dt", "0.05", "--out", str(sim), "--quiet", "--rtol", "1e-10", "--atol", "1e-12"]) == 0
    rows = list(csv.DictReader(io.StringIO(sim.read_text())))
    energy = np.array([float(r["energy"]) for r in rows])
    assert np.abs(energy - energy[0]).max() < 1e-6
    assert max(float(r["loop_residual"]) for r in rows) < 1e-11


def test_serial_only_commands_refuse_a_closed_chain(capsys):
    # modes takes a closed chain (tests/explore/test_closed_elastic.py); the bundled palletizer has no gearboxes
    assert main(["modes", PALLETIZER]) == 2
    err = capsys.readouterr().err
    assert "no actuated joint has a drive stiffness" in err and len(err.strip().splitlines()) == 1
    # fk takes the actuated joints of a closed chain, and says which when given the tree's
    assert main(["fk", PALLETIZER, "--q", "0,0,0,0,0,0"]) == 2
    err = capsys.readouterr().err
    assert "q1, q2, q4, q6" in err and len(err.strip().splitlines()) == 1


def test_a_pose_that_cannot_close_is_one_line(tmp_path, capsys):
    from designer.kinematics.closure import ClosureError
    from designer.model import Convention
    from designer.project import save_project
    from tests.support.closed_reference import four_bar
    for seed in range(20):   # a four-bar whose crank cannot turn to pi from its nominal pose
        model = four_bar(np.random.default_rng(seed), Convention.STANDARD)
        try:
            ClosedDynamics(model).positions([np.pi])
        except ClosureError:
            break
    path = tmp_path / "rocker.json"
    save_project(model, path)
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": [np.pi], "qd": [0], "qdd": [0]}]}))
    assert main(["eval", str(path), "--states", str(states), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "states[0]" in err and "four-bar" in err and len(err.strip().splitlines()) == 1


def test_linearize_a_closed_chain_names_the_actuated_joints(capsys):
    assert main(["linearize", PALLETIZER, "--q", "0.1", "0.2", "-0.1", "0", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["state"] == ["q1", "q2", "q4", "q6", "qd1", "qd2", "qd4", "qd6"]
    assert np.array(data["A"]).shape == (8, 8)
    assert main(["linearize", str(robot_path("four_bar")), "--q", "0", "--symbolic", "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert "do not close linearly" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("project, q", [(PALLETIZER, [0.1, 0.2, -0.1, 0.3]), ("random", [0.2, -0.3, 0.1])])
def test_symbolic_linearization_of_a_closed_chain_is_the_numeric_one(tmp_path, capsys, project, q):
    """linearize --symbolic of a parallelogram: its dtau/dq, dtau/dqd and M, in the mechanism's joint names,
    at the operating point equal the numeric ones (central differences of the projected tree RNEA); A and B
    numeric only."""
    import sympy as sp
    from designer.model import Convention
    from designer.project import save_project
    from tests.support.closed_reference import parallelogram_arm
    if project == "random":
        model = parallelogram_arm(np.random.default_rng(4), Convention.STANDARD)
        project = str(tmp_path / "arm.json")
        save_project(model, project)
    qd, qdd = [0.3, -0.2, 0.5, 0.1][:len(q)], [0.1, 0.4, -0.3, 0.2][:len(q)]
    assert main(["linearize", project, "--q", *map(str, q), "--qd", *map(str, qd), "--qdd", *map(str, qdd),
                 "--symbolic", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = data["state"]
    values = {sp.Symbol(name, real=True): v for name, v in zip(names, q + qd)}
    values.update({sp.Symbol("qdd" + name[1:], real=True): v for name, v in zip(names[:len(q)], qdd)})
    from designer.project import load_project
    values.update({sp.Symbol(k, real=True): v for k, v in load_project(project).parameter_values.items()})
    assert data["symbolic"]["A"] is None and data["symbolic"]["B"] is None
    for key in ("dtau_dq", "dtau_dqd", "M"):
        assert data["symbolic"][key] is not None
        got = np.array([[float(sp.sympify(e, locals={s.name: s for s in values}).xreplace(values)) for e in row]
                        for row in data["symbolic"][key]])
        want = np.array(data[key])
        assert np.abs(got - want).max() < 1e-5 * max(1.0, np.abs(want).max()), key


def test_regressor_of_a_closed_chain(capsys):
    assert main(["regressor", str(robot_path("four_bar")), "--base"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["standard"]) == 30 and data["base_count"] == len(data["base"]) > 0
    capsys.readouterr()
    # a closed chain's excitation without --base, as a serial arm's: the standard parameters and cond(Y_b)
    assert main(["regressor", str(robot_path("four_bar")), "--excite", "--period", "4", "--harmonics", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "base" not in data and data["condition"]["samples"] == 200 and data["condition"]["condition"] >= 1


def test_info_and_validate_show_the_tree_and_name_a_loop_that_cannot_close(tmp_path, capsys):
    assert main(["info", str(robot_path("acma_sr400"))]) == 0
    out = capsys.readouterr().out
    assert "link 7 on link 1" in out and "link 8 on link 7 (passive)" in out and "loops[1] (parallelogram)" in out
    assert main(["validate", str(robot_path("four_bar"))]) == 0
    capsys.readouterr()
    doc = json.loads(robot_path("four_bar").read_text())
    doc["loops"][0]["frame_j"]["xyz"] = ["L0 + 0.002", 0, 0]   # the ground 2 mm longer: assembled, with a warning
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert main(["validate", str(bad)]) == 0
    out = capsys.readouterr().out
    assert "warning: loops[1] (ground pin): does not close at the nominal pose" in out and "2 mm apart" in out
    doc["loops"][0]["frame_j"]["xyz"] = ["L0", 0, 0.002]   # 2 mm out of the four-bar's plane: no turn closes it
    bad.write_text(json.dumps(doc))
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "loops[1] (ground pin): cannot be assembled" in err and "2 mm apart at best" in err


def test_drive_terms_of_a_closed_chain(tmp_path, capsys):
    """A motor (N, Jm) on the crank and a viscous bearing on the passive forearm joint: M gains N^2 Jm on
    the crank's diagonal only, and the friction's power is that of every tree joint's friction."""
    from dataclasses import replace

    from designer.model import Drive
    from designer.project import load_project, save_project
    model = load_project(robot_path("palletizer_parallelogram"))
    links = list(model.links)
    links[3] = replace(links[3], drive=Drive(gear_ratio=100.0, motor_inertia=2e-4))
    links[2] = replace(links[2], drive=Drive(viscous=30.0))
    path = tmp_path / "driven.json"
    save_project(replace(model, links=tuple(links)), path)
    q, qd, qdd = [0.1, 0.2, -0.1, 0.3], [0.5, -0.2, 0.3, 0.1], [1.0, 0.5, -0.5, 0.2]
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": q, "qd": qd, "qdd": qdd}]}))
    assert main(["eval", str(path), "--states", str(states), "--quiet"]) == 0
    rigid = json.loads(capsys.readouterr().out)["results"][0]
    assert main(["eval", str(path), "--states", str(states), "--drives", "--quiet"]) == 0
    driven = json.loads(capsys.readouterr().out)["results"][0]
    dM = np.array(driven["M"]) - np.array(rigid["M"])
    assert np.allclose(dM, np.diag([0, 0, 100.0**2 * 2e-4, 0]))
    M, h, G = (np.array(driven[k]) for k in ("M", "h", "G"))
    assert np.allclose(driven["tau"], M @ qdd + h + G + np.array(driven["friction"]))
    qd_tree = ClosedDynamics(load_project(path)).state(q, qd)[1]
    assert np.dot(driven["friction"], qd) == pytest.approx(30.0 * qd_tree[2] ** 2)


def test_export_urdf_writes_the_spanning_tree_and_says_what_it_dropped(tmp_path, capsys):
    out = tmp_path / "p.urdf"
    assert main(["export-urdf", PALLETIZER, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if line.startswith("note: ")]
    assert len(notes) == 3 and "cut joint(s) of parallelogram dropped" in notes[-1]
    assert out.read_text().count("<mimic") == 4
    # and the import-urdf command reads it back as a closed chain
    project = tmp_path / "p.json"
    assert main(["import-urdf", str(out), "--out", str(project)]) == 0
    assert "revolute cut joint" in capsys.readouterr().err
    assert json.loads(project.read_text())["loops"][0]["joint"] == "R"


def test_export_mjcf_of_a_closed_chain_says_how_it_closed_the_loops(tmp_path, capsys):
    assert main(["export-mjcf", PALLETIZER, "--out", str(tmp_path / "p.xml")]) == 0
    err = capsys.readouterr().err
    assert "note: closed chain" in err and "equality" in err
    assert "<connect" in (tmp_path / "p.xml").read_text()


def test_regressor_of_a_closed_chain_with_its_drive_parameters(tmp_path, capsys):
    """regressor --drives of a parallelogram with a rotor and friction on the passive forearm joint: the
    drive parameters are among the standard ones, and the base count is the rank of the projected
    regressor with the drive columns, Pinocchio's tree regressor and a differenced W (the drive columns
    W^T e_j times qdd_j, qd_j, sign(qd_j) written here from the tree rates)."""
    from dataclasses import replace

    import pinocchio as pin
    from designer.model import Drive
    from designer.project import load_project, save_project
    from tests.support.closed_reference import PinMechanism
    model = load_project(robot_path("palletizer_parallelogram"))
    links = list(model.links)
    links[2] = replace(links[2], drive=Drive(gear_ratio=20.0, motor_inertia=1e-4, viscous=3.0, coulomb=1.0))
    links[3] = replace(links[3], drive=Drive(gear_ratio=100.0, motor_inertia=2e-4))
    model = replace(model, links=tuple(links))
    path = tmp_path / "driven.json"
    save_project(model, path)
    assert main(["regressor", str(path), "--base", "--drives"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"Ia3", "fv3", "fc3", "Ia4", "fv4", "fc4"} <= set(data["standard"])
    cd, ref = ClosedDynamics(model), PinMechanism(model)
    rng = np.random.default_rng(2)
    rows = []
    for _ in range(60):
        qa, qda, qdda = rng.uniform(-0.5, 0.5, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n)
        q, qd, qdd, _ = cd.state(qa, qda, qdda)
        o = ref.order
        Y = np.empty((cd.n_tree, 10 * cd.n_tree))
        Y[o] = pin.computeJointTorqueRegressor(ref.model, ref.model.createData(), q[o], qd[o], qdd[o])
        D = np.zeros((cd.n_tree, 6))
        for c, (j, col) in enumerate([(2, qdd), (2, qd), (2, np.sign(qd)), (3, qdd), (3, qd), (3, np.sign(qd))]):
            D[j, c] = col[j]
        e = 1e-6
        W = np.array([(cd.positions(qa + d) - cd.positions(qa - d)) / (2 * e) for d in np.eye(cd.n) * e]).T
        rows.append(W.T @ np.hstack([Y, D]))
    s = np.linalg.svd(np.vstack(rows), compute_uv=False)
    assert data["base_count"] == int(np.sum(s > 1e-7 * s[0]))


def test_derive_base_parameters_of_a_closed_chain(capsys):
    """derive --base-parameters of the palletizer: the base parameters' values (the report's formulas at
    the project's standard parameters) times their columns of W^T Y_tree give Pinocchio's tau_a."""
    from designer.identification.regressor import Regressor
    from designer.project import load_project
    from tests.support.closed_reference import PinMechanism
    assert main(["derive", PALLETIZER, "--base-parameters", "--format", "json", "--quiet"]) == 0
    section = json.loads(capsys.readouterr().out)["base_parameters"]
    model = load_project(robot_path("palletizer_parallelogram"))
    cd, ref = ClosedDynamics(model), PinMechanism(model)
    reg = Regressor(cd)
    rows = section["parameters"]
    assert section["count"] == len(rows) == 25
    columns = [reg.names.index(r["name"].replace("R", "")) for r in rows]   # mxR4 starts from mx4
    beta = np.array([r["value"] for r in rows])
    rng = np.random.default_rng(6)
    for _ in range(3):
        qa, qda, qdda = rng.uniform(-0.5, 0.5, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n)
        q, qd, qdd, _ = cd.state(qa, qda, qdda)
        e = 1e-6
        W = np.array([(cd.positions(qa + d) - cd.positions(qa - d)) / (2 * e) for d in np.eye(cd.n) * e]).T
        want = W.T @ ref.rnea(q, qd, qdd)
        got = reg.actuated(qa, qda, qdda)[:, columns] @ beta
        assert np.abs(got - want).max() < 1e-4 * max(1.0, np.abs(want).max())   # 6 digits in the formulas


def test_simulate_takes_a_torque_table_by_link_numbers(tmp_path, capsys):
    """The palletizer's actuated joints are links 1, 2, 4, 6: its torque table's columns are tau1, tau2, tau4,
    tau6 as every output names them. Each column must act on its own joint: the run equals the Python
    simulation under those constant torques (distinct per joint, so a swapped column shows)."""
    from designer.numeric.simulate import simulate
    from designer.project import load_project
    tau = {"tau1": 3.0, "tau2": 150.0, "tau4": -40.0, "tau6": 0.5}
    table = tmp_path / "tau.csv"
    table.write_text("t," + ",".join(tau) + "\n" + "\n".join(f"{t}," + ",".join(map(str, tau.values()))
                                                                for t in (0.0, 1.0)) + "\n")
    sim = tmp_path / "sim.csv"
    q0 = [0.1, 0.2, -0.1, 0.3]
    assert main(["simulate", PALLETIZER, "--q0", *map(str, q0), "--t", "0.2", "--dt", "0.05", "--torque", str(table),
                 "--out", str(sim), "--quiet"]) == 0
    rows = list(csv.DictReader(io.StringIO(sim.read_text())))
    assert [float(rows[-1][k]) for k in tau] == pytest.approx(list(tau.values()), rel=1e-12)
    ref = simulate(ClosedDynamics(load_project(PALLETIZER)), q0, [0.0] * 4, (0.0, 0.2),
                          torque=list(tau.values()), t_eval=np.arange(0, 0.2001, 0.05))
    got = np.array([[float(r[f"q{j}"]) for j in (1, 2, 4, 6)] for r in rows])
    np.testing.assert_allclose(got, ref.q, rtol=1e-9, atol=1e-9)
    capsys.readouterr()


@pytest.mark.parametrize("header, message", [
    ("t,tau1,tau2,tau3,tau4", "missing column 'tau6' (expected t, tau1, tau2, tau4, tau6 (the actuated joints"),
    ("t,tau1,tau2,tau3,tau4,tau6", "column 'tau3' is no actuated joint's (expected t, tau1, tau2, tau4, tau6"),
])
def test_a_torque_table_naming_other_joints_is_one_line(tmp_path, capsys, header, message):
    table = tmp_path / "tau.csv"
    table.write_text(header + "\n" + ",".join(["0"] * len(header.split(","))) + "\n")
    assert main(["simulate", PALLETIZER, "--q0", "0", "0", "0", "0", "--t", "0.1", "--torque", str(table),
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def _torques(tmp_path, capsys, project, rows, names, *options) -> np.ndarray:
    traj = tmp_path / "traj.csv"
    traj.write_text(",".join(f"{p}{j}" for p in ("q", "qd", "qdd") for j in names) + "\n"
                    + "".join(",".join(repr(float(v)) for v in r) + "\n" for r in rows))
    code = main(["torques", project, str(traj), "--quiet", *options])
    out, err = capsys.readouterr()
    assert code == 0, err
    table = list(csv.DictReader(io.StringIO(out)))
    return np.array([[float(r[f"tau{j}"]) for j in names] for r in table])


@pytest.mark.parametrize("robot, names", [("palletizer_parallelogram", (1, 2, 4, 6)), ("four_bar", (1,))])
@pytest.mark.parametrize("method", ["lagrange", "newton-euler", "dalembert"])
def test_torques_method_of_a_closed_chain_is_its_closed_form_and_agrees_with_the_numeric_dynamics(
        tmp_path, capsys, robot, names, method):
    """torques --method M --form closed evaluates the closed form M derives for the closed chain (derive decides
    serial or closed); it agrees with the numeric projected dynamics (Pinocchio-checked, tests/numeric) row by row,
    on one branch of the loops. The compact form of every method is the numeric dynamics itself."""
    project = str(robot_path(robot))
    n = len(names)
    rng = np.random.default_rng(7)
    t = np.linspace(0.0, 1.0, 6)[:, None]
    q = 0.2 + 0.3 * t * rng.uniform(-1, 1, n)   # a smooth path: the rows stay on the nominal branch
    rows = np.hstack([q, rng.uniform(-1, 1, (6, n)), rng.uniform(-2, 2, (6, n))])
    numeric = _torques(tmp_path, capsys, project, rows, names)
    closed = _torques(tmp_path, capsys, project, rows, names, "--method", method, "--form", "closed")
    assert np.abs(numeric).max() > 1e-3
    assert np.allclose(closed, numeric, rtol=1e-9, atol=1e-9 * np.abs(numeric).max())
    # the compact form of a closed chain: its numeric dynamics, the same for every method (as a serial arm's)
    assert np.array_equal(_torques(tmp_path, capsys, project, rows, names, "--method", method), numeric)


def test_simulate_drives_of_a_serial_arm_is_refused_below_the_command_line(capsys):
    """The numeric simulate says which mechanisms take --drives (a closed chain's); the command line passes it on
    in one line naming the project, and runs the closed chain's."""
    serial = str(robot_path("planar_two_link"))
    assert main(["simulate", serial, "--drives", "--q0", "0", "0", "--t", "0.05", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and serial in err and "drives" in err and "closed chain" in err
    assert main(["simulate", str(robot_path("four_bar")), "--drives", "--q0", "0", "--t", "0.05", "--quiet"]) == 0
