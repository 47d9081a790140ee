"""Random arms as models (for the regressor, base-parameter and linearization tests): both DH
conventions, R and P joints, twists that are and are not multiples of 90 degrees, loads."""

from __future__ import annotations

import numpy as np

from designer.kinematics import NumericArm
from designer.model import Convention, Inertia, JointType, Link, Manipulator, PointMass


def model_from_arm(arm: NumericArm, name: str = "random") -> Manipulator:
    """The Manipulator of a NumericArm (floats throughout)."""
    links = []
    for i in range(arm.n):
        a, alpha, d, theta = (float(x) for x in arm.dh[i])
        links.append(Link(JointType.REVOLUTE if arm.revolute[i] else JointType.PRISMATIC, a=a, alpha=alpha, d=d,
                          theta=theta, mass=float(arm.mass[i]), com=tuple(float(c) for c in arm.com[i]),
                          inertia=Inertia.from_matrix(np.asarray(arm.inertia[i]).tolist())))
    loads = tuple(PointMass(int(j) + 1, float(m), tuple(float(c) for c in pos)) for j, m, pos in arm.point_masses)
    return Manipulator(links=tuple(links), name=name, convention=arm.convention,
                       gravity=tuple(float(g) for g in arm.gravity), point_masses=loads)


def random_model(rng: np.random.Generator, n: int, convention: Convention, right_angles: bool = False) -> Manipulator:
    """A random arm; with ``right_angles`` the twists are 0 or +-pi/2 (written as floats) and some
    lengths zero, the structure of real arms where extra parameters group."""
    from tests.support.pin_reference import random_arm
    arm = random_arm(rng, n, convention)
    if right_angles:
        dh = arm.dh.copy()
        dh[:, 1] = rng.choice([0.0, 1.5707963267948966, -1.5707963267948966], n)
        dh[:, 0] *= rng.random(n) < 0.5
        dh[:, 2] *= rng.random(n) < 0.5
        dh[:, 3] = 0.0
        arm = NumericArm(arm.convention, arm.revolute, dh, arm.mass, arm.com, arm.inertia, np.array([0, 0, -9.81]),
                         arm.limits, arm.point_masses)
    return model_from_arm(arm)
