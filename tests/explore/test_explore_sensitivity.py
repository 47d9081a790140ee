"""Parameter sensitivities: exact derivatives of the planar two-link arm's M_12 and G_2 by hand,
central differences agreeing with them, and the workspace ranking."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import robot_path
from designer.explore.metrics import compute
from designer.explore.sensitivity import rank_parameters, sensitivity_at
from designer.kinematics import NumericArm
from designer.project import load_project


@pytest.fixture(scope="module")
def model():
    return load_project(robot_path("planar_two_link"))


def test_exact_derivatives_by_hand(model):
    p = model.parameter_values
    q2 = 0.7
    rows = {s.parameter: s for s in sensitivity_at(model, "M[1,2]", [0.3, q2])}
    c2 = np.cos(q2)
    # M12 = I2 + m2 (d2^2 + L1 d2 cos q2)
    assert rows["m2"].derivative == pytest.approx(p["d2"] ** 2 + p["L1"] * p["d2"] * c2)
    assert rows["d2"].derivative == pytest.approx(p["m2"] * (2 * p["d2"] + p["L1"] * c2))
    assert rows["L1"].derivative == pytest.approx(p["m2"] * p["d2"] * c2)
    assert rows["I2"].derivative == pytest.approx(1.0)
    assert rows["m1"].derivative == 0 and rows["L2"].derivative == 0
    assert rows["m2"].expression is not None
    # |G_2| = g m2 d2 |cos(q1 + q2)|
    rows = {s.parameter: s for s in sensitivity_at(model, "gravity[2]", [2.0, 0.5])}
    assert rows["d2"].derivative == pytest.approx(p["g"] * p["m2"] * abs(np.cos(2.5)))


def test_numeric_metrics_and_ranking(model):
    p = model.parameter_values
    # isotropy has no closed form here: central differences; check one against a wider difference
    q = np.array([[0.3, 1.2]])
    rows = {s.parameter: s for s in sensitivity_at(model, "isotropy", q[0])}
    h = 1e-4
    wide = (compute(NumericArm.from_model(model, {"L1": p["L1"] + h}), q, "isotropy")[0]
            - compute(NumericArm.from_model(model, {"L1": p["L1"] - h}), q, "isotropy")[0]) / (2 * h)
    assert rows["L1"].expression is None and rows["L1"].derivative == pytest.approx(wide, rel=1e-5)
    ranked = rank_parameters(model, "M[2,2]", samples=32)
    # M22 = I2 + m2 d2^2: influence d2 -> 2 m2 d2^2, m2 -> m2 d2^2, I2 -> I2; nothing else matters
    by = {s.parameter: s for s in ranked}
    assert by["d2"].influence == pytest.approx(2 * p["m2"] * p["d2"] ** 2, rel=1e-6)
    assert by["m2"].influence == pytest.approx(p["m2"] * p["d2"] ** 2, rel=1e-6)
    assert by["I2"].influence == pytest.approx(p["I2"], rel=1e-6)
    assert ranked[0].parameter == "d2" and by["L1"].influence == pytest.approx(0, abs=1e-9)
    with pytest.raises(ValueError):
        sensitivity_at(model, "M[1,2]", [0, 0], parameters=["nope"])
