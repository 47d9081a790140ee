"""Forward dynamics and simulation: physics checks and Pinocchio's ABA."""

from __future__ import annotations

import numpy as np
import pytest

from designer.numeric.forward import SingularConfigurationError, dynamics_of
from designer.numeric.simulate import Trajectory, energy, simulate, simulate_job
from designer.jobs import CancelToken, Cancelled, run
from designer.kinematics import NumericArm
from designer.model import Convention
from designer.numeric import arm_dynamics, recursive as rec
from designer.project import from_dict, load_project

from tests.support import robot_path
from tests.support.pin_reference import pin, pin_model, random_arm


def pendulum(L=0.7, m=1.3, rod=True, g=9.81):
    """One revolute link hanging along base +x under gravity (g, 0, 0); a thin rod or a point mass."""
    I = m * L**2 / 12 if rod else 0.0
    return from_dict({"format": "manipulator-designer", "version": 1, "convention": "standard",
                      "gravity": [g, 0, 0], "links": [{"joint": "R", "a": L, "alpha": 0, "d": 0, "theta": 0,
                      "mass": m, "com": [-L / 2 if rod else 0, 0, 0],
                      "inertia": {"zz": I, "yy": I}}]})


@pytest.mark.parametrize("convention", list(Convention))
def test_forward_matches_pinocchio_aba(convention):
    rng = np.random.default_rng(4)
    arm = random_arm(rng, 6, convention)
    model = pin_model(arm)
    data = model.createData()
    for _ in range(3):
        q, qd, tau = (rng.uniform(-2, 2, arm.n) for _ in range(3))
        np.testing.assert_allclose(dynamics_of(arm).qdd(q, qd, tau), pin.aba(model, data, q, qd, tau),
                                   rtol=1e-9, atol=1e-9)
        qdd = dynamics_of(arm).qdd(q, qd, tau)
        np.testing.assert_allclose(rec.rnea(arm, q, qd, qdd), tau, atol=1e-9)


def test_singular_mass_matrix_is_reported():
    data = {"format": "manipulator-designer", "version": 1, "convention": "standard", "gravity": [0, 0, -9.81],
            "links": [{"joint": "R", "a": 1, "alpha": 0, "d": 0, "theta": 0, "mass": 1},
                      {"joint": "R", "a": 0.5, "alpha": 0, "d": 0, "theta": 0, "mass": 0}]}
    arm = NumericArm.from_model(from_dict(data))
    with pytest.raises(SingularConfigurationError, match=r"q = \[0.1, 0.2\].*condition number") as err:
        dynamics_of(arm).qdd([0.1, 0.2], [0, 0], [0, 0])
    assert err.value.condition > 1e12 and np.allclose(err.value.q, [0.1, 0.2])


def test_small_oscillation_period():
    """A rod pendulum: T = 2 pi sqrt(I_pivot / (m g L/2)) with I_pivot = m L^2 / 3."""
    L, m, g = 0.7, 1.3, 9.81
    period = 2 * np.pi * np.sqrt((m * L**2 / 3) / (m * g * L / 2))
    traj = simulate(pendulum(L, m, g=g), [1e-3], [0.0], (0, 3 * period), rtol=1e-11, atol=1e-14,
                    t_eval=np.linspace(0, 3 * period, 30001))
    q = traj.q[:, 0]
    down = np.where((q[:-1] > 0) & (q[1:] <= 0))[0]
    crossings = traj.t[down] - q[down] * (traj.t[down + 1] - traj.t[down]) / (q[down + 1] - q[down])
    measured = np.mean(np.diff(crossings))
    assert abs(measured / period - 1) < 1e-5  # amplitude 1e-3 rad: finite-amplitude error ~ 6e-8


def _drift(system, arm, q0, t1):
    traj = simulate(system, q0, np.zeros(arm.n), (0, t1), rtol=1e-12, atol=1e-12)
    E = energy(arm, traj.q, traj.qd)
    # relative to the energy that moves between kinetic and potential over the run
    swing = np.ptp(arm_dynamics(arm).energy(traj.q, traj.qd)[0])
    return np.max(np.abs(E - E[0])) / swing, traj


def test_double_pendulum_conserves_energy():
    arm = NumericArm.from_model(load_project(robot_path("double_pendulum")))
    drift, traj = _drift(arm, arm, [1.2, -0.5], 3.0)
    assert drift < 1e-6
    assert traj.tau is None and traj.q.shape == (len(traj.t), 2)


def test_puma560_conserves_energy():
    arm = NumericArm.from_model(load_project(robot_path("puma560")))
    drift, _ = _drift(arm, arm, [0.3, -0.4, 0.6, 0.8, -0.5, 0.3], 2.0)
    assert drift < 1e-6


def test_torque_forms_and_trajectory_is_frozen():
    model = pendulum()
    arm = NumericArm.from_model(model)
    t = np.linspace(0, 0.5, 11)
    const = simulate(arm, [0.2], [0.0], (0, 0.5), torque=[0.4], t_eval=t)
    func = simulate(model, [0.2], [0.0], (0, 0.5), torque=lambda t, q, qd: [0.4], t_eval=t)
    np.testing.assert_allclose(const.q, func.q, rtol=1e-12)
    np.testing.assert_allclose(const.t, t)
    assert np.all(const.tau == 0.4)
    # holding torque G(q0) keeps the arm still
    G = rec.gravity_torque(arm, [0.2])
    held = simulate(arm, [0.2], [0.0], (0, 0.5), torque=G)
    np.testing.assert_allclose(held.q[-1], [0.2], atol=1e-9)
    with pytest.raises(AttributeError):
        const.t = t  # frozen
    with pytest.raises(ValueError):
        const.q[0, 0] = 1.0
    with pytest.raises(ValueError, match="torque"):
        simulate(arm, [0.2], [0.0], (0, 0.5), torque=[1, 2])


def test_job_reports_progress_and_cancels():
    arm = NumericArm.from_model(pendulum())
    steps = []
    traj = run(simulate_job(arm, [0.3], [0.0], (0, 1.0), interval=0, t_eval=np.linspace(0, 1, 21)), steps.append)
    fractions = [s.fraction for s in steps]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0 and np.all(np.diff(fractions) > 0)
    assert len(steps) == traj.steps + 1
    assert isinstance(traj, Trajectory) and len(traj.t) == 21
    whole = simulate(arm, [0.3], [0.0], (0, 1.0), t_eval=np.linspace(0, 1, 21))
    np.testing.assert_array_equal(traj.q, whole.q)     # progress reports change nothing
    token = CancelToken()
    with pytest.raises(Cancelled):
        run(simulate_job(arm, [0.3], [0.0], (0, 1.0), interval=0), lambda p: token.cancel(), token)


def test_compiled_and_recursive_simulations_agree():
    from designer.dynamics import derive
    from designer.dynamics.results import Method, SimplifyMode
    from designer.numeric.compiled import compile_equations
    model = load_project(robot_path("stanford_modified"))
    arm = NumericArm.from_model(model)
    cd = compile_equations(derive(model.numeric(), Method.NEWTON_EULER, SimplifyMode.OFF))
    q0 = np.array([0.2, -0.3, 0.5, 0.1, 0.4, -0.2])[:arm.n]
    qd0 = np.linspace(-0.5, 0.5, arm.n)
    np.testing.assert_allclose(dynamics_of(cd).qdd(q0, qd0, np.ones(arm.n)),
                               dynamics_of(arm).qdd(q0, qd0, np.ones(arm.n)), rtol=1e-9, atol=1e-12)
    t = np.linspace(0, 0.3, 7)
    a = simulate(cd, q0, qd0, (0, 0.3), t_eval=t, rtol=1e-10, atol=1e-12)
    b = simulate(arm, q0, qd0, (0, 0.3), t_eval=t, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.q, b.q, atol=1e-8)
