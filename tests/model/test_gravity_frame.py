"""Gravity given in the world (``gravity_frame: "world"``) when the arm has a base pose.

The reference is the potential energy written in the world: V(q) = -sum m_i g_w . (B p_i(q)),
with B the base pose as a float matrix and p_i the centres of mass in frame 0; G = dV/dq by
central differences. Files written before the key keep their meaning (gravity in frame 0).
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from designer.dynamics import derive
from designer.dynamics.results import Method, SimplifyMode
from designer.kinematics import NumericArm
from designer.model import Convention, Inertia, Link, Manipulator, symbol
from designer.model.extras import Pose
from designer.numeric.recursive import gravity_torque
from designer.project import ProjectError, dumps_project, loads_project

G_WORLD = np.array([0.0, 0.0, -9.81])


BASE = Pose((0.1, -0.2, 0.4), ("pi/4", "pi/6", "pi/3"))


def arm(convention=Convention.STANDARD, base=BASE) -> Manipulator:
    links = (Link(a=0.3, alpha="pi/2", d=0.1, mass=2.0, com=(-0.1, 0.02, 0.03),
                  inertia=Inertia(0.02, 0.03, 0.01, 0.001, 0.0, 0.002)),
             Link(a=0.25, alpha=0.4, theta=0.2, mass=1.5, com=(-0.1, 0.0, 0.01),
                  inertia=Inertia(0.01, 0.02, 0.02)),
             Link("P", alpha="-pi/2", theta="pi/3", d=0.05, mass=0.8, com=(0.0, 0.01, -0.05),
                  inertia=Inertia(0.004, 0.004, 0.002)))
    return Manipulator(links=links, convention=convention, gravity=(0, 0, -symbol("g")), parameters={"g": 9.81},
                       base=base, gravity_in_world=True)


def potential_gravity(model: Manipulator, q: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """dV/dq of V = -sum m_i g_world . (B p_i), B from the pose's float matrix."""
    a = NumericArm.from_model(model)
    B = model.base.matrix(lambda e: float(e.evalf(subs=model.substitutions()))) if model.base else np.eye(4)

    def V(qq):
        p = a.com_positions(qq)
        world = p @ B[:3, :3].T + B[:3, 3]
        return -float(np.sum(a.mass * (world @ G_WORLD)))
    return np.array([(V(q + h * e) - V(q - h * e)) / (2 * h) for e in np.eye(a.n)])


@pytest.mark.parametrize("convention", list(Convention))
def test_gravity_torques_use_world_gravity_turned_by_the_base(convention):
    model = arm(convention)
    # R^T g_world; multiples of pi/2 give exact 0 and +-1
    g0 = model.gravity_frame0
    R = model.base.matrix()[:3, :3]
    np.testing.assert_allclose([float(c.subs(symbol("g"), 9.81)) for c in g0], R.T @ G_WORLD, atol=1e-14)
    assert replace(model, base=Pose((0, 0, 0), ("pi/2", 0, "pi/4"))).gravity_frame0 == (0, -symbol("g"), 0)
    a = NumericArm.from_model(model)
    eqs = {m: derive(model, m, SimplifyMode.OFF) for m in (Method.LAGRANGE, Method.NEWTON_EULER)}
    subs = model.substitutions()
    rng = np.random.default_rng(2)
    for _ in range(5):
        q = rng.uniform(-2, 2, 3)
        ref = potential_gravity(model, q)
        np.testing.assert_allclose(gravity_torque(a, q), ref, atol=1e-7)
        for eq in eqs.values():
            qs = dict(zip(model.q, q))
            G = np.array([float(sp.sympify(e).xreplace(subs).xreplace(qs)) for e in eq.gravity])
            np.testing.assert_allclose(G, ref, atol=1e-7)


def test_without_a_base_or_without_the_flag_gravity_is_in_frame_0():
    model = arm()
    assert replace(model, base=None).gravity_frame0 == model.gravity
    plain = replace(model, gravity_in_world=False)
    assert plain.gravity_frame0 == plain.gravity
    q = np.array([0.3, -0.4, 0.1])
    # gravity in frame 0 = B^T g_world: the same torques as the world form
    R = model.base.matrix()[:3, :3]
    g0 = R.T @ G_WORLD
    frame0 = replace(plain, gravity=tuple(float(c) for c in g0))
    np.testing.assert_allclose(gravity_torque(NumericArm.from_model(frame0), q),
                               gravity_torque(NumericArm.from_model(model), q), atol=1e-12)
    assert np.abs(gravity_torque(NumericArm.from_model(plain), q)
                  - gravity_torque(NumericArm.from_model(model), q)).max() > 0.1


def test_file_key_round_trip_and_old_files_keep_their_meaning():
    model = arm()
    text = dumps_project(model)
    doc = json.loads(text)
    assert doc["gravity_frame"] == "world" and doc["version"] == 2
    assert loads_project(text) == model
    del doc["gravity_frame"]   # a version-2 file written before the key: gravity in frame 0
    old = loads_project(json.dumps(doc))
    assert not old.gravity_in_world and old.gravity_frame0 == old.gravity
    assert "gravity_frame" not in json.loads(dumps_project(old))
    doc["gravity_frame"] = "sky"
    with pytest.raises(ProjectError, match="gravity_frame"):
        loads_project(json.dumps(doc))
    doc["gravity_frame"] = "world"
    doc["version"] = 1
    del doc["base"]
    with pytest.raises(ProjectError, match="gravity_frame"):
        loads_project(json.dumps(doc))
