"""Arms that users bring (not in robots/): Corke's KUKA KR5 and Franka Panda DH tables with inertias of
our choice, a generic 7-joint modified-DH arm and generic n-joint arms, written out here as numbers.

``float_twists=True`` writes every angle as the float a DH table exported by another tool holds
(1.5707963267948966 for pi/2), otherwise as exact multiples of pi.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from designer.model import Convention, Inertia, JointType, Link, Manipulator, PointMass

R, P = JointType.REVOLUTE, JointType.PRISMATIC


def _angle(k: int, float_twists: bool):
    """k quarter turns, exact or as the nearest double."""
    return float(k * math.pi / 2) if float_twists else k * sp.pi / 2


def _inertia(seed: int) -> Inertia:
    """A full, physically valid tensor R D R^T (as CAD exports give it: symmetric only to rounding)."""
    rng = np.random.default_rng(seed)
    d = rng.uniform(0.01, 0.2, 3)
    d[2] = rng.uniform(abs(d[0] - d[1]) + 0.005, d[0] + d[1])
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    I = Q @ np.diag(d) @ Q.T
    return Inertia(float(I[0, 0]), float(I[1, 1]), float(I[2, 2]), float(I[0, 1]), float(I[0, 2]), float(I[1, 2]))


def kr5(float_twists: bool = True) -> Manipulator:
    """KUKA KR5 (standard DH, Corke's catalogue, after ARTE); masses, COMs and inertias our own."""
    table = [(0.18, -1, 0.4), (0.6, 0, 0.0), (0.12, 1, 0.0), (0.0, -1, -0.62), (0.0, 1, 0.0), (0.0, 2, -0.115)]
    mass = [12.0, 9.5, 6.1, 3.2, 1.4, 0.35]
    com = [(-0.09, 0.02, 0.05), (-0.3, 0.0, 0.06), (-0.05, -0.01, 0.02), (0.0, 0.12, 0.01), (0.0, 0.01, 0.02),
           (0.0, 0.0, -0.03)]
    links = tuple(Link(R, a=a, alpha=_angle(k, float_twists), d=d, mass=m, com=c, inertia=_inertia(10 + i))
                  for i, ((a, k, d), m, c) in enumerate(zip(table, mass, com)))
    return Manipulator(links=links, name="KR5", gravity=(0, 0, -9.81))


def panda(float_twists: bool = True) -> Manipulator:
    """Franka Emika Panda (modified DH, 7R, Corke's table); inertias our own."""
    table = [(0.0, 0, 0.333), (0.0, -1, 0.0), (0.0, 1, 0.316), (0.0825, 1, 0.0), (-0.0825, -1, 0.384), (0.0, 1, 0.0),
             (0.088, 1, 0.107)]
    mass = [4.97, 0.65, 3.23, 3.59, 1.23, 1.67, 0.74]
    com = [(0.0035, 0.0003, -0.07), (-0.0031, -0.0287, 0.0034), (0.0273, 0.0392, -0.0669), (-0.053, 0.1044, 0.0275),
           (-0.0119, 0.0417, -0.1383), (0.0601, -0.0141, -0.0105), (0.0105, -0.0043, 0.0617)]
    links = tuple(Link(R, a=a, alpha=_angle(k, float_twists), d=d, mass=m, com=c, inertia=_inertia(20 + i))
                  for i, ((a, k, d), m, c) in enumerate(zip(table, mass, com)))
    return Manipulator(links=links, name="Panda", convention=Convention.MODIFIED, gravity=(0, 0, -9.81))


def generic_arm(n: int = 7, seed: int = 5, convention: Convention = Convention.MODIFIED,
                joints: str | None = None) -> Manipulator:
    """n links, twists and offsets that are no multiples of 90 degrees, one prismatic joint (the
    third) unless ``joints`` says otherwise, full inertias, a point load on the last link; numbers."""
    rng = np.random.default_rng(seed)
    joints = joints or "".join("P" if i == 2 else "R" for i in range(n))
    r = lambda lo, hi: float(rng.uniform(lo, hi))  # noqa: E731
    links = tuple(Link(R if kind == "R" else P, a=r(-0.4, 0.4), alpha=r(-3, 3), d=r(-0.3, 0.3), theta=r(-3, 3),
                       mass=r(0.5, 4), com=(r(-0.2, 0.2), r(-0.2, 0.2), r(-0.2, 0.2)), inertia=_inertia(seed * 100 + i))
                  for i, kind in enumerate(joints))
    return Manipulator(links=links, name=f"generic{n}", convention=convention, gravity=(0.3, -0.2, -9.8),
                       point_masses=(PointMass(n, 0.8, (0.02, -0.01, 0.05)),))


def symbolic_arm(n: int = 7, seed: int = 5) -> Manipulator:
    """:func:`generic_arm` with every length, mass, COM and inertia entry a symbol (a_i, d_i, m_i,
    cx_i, ..., Ixx_i, ...; the load mL at (Lx, Ly, Lz)); twists and offsets stay numbers."""
    from dataclasses import replace

    from designer.model import symbol as S
    arm = generic_arm(n, seed)
    links = tuple(replace(link, a=S(f"a{i}"), d=S(f"d{i}"), mass=S(f"m{i}"),
                          com=(S(f"cx{i}"), S(f"cy{i}"), S(f"cz{i}")),
                          inertia=Inertia(*(S(f"I{k}{i}") for k in ("xx", "yy", "zz", "xy", "xz", "yz"))))
                  for i, link in enumerate(arm.links, start=1))
    return replace(arm, links=links, name=f"generic{n} (symbolic)",
                   point_masses=(PointMass(n, S("mL"), (S("Lx"), S("Ly"), S("Lz"))),))
