"""Exact gradients of the optimizer's quantities (designer/optimize/gradients.py) against central finite
differences of the optimizer's own numeric evaluation, and an optimization that uses them: the same answer as
bisection, in fewer evaluations than with finite differences."""

from __future__ import annotations

import numpy as np
import pytest

from designer.optimize import problem as problem_module
from designer.optimize.gradients import exact_gradient
from designer.optimize.problem import Problem, Variable, optimize, parse_requirement, quantities
from designer.project.io import load_project
from tests.support import robot_path

pytestmark = pytest.mark.slow


def _central(model, quantity, names, at, q, payload=0.0, cycle=None):
    problem = Problem(model, (), quantity, q=q, payload=payload, cycle=cycle)
    out = []
    for n in names:
        h = 1e-6 * max(1.0, abs(at[n]))
        up = quantities(problem, model, [quantity], {**at, n: at[n] + h})[0]
        down = quantities(problem, model, [quantity], {**at, n: at[n] - h})[0]
        out.append((up - down) / (2 * h))
    return np.array(out)


@pytest.mark.parametrize("robot, quantity, names, at, q", [
    ("tube_arm", "gravity[2]", ("D2", "t3", "L2"), {"D2": 0.1, "t3": 0.004, "L2": 0.55}, (0.3, 0.4, -0.2)),
    ("tube_arm", "inertia_locked[2]", ("D2", "t3", "L2"), {"D2": 0.1, "t3": 0.004, "L2": 0.55}, (0.3, 0.4, -0.2)),
    ("tube_arm", "M[2,3]", ("D3", "t3", "L2"), {"D3": 0.08, "t3": 0.004, "L2": 0.55}, (0.3, 0.4, -0.2)),
    ("tube_arm", "mass", ("D2", "t3"), {"D2": 0.1, "t3": 0.004}, None),
    ("tube_arm", "frequency", ("D2", "t3", "L2", "k2"), {"D2": 0.1, "t3": 0.004, "L2": 0.55, "k2": 3e5},
     (0.3, 0.4, -0.2)),
    ("tube_arm", "frequency", ("D3", "t2"), {"D3": 0.07, "t2": 0.005}, None),
    ("palletizer_parallelogram", "inertia_locked[1]", ("m3", "m_motor"), {"m3": 30.0, "m_motor": 20.0}, None),
])
def test_exact_gradients_against_central_differences(robot, quantity, names, at, q):
    model = load_project(robot_path(robot))
    gradient = exact_gradient(model, quantity, names, q)
    assert gradient is not None
    exact = gradient(at)
    assert np.any(np.abs(exact) > 1e-6)
    np.testing.assert_allclose(exact, _central(model, quantity, names, at, q), rtol=1e-6, atol=1e-7)
    if quantity == "frequency":     # the payload does not enter the locked frequency's M (docs/metrics.md)
        np.testing.assert_allclose(exact, _central(model, quantity, names, at, q, 5.0), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("quantity", ["peak_torque[2]", "rms_torque[3]", "peak_torque", "rms_torque"])
@pytest.mark.parametrize("seed", [1, 2])
def test_cycle_gradients_against_central_differences(quantity, seed):
    # a random design of the tube arm (tube sizes and lengths) and a random quintic move: the torque along the
    # cycle differentiated through the closed form, against the optimizer's own numeric cycle loads
    from designer.explore.sizing import quintic
    rng = np.random.default_rng(seed)
    model = load_project(robot_path("tube_arm"))
    names = ("D2", "t2", "D3", "L3")
    at = dict(zip(names, (rng.uniform(0.05, 0.14), rng.uniform(0.002, 0.006), rng.uniform(0.05, 0.14),
                          rng.uniform(0.3, 0.7))))
    cycle = quintic(list(rng.uniform(-1, 1, 3)), list(rng.uniform(-1, 1, 3)), rng.uniform(0.5, 1.5), steps=61)
    gradient = exact_gradient(model, quantity, names, cycle=cycle)
    assert gradient is not None
    exact = gradient(at)
    assert abs(exact[2]) > 1e-3     # the forearm tube moves every joint's torque (the upper arm's not the elbow's)
    np.testing.assert_allclose(exact, _central(model, quantity, names, at, None, cycle=cycle), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("quantity", ["frequency_links", "deflection", "gravity", "peak_torque[2]"])
def test_no_exact_gradient_where_the_model_has_none(quantity):
    # the links' bending frequency and sags, the largest over the joints, a cycle's torque: finite differences
    assert exact_gradient(load_project(robot_path("tube_arm")), quantity, ("D2",)) is None


def test_an_optimization_on_exact_gradients_matches_bisection_in_fewer_evaluations(monkeypatch):
    # the lightest upper arm (D2) whose locked inertia at joint 1 reaches a bound: the inertia grows with D2,
    # so the answer is where it equals the bound; bisection finds that on the optimizer's own evaluation
    model = load_project(robot_path("tube_arm"))
    q = (0.0, 0.4, -0.2)
    value = lambda D2: quantities(Problem(model, (), "mass", q=q), model, ["inertia_locked[1]"], {"D2": D2})[0]  # noqa: E731
    lo, hi = 0.04, 0.15
    bound = 0.5 * (value(lo) + value(hi))
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if value(mid) < bound else (lo, mid)
    problem = Problem(model, (Variable("D2", 0.04, 0.15),), "mass",
                      (parse_requirement(f"inertia_locked[1]>={bound!r}"),), q=q)
    exact = optimize(problem, starts=2)
    assert "every gradient exact" in exact.method
    assert exact.best is not None and exact.best.values["D2"] == pytest.approx(hi, rel=1e-4)
    monkeypatch.setattr(problem_module, "exact_gradient", lambda *a, **k: None)
    numeric = optimize(problem, starts=2)
    assert "finite differences for mass, inertia_locked[1]" in numeric.method
    assert numeric.best is not None and numeric.best.values["D2"] == pytest.approx(hi, rel=1e-4)
    assert exact.evaluations < numeric.evaluations


def test_the_lightest_tube_meeting_a_tip_sag_is_beam_theorys():
    # a steel tube cantilever (wall fixed, outer diameter D varied) with a point mass at its tip: its sag is
    # P L^3 / 3EI + w L^4 / 8EI (P the tip's weight, w the tube's weight per length); the mass grows with D and
    # the sag shrinks, so the lightest tube meeting the bound has the D where the closed form equals the bound
    from scipy.optimize import brentq

    from designer.model import Link, Manipulator
    from designer.model.expr import symbol
    from designer.model.manipulator import PointMass
    from designer.model.parts import MATERIALS, Part
    steel = MATERIALS["steel"]
    L, t, tip, g, bound = 0.8, 0.003, 4.0, 9.81, 0.8      # m, m, kg, m/s^2, mm
    model = Manipulator(links=(Link(a=L, part=Part("tube", steel, (("outer_diameter", symbol("D")), ("wall", t)))),),
                        gravity=(0, 0, -g), parameters={"D": 0.05}, point_masses=(PointMass(1, tip, (0, 0, 0)),))

    def sag_mm(D):
        I = np.pi / 64 * (D**4 - (D - 2 * t) ** 4)
        w = steel.density * np.pi / 4 * (D**2 - (D - 2 * t) ** 2) * g
        return 1e3 * (tip * g * L**3 / 3 + w * L**4 / 8) / (steel.young * I)
    D = brentq(lambda D: sag_mm(D) - bound, 0.02, 0.12, xtol=1e-14)
    result = optimize(Problem(model, (Variable("D", 0.02, 0.12),), "mass",
                              (parse_requirement(f"deflection_links<={bound}"),)), starts=2)
    assert result.best is not None and result.best.feasible
    assert result.best.values["D"] == pytest.approx(D, rel=1e-4)
    tube = steel.density * np.pi / 4 * (D**2 - (D - 2 * t) ** 2) * L
    assert result.best.objective == pytest.approx(tube + tip, rel=1e-4)


def test_the_frequency_gradient_of_a_tube_on_a_torsion_spring_is_the_closed_forms():
    # one steel tube (length L, outer diameter D, wall t) swinging about a joint at its end (axis across the
    # tube) on a gearbox of stiffness k, a point mass at its tip: f = sqrt(k / I) / 2 pi with I = m (L^2/3 +
    # (ro^2 + ri^2)/4) + m_tip L^2 (a thin-walled tube's inertia about its end); df/dD and df/dk by central
    # differences of that closed form, against the exact eigenvalue derivative through the model
    from designer.model import Link, Manipulator
    from designer.model.expr import symbol
    from designer.model.extras import Drive
    from designer.model.manipulator import PointMass
    from designer.model.parts import MATERIALS, Part
    steel = MATERIALS["steel"]
    L, t, tip = 0.8, 0.003, 4.0
    model = Manipulator(links=(Link(a=L, part=Part("tube", steel, (("outer_diameter", symbol("D")), ("wall", t))),
                                    drive=Drive(stiffness=symbol("k"))),),
                        gravity=(0, 0, -9.81), parameters={"D": 0.05, "k": 2e4},
                        point_masses=(PointMass(1, tip, (0, 0, 0)),))

    def f(D, k):
        ro, ri = D / 2, D / 2 - t
        m = steel.density * np.pi * (ro**2 - ri**2) * L
        return np.sqrt(k / (m * (L**2 / 3 + (ro**2 + ri**2) / 4) + tip * L**2)) / (2 * np.pi)
    at = {"D": 0.06, "k": 3e4}
    gradient = exact_gradient(model, "frequency", ("D", "k"))
    assert gradient is not None
    hD, hk = 1e-7, 1e-2
    closed = [(f(at["D"] + hD, at["k"]) - f(at["D"] - hD, at["k"])) / (2 * hD),
              (f(at["D"], at["k"] + hk) - f(at["D"], at["k"] - hk)) / (2 * hk)]
    np.testing.assert_allclose(gradient(at), closed, rtol=1e-6)
    value = quantities(Problem(model, (), "frequency"), model, ["frequency"], at)[0]
    assert value == pytest.approx(f(at["D"], at["k"]), rel=1e-9)


def test_with_one_quantity_without_an_exact_derivative_only_the_mass_gradient_is_built(monkeypatch):
    # the links' bending frequency has no exact derivative: SLSQP's finite differences of it evaluate the designs
    # the frequency's would need, so the frequency's (a symbolic derivation) is not built, and the result says so
    model = load_project(robot_path("tube_arm"))
    asked: list[str] = []
    real = problem_module.exact_gradient

    def recording(model, quantity, *args, **kwargs):
        asked.append(quantity.strip())
        return real(model, quantity, *args, **kwargs)
    monkeypatch.setattr(problem_module, "exact_gradient", recording)
    problem = Problem(model, (Variable("D2", 0.06, 0.15),), "mass",
                      (parse_requirement("frequency_links>=5"), parse_requirement("frequency>=10")), payload=1.0)
    result = optimize(problem, starts=1, max_iterations=3)
    assert set(asked) == {"mass"}
    assert "finite differences for frequency_links>=5 (no exact derivative in the model) and so for " \
        "frequency>=10" in result.method
    # the sag and the frequency both have one from each design's numeric model (design_gradients.py): no
    # symbolic derivation at all
    asked.clear()
    problem = Problem(model, (Variable("D2", 0.06, 0.15),), "mass",
                      (parse_requirement("deflection<=5"), parse_requirement("frequency>=10")), payload=1.0)
    result = optimize(problem, starts=1, max_iterations=3)
    assert asked == [] and "every gradient exact (from each design's numeric model)" in result.method
    # with a DH length varied the numeric path is out: the symbolic one, for every quantity that has one
    problem = Problem(model, (Variable("D2", 0.06, 0.15), Variable("L2", 0.5, 0.6)), "mass",
                      (parse_requirement("frequency>=10"),), payload=1.0)
    optimize(problem, starts=1, max_iterations=3)
    assert set(asked) == {"mass", "frequency"}
