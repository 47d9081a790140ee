"""The kind-free entries the command line asks (numeric/mechanism.py, numeric/end_stops.py): the drive data's
torques over a run's rows, and the end stops, of a serial arm and a closed chain alike, against the drive
terms written out by hand from the test's own drive values."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.model import Drive
from designer.numeric.end_stops import end_stops_for, tree_limits
from designer.numeric.mechanism import mechanism_end_stops
from designer.numeric.mechanism import load_dynamics, with_drive_parts, with_drive_torques
from designer.project import load_project
from tests.support import robot_path

RNG = np.random.default_rng(30)


def _driven(name: str, drives: dict[int, Drive]):
    model = load_project(robot_path(name))
    links = list(model.links)
    for i, drive in drives.items():
        links[i] = replace(links[i], drive=drive)
    return replace(model, links=tuple(links))


def test_closed_chain_drive_torques_are_w_transpose_of_the_tree_joints():
    """A motor (N = 100, Jm = 2e-4) on the tree joint 4 and a viscous bearing (30 N m s) on the passive joint 3
    of the palletizer: the torques gain W^T (N^2 Jm qdd_tree + b qd_tree) row by row."""
    model = _driven("palletizer_parallelogram", {3: Drive(gear_ratio=100.0, motor_inertia=2e-4),
                                                 2: Drive(viscous=30.0)})
    dyn = load_dynamics(model, springs=False)
    Q = 0.1 + 0.05 * np.arange(4)[:, None] * np.ones((4, dyn.n))
    QD, QDD = RNG.uniform(-0.5, 0.5, (2, 4, dyn.n))
    follow = dyn.following()
    tau = follow.tau(Q, QD, QDD)
    driven = with_drive_torques(dyn.following(), model, tau, Q, QD, QDD)
    for r in range(len(Q)):
        _, qd_tree, qdd_tree, W = dyn.following().state(Q[r], QD[r], QDD[r])
        added = np.zeros(dyn.n_tree)
        added[3] = 100.0 ** 2 * 2e-4 * qdd_tree[3]
        added[2] = 30.0 * qd_tree[2]
        assert driven[r] - tau[r] == pytest.approx(W.T @ added, abs=1e-9)


@pytest.mark.parametrize("name, drives", [
    ("puma560", {0: Drive(gear_ratio=62.6, motor_inertia=2e-4, viscous=1.5, coulomb=0.4)}),
    ("palletizer_parallelogram", {3: Drive(gear_ratio=100.0, motor_inertia=2e-4), 2: Drive(viscous=30.0)}),
])
def test_drive_parts_keep_the_equation_of_motion(name, drives):
    """tau = (M + M_drive) qdd + h + G + friction with the drive terms added, for either kind of mechanism."""
    model = _driven(name, drives)
    dyn = load_dynamics(model, springs=False)
    q, qd, qdd = RNG.uniform(-0.3, 0.3, (3, dyn.n))
    at = dyn.following(dyn.positions(q))
    parts = {"tau": at.tau(q, qd, qdd), "M": at.M(q), "G": at.G(q), "h": at.h(q, qd)}
    driven = with_drive_parts(at, model, parts, q, qd, qdd)
    assert np.abs(driven["friction"]).max() > 0
    assert driven["tau"] == pytest.approx(driven["M"] @ qdd + driven["h"] + driven["G"] + driven["friction"],
                                          abs=1e-9)
    assert not np.allclose(driven["M"], parts["M"])


def test_end_stops_of_any_mechanism():
    """A serial arm's stops are end_stops_for's; a closed chain's sit at every tree joint's limits, passive ones
    included, and refuse a start past one."""
    model = load_project(robot_path("puma560"))
    dyn = load_dynamics(model, springs=False)
    q0 = np.zeros(dyn.n)
    assert mechanism_end_stops(dyn, q0) == end_stops_for(NumericArm.from_model(model), q0)
    closed = load_dynamics(load_project(robot_path("palletizer_parallelogram")), springs=False)
    limits, revolute = tree_limits(closed)
    assert limits.shape == (closed.n_tree, 2) and len(revolute) == closed.n_tree
    stops = mechanism_end_stops(closed, np.zeros(closed.n))
    assert np.array_equal(np.asarray(stops.limits), limits, equal_nan=True)
    assert min(stops.stiffness) > 0
