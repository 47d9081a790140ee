"""explore payload, sensitivity, conditions, significance, sizing --iso-cube and fk on closed chains.

Each result is checked against a side computed another way: the payload's holding torques from the
virtual work of its weight through the tool point's Jacobian (central differences of the tool point,
each from a fresh closure solve); the closed-form sensitivity against a central difference of the
numeric projection W^T M W; a decoupling condition's solution applied, against M_a at random poses;
the ISO cube's joint path against the straight segments, by the tool point of fresh closure solves;
fk's passive joints against Pinocchio's placement of the cut points on the spanning tree.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from designer.cli import main
from designer.explore.joints import explore_arm
from designer.explore.sizing import payload_envelope
from designer.model.extras import Drive
from designer.project import load_project, save_project
from tests.support import robot_path
from tests.support.closed_reference import four_bar, parallelogram_arm, pin_mechanism
from designer.model import Convention

PALLETIZER = str(robot_path("palletizer_parallelogram"))


def _tool_point(arm, qa, r):
    """A point at r in the tool link's frame, from a fresh solve of the loops."""
    T = arm.cd.tree.frames(arm.cd.positions(qa))[arm.tool_link + 1]
    return T[:3, :3] @ r + T[:3, 3]


@pytest.mark.parametrize("model", [load_project(PALLETIZER), parallelogram_arm(np.random.default_rng(4), wrist=True),
                                   four_bar(np.random.default_rng(5), Convention.MODIFIED, mounted=True)],
                         ids=["palletizer", "parallelogram", "four-bar"])
def test_payload_envelope_of_a_closed_chain_is_the_virtual_work_of_the_weight(model):
    arm = explore_arm(model)
    q = np.random.default_rng(6).uniform(-0.4, 0.4, (5, arm.n))
    offsets = np.array([[0.0, 0.0, 0.0], [0.1, 0.0, 0.2]])
    tau0 = np.array([arm.cd.tau(qa, np.zeros(arm.n), np.zeros(arm.n)) for qa in q])
    T = 1.5 * np.abs(tau0).max(axis=0) + 1.0
    got = payload_envelope(arm, offsets, T, q)
    g = np.asarray(arm.gravity, float)
    e = 1e-6
    for r, mass in zip(offsets, got):
        # holding a unit mass: tau = -Jv^T g, Jv by central differences of the point over fresh closures
        per_kg = np.array([-np.stack([(_tool_point(arm, qa + d, r) - _tool_point(arm, qa - d, r)) / (2 * e)
                                      for d in np.eye(arm.n) * e], axis=1).T @ g for qa in q])
        with np.errstate(divide="ignore"):
            limit = np.where(np.abs(per_kg) > 1e-9, (T - np.sign(per_kg) * tau0) / np.abs(per_kg), np.inf)
        assert mass == pytest.approx(limit.min(), rel=1e-6)


def test_sensitivity_of_a_closed_chain_closed_form_against_the_numeric_projection(capsys):
    assert main(["explore", PALLETIZER, "sensitivity", "--metric", "coupling[2,4]", "--q", "0", "0.3", "-0.2", "0",
                 "--samples", "4", "--format", "json"]) == 0
    rows = {r["parameter"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    model = load_project(PALLETIZER)
    qa = np.array([0, 0.3, -0.2, 0])

    def coupling(values):
        M = explore_arm(model, values).cd.M(qa)
        return M[1, 2] / np.sqrt(M[1, 1] * M[2, 2])
    for name in ("m5", "c", "L3", "m_load"):
        assert rows[name]["derivative_expression"]     # the closed form's, not a difference
        p = model.parameter_values[name]
        h = 1e-6 * abs(p)
        fd = (coupling({name: p + h}) - coupling({name: p - h})) / (2 * h)
        assert rows[name]["derivative_at_q"] == pytest.approx(fd, rel=1e-6, abs=1e-9)


def test_decoupling_a_parallelogram_by_its_coupler_mass(capsys):
    """M_a[2,4] (shoulder and crank, by link numbers) = 0 solved for the coupler's mass (the parallelogram's
    classic balance), applied and checked on the numeric projection at random poses. On the bundled palletizer
    the load hangs Lw below the wrist, which couples shoulder and elbow whatever the coupler weighs: no
    solution, naming that coefficient (sympy.solve alone would pass over it and offer m5 anyway)."""
    from designer.explore.conditions import apply_condition, find_conditions
    from designer.model.expr import symbol
    model = load_project(PALLETIZER)
    assert main(["explore", PALLETIZER, "conditions", "--kind", "decoupled", "--target", "2,4", "--solve-for", "m5",
                 "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert not data["solutions"] and "Lw" in data["summary"]
    flat = model.map_expressions(lambda e: e.xreplace({symbol("Lw"): 0}) if e.free_symbols else e)
    res = find_conditions(flat, "decoupled", [(2, 4)], ["m5"])   # joints by their link numbers
    assert len(res.conditions) == 1 and res.targets == ((2, 4),)
    arm, before = explore_arm(apply_condition(flat, res.conditions[0])), explore_arm(flat)
    q = np.random.default_rng(8).uniform(-1, 1, (6, 4))
    M, M0 = arm.batch(q).M, before.batch(q).M
    assert np.abs(M[:, 1, 2]).max() < 1e-12 * np.abs(M).max()
    assert np.abs(M0[:, 1, 2]).max() > 1e-3 * np.abs(M0).max()   # it was coupled before


def test_conditions_of_a_four_bar_are_refused_in_one_line(capsys):
    assert main(["explore", str(robot_path("four_bar")), "conditions", "--kind", "balanced", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "four-bar" in err and "closed form" in err


def test_significance_of_a_closed_chain_and_its_operation_counts(capsys):
    assert main(["explore", PALLETIZER, "significance", "--speed", "2", "--acceleration", "5", "--samples", "128",
                 "--check", "100", "--ops", "--quiet", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert all(data["check"]["holds"]) and 0 < data["kept"] < data["total"] == 4 * (4 + 6 + 4 + 1)
    assert 0 < data["operations"]["simplified"] <= data["operations"]["full"]
    # a four-bar: its closed form in loop quantities, whose definitions (W, dW, detJp) count in both forms
    assert main(["explore", str(robot_path("four_bar")), "significance", "--speed", "2", "--acceleration", "5",
                 "--samples", "64", "--check", "0", "--ops", "--quiet", "--format", "json"]) == 0
    ops = json.loads(capsys.readouterr().out)["operations"]
    from designer.dynamics.algebra import count_ops_cse
    from designer.dynamics.closed_nonlinear import nonlinear_equations_job
    from designer.jobs import run
    eq = run(nonlinear_equations_job(load_project(robot_path("four_bar")).numeric()))
    defs = [it.value for it in eq.extras["loop_quantities"].items if it.kind in ("det", "W", "dW")]
    assert ops["full"] > count_ops_cse(defs) > 0 and 0 < ops["simplified"] <= ops["full"]


def test_iso_cube_path_of_a_closed_chain_follows_the_straight_segments(capsys):
    from designer.explore.iso9283 import cube_path, test_cube
    arm = explore_arm(load_project(PALLETIZER))
    cube = test_cube(arm, starts=4)
    path = cube_path(arm, cube, 0.25, 11)
    x = explore_arm(load_project(PALLETIZER)).tool_points(path.trajectory.q)   # fresh closures
    assert np.abs(x - path.x).max() < 1e-8
    J = arm.batch(path.trajectory.q).tool_jacobian[:, :3]
    assert np.abs(np.einsum("nij,nj->ni", J, path.trajectory.qd) - path.xd).max() < 1e-6
    assert main(["explore", PALLETIZER, "sizing", "--iso-cube", "--steps", "21", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["joints"]) == 4


@pytest.mark.parametrize("model", [load_project(PALLETIZER), four_bar(np.random.default_rng(9), mounted=True)],
                         ids=["palletizer", "four-bar"])
def test_fk_of_a_closed_chain_closes_the_loop_in_pinocchio(model, capsys, tmp_path):
    import pinocchio as pin
    path = tmp_path / "m.json"
    save_project(model, path)
    act = [k for k, link in enumerate(model.links, start=1) if link.actuated]
    qa = np.random.default_rng(10).uniform(-0.3, 0.3, len(act))
    assert main(["fk", str(path), "--q", *map(str, qa)]) == 0
    data = json.loads(capsys.readouterr().out)
    q = np.zeros(model.n)
    for name, v in {**data["q"], **data["passive"]}.items():
        q[int(name[1:]) - 1] = v
    assert np.allclose(q[np.array(act) - 1], qa)
    pm, constraints, order = pin_mechanism(model.numeric())
    pd = pm.createData()
    pin.forwardKinematics(pm, pd, q[order])
    for c in constraints:
        a = pd.oMi[c.joint1_id] * c.joint1_placement
        b = pd.oMi[c.joint2_id] * c.joint2_placement
        assert np.linalg.norm(a.translation - b.translation) < 1e-10
    assert np.allclose(np.array(data["tool_pose"])[:3, 3], data["tool_position"])


def test_explore_rates_a_closed_chain_by_its_actuated_joints_drive_data(capsys, tmp_path):
    """Drive data on every tree joint: the metrics take the actuated joints' ratings (the motors)."""
    model = load_project(PALLETIZER)
    links = tuple(replace(link, drive=Drive(rated_torque=1000.0 * (k + 1))) for k, link in enumerate(model.links))
    path = tmp_path / "rated.json"
    save_project(replace(model, links=links), path)
    qa = ["0", "0.3", "-0.2", "0"]
    assert main(["explore", str(path), "metric", "--q", *qa, "--metric", "gravity_ratio", "--format", "json"]) == 0
    value = json.loads(capsys.readouterr().out)["metrics"][0]["value"]
    G = np.abs(explore_arm(model).cd.G(np.array(qa, float)))
    assert value == pytest.approx((G / (1000.0 * np.array([1, 2, 4, 6]))).max(), rel=1e-12)


def test_explore_names_a_closed_chains_joints_by_their_links(capsys, tmp_path):
    """Sizing's table, series and trajectory columns and significance's terms use the link numbers 1, 2, 4, 6
    (eval's names), and the torques are eval's for those joints."""
    from designer.explore.sizing import quintic
    traj = quintic(np.zeros(4), np.array([0.5, 0.2, -0.2, 0.3]), 1.0, 11)
    path = tmp_path / "move.csv"
    path.write_text("t,q1,q2,q4,q6\n" + "".join(f"{t},{','.join(map(str, q))}\n" for t, q in zip(traj.t, traj.q)))
    assert main(["explore", PALLETIZER, "sizing", "--trajectory", str(path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["joint"] for r in data["joints"]] == [1, 2, 4, 6]
    assert {"tau4", "qd6", "power2"} <= set(data["series"][0]) and "tau3" not in data["series"][0]
    cd = explore_arm(load_project(PALLETIZER)).cd
    k = 5   # a middle sample: the rates come from central differences of the file's positions there
    tau = cd.tau(traj.q[k], np.gradient(traj.q, traj.t, axis=0)[k],
                 np.gradient(np.gradient(traj.q, traj.t, axis=0), traj.t, axis=0)[k])
    assert np.allclose([data["series"][k][f"tau{j}"] for j in (1, 2, 4, 6)], tau)
    path.write_text("t,q1,q2,q3,q4\n0,0,0,0,0\n")
    assert main(["explore", PALLETIZER, "sizing", "--trajectory", str(path)]) == 2
    assert "q6" in capsys.readouterr().err
    assert main(["explore", PALLETIZER, "significance", "--speed", "1", "--acceleration", "1", "--samples", "16",
                 "--check", "0", "--quiet", "--format", "json"]) == 0
    terms = {r["term"] for r in json.loads(capsys.readouterr().out)["terms"]}
    assert {"G_6", "M_24", "B_1,46"} <= terms and "G_3" not in terms


def test_conditions_of_a_closed_chain_without_symbols_are_checked_numerically():
    """No parameter to solve for: the condition is checked on M_a, G_a at poses where the loops close (a
    four-bar too): gravity balances nothing but itself, and a zero gravity leaves nothing to balance."""
    from designer.explore.conditions import find_conditions
    model = four_bar(np.random.default_rng(12), mounted=True)
    assert not find_conditions(model, "balanced").already
    assert find_conditions(replace(model, gravity=(0, 0, 0)), "balanced").already
    res = find_conditions(model, "decoupled", [(1, 2)])
    assert res.targets == ((1, 2),) and not res.already
