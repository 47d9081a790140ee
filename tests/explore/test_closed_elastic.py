"""Elastic-joint metrics of closed chains (the actuated joints' gearboxes) against independent sides.

The palletizer with drive stiffness on its actuated joints and random parallelogram arms and four-bars:

- ``frequency``: scipy.linalg.eigh(K, M_a) with M_a = W^T M_tree W from Pinocchio's CRBA of the spanning
  tree (tests/support/closed_reference.py) and W from central differences of the closure;
- ``frequency_free``: the 2 n_a model (M_a and the rotors N^2 Jm; springs between motor and joint) by
  scipy.linalg.eigh, its n_a zero modes left out;
- ``compliance``: J K^-1 J^T with J from central differences of the tool point over fresh closures, and
  the tool point's move under the joint deflections dq = K^-1 J^T F of a small force;
- ``deflection``: dq = K^-1 (J_v^T m_p g - G_a), G_a = W^T (Pinocchio's RNEA gravity of the tree).
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import scipy.linalg

from designer.explore.joints import explore_arm
from designer.explore.metrics import drive_ratings
from designer.explore.metrics import MetricError, Ratings, evaluate
from designer.model.extras import Drive
from designer.project import load_project
from tests.support import robot_path
from tests.support.closed_reference import four_bar, parallelogram_arm, pin_mechanism


def with_gearboxes(model, rng):
    """The model with a drive stiffness (N m/rad), gear ratio and rotor inertia on each actuated joint."""
    links = tuple(replace(link, drive=replace(link.drive or Drive(), stiffness=float(rng.uniform(2e3, 2e5)),
                                               gear_ratio=float(rng.uniform(20, 150)),
                                               motor_inertia=float(rng.uniform(1e-5, 1e-3))))
                  if link.actuated else link for link in model.links)
    return replace(model, links=links)


def palletizer():
    loaded = load_project(robot_path("palletizer_parallelogram"))
    return getattr(loaded, "model", loaded)


CASES = [("palletizer", 0)] + [(g, s) for g in ("parallelogram", "wrist", "four_bar") for s in range(3)]


def mechanism(kind, seed):
    rng = np.random.default_rng(seed)
    base = {"palletizer": lambda: palletizer(), "parallelogram": lambda: parallelogram_arm(rng),
            "wrist": lambda: parallelogram_arm(rng, wrist=True),
            "four_bar": lambda: four_bar(rng, mounted=True)}[kind]()
    return with_gearboxes(base, rng)


def reference(model, arm, qa):
    """(M_a, G_a, J (6 x n_a: tool point's velocity by differences, no rotation rows needed here)) at qa."""
    import pinocchio as pin
    cd = arm.cd
    pm, _, order = pin_mechanism(model)
    data = pm.createData()
    ours = np.argsort(order)
    e = 1e-6
    W = np.stack([(cd.positions(qa + d) - cd.positions(qa - d)) / (2 * e) for d in np.eye(arm.n) * e], axis=1)
    q = cd.positions(qa)
    Mt = pin.crba(pm, data, q[order])
    Mt = np.triu(Mt) + np.triu(Mt, 1).T
    Mt = Mt[np.ix_(ours, ours)]
    g = pin.rnea(pm, pm.createData(), q[order], np.zeros(len(q)), np.zeros(len(q)))[ours]

    def tool(x):   # the tool point from a fresh solve of the loops
        return (cd.tree.frames(cd.positions(x))[arm.tool_link + 1] @ arm.tool)[:3, 3]
    J = np.stack([(tool(qa + d) - tool(qa - d)) / (2 * e) for d in np.eye(arm.n) * e], axis=1)
    return W.T @ Mt @ W, W.T @ g, J, tool


def ratings(model, payload):
    return Ratings(**drive_ratings(model), payload=payload)


@pytest.mark.parametrize("kind,seed", CASES, ids=[f"{k}-{s}" for k, s in CASES])
def test_closed_chain_frequencies_compliance_and_sag(kind, seed):
    model = mechanism(kind, seed)
    arm = explore_arm(model)
    r = ratings(model, payload=7.0)
    act = [i for i, link in enumerate(model.links) if link.actuated]
    k = np.array([model.links[i].drive.stiffness for i in act])
    gear = np.array([model.links[i].drive.gear_ratio for i in act])
    rotor = np.array([model.links[i].drive.motor_inertia for i in act])
    Q = np.random.default_rng(seed + 10).uniform(-0.3, 0.3, (3, arm.n))
    got = {name: evaluate(arm, Q, name, r) for name in ("frequency", "frequency_free", "compliance", "deflection")}
    for s, qa in enumerate(Q):
        M, G, J, tool = reference(model, arm, qa)
        K = np.diag(k)
        w2 = scipy.linalg.eigh(K, M, eigvals_only=True)
        assert got["frequency"][s] == pytest.approx(np.sqrt(w2[0]) / (2 * np.pi), rel=1e-6)
        n = arm.n
        Mf = scipy.linalg.block_diag(M, np.diag(gear**2 * rotor))
        Kf = np.block([[K, -K], [-K, K]])
        w2f = scipy.linalg.eigh(Kf, Mf, eigvals_only=True)
        assert np.abs(w2f[:n]).max() < 1e-6 * w2f[n]           # the chain turning on free motors
        assert got["frequency_free"][s] == pytest.approx(np.sqrt(w2f[n]) / (2 * np.pi), rel=1e-6)
        C = J @ np.diag(1 / k) @ J.T
        assert got["compliance"][s] == pytest.approx(1e3 * np.linalg.eigvalsh(C)[-1], rel=1e-6)
        # the tool's move under a small force's joint deflections, from fresh closures
        F = np.random.default_rng(s).normal(size=3)
        F *= 1e-3 / np.abs(J.T @ F / k).max()                   # joint deflections of 1 mrad at most
        move = tool(qa + (J.T @ F) / k) - tool(qa)
        assert np.allclose(move, C @ F, rtol=0, atol=2e-3 * np.abs(C @ F).max())
        weight = 7.0 * np.array([float(v) for v in model.numeric().gravity])
        dq = (J.T @ weight - G) / k
        if kind != "four_bar":   # the arms sag (a four-bar's tool frame sits on its rocker's ground pin)
            assert np.linalg.norm(J @ dq) > 1e-6
        assert got["deflection"][s] == pytest.approx(1e3 * np.linalg.norm(J @ dq), rel=1e-6, abs=1e-6)


def test_a_passive_joint_with_stiffness_is_refused_naming_it():
    model = mechanism("palletizer", 0)
    passive = next(i for i, link in enumerate(model.links) if not link.actuated)
    links = list(model.links)
    links[passive] = replace(links[passive], drive=Drive(stiffness=1e4))
    model = replace(model, links=tuple(links))
    arm = explore_arm(model)
    for name in ("frequency", "frequency_free", "compliance", "deflection"):
        with pytest.raises(MetricError, match=rf"passive joint\(s\) {passive + 1} .*drive stiffness"):
            evaluate(arm, np.zeros((1, arm.n)), name, ratings(model, 0.0))


def test_links_bending_of_a_closed_chain_without_parts():
    """No part-made link: the links' shares are refused as for a serial arm, frequency_links is the gearboxes'
    figure (the links' bending itself: tests/numeric/test_closed_flex.py, tests/explore/test_closed_flex_metrics.py)."""
    model = mechanism("palletizer", 0)
    arm = explore_arm(model)
    for name in ("deflection_links", "compliance_links"):
        with pytest.raises(MetricError, match="needs links given as parts"):
            evaluate(arm, np.zeros((1, arm.n)), name, ratings(model, 0.0))
    q = np.random.default_rng(0).uniform(-0.3, 0.3, (4, arm.n))
    np.testing.assert_allclose(evaluate(arm, q, "frequency_links", ratings(model, 0.0)),
                               evaluate(arm, q, "frequency", ratings(model, 0.0)), rtol=1e-9)


def test_modes_command_of_a_closed_chain(tmp_path, capsys):
    """``modes`` on the palletizer with gearboxes: its actuated joints named by their links, the frequencies
    and compliance against the Pinocchio side, the sag against the same law; one-line refusals."""
    from designer.cli import main
    from designer.project.io import dumps_project
    model = mechanism("palletizer", 0)
    path = tmp_path / "pal.json"
    path.write_text(dumps_project(model))
    arm = explore_arm(model)
    qa = np.array([0.1, -0.2, 0.3, 0.2])
    assert main(["modes", str(path), "--q", *map(str, qa), "--payload", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["joints"] == ["q1", "q2", "q4", "q6"]
    M, G, J, _ = reference(model, arm, qa)
    act = [i for i, link in enumerate(model.links) if link.actuated]
    k = np.array([model.links[i].drive.stiffness for i in act])
    w2 = scipy.linalg.eigh(np.diag(k), M, eigvals_only=True)
    np.testing.assert_allclose(out["locked"]["frequency_hz"], np.sqrt(w2) / (2 * np.pi), rtol=1e-6)
    assert len(out["free"]["frequency_hz"]) == 4
    np.testing.assert_allclose(np.array(out["compliance"]["matrix"])[:3, :3], J @ np.diag(1 / k) @ J.T,
                               rtol=1e-6, atol=1e-6 * np.abs(J @ np.diag(1 / k) @ J.T).max())
    weight = 5.0 * np.array([float(v) for v in model.numeric().gravity])
    np.testing.assert_allclose(out["sag_mm"], 1e3 * J @ ((J.T @ weight - G) / k), rtol=1e-6, atol=1e-9)
    # one line, exit 2: the tree's six values, and a passive joint with a stiffness
    assert main(["modes", str(path), "--q", "0", "0", "0", "0", "0", "0"]) == 2
    err = capsys.readouterr().err
    assert "q1, q2, q4, q6" in err and len(err.strip().splitlines()) == 1
    links = list(model.links)
    links[2] = replace(links[2], drive=Drive(stiffness=1e4))
    path.write_text(dumps_project(replace(model, links=tuple(links))))
    assert main(["modes", str(path)]) == 2
    err = capsys.readouterr().err
    assert "passive joint(s) 3" in err and len(err.strip().splitlines()) == 1


def test_a_sweep_of_a_named_stiffness_reaches_its_actuated_joint():
    """k4 names the crank's (link 4's) stiffness, the third actuated joint: a design's value lands there."""
    import sympy as sp
    from designer.explore.metrics import design_ratings
    model = mechanism("palletizer", 0)
    links = list(model.links)
    links[3] = replace(links[3], drive=replace(links[3].drive, stiffness=sp.Symbol("k4")))
    model = replace(model, links=tuple(links), parameters={**dict(model.parameters), "k4": 3e4})
    r = ratings(model, 0.0)
    assert r.stiffness[2] == 3e4
    k = design_ratings(model, r, {"k4": 7e4}).stiffness
    np.testing.assert_array_equal(k, np.r_[r.stiffness[:2], 7e4, r.stiffness[3:]])
    with pytest.raises(Exception, match="joint\\(s\\) 4"):
        design_ratings(model, r, {"k4": -1.0})
