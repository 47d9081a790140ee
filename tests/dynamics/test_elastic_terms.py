"""derive --elastic: the symbolic coupling terms with the derivation's tau give the numeric model's motion."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import sympy as sp

from designer.cli import main
from designer.dynamics import derive
from designer.dynamics.elastic import elastic_terms
from designer.dynamics.results import Method
from designer.kinematics import NumericArm
from designer.model import Drive
from designer.numeric.elastic import ElasticArm, elastic_joints
from designer.project import load_project
from designer.project.io import dumps_project
from tests.support import robot_path


def _model():
    model = load_project(robot_path("planar_two_link"))
    drives = (Drive(stiffness=3e3, damping=2.0, gear_ratio=40.0, motor_inertia=3e-4),
              Drive(gear_ratio=20.0, motor_inertia=1e-4))     # the second joint rigid, with its rotor
    return dataclasses.replace(model, links=tuple(dataclasses.replace(l, drive=d) for l, d in zip(model.links, drives)))


@pytest.mark.parametrize("method", [Method.LAGRANGE, Method.NEWTON_EULER])
def test_coupling_terms_and_the_derived_tau_solve_to_the_numeric_accelerations(method):
    model = _model()
    eq = derive(model, method)
    terms = elastic_terms(model)
    assert terms.joints == (0,)
    ours = ElasticArm(NumericArm.from_model(model), elastic_joints(model))
    values = {sp.Symbol(k): v for k, v in model.parameter_values.items()}
    rng = np.random.default_rng(0)
    th, thd, thdd = sp.symbols("theta_1 thetad_1 thetadd_1")
    taum = sp.symbols("taum_1 taum_2")
    for _ in range(3):
        y, u = rng.normal(size=6), rng.normal(size=2)
        q, theta, qd, thetad = ours.split(y)
        state = {**{a: b for a, b in zip(model.q, q)}, **{a: b for a, b in zip(model.qd, qd)},
                 th: theta[0], thd: thetad[0], taum[0]: u[0], taum[1]: u[1]}
        state.update({sp.Symbol(k): v for k, v in terms.values.items()})
        # the link equations with tau_i replaced by the derivation's tau: linear in q'' (and theta'' apart)
        unknowns = list(model.qdd) + [thdd]
        eqs = [e.lhs.subs({sp.Symbol(f"tau_{i + 1}"): eq.tau[i] for i in range(2)}) - e.rhs for e in terms.link]
        eqs += list(terms.motor)
        numbers = {s.name: v for s, v in values.items()} | {k.name: v for k, v in state.items()}
        eqs = [sp.sympify(e).xreplace({s: sp.Float(numbers[s.name]) for s in sp.sympify(e).free_symbols
                                       if s.name in numbers}) for e in eqs]
        A, b = sp.linear_eq_to_matrix(eqs, unknowns)
        solved = np.array(A.evalf(), dtype=float), np.array(b.evalf(), dtype=float).ravel()
        x = np.linalg.solve(*solved)
        qdd, thetadd = ours.accelerations(y, u)
        np.testing.assert_allclose(x, np.concatenate([qdd, thetadd]), rtol=1e-9, atol=1e-9)


def test_derive_elastic_json_and_the_rigid_arm_message(tmp_path, capsys):
    path = tmp_path / "elastic.json"
    path.write_text(dumps_project(_model()))
    assert main(["derive", str(path), "--elastic", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["elastic"]["joints"] == [1] and data["elastic"]["values"]["k_1"] == 3e3
    assert main(["derive", str(robot_path("planar_two_link")), "--elastic", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "stiffness" in err and len(err.strip().splitlines()) == 1
