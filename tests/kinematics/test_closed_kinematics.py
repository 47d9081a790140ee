"""Closed-chain kinematics of the bundled examples against their sources.

The Acma SR400's loop Jacobian: in OpenSYMORO's description the parallelogram's closure, written in
frame 1, has in its active block (the column of the shoulder joint 2) the entry
D3 sin(th2) - D8 cos(th2 + th3) (up to the sign of the residual), with SYMORO's th_j = theta_j + q_j.
The palletizer's parallelogram closes linearly (q3 = q4 - q2, q5 = q2 - q4); the four-bar keeps the
bar lengths at every crank angle (the closure's result checked by distances, not by its residual).
"""

from __future__ import annotations

import numpy as np
import pytest

from designer.kinematics.closure import Closure
from designer.kinematics.tree import TreeArm
from designer.project import load_project
from tests.support import robot_path


def tree(name: str) -> TreeArm:
    return TreeArm.from_model(load_project(robot_path(name)))


def test_sr400_loop_jacobian_has_opensymoros_active_entry():
    t = tree("acma_sr400")
    closure = Closure(t)
    p = load_project(robot_path("acma_sr400")).parameter_values
    rng = np.random.default_rng(1)
    for _ in range(10):
        q_a = rng.uniform(-0.6, 0.6, len(t.actuated))
        q = closure.solve(q_a)
        terms = t.loop_terms(q)
        R1 = t.frames(q)[1][:3, :3]
        J1 = R1.T @ terms.jacobian[:3]          # the position rows in frame 1
        th = np.array([0, 0, 0, 0, 0, 0, -np.pi / 2, np.pi / 2]) + q   # SYMORO's th_j
        expected = p["D3"] * np.sin(th[1]) - p["D8"] * np.cos(th[1] + th[2])
        assert abs(abs(J1[0, 1]) - abs(expected)) < 1e-12
        assert J1[0, 1] == pytest.approx(expected, abs=1e-12) or J1[0, 1] == pytest.approx(-expected, abs=1e-12)


def test_palletizer_parallelogram_closes_linearly():
    closure = Closure(tree("palletizer_parallelogram"))
    assert closure.linear is not None
    # actuated order (q1, q2, q4, q6): q3 = q4 - q2, q5 = q2 - q4
    assert np.array_equal(closure.linear.A, [[0, -1, 1, 0], [0, 1, -1, 0]])


def test_four_bar_keeps_its_bar_lengths_all_the_way_round():
    t = tree("four_bar")
    closure = Closure(t)
    p = load_project(robot_path("four_bar")).parameter_values
    q = None
    for angle in np.linspace(0, 2 * np.pi, 73):
        q = closure.solve([angle], q)
        T = t.frames(q)
        B, C, D = T[1][:3, 3], T[2][:3, 3], T[3][:3, 3]
        assert np.linalg.norm(C - B) == pytest.approx(p["L2"], abs=1e-12)
        assert np.linalg.norm(D - C) == pytest.approx(p["L3"], abs=1e-12)
        assert np.linalg.norm(D - np.array([p["L0"], 0, 0])) < 1e-11
        assert (C - B)[1] * 0 == 0   # the branch: C stays above the line BD
        cross = np.cross(D - B, C - B)[2]
        assert cross > 0


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_four_bar_closed_form_agrees_with_newton_and_keeps_the_branch(convention):
    """The circles' intersection (kinematics/four_bar.py) against Newton's continuation from the nominal
    pose (closed_form=False), on random four-bars; both stay on the nominal pose's branch."""
    from designer.model import Convention
    from tests.support.closed_reference import four_bar
    for seed in range(5):
        t = TreeArm.from_model(four_bar(np.random.default_rng(seed), Convention(convention)))
        closed, newton = Closure(t), Closure(t, closed_form=False)
        assert closed.four_bar is not None and newton.four_bar is None
        for angle in np.linspace(-0.7, 0.7, 9):
            q = closed.solve([angle])
            assert np.abs(q - newton.solve([angle])).max() < 1e-9
            assert closed.residual(q) < 1e-12
