"""ClosedDynamics.drive_terms' h part on loops that do not close linearly: a rotor on a passive joint turns
with the state-dependent W, so its reflected inertia adds M_r = W^T N^2 Jm W to M_a and velocity terms to h_a.

Independent side: Lagrange's equations of the rotors' kinetic energy T_r = 1/2 qd_a^T M_r(q_a) qd_a, with M_r
from drive_terms' own M part at central-differenced poses: h_r = (dM_r/dt) qd_a - 1/2 d(qd_a^T M_r qd_a)/dq_a.
That reads W only, never the passive accelerations' rate term b that drive_terms' h uses.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from designer.model.extras import Drive
from designer.model.manipulator import Convention
from designer.numeric.closed import ClosedDynamics
from tests.support.closed_reference import four_bar


def _rotors_on_passive_joints(model, rng, friction: bool):
    links = tuple(link if link.actuated else
                  replace(link, drive=Drive(gear_ratio=float(rng.uniform(10, 80)),
                                            motor_inertia=float(rng.uniform(1e-4, 1e-3)),
                                            viscous=float(rng.uniform(0, 5)) if friction else 0.0,
                                            coulomb=float(rng.uniform(0, 2)) if friction else 0.0))
                  for link in model.links)
    return replace(model, links=links)


def _rotor_h(cd, qa, qda, eps=1e-6):
    """(dM_r/dt) qd - 1/2 grad(qd^T M_r qd) by central differences of drive_terms' M part."""
    def Mr(x):
        return cd.drive_terms(x, np.zeros(cd.n), np.zeros(cd.n))[0]
    Mdot = (Mr(qa + eps * qda) - Mr(qa - eps * qda)) / (2 * eps)
    grad = np.array([qda @ (Mr(qa + eps * e) - Mr(qa - eps * e)) @ qda / (2 * eps) for e in np.eye(cd.n)])
    return Mdot @ qda - 0.5 * grad


@pytest.mark.parametrize("seed, convention, mounted", [(0, Convention.STANDARD, False), (1, Convention.MODIFIED, True),
                                                       (2, Convention.STANDARD, True)])
def test_drive_terms_h_has_the_passive_rotors_velocity_terms(seed, convention, mounted):
    rng = np.random.default_rng(seed)
    model = _rotors_on_passive_joints(four_bar(rng, convention, mounted=mounted), rng, friction=False)
    cd = ClosedDynamics(model)
    for _ in range(4):
        qa, qda = rng.uniform(-0.5, 0.5, cd.n), rng.normal(size=cd.n)
        dM, dtau, dh = cd.drive_terms(qa, qda, np.zeros(cd.n))
        want = _rotor_h(cd, qa, qda)
        assert np.abs(want).max() > 1e-6   # the term exists: leaving it out (the old h part, 0 here) fails
        assert np.abs(dh - want).max() < 1e-6 * max(1.0, np.abs(want).max())
        assert np.allclose(dtau, dh, rtol=1e-12, atol=1e-12)   # h = tau(q, qd, 0) - G, drives included


def test_drive_parts_split_friction_from_the_rotors():
    rng = np.random.default_rng(3)
    model = _rotors_on_passive_joints(four_bar(rng, Convention.STANDARD, mounted=True), rng, friction=True)
    cd = ClosedDynamics(model)
    qa, qda, qdda = rng.uniform(-0.5, 0.5, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n)
    d = cd.drive_parts(qa, qda, qdda)
    assert np.abs(d["friction"]).max() > 1e-6
    assert np.allclose(d["h"] - d["friction"], _rotor_h(cd, qa, qda), rtol=1e-6, atol=1e-9)
    # tau = M qdd + h + G with every drive part in: the split adds up
    assert np.allclose(d["tau"], d["M"] @ qdda + d["h"], rtol=1e-10, atol=1e-12)


def test_eval_drives_adds_up_on_a_four_bar_with_a_passive_rotor(tmp_path, capsys):
    """`eval --drives`: tau = M qdd + h + G + friction holds with a rotor on a passive joint of a four-bar
    (h takes the rotor's W' qd term; before, it was left out of h and the sum missed it)."""
    import json

    from designer.cli import main
    from designer.project import save_project
    rng = np.random.default_rng(6)
    model = _rotors_on_passive_joints(four_bar(rng, Convention.STANDARD, mounted=True), rng, friction=True)
    path = tmp_path / "fb.json"
    save_project(model, path)
    q, qd, qdd = [0.2, -0.1], [0.8, -1.1], [0.4, 0.3]
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": q, "qd": qd, "qdd": qdd}]}))
    assert main(["eval", str(path), "--states", str(states), "--drives", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)["results"][0]
    M, h, G, friction = (np.array(out[k]) for k in ("M", "h", "G", "friction"))
    assert np.allclose(out["tau"], M @ qdd + h + G + friction, rtol=1e-10, atol=1e-10)
    cd = ClosedDynamics(model)
    assert np.allclose(h - cd.h(q, qd), _rotor_h(cd, np.array(q), np.array(qd)), rtol=1e-6, atol=1e-6)
