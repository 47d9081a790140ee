"""The compiled symbolic derivations agree with the numeric recursive dynamics on the shipped robots."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from designer.dynamics import derive
from designer.dynamics.results import Method, SimplifyMode
from designer.kinematics import NumericArm
from designer.numeric import recursive as rec
from designer.numeric.compiled import compile_equations
from designer.project import load_project

from tests.support import robot_path


def _agree(name: str, method: Method, simplify=SimplifyMode.OFF, states: int = 5, horner=()):
    model = load_project(robot_path(name))
    arm = NumericArm.from_model(model)
    cd = compile_equations(derive(model.numeric(), method, simplify), horner=horner)
    rng = np.random.default_rng(zlib.crc32(f"{name} {method.value}".encode()))
    Q, QD, QDD = (rng.uniform(-1.5, 1.5, (states, arm.n)) for _ in range(3))
    got = {"M": cd.M_many(Q), "G": cd.G_many(Q), "h": cd.h_many(Q, QD), "tau": cd.tau_many(Q, QD, QDD)}
    for k in range(states):
        want = {"M": rec.mass_matrix(arm, Q[k]), "G": rec.gravity_torque(arm, Q[k]),
                "h": rec.bias(arm, Q[k], QD[k]), "tau": rec.rnea(arm, Q[k], QD[k], QDD[k])}
        for key, w in want.items():
            scale = max(1e-12, np.max(np.abs(w)))
            assert np.max(np.abs(got[key][k] - w)) <= 1e-10 * scale, (name, method, key)
        np.testing.assert_allclose(cd.tau(Q[k], QD[k], QDD[k]), got["tau"][k], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["double_pendulum", "planar_two_link", "horn_three_dof_offsets", "scara",
                                  "stanford_modified", "puma560_three_link"])
def test_lagrange_small_robots(name):
    _agree(name, Method.LAGRANGE)
    _agree(name, Method.LAGRANGE, horner=("M", "G"))


@pytest.mark.parametrize("method", [Method.NEWTON_EULER, Method.DALEMBERT])
def test_other_methods_stanford(method):
    _agree("stanford_modified", method)


@pytest.mark.slow
@pytest.mark.parametrize("method", list(Method))
def test_puma560(method):
    _agree("puma560", method)


@pytest.mark.slow
def test_puma560_horner_form():
    _agree("puma560", Method.LAGRANGE, horner=("M", "G"))


@pytest.mark.slow
def test_puma560_fast_simplification():
    _agree("puma560", Method.LAGRANGE, SimplifyMode.FAST)
