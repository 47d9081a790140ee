"""Exact gradients of the optimizer's quantities (designer/optimize/gradients.py) against central finite
differences of the optimizer's own numeric evaluation, and an optimization that uses them: the same answer as
bisection, in fewer evaluations than with finite differences."""

from __future__ import annotations

import numpy as np
import pytest

from designer.optimize import gradients as gradients_module
from designer.optimize.gradients import exact_gradient
from designer.optimize.problem import Problem, Variable, optimize, parse_requirement, quantities
from designer.project.io import load_project
from tests.support import robot_path

pytestmark = pytest.mark.slow


def _central(model, quantity, names, at, q):
    problem = Problem(model, (), quantity, q=q)
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
    ("palletizer_parallelogram", "inertia_locked[1]", ("m3", "m_motor"), {"m3": 30.0, "m_motor": 20.0}, None),
])
def test_exact_gradients_against_central_differences(robot, quantity, names, at, q):
    model = load_project(robot_path(robot))
    gradient = exact_gradient(model, quantity, names, q)
    assert gradient is not None
    exact = gradient(at)
    assert np.any(np.abs(exact) > 1e-6)
    np.testing.assert_allclose(exact, _central(model, quantity, names, at, q), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("quantity", ["frequency", "deflection", "gravity", "peak_torque[2]"])
def test_no_exact_gradient_where_the_model_has_none(quantity):
    # eigenvalues and sags, the largest over the joints, a cycle's torque: finite differences
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
    monkeypatch.setattr(gradients_module, "exact_gradient", lambda *a, **k: None)
    numeric = optimize(problem, starts=2)
    assert "finite differences for mass, inertia_locked[1]" in numeric.method
    assert numeric.best is not None and numeric.best.values["D2"] == pytest.approx(hi, rel=1e-4)
    assert exact.evaluations < numeric.evaluations
