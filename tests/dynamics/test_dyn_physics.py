"""Physical laws the equations must obey, progress reporting and prompt cancelling."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import sympy as sp

from tests.support import robot_path
from designer.dynamics import Method, SimplifyMode, coriolis_matrix, derive, derive_job
from designer.jobs import Cancelled, CancelToken, Progress, run
from designer.project import load_project
from tests.support.dyn_reference import numeric_function, puma560, seven_modified, stanford_six


@pytest.mark.parametrize("build", [lambda: puma560(n=6), stanford_six, seven_modified],
                         ids=["puma", "stanford", "seven"])
def test_mass_matrix_symmetric_positive_definite(build):
    model = build()
    eq = derive(model, Method.LAGRANGE, SimplifyMode.OFF)
    M_f = numeric_function(model, list(eq.mass_matrix))
    rng = np.random.default_rng(1)
    for _ in range(20):
        q = rng.uniform(-3, 3, model.n)
        M = M_f(q, q, q).reshape(model.n, model.n)
        np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-12)
        assert np.linalg.eigvalsh(M).min() > 0


def test_mdot_minus_2c_is_skew_symmetric_symbolically():
    model = load_project(robot_path("stanford_modified"))
    eq = derive(model, Method.LAGRANGE, SimplifyMode.OFF)
    C = coriolis_matrix(eq)
    Mdot = sp.zeros(3, 3)
    for q, qd in zip(model.q, model.qd):
        Mdot += eq.mass_matrix.diff(q) * qd
    N = (Mdot - 2 * C).applyfunc(sp.expand)
    assert (N + N.T).applyfunc(sp.expand) == sp.zeros(3, 3)
    assert N != sp.zeros(3, 3)
    # and C qd is the Coriolis / centrifugal vector
    assert (C * sp.Matrix(model.qd) - eq.coriolis).applyfunc(sp.expand) == sp.zeros(3, 1)


@pytest.mark.slow
def test_mdot_minus_2c_skew_numerically_on_a_seven_link_arm():
    model = seven_modified()
    eq = derive(model, Method.LAGRANGE, SimplifyMode.OFF)
    n = model.n
    C_f = numeric_function(model, list(coriolis_matrix(eq)))
    M_f = numeric_function(model, list(eq.mass_matrix))
    rng = np.random.default_rng(4)
    q, qd = rng.uniform(-2, 2, (2, n))
    h = 1e-6
    Mdot = (M_f(q + h * qd, qd, qd) - M_f(q - h * qd, qd, qd)).reshape(n, n) / (2 * h)
    N = Mdot - 2 * C_f(q, qd, qd).reshape(n, n)
    assert np.abs(N + N.T).max() < 1e-6 * np.abs(N).max()


def test_energy_balance_power_equals_qd_dot_tau():
    """d/dt (T + V) = qd . tau along any motion (with tau the inverse dynamics)."""
    model = stanford_six()
    eq = derive(model, Method.NEWTON_EULER, SimplifyMode.OFF)
    n = model.n
    M_f = numeric_function(model, list(eq.mass_matrix))
    tau_f = numeric_function(model, list(eq.tau))
    from designer.kinematics import NumericArm
    arm = NumericArm.from_model(model)

    def potential(q):
        T = arm.frames(q)
        V = 0.0
        for i in range(n):
            V -= arm.mass[i] * arm.gravity @ (T[i + 1, :3, :3] @ arm.com[i] + T[i + 1, :3, 3])
        for link, m, pos in arm.point_masses:
            V -= m * arm.gravity @ (T[link + 1, :3, :3] @ pos + T[link + 1, :3, 3])
        return V

    def energy(q, qd):
        return 0.5 * qd @ M_f(q, qd, qd).reshape(n, n) @ qd + potential(q)

    rng = np.random.default_rng(9)
    q, qd, qdd = rng.uniform(-1, 1, (3, n))
    h = 1e-5
    e_dot = (energy(q + h * qd + h * h / 2 * qdd, qd + h * qdd)
             - energy(q - h * qd + h * h / 2 * qdd, qd - h * qdd)) / (2 * h)
    assert abs(e_dot - qd @ tau_f(q, qd, qdd)) < 1e-5 * max(1.0, abs(e_dot))


def test_progress_is_reported_per_entry():
    steps: list[Progress] = []
    derive(puma560(n=3), Method.LAGRANGE, SimplifyMode.FAST, progress=steps.append)
    details = {s.detail for s in steps}
    assert {"M11", "M23", "G2"} <= details
    assert all(s.fraction is None or 0 <= s.fraction <= 1 for s in steps)
    assert steps[-1].stage == "done"


@pytest.mark.parametrize("method", list(Method))
def test_cancel_stops_a_symbolic_six_link_derivation(method):
    """Cancelled while it runs, the derivation ends as cancelled (how fast: benchmarks/bench_cancel.py)."""
    model = puma560(symbolic_inertia=True, n=6)
    token = CancelToken()
    outcome = {}
    started = threading.Event()

    def work():
        try:
            run(derive_job(model, method, SimplifyMode.FULL, token), lambda step: started.set(), token)
            outcome["result"] = "finished"
        except Cancelled:
            outcome["result"] = "cancelled"

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    assert started.wait(300), "no progress"   # inside it: the symbolic PUMA's derivation takes minutes
    token.cancel()
    thread.join(300)   # a safety net, not a measure
    assert outcome.get("result") == "cancelled"


def test_a_point_mass_adds_to_its_link():
    """A point mass m at the COM of a massless link gives the same M as the link's own mass."""
    import dataclasses
    from designer.model import PointMass
    model = load_project(robot_path("double_pendulum"))
    link2 = model.links[1]
    as_load = dataclasses.replace(model, links=(model.links[0], dataclasses.replace(link2, mass=0)),
                                  point_masses=(PointMass(2, link2.mass, link2.com),))
    for method in Method:
        a = derive(model, method, SimplifyMode.OFF)
        b = derive(as_load, method, SimplifyMode.OFF)
        assert sp.expand(a.tau - b.tau) == sp.zeros(2, 1)
