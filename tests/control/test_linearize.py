"""Linearized and discrete-time models: Pinocchio's ABA derivatives, finite differences of our own
forward dynamics, a pendulum by hand, and the ZOH / Tustin formulas written out."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

from designer.control import linearize
from designer.kinematics import NumericArm
from designer.model import Convention, JointType, Link, Manipulator
from designer.numeric import mass_matrix, rnea
from tests.support.pin_reference import pin_model, random_arm

pin = pytest.importorskip("pinocchio")


@pytest.mark.parametrize("convention", list(Convention))
@pytest.mark.parametrize("seed", range(3))
def test_a_and_b_match_pinocchio_aba_derivatives(convention, seed):
    rng = np.random.default_rng(seed)
    arm = random_arm(rng, 7, convention)
    q, qd, qdd = rng.normal(size=(3, 7))
    lm = linearize(arm, q, qd, qdd)
    pm = pin_model(arm)
    data = pm.createData()
    pin.computeABADerivatives(pm, data, q, qd, lm.tau0)
    Minv = np.triu(data.Minv) + np.triu(data.Minv, 1).T  # Pinocchio fills the upper triangle
    assert np.allclose(data.ddq, qdd, atol=1e-10)
    scale = max(1.0, np.abs(lm.A).max())
    assert np.abs(lm.A[7:, :7] - data.ddq_dq).max() < 1e-10 * scale
    assert np.abs(lm.A[7:, 7:] - data.ddq_dv).max() < 1e-10 * scale
    assert np.abs(lm.B[7:] - Minv).max() < 1e-10 * max(1.0, np.abs(Minv).max())
    assert np.array_equal(lm.A[:7, 7:], np.eye(7)) and not lm.A[:7, :7].any() and not lm.B[:7].any()


def _forward(arm, x, tau):
    n = arm.n
    q, qd = x[:n], x[n:]
    return np.concatenate([qd, np.linalg.solve(mass_matrix(arm, q), tau - rnea(arm, q, qd, np.zeros(n)))])


@pytest.mark.parametrize("convention", list(Convention))
def test_a_and_b_match_central_differences_of_our_forward_dynamics(convention):
    rng = np.random.default_rng(42)
    arm = random_arm(rng, 5, convention)
    q, qd = rng.normal(size=(2, 5))
    lm = linearize(arm, q, qd)
    x0 = np.concatenate([q, qd])
    h = 1e-6
    A = np.column_stack([(_forward(arm, x0 + h * e, lm.tau0) - _forward(arm, x0 - h * e, lm.tau0)) / (2 * h)
                         for e in np.eye(10)])
    B = np.column_stack([(_forward(arm, x0, lm.tau0 + h * e) - _forward(arm, x0, lm.tau0 - h * e)) / (2 * h)
                         for e in np.eye(5)])
    assert np.allclose(_forward(arm, x0, lm.tau0)[5:], 0, atol=1e-10)  # tau0 holds qdd0 = 0
    assert np.abs(A - lm.A).max() < 1e-6 * max(1.0, np.abs(A).max())
    assert np.abs(B - lm.B).max() < 1e-6 * max(1.0, np.abs(B).max())


def _pendulum(L: float = 0.7, m: float = 2.0, g: float = 9.81) -> NumericArm:
    """A point mass m at the end of a massless rod L; the joint turns about base z, gravity along -y."""
    link = Link(JointType.REVOLUTE, a=L, mass=m)  # standard DH: frame 1 (the COM) at the rod's end
    return NumericArm.from_model(Manipulator(links=(link,), gravity=(0, -g, 0)))


def test_pendulum_by_hand():
    L, g = 0.7, 9.81
    arm = _pendulum(L, g=g)
    hanging = linearize(arm, [-np.pi / 2])
    omega = np.sqrt(g / L)
    assert np.allclose(hanging.A, [[0, 1], [-omega ** 2, 0]], atol=1e-12)
    assert np.allclose(sorted(hanging.eigenvalues.imag), [-omega, omega], atol=1e-12)
    assert np.allclose(hanging.eigenvalues.real, 0, atol=1e-12)
    assert np.allclose(hanging.B, [[0], [1 / (2.0 * L * L)]])
    upright = linearize(arm, [np.pi / 2])
    assert np.allclose(sorted(upright.eigenvalues.real), [-omega, omega], atol=1e-12)


def test_discrete_models_are_the_textbook_formulas():
    rng = np.random.default_rng(5)
    lm = linearize(random_arm(rng, 3, Convention.MODIFIED), rng.normal(size=3), rng.normal(size=3))
    dt, n2 = 0.01, 6
    # ZOH: exp([[A, B], [0, 0]] dt) = [[Ad, Bd], [0, 1]]
    big = np.zeros((9, 9))
    big[:6, :6], big[:6, 6:] = lm.A, lm.B
    E = expm(big * dt)
    zoh = lm.discretize(dt, "zoh")
    assert np.allclose(zoh.Ad, E[:6, :6], atol=1e-12) and np.allclose(zoh.Bd, E[:6, 6:], atol=1e-12)
    # Tustin: Ad = (1 - A dt/2)^-1 (1 + A dt/2), Bd = (1 - A dt/2)^-1 B dt
    left = np.linalg.inv(np.eye(n2) - lm.A * dt / 2)
    tustin = lm.discretize(dt, "tustin")
    assert np.allclose(tustin.Ad, left @ (np.eye(n2) + lm.A * dt / 2), atol=1e-12)
    assert np.allclose(tustin.Bd, left @ lm.B * dt, atol=1e-12)
    # the pendulum's discrete poles are exp(s dt) under ZOH
    pend = linearize(_pendulum(), [-np.pi / 2])
    poles = pend.discretize(dt, "zoh").eigenvalues
    assert np.allclose(sorted(poles, key=np.angle), sorted(np.exp(pend.eigenvalues * dt), key=np.angle))


def test_bad_input_messages():
    arm = _pendulum()
    with pytest.raises(ValueError, match="q: expected 1"):
        linearize(arm, [0.0, 1.0])
    with pytest.raises(ValueError, match="method"):
        linearize(arm, [0.0]).discretize(0.01, "euler")
    with pytest.raises(ValueError, match="sample time"):
        linearize(arm, [0.0]).discretize(-1.0)


def test_symbolic_linearization_is_the_numeric_one():
    import sympy as sp

    from designer.control.symbolic import symbolic_linearization
    from tests.support.random_models import random_model
    model = random_model(np.random.default_rng(12), 2, Convention.STANDARD)
    lin = symbolic_linearization(model)
    arm = NumericArm.from_model(model)
    rng = np.random.default_rng(1)
    q, qd, qdd = rng.normal(size=(3, 2))
    at = {**dict(zip(model.q, q)), **dict(zip(model.qd, qd)), **dict(zip(model.qdd, qdd))}
    num = linearize(arm, q, qd, qdd)
    value = lambda m: np.array(m.xreplace(at).evalf(), dtype=float)  # noqa: E731
    assert np.allclose(value(lin.dtau_dq), num.dtau_dq, atol=1e-10)
    assert np.allclose(value(lin.dtau_dqd), num.dtau_dqd, atol=1e-10)
    assert np.allclose(value(lin.M), num.M, atol=1e-10)
    assert np.allclose(value(lin.A), num.A, atol=1e-9) and np.allclose(value(lin.B), num.B, atol=1e-9)
    # the pendulum by hand: G = m g L cos(q) (q from +x, gravity along -y), M = m L^2, so qdd = -(g/L) cos(q)
    # and A = [[0, 1], [(g/L) sin(q), 0]]
    L, g, m = sp.symbols("L g m", positive=True)
    pend = Manipulator(links=(Link(JointType.REVOLUTE, a=L, mass=m),), gravity=(0, -g, 0))
    A = symbolic_linearization(pend).A
    q1 = pend.q[0]
    assert sp.simplify(A[1, 0] - (g / L) * sp.sin(q1)) == 0 and A[1, 1] == 0


def test_numpy_expm_is_scipys():
    """The zero-order hold's matrix exponential (numpy alone, so that the window does not import
    scipy): small and large norms (scaling and squaring), a rotation generator, a nilpotent block."""
    from designer.control.expm import expm as ours
    rng = np.random.default_rng(11)
    cases = [np.zeros((3, 3)), np.array([[0.0, -2.0], [2.0, 0.0]]), np.triu(rng.normal(size=(5, 5)), 1)]
    cases += [rng.normal(size=(n, n)) * scale for n in (1, 4, 14) for scale in (1e-6, 0.3, 3.0, 40.0)]
    for a in cases:
        want = expm(a)
        np.testing.assert_allclose(ours(a), want, rtol=1e-12, atol=1e-13 * np.abs(want).max())
    with pytest.raises(ValueError, match="square"):
        ours(np.ones((2, 3)))


@pytest.mark.parametrize("method, scipy_name", [("zoh", "zoh"), ("tustin", "bilinear")])
def test_discrete_models_are_scipys(method, scipy_name):
    from scipy.signal import cont2discrete
    rng = np.random.default_rng(4)
    lm = linearize(random_arm(rng, 4, Convention.STANDARD), rng.normal(size=4), rng.normal(size=4))
    for dt in (1e-4, 0.01, 0.5):
        Ad, Bd, *_ = cont2discrete((lm.A, lm.B, np.eye(8), np.zeros_like(lm.B)), dt, method=scipy_name)
        dm = lm.discretize(dt, method)
        np.testing.assert_allclose(dm.Ad, Ad, rtol=1e-10, atol=1e-12 * np.abs(Ad).max())
        np.testing.assert_allclose(dm.Bd, Bd, rtol=1e-10, atol=1e-12 * np.abs(Bd).max())


def test_linearize_and_discretize_import_no_scipy():
    """The window's Linearize runs in the GUI thread: scipy.signal's import alone took 0.6-0.7 s there."""
    import subprocess
    import sys
    code = ("import sys, numpy as np\n"
            "from designer.control import linearize\n"
            "from tests.support.pin_reference import random_arm\n"
            "from designer.model import Convention\n"
            "lm = linearize(random_arm(np.random.default_rng(1), 3, Convention.STANDARD), np.zeros(3))\n"
            "lm.discretize(0.01, 'zoh'); lm.discretize(0.01, 'tustin')\n"
            "print(sorted(m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.parametrize("robot", ["puma560_three_link", "palletizer_parallelogram"])
def test_linearize_dynamics_of_any_mechanism_matches_its_forward_dynamics(robot):
    """One linearization for every mechanism's numeric Dynamics (load_dynamics): A and B of the inverse dynamics'
    derivatives (complex step for a serial arm, differences over fresh closures for a closed chain) against
    central differences of the same mechanism's forward dynamics qdd(q, qd, tau)."""
    from pathlib import Path

    from designer.control.linearize import linearize_dynamics
    from designer.numeric.mechanism import load_dynamics
    from designer.project import load_project
    model = load_project(Path(__file__).parents[2] / "robots" / f"{robot}.json")
    dyn = load_dynamics(model, springs=False)
    n = dyn.n
    rng = np.random.default_rng(3)
    q0 = 0.1 * rng.normal(size=n)
    qd0, qdd0 = 0.3 * rng.normal(size=(2, n))
    lm = linearize_dynamics(dyn, q0, qd0, qdd0)
    assert lm.A.shape == (2 * n, 2 * n) and lm.B.shape == (2 * n, n)
    near = dyn.following(dyn.positions(q0)) if not model.is_serial else dyn
    assert np.allclose(near.qdd(q0, qd0, lm.tau0), qdd0, atol=1e-8)
    h = 1e-6
    fd = np.empty((n, 2 * n))
    for k in range(2 * n):
        e = np.zeros(2 * n)
        e[k] = h
        plus = near.qdd(q0 + e[:n], qd0 + e[n:], lm.tau0)
        minus = near.qdd(q0 - e[:n], qd0 - e[n:], lm.tau0)
        fd[:, k] = (plus - minus) / (2 * h)
    scale = max(1.0, np.abs(lm.A).max())
    assert np.abs(lm.A[n:] - fd).max() < 1e-5 * scale
    assert np.allclose(lm.B[n:], np.linalg.inv(dyn.M(q0)), rtol=1e-8, atol=1e-10)


def test_linearize_dynamics_of_an_elastic_model_matches_its_forward_dynamics():
    """The elastic-joint model through the same call (load_dynamics gives ElasticDynamics for a project with drive
    stiffness): the state space (q, theta, qd, thetad) at rest, motors where the springs hold the links, against
    central differences of ElasticDynamics' own forward dynamics (numeric/elastic.py, a separate implementation)."""
    from pathlib import Path

    from designer.control.linearize import linearize_dynamics
    from designer.numeric.mechanism import load_dynamics
    from designer.project import load_project
    dyn = load_dynamics(load_project(Path(__file__).parents[2] / "robots" / "tube_arm.json"))
    a = dyn.model
    n, m = dyn.link.n, dyn.m
    assert m > 0
    q0 = 0.1 * np.random.default_rng(5).normal(size=n)
    lm = linearize_dynamics(dyn, q0)
    size = 2 * (n + m)
    assert lm.A.shape == (size, size) and lm.B.shape == (size, n)
    # at rest the springs carry gravity at the elastic joints: delta = G_E / k
    theta0 = a.NE * (q0[a.E] + np.asarray(dyn.link.G(q0))[a.E] / a.k)
    x0, xd0 = np.concatenate([q0, theta0]), np.zeros(n + m)
    u0 = dyn.generalized(lm.tau0)
    assert np.abs(dyn.qdd(x0, xd0, u0)).max() < 1e-8
    h = 1e-6
    fd = np.empty((n + m, size))
    for k in range(size):
        e = np.zeros(size)
        e[k] = h
        plus = dyn.qdd(x0 + e[:n + m], xd0 + e[n + m:], u0)
        minus = dyn.qdd(x0 - e[:n + m], xd0 - e[n + m:], u0)
        fd[:, k] = (plus - minus) / (2 * h)
    scale = max(1.0, np.abs(lm.A).max())
    assert np.abs(lm.A[n + m:] - fd).max() < 1e-5 * scale
    fb = np.empty((n + m, n))
    for k in range(n):
        e = np.zeros(n)
        e[k] = h
        plus, minus = (dyn.qdd(x0, xd0, dyn.generalized(lm.tau0 + s * e)) for s in (1, -1))
        fb[:, k] = (plus - minus) / (2 * h)
    assert np.abs(lm.B[n + m:] - fb).max() < 1e-5 * max(1.0, np.abs(lm.B).max())
