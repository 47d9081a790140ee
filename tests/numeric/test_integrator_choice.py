"""The integrator chosen by the problem (numeric/integrate.py's choose_method): the stiffness ratio against
known eigenvalues, the choice's run cheaper than the other method's with the same answer, and the same rule
through simulate for an undamped elastic arm (explicit) and an elastic arm under a motor PD (implicit)."""

from __future__ import annotations

import numpy as np
import pytest

from designer.jobs import run
from designer.kinematics import NumericArm
from designer.numeric.elastic import ElasticDynamics, ElasticJoints, elastic_joints
from designer.numeric.engine import arm_dynamics
from designer.numeric.integrate import STIFF_RATIO, choose_method, integrate_job
from designer.numeric.simulate import PDControl, simulate
from designer.project import load_project

from tests.support import robot_path
from tests.support.stiff_arm import Q0, STIFFNESS, write_stiff_arm


def _linear(A, forcing=None):
    A = np.asarray(A, dtype=float)
    return lambda t, y: A @ y + (0.0 if forcing is None else forcing(t))


def test_the_ratio_follows_the_eigenvalues():
    # an undamped oscillator at 1000 rad/s: +-1000i last the whole run, ratio 1
    osc = choose_method(_linear([[0, 1], [-1e6, 0]]), (0.0, 1.0), [1.0, 0.0], rtol=1e-10)
    assert osc.method == "DOP853" and osc.ratio == pytest.approx(1.0, rel=1e-6)
    assert osc.reason.startswith("not stiff (stiffness ratio 1")
    # decay rates 1e5 and 1 over 10 s: the fast one dies out (1e6 > ln 1e8), the slow one lasts: ratio 1e5
    stiff = choose_method(_linear([[-1e5, 0], [0, -1]]), (0.0, 10.0), [1.0, 1.0], rtol=1e-8)
    assert stiff.method == "Radau" and stiff.ratio == pytest.approx(1e5, rel=1e-6)
    # the same decay rates over a run of 0.1 ms: the fast mode lasts (1e5 * 1e-4 = 10 < ln 1e8): not stiff
    short = choose_method(_linear([[-1e5, 0], [0, -1]]), (0.0, 1e-4), [1.0, 1.0], rtol=1e-8)
    assert short.method == "DOP853" and short.ratio == pytest.approx(1.0, rel=1e-6)
    # the analytic Jacobian, when given, is what is examined
    given = choose_method(_linear([[0, 1], [-1e6, 0]]), (0.0, 1.0), [1.0, 0.0], jac=lambda t, y: -1e5 * np.eye(2))
    assert given.method == "Radau" and given.ratio > STIFF_RATIO


@pytest.mark.parametrize("case", ["stiff", "oscillating"])
def test_the_chosen_method_is_the_cheaper_one_with_the_same_answer(case):
    """y1' = -k (y1 - cos t) (stiff, k = 1e4) against an undamped oscillator at 300 rad/s, both with their exact
    solutions: the choice takes fewer evaluations of the right-hand side than the method it passed over."""
    if case == "stiff":
        k = 1e4
        fun = _linear([[-k]], lambda t: np.array([k * np.cos(t)]))
        y0, T = [0.0], 5.0
        # y = k (k cos t + sin t) / (k^2 + 1) - k^2 / (k^2 + 1) e^(-k t)
        exact = k * (k * np.cos(T) + np.sin(T)) / (k * k + 1)
        value = lambda out: out.y[-1, 0]   # noqa: E731
    else:
        w = 300.0
        fun = _linear([[0, 1], [-w * w, 0]])
        y0, T = [1.0, 0.0], 1.0
        exact = np.cos(w * T)
        value = lambda out: out.y[-1, 0]   # noqa: E731
    auto = run(integrate_job(fun, (0.0, T), y0, None, rtol=1e-8, atol=1e-10))
    other = "DOP853" if auto.choice.method == "Radau" else "Radau"
    assert auto.choice.method == ("Radau" if case == "stiff" else "DOP853")
    forced = run(integrate_job(fun, (0.0, T), y0, other, rtol=1e-8, atol=1e-10))
    assert forced.choice.reason == "as asked (--method)"
    assert auto.nfev < forced.nfev
    assert abs(value(auto) - exact) < 1e-6 and abs(value(forced) - exact) < 1e-6


def _stiff_arm(tmp_path) -> ElasticDynamics:
    model = load_project(write_stiff_arm(tmp_path))
    joints = elastic_joints(model)
    assert np.allclose(joints.stiffness, STIFFNESS)
    return ElasticDynamics(arm_dynamics(NumericArm.from_model(model)), joints)


def test_the_undamped_four_joint_arm_is_run_explicitly_with_radaus_answer(tmp_path):
    """Issue 31's arm in free vibration at rtol 1e-10 (0.1 s here; the benchmark runs 1 s): DOP853, fewer steps than
    a forced Radau, the same link angles to 1e-9 rad, and the energy of the undamped springs kept."""
    dyn = _stiff_arm(tmp_path)
    auto = simulate(dyn, Q0, None, (0.0, 0.1), rtol=1e-10, atol=1e-10)
    assert auto.method == "DOP853" and auto.method_reason.startswith("not stiff (stiffness ratio")
    radau = simulate(dyn, Q0, None, (0.0, 0.1), rtol=1e-10, atol=1e-10, method="Radau", t_eval=auto.t)
    assert radau.method == "Radau" and radau.method_reason == "as asked (--method)"
    assert radau.steps > 3 * auto.steps
    assert np.abs(radau.q - auto.q).max() < 1e-9
    assert np.abs(radau.theta - auto.theta).max() < 1e-9 * np.abs(auto.theta).max()
    energy = dyn.model.energy(auto.states())
    assert np.ptp(energy) < 1e-8 * np.abs(energy).max()
    assert np.ptp(auto.q[:, 1]) > 0.01   # it did move: the shoulder falls


def test_an_elastic_arm_under_a_motor_pd_is_stiff():
    """Damped springs and the motors' PD: the fast modes die out within milliseconds, Radau steps over them."""
    arm = NumericArm.from_model(load_project(robot_path("puma560")))
    gear = np.array([62.6, 107.8, 53.7, 76.0, 71.9, 76.7])
    rotor = np.array([200e-6] * 3 + [33e-6] * 3)
    k = np.array([5e4, 5e4, 3e4, 1e4, 1e4, 1e4])
    joints = ElasticJoints.of(6, k, 0.2 * np.sqrt(k * gear ** 2 * rotor), gear, rotor)
    kp = np.array([2000.0, 2000.0, 1000.0, 200.0, 200.0, 100.0])
    kd = 1.6 * np.sqrt(kp * (gear ** 2 * rotor + np.array([3.0, 3.0, 1.0, 0.1, 0.1, 0.05])))
    pd = PDControl(kp, kd, [0.8, 0.6, -1.2, 0.5, 0.7, 1.0], np.zeros(6), 0.5)
    traj = simulate(ElasticDynamics(arm_dynamics(arm), joints), np.zeros(6), None, (0.0, 1.0), pd)
    assert traj.method == "Radau" and traj.method_reason.startswith("stiff (stiffness ratio")
    assert float(traj.method_reason.split("ratio ")[1].split(":")[0]) > 1e3
    assert np.abs(traj.q[-1] - pd.target).max() < 0.05   # and the move got there


def test_a_rigid_arms_fall_is_not_stiff():
    arm = NumericArm.from_model(load_project(robot_path("puma560")))
    traj = simulate(arm, [0.0, 0.3, -0.4, 0.0, 0.5, 0.0], np.zeros(6), (0.0, 0.2))
    assert traj.method == "DOP853" and "not stiff" in traj.method_reason
    forced = simulate(arm, [0.0, 0.3, -0.4, 0.0, 0.5, 0.0], np.zeros(6), (0.0, 0.2), method="DOP853",
                      t_eval=traj.t)
    assert np.abs(traj.q - forced.q).max() < 1e-8   # DOP853 as named (but for the bounded first step)


def test_a_run_that_turns_stiff_switches_to_radau_on_the_way():
    """y' = -k(t) (y - cos t) with k rising from 1 to 1e5 at t = 1 (smoothly, over 0.1 s): DOP853 at the start
    (ratio 1), Radau after the rise, a fraction of a forced DOP853's evaluations, and the exact quasi-steady answer
    k (k cos T + sin T) / (k^2 + 1) at the end (the start's transient long gone)."""
    big = 1e5

    def k_of(t):
        s = min(max((t - 1.0) / 0.1, 0.0), 1.0)
        return 1.0 + big * s * s * (3 - 2 * s)

    def fun(t, y):
        return np.array([-k_of(t) * (y[0] - np.cos(t))])
    T = 5.0
    auto = run(integrate_job(fun, (0.0, T), [0.0], None, rtol=1e-8, atol=1e-10))
    assert auto.choice.method == "Radau" and "from t = " in auto.choice.reason
    assert "(before: DOP853, not stiff (stiffness ratio 1" in auto.choice.reason
    switched_at = float(auto.choice.reason.split("from t = ")[1].split(" s")[0])
    assert 1.0 < switched_at < 2.0
    forced = run(integrate_job(fun, (0.0, T), [0.0], "DOP853", rtol=1e-8, atol=1e-10))
    assert auto.nfev < 0.2 * forced.nfev
    k = k_of(T)
    exact = k * (k * np.cos(T) + np.sin(T)) / (k * k + 1)
    assert abs(auto.y[-1, 0] - exact) < 1e-7 and abs(forced.y[-1, 0] - exact) < 1e-7


def test_a_run_that_never_switches_is_the_forced_methods_run(tmp_path):
    dyn = _stiff_arm(tmp_path)   # ringing springs: DOP853 all the way, looked at again every RECHECK_STEPS steps
    auto = simulate(dyn, Q0, None, (0.0, 0.1), rtol=1e-10, atol=1e-10)
    assert auto.steps > 100 and auto.method_reason.startswith("not stiff") and "from t =" not in auto.method_reason
    forced = simulate(dyn, Q0, None, (0.0, 0.1), rtol=1e-10, atol=1e-10, method="DOP853", t_eval=auto.t)
    assert np.abs(auto.q - forced.q).max() < 1e-10 and abs(auto.steps - forced.steps) <= 2


def test_near_rigid_quiet_springs_switch_to_radau_when_dop853_is_held_by_its_stability():
    """A chain of two masses on a 1e8 N/m spring, started on the slow manifold (the spring preloaded for the
    common acceleration under a force on one mass): the spring's 1e4 rad/s mode stays quiet, no mode dies out
    (ratio ~1: DOP853 at the start), DOP853's steps sit at its stability bound, and the run switches to Radau,
    with the rigid answer x = F t^2 / (2 (m1 + m2)) to 1e-6 of the travel."""
    m1, m2, k, F = 1.0, 1.0, 1e8, 2.0
    A = np.array([[0, 0, 1, 0], [0, 0, 0, 1], [-k / m1, k / m1, 0, 0], [k / m2, -k / m2, 0, 0]])

    def fun(t, y):
        return A @ y + np.array([0, 0, F / m1, 0])
    a = F / (m1 + m2)
    stretch = m2 * a / k            # m1 ahead of m2 by this, the spring pulls m2 along at the common acceleration
    T, y0 = 1.0, [stretch, 0.0, 0.0, 0.0]
    out = run(integrate_job(fun, (0.0, T), y0, None, rtol=1e-8, atol=1e-10, jac=lambda t, y: A))
    assert out.choice.method == "Radau" and "held at" in out.choice.reason and "(before: DOP853" in out.choice.reason
    assert out.choice.reason.count("before:") == 1   # one switch, no flip-flop
    travel = 0.5 * a * T * T
    assert abs(out.y[-1, 1] - travel) < 1e-6 * travel
    forced = run(integrate_job(fun, (0.0, T), y0, "DOP853", rtol=1e-8, atol=1e-10))
    assert out.nfev < 0.2 * forced.nfev
