"""Converting a DH table to the other convention keeps the arm: the joint axes, the centres of mass,
the inertias in the base frame and the loads are where they were, at any pose."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.kinematics.convention import convert_convention
from designer.model import Convention, Link, Manipulator, PointMass
from designer.model.manipulator import Inertia
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def _world(arm: NumericArm, q):
    T = arm.frames(q)
    origins, axes = arm.joint_axes(q, T)
    coms = arm.com_positions(q, T)
    inertias = np.array([T[i + 1, :3, :3] @ arm.inertia[i] @ T[i + 1, :3, :3].T for i in range(arm.n)])
    loads = np.array([T[k + 1, :3, :3] @ p + T[k + 1, :3, 3] for k, _m, p in arm.point_masses]).reshape(-1, 3)
    return origins, axes, coms, inertias, loads


def _odd_arm(convention: Convention, first_offset: bool = True) -> Manipulator:
    """Seven links, R and P, twists that are no multiples of 90 degrees, offsets, a load."""
    rng = np.random.default_rng(7)
    links = []
    for i in range(7):
        links.append(Link("P" if i in (2, 5) else "R", a=float(rng.uniform(0, 0.4)), alpha=float(rng.uniform(-2, 2)),
                          d=float(rng.uniform(0, 0.3)), theta=float(rng.uniform(-1, 1)), mass=float(rng.uniform(1, 3)),
                          com=tuple(float(v) for v in rng.uniform(-0.1, 0.1, 3)),
                          inertia=Inertia(float(rng.uniform(0.01, 0.05)), float(rng.uniform(0.01, 0.05)),
                                          float(rng.uniform(0.01, 0.05)), 0.003, -0.002, 0.001)))
    if not first_offset:
        links[0] = Link("R", a=0, alpha=0, d=links[0].d, theta=links[0].theta, mass=links[0].mass, com=links[0].com,
                        inertia=links[0].inertia)
    return Manipulator(links=tuple(links), convention=convention, point_masses=(PointMass(4, 0.7, (0.05, 0.02, -0.1)),),
                       gravity=(0, 0, -9.81))


@pytest.mark.parametrize("model", [load_project(ROBOTS / "puma560.json"),
                                   load_project(ROBOTS / "stanford_modified.json"),
                                   _odd_arm(Convention.STANDARD), _odd_arm(Convention.MODIFIED),
                                   _odd_arm(Convention.MODIFIED, first_offset=False)],
                         ids=["puma-standard", "stanford-modified", "seven-standard", "seven-modified",
                              "seven-modified-at-base"])
def test_the_converted_arm_is_the_same_arm(model):
    target = Convention.MODIFIED if model.convention is Convention.STANDARD else Convention.STANDARD
    converted, note = convert_convention(model, target)
    assert converted.convention is target
    a, b = NumericArm.from_model(model), NumericArm.from_model(converted)
    # a modified table's first (a_0, alpha_0) has no standard row: the converted arm is the original
    # seen from the first joint's frame, B = Rx(alpha_0) Tx(a_0)
    R, t = np.eye(3), np.zeros(3)
    if target is Convention.STANDARD:
        a0, al0 = a.dh[0, 0], a.dh[0, 1]
        R = np.array([[1, 0, 0], [0, np.cos(al0), -np.sin(al0)], [0, np.sin(al0), np.cos(al0)]])
        t = np.array([a0, 0, 0])
    for q in np.random.default_rng(1).uniform(-1.5, 1.5, (5, model.n)):
        origins, axes, coms, inertias, loads = _world(b, q)
        expected = (origins @ R.T + t, axes @ R.T, coms @ R.T + t, R @ inertias @ R.T, loads @ R.T + t)
        before = _world(a, q)
        for x, y in zip(before[1:], expected[1:]):
            np.testing.assert_allclose(x, y, atol=1e-9)
        # each joint's axis is the same line (the conventions put its origin at different points of it)
        gap = before[0] - expected[0]
        np.testing.assert_allclose(np.cross(gap, before[1]), 0, atol=1e-9)
    assert bool(note) == (target is Convention.STANDARD and bool(np.any(R != np.eye(3)) or t.any())
                          or target is Convention.MODIFIED and bool(a.dh[-1, 0] or a.dh[-1, 1]))


def test_what_has_no_row_is_named():
    puma = load_project(ROBOTS / "puma560.json")
    _, note = convert_convention(puma, Convention.MODIFIED)
    assert note == ""   # the PUMA's last row has a = alpha = 0: nothing is lost
    arm = _odd_arm(Convention.STANDARD)
    _, note = convert_convention(arm, Convention.MODIFIED)
    assert "tool frame" in note
