"""A slider-crank: a passive prismatic joint in a loop, on a branch turned by Khalil-Kleinfinger's
gamma, against the textbook's equations written here from scratch.

Crank r (actuated, angle phi = q1 + pi/2), connecting rod l, slider on the base's x axis. The
textbook's positions: crank pin B = r (cos phi, sin phi), slider x = r cos phi + sqrt(l^2 - r^2
sin^2 phi), rod angle beta = atan2(-r sin phi, x - r cos phi). The mass matrix is the kinetic
energy's coefficient, sum m |d p_com / d phi|^2 + I_zz (d angle / d phi)^2, its derivatives by
central differences of these positions, and G = dV/dphi: nothing of the tree, the loop closure or
the projection W the core uses.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from designer.model import Convention, Inertia, Link, Loop, Manipulator, Pose
from designer.model.manipulator import JointType
from designer.numeric.closed import closed_dynamics

G0 = 9.81


def _slider_crank(r, l, m, izz):
    """The model: modified DH; the slider's frame turned by gamma = pi/2 and alpha = pi/2 so that its
    z axis (the prismatic axis) is the base's x axis; the rod's end pinned to the slider."""
    x0 = math.sqrt(l * l - r * r)                       # slider at q = 0 (crank vertical)
    rod0 = math.atan2(-r, x0) - math.pi / 2             # rod angle relative to the crank at q = 0
    links = (
        Link(theta=math.pi / 2, mass=m[0], com=(r / 2, 0, 0), inertia=Inertia(1e-4, 1e-4, izz[0])),
        Link(a=r, theta=rod0, parent=1, actuated=False, mass=m[1], com=(l / 2, 0, 0),
             inertia=Inertia(1e-4, 1e-4, izz[1])),
        Link(joint=JointType.PRISMATIC, alpha=math.pi / 2, d=x0, parent=0, gamma=math.pi / 2, actuated=False,
             mass=m[2], com=(0, 0, 0), inertia=Inertia(izz[2], izz[2], izz[2])),
    )
    loop = Loop(2, 3, Pose((l, 0, 0)), Pose((0, 0, 0), (-math.pi / 2, 0, 0)), "R", "wrist pin")
    return Manipulator(links=links, convention=Convention.MODIFIED, gravity=(0, -G0, 0), loops=(loop,),
                       name="slider-crank")


def _bodies(phi, r, l):
    """(crank COM, rod COM, slider COM, crank angle, rod angle) in the plane, by the textbook."""
    c, s = math.cos(phi), math.sin(phi)
    B = np.array([r * c, r * s])
    x = r * c + math.sqrt(l * l - (r * s) ** 2)
    C = np.array([x, 0.0])
    beta = math.atan2(C[1] - B[1], C[0] - B[0])
    return B / 2, (B + C) / 2, C, phi, beta


def _textbook(phi, r, l, m, izz, h=1e-6):
    """M(phi) and G(phi) of the textbook's slider-crank."""
    plus, minus = _bodies(phi + h, r, l), _bodies(phi - h, r, l)
    d = [(np.asarray(p) - np.asarray(q)) / (2 * h) for p, q in zip(plus, minus)]
    M = sum(m[k] * float(d[k] @ d[k]) for k in range(3)) + izz[0] * d[3] ** 2 + izz[1] * d[4] ** 2
    G = sum(m[k] * G0 * float(d[k][1]) for k in range(3))   # d/dphi of sum m g y_com
    return float(M), float(G)


@pytest.mark.parametrize("seed", range(5))
def test_mass_matrix_gravity_and_torque_are_the_textbooks(seed):
    rng = np.random.default_rng(seed)
    r = float(rng.uniform(0.05, 0.2))
    l = float(rng.uniform(2.5, 5.0)) * r
    m, izz = rng.uniform(0.2, 3.0, 3), rng.uniform(1e-4, 1e-2, 3)
    cd = closed_dynamics(_slider_crank(r, l, m, izz))
    for q in rng.uniform(-math.pi, math.pi, 4):
        phi = q + math.pi / 2
        M, G = _textbook(phi, r, l, m, izz)
        qa = np.array([q])
        assert cd.M(qa)[0, 0] == pytest.approx(M, rel=1e-7, abs=1e-9)
        assert cd.G(qa)[0] == pytest.approx(G, rel=1e-7, abs=1e-8)
        # tau = M qdd + 1/2 dM/dphi qd^2 + G (one degree of freedom)
        qd, qdd = rng.normal(), rng.normal()
        dM = (_textbook(phi + 1e-4, r, l, m, izz)[0] - _textbook(phi - 1e-4, r, l, m, izz)[0]) / 2e-4
        tau = M * qdd + 0.5 * dM * qd * qd + G
        assert cd.tau(qa, np.array([qd]), np.array([qdd]))[0] == pytest.approx(tau, rel=1e-5, abs=1e-6)
        # the slider's passive coordinate is the textbook's x (less its value at q = 0)
        x = _bodies(phi, r, l)[2][0]
        assert cd.positions(qa)[2] == pytest.approx(x - math.sqrt(l * l - r * r), abs=1e-10)
