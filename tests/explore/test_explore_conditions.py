"""Design conditions: planar two-link invariance/decoupling/balance by hand, checked numerically after applying."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from tests.support import robot_path
from designer.explore.batch import Batch
from designer.explore.conditions import Kind, apply_condition, find_conditions, trig_coefficients
from designer.kinematics import NumericArm
from designer.model import symbol
from designer.project import load_project

RNG = np.random.default_rng(7)


@pytest.fixture(scope="module")
def model():
    return load_project(robot_path("planar_two_link"))


def _M(model, q):
    return Batch(NumericArm.from_model(model), q).M


def test_invariance_needs_link_2_com_on_joint_2_axis(model):
    res = find_conditions(model, Kind.INVARIANT)
    assert len(res.conditions) == 1
    assert res.conditions[0].solution == {symbol("d2"): 0}   # COM at distance 0 from joint 2
    q = RNG.uniform(-3, 3, (50, 2))
    before, after = _M(model, q), _M(apply_condition(model, res.conditions[0]), q)
    assert np.ptp(before[:, 0, 0]) > 0.1
    assert np.ptp(after, axis=0) == pytest.approx(np.zeros((2, 2)), abs=1e-12)


def test_never_diagonal_while_link_2_has_rotational_inertia(model):
    res = find_conditions(model, Kind.DECOUPLED)
    assert not res.conditions and "no solution" in res.summary()
    # with no rotational inertia the only way out is a point mass on joint 2's axis
    point = model.with_parameter("I2", 0.0)
    res = find_conditions(point, Kind.DECOUPLED)
    assert [c.solution for c in res.conditions] == [{symbol("d2"): 0, symbol("I2"): 0}]
    M = _M(apply_condition(point, res.conditions[0]), RNG.uniform(-3, 3, (20, 2)))
    assert np.abs(M[:, 0, 1]).max() < 1e-12


def test_static_balance_by_counterweight(model):
    res = find_conditions(model, Kind.BALANCED)
    (cond,) = res.conditions
    L1, m1, m2 = symbol("L1"), symbol("m1"), symbol("m2")
    assert cond.solution == {symbol("d1"): -L1 * m2 / m1, symbol("d2"): 0}
    balanced = NumericArm.from_model(apply_condition(model, cond))
    q = RNG.uniform(-3, 3, (50, 2))
    assert np.abs(Batch(balanced, q).G).max() < 1e-12
    assert np.abs(Batch(NumericArm.from_model(model), q).G).max() > 1.0
    # one joint only, solving for a named parameter
    res2 = find_conditions(model, Kind.BALANCED, targets=[2], unknowns=["d2"])
    assert [c.solution for c in res2.conditions] == [{symbol("d2"): 0}]


def test_horn_chain_conditions():
    horn = load_project(robot_path("horn_three_dof"))
    # the column's axis meets the rods' plane: joint 1 is decoupled from 2 and 3 for any parameters
    assert find_conditions(horn, Kind.DECOUPLED, targets=[(1, 2), (1, 3)]).already
    # the thin rods' COMs are fixed at their middles, so no mass choice balances joints 2 and 3
    res = find_conditions(horn, Kind.BALANCED, targets=[2, 3])
    assert not res.conditions and "no solution" in res.summary()


def test_trig_coefficients_are_canonical(model):
    q1, q2 = model.q
    assert trig_coefficients(sp.sin(q1)**2 + sp.cos(q1)**2 - 1, model) == {}
    a = trig_coefficients(sp.cos(q1 + q2), model)
    b = trig_coefficients(sp.cos(q1) * sp.cos(q2) - sp.sin(q1) * sp.sin(q2), model)
    assert a == b and len(a) == 2
    with pytest.raises(ValueError, match="not a parameter"):
        find_conditions(model, Kind.BALANCED, unknowns=["nope"])
    with pytest.raises(ValueError, match="pair"):
        find_conditions(model, Kind.DECOUPLED, targets=[(1, 3)])


def test_conditions_job_reports_each_stage_and_stops_on_cancel(model):
    """Stages in order (derivation, coefficients per entry, each tier of unknowns) with rising
    fractions; the result is find_conditions'; a cancelled token stops it before the next stage."""
    from designer.explore.conditions import find_conditions_job
    from designer.jobs import CancelToken, Cancelled, run
    steps: list = []
    res = run(find_conditions_job(model, Kind.INVARIANT), steps.append)
    stages = [s.stage for s in steps]
    assert stages[0] == "deriving M and G" and "coefficient equations" in stages and "solving" in stages
    fractions = [s.fraction for s in steps]
    assert fractions == sorted(fractions) and 0 <= fractions[0] and fractions[-1] < 1
    assert res.conditions == find_conditions(model, Kind.INVARIANT).conditions
    token = CancelToken()
    job = find_conditions_job(model, Kind.INVARIANT, token=token)
    next(job)
    token.cancel()
    with pytest.raises(Cancelled):
        run(job)


def test_conditions_command_draws_a_bar_on_a_terminal_only(tmp_path):
    import os
    import pty
    import subprocess

    from tests.support.terminal import cli, read_pty
    args = ("explore", str(robot_path("planar_two_link")), "conditions", "--kind", "invariant")
    master, slave = pty.openpty()
    proc = cli(*args, stderr=slave, stdout=subprocess.DEVNULL)
    os.close(slave)
    text = read_pty(master, proc).decode(errors="replace")
    os.close(master)
    assert proc.wait(120) == 0 and "conditions:" in text, text
    proc = cli(*args, stderr=subprocess.PIPE, stdout=subprocess.PIPE)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b"" and b"d2" in out


def test_a_numeric_arm_is_checked_numerically_not_derived():
    """A model without symbols has nothing to solve for: whether the condition holds, from M and G at random
    poses (a generic 12-joint arm's closed forms, derived only to be compared with 0, ran past five minutes;
    the summary read "no solution for  with positive masses")."""
    from designer.model import Inertia, Link, Manipulator
    from tests.support.anyarm_arms import generic_arm
    for kind in ("decoupled", "invariant", "balanced"):
        result = find_conditions(generic_arm(3, seed=8), kind)
        assert not result.already and not result.conditions and result.equations == ()
        assert "no symbolic parameters to solve for" in result.summary()
    # a planar two-link arm about vertical axes: gravity along the axes, so G = 0 everywhere (holds)
    planar = Manipulator(links=(Link(a=0.4, mass=2.0, com=(-0.2, 0, 0), inertia=Inertia(0.01, 0.02, 0.03)),
                                Link(a=0.3, mass=1.0, com=(-0.1, 0, 0), inertia=Inertia(0.01, 0.02, 0.03))),
                         gravity=(0, 0, -9.81))
    assert find_conditions(planar, "balanced").already
    assert not find_conditions(planar, "decoupled").already
    assert find_conditions(Manipulator(links=planar.links[:1], gravity=(0, 0, -9.81)), "decoupled").already
