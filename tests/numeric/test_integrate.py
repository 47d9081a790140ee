"""The hand-stepped integrator gives solve_ivp's numbers exactly, with progress and cancel between steps."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from designer.jobs import Cancelled, CancelToken, run
from designer.model import Convention
from designer.numeric import integrate
from designer.numeric.integrate import SOLVERS, IntegrationError, StallError, integrate_job
from designer.numeric.simulate import PDControl, _right_hand_side, _torque_function, simulate
from designer.numeric.forward import dynamics_of

from tests.support.pin_reference import random_arm


def van_der_pol(t, y, mu=3.0):
    return np.array([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0] + 0.3 * np.sin(2 * t)])


@pytest.mark.parametrize("method", sorted(SOLVERS))
@pytest.mark.parametrize("with_times", [False, True])
def test_equals_one_solve_ivp_call(method, with_times):
    t_eval = np.linspace(0.0, 6.0, 37)[1:] if with_times else None    # t0 itself left out once
    kw = dict(rtol=1e-7, atol=1e-9)
    ref = solve_ivp(van_der_pol, (0.0, 6.0), [1.5, 0.0], method=method, t_eval=t_eval, **kw)
    reports = []
    got = run(integrate_job(van_der_pol, (0.0, 6.0), [1.5, 0.0], method, t_eval=t_eval, interval=0, **kw),
              reports.append)
    assert ref.status == 0
    np.testing.assert_array_equal(got.t, ref.t)
    np.testing.assert_array_equal(got.y, ref.y.T)
    assert got.nfev == ref.nfev
    assert len(reports) == got.steps + 1 and got.steps > 20
    fractions = [r.fraction for r in reports]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0 and np.all(np.diff(fractions) > 0)


@pytest.mark.parametrize("convention,joints", [(Convention.STANDARD, "RPRRRRR"), (Convention.MODIFIED, "RRPRRR")])
def test_a_simulated_arm_is_solve_ivp_on_its_forward_dynamics(convention, joints):
    arm = random_arm(np.random.default_rng(8), len(joints), convention, joints)
    n = arm.n
    q0 = np.random.default_rng(2).uniform(-1, 1, n)
    pd = PDControl([30.0] * n, [4.0] * n, np.zeros(n))
    t = np.linspace(0, 0.8, 81)
    traj = simulate(arm, q0, np.zeros(n), (0, 0.8), torque=pd, t_eval=t, method="DOP853")   # named: exactly solve_ivp
    dyn = dynamics_of(arm)
    tau_of, _ = _torque_function(pd, n, dyn)
    ref = solve_ivp(_right_hand_side(dyn, n, tau_of), (0, 0.8), np.concatenate([q0, np.zeros(n)]),
                    method="DOP853", rtol=1e-8, atol=1e-10, t_eval=t)
    np.testing.assert_array_equal(traj.q, ref.y[:n].T)
    np.testing.assert_array_equal(traj.qd, ref.y[n:].T)
    assert traj.evaluations == ref.nfev


def test_reports_are_spaced_in_time_and_cancel_stops_between_steps():
    # interval: an endless interval reports only the start and the end, whatever the number of steps
    reports = []
    out = run(integrate_job(van_der_pol, (0, 20), [2.0, 0.0], "RK45", interval=float("inf")), reports.append)
    assert [r.fraction for r in reports] == [0.0, 1.0] and out.steps > 100
    token = CancelToken()
    seen = []

    def stop_after_ten(step):
        seen.append(step)
        if len(seen) == 10:
            token.cancel()
    with pytest.raises(Cancelled):
        run(integrate_job(van_der_pol, (0, 20), [2.0, 0.0], "RK45", interval=0, token=token), stop_after_ten)
    assert len(seen) == 10 and seen[-1].fraction < 0.5


def test_bad_inputs_and_a_failing_solver():
    with pytest.raises(ValueError, match="method: 'Euler'"):
        run(integrate_job(van_der_pol, (0, 1), [1.0, 0.0], "Euler"))
    with pytest.raises(ValueError, match="t_span"):
        run(integrate_job(van_der_pol, (1, 0), [1.0, 0.0]))
    with pytest.raises(ValueError, match="t_eval"):
        run(integrate_job(van_der_pol, (0, 1), [1.0, 0.0], t_eval=[0.5, 0.2]))
    with pytest.raises(ValueError, match="t_eval"):
        run(integrate_job(van_der_pol, (0, 1), [1.0, 0.0], t_eval=[0.5, 2.0]))
    # y' = y^2 from 1 blows up at t = 1: the solver's step size collapses before it; without the stall
    # detector (STALL_STEPS beyond reach) scipy's own floor ends it, the state named in the message too
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(integrate, "STALL_STEPS", 10**9)
        with pytest.raises(IntegrationError, match=r"integration failed after t = .* at y = \[") as failed:
            run(integrate_job(lambda t, y: y ** 2, (0, 2), [1.0], "RK45", rtol=1e-10, atol=1e-12))
    assert 0.99 < failed.value.t <= 1.0


def test_a_collapsing_step_ends_as_a_stall_within_a_bounded_number_of_steps():
    """y' = y^2, y(0) = 1 is y = 1 / (1 - t): the steps collapse towards t = 1 and the stall detector ends
    it there, within a bounded number of evaluations, naming the time, the floor and the state."""
    calls = [0]

    def blow_up(t, y):
        calls[0] += 1
        return y ** 2
    with pytest.raises(StallError, match=r"integration stalled at t = 1 s: the step size fell below 2e-12 s "
                                         r"\(10 steps in a row\) at y = \[") as stalled:
        run(integrate_job(blow_up, (0, 2), [1.0], "RK45", rtol=1e-10, atol=1e-12))
    t, y = stalled.value.t, float(stalled.value.y[0])
    assert 1 - 1e-6 < t < 1.0
    assert abs(t + 1 / y - 1.0) < 1e-9   # on the exact solution, whose pole t + 1/y is at 1
    assert calls[0] < 20_000   # the bound is in steps, not seconds
