"""Independent reference for the numeric tests: a Pinocchio model built from a DH table,
and random arms (both conventions, mixed joints, full inertias, point masses)."""

from __future__ import annotations

import numpy as np

from designer.kinematics import NumericArm
from designer.model import Convention

pin = __import__("pytest").importorskip("pinocchio")
_EYE, _ZERO = np.eye(3), np.zeros(3)  # read only


def _rot(axis: str, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _se3(R=_EYE, p=_ZERO):
    return pin.SE3(np.asarray(R, dtype=float), np.asarray(p, dtype=float))


def pin_model(arm: NumericArm):
    """Joint i about/along its local z: placed at frame i-1 (standard DH) or frame i (modified)."""
    model = pin.Model()
    model.gravity = pin.Motion(np.asarray(arm.gravity, dtype=float), np.zeros(3))
    parent, after_prev = 0, _se3()  # after_prev: frame i-1 seen from joint i-1's frame
    for i in range(arm.n):
        a, alpha, d, theta = arm.dh[i]
        offset = _se3(_rot("z", theta)) * _se3(p=[0, 0, d])
        if arm.convention is Convention.STANDARD:
            placement = after_prev * offset
            to_frame = _se3(p=[a, 0, 0]) * _se3(_rot("x", alpha))  # frame i seen from joint i
        else:
            placement = after_prev * _se3(_rot("x", alpha)) * _se3(p=[a, 0, 0]) * offset
            to_frame = _se3()
        joint = pin.JointModelRZ() if arm.revolute[i] else pin.JointModelPZ()
        jid = model.addJoint(parent, joint, placement, f"j{i + 1}")
        inertia = pin.Inertia(float(arm.mass[i]), np.asarray(arm.com[i], float), np.asarray(arm.inertia[i], float))
        for link, m, pos in arm.point_masses:
            if link == i:
                inertia = inertia + pin.Inertia(float(m), np.asarray(pos, float), np.zeros((3, 3)))
        model.appendBodyToJoint(jid, to_frame.act(inertia), pin.SE3.Identity())
        parent, after_prev = jid, to_frame
    return model


def pin_coupling(model, data, Q) -> np.ndarray:
    """Pinocchio's worst inertial coupling at each state of ``Q``: max over i != j of |M_ij| / sqrt(M_ii M_jj),
    M from crba (its upper triangle mirrored)."""
    out = np.empty(len(Q))
    for k, q in enumerate(Q):
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        d = np.sqrt(np.diag(M))
        rho = np.abs(M / np.outer(d, d))
        np.fill_diagonal(rho, 0.0)
        out[k] = rho.max()
    return out


def random_inertia(rng) -> np.ndarray:
    """A physically valid, non-diagonal inertia tensor about the COM."""
    principal = rng.uniform(0.05, 0.5, 3)
    principal[2] = rng.uniform(abs(principal[0] - principal[1]) + 0.01, principal[0] + principal[1])
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return Q @ np.diag(principal) @ Q.T


def random_arm(rng, n: int, convention: Convention, joints: str | None = None, loads: bool = True) -> NumericArm:
    revolute = np.array([c == "R" for c in joints]) if joints else rng.random(n) < 0.6
    n = len(revolute)
    dh = np.column_stack([rng.uniform(-0.6, 0.6, n), rng.uniform(-np.pi, np.pi, n),
                          rng.uniform(-0.4, 0.4, n), rng.uniform(-np.pi, np.pi, n)])
    point_masses = ()
    if loads:
        point_masses = tuple((int(k), float(rng.uniform(0.1, 2.0)), rng.uniform(-0.3, 0.3, 3))
                             for k in rng.choice(n, size=min(2, n), replace=False))
    g = rng.normal(size=3)
    return NumericArm(
        convention=convention, revolute=revolute, dh=dh, mass=rng.uniform(0.5, 5.0, n),
        com=rng.uniform(-0.3, 0.3, (n, 3)), inertia=np.array([random_inertia(rng) for _ in range(n)]),
        gravity=9.81 * g / np.linalg.norm(g), limits=np.full((n, 2), np.nan), point_masses=point_masses)
