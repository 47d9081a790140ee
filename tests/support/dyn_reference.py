"""Shared helpers of the dynamics tests: example arms built in code, numeric evaluation of
derived equations, and an independent reference (Pinocchio, built from the DH table)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from designer.model import Convention, Inertia, JointType, Link, Manipulator, PointMass, symbol

R, P = JointType.REVOLUTE, JointType.PRISMATIC
S = symbol


def sym_inertia(i: int, full: bool = False) -> Inertia:
    if full:
        return Inertia(S(f"Ixx{i}"), S(f"Iyy{i}"), S(f"Izz{i}"), S(f"Ixy{i}"), S(f"Ixz{i}"), S(f"Iyz{i}"))
    return Inertia(S(f"Ixx{i}"), S(f"Iyy{i}"), S(f"Izz{i}"))


def puma560(symbolic_inertia: bool = False, n: int = 6) -> Manipulator:
    """Corke's PUMA 560 (standard DH); lengths d1, a2, a3, d3, d4 and g symbolic with values.

    ``symbolic_inertia``: ten symbolic inertial parameters per link (m, c, full I)."""
    values = {"d1": 0.0, "a2": 0.4318, "a3": 0.0203, "d3": 0.15005, "d4": 0.4318, "g": 9.81}
    mass = [0.0, 17.4, 4.8, 0.82, 0.34, 0.09]
    com = [(0, 0, 0), (-0.3638, 0.006, 0.2275), (-0.0203, -0.0141, 0.07), (0, 0.019, 0), (0, 0, 0), (0, 0, 0.032)]
    inertia = [(0, 0.35, 0), (0.13, 0.524, 0.539), (0.066, 0.086, 0.0125), (0.0018, 0.0013, 0.0018),
               (0.0003, 0.0004, 0.0003), (0.00015, 0.00015, 0.00004)]
    dh = [(0, sp.pi / 2, S("d1")), (S("a2"), 0, 0), (S("a3"), -sp.pi / 2, S("d3")), (0, sp.pi / 2, S("d4")),
          (0, -sp.pi / 2, 0), (0, 0, 0)]
    links = []
    rng = np.random.default_rng(7)
    for i in range(n):
        a, alpha, d = dh[i]
        if symbolic_inertia:
            k = i + 1
            links.append(Link(R, a=a, alpha=alpha, d=d, mass=S(f"m{k}"),
                              com=(S(f"cx{k}"), S(f"cy{k}"), S(f"cz{k}")), inertia=sym_inertia(k, True)))
            values.update({f"m{k}": mass[i] if mass[i] else 1.0, f"cx{k}": com[i][0] + 0.01,
                           f"cy{k}": com[i][1] - 0.02, f"cz{k}": com[i][2] + 0.03,
                           f"Ixx{k}": inertia[i][0] + 0.1, f"Iyy{k}": inertia[i][1] + 0.1,
                           f"Izz{k}": inertia[i][2] + 0.1, f"Ixy{k}": 0.01 * rng.uniform(-1, 1),
                           f"Ixz{k}": 0.01 * rng.uniform(-1, 1), f"Iyz{k}": 0.01 * rng.uniform(-1, 1)})
        else:
            links.append(Link(R, a=a, alpha=alpha, d=d, mass=mass[i], com=com[i], inertia=Inertia(*inertia[i])))
    return Manipulator(links=tuple(links), name="puma560", gravity=(0, 0, -S("g")), parameters=values)


def stanford_six() -> Manipulator:
    """Paul's Stanford arm (standard DH), prismatic joint 3, numeric parameters, a tool load."""
    inertia = [(0.0013, 0.0012, 0.0011), (0.0216, 0.0218, 0.004), (0.4, 0.4, 0.001), (0.0002, 0.0002, 0.0003),
               (0.0003, 0.0003, 0.0004), (0.0009, 0.0009, 0.0001)]
    links = (
        Link(R, alpha=-sp.pi / 2, d=0.412, mass=9.29, com=(0, 0.0175, -0.1105), inertia=Inertia(*inertia[0])),
        Link(R, alpha=sp.pi / 2, d=0.154, mass=5.01, com=(0, -1.054, 0), inertia=Inertia(*inertia[1])),
        Link(P, theta=0, mass=4.25, com=(0, 0, -6.447), inertia=Inertia(*inertia[2])),
        Link(R, alpha=-sp.pi / 2, mass=1.08, com=(0, 0.092, -0.054), inertia=Inertia(*inertia[3])),
        Link(R, alpha=sp.pi / 2, mass=0.63, com=(0, 0, 0.566), inertia=Inertia(*inertia[4])),
        Link(R, d=0.263, mass=0.51, com=(0, 0, 1.554), inertia=Inertia(*inertia[5])),
    )
    return Manipulator(links=links, name="stanford", gravity=(0, 0, -9.81),
                       point_masses=(PointMass(6, 0.5, (0.01, 0.02, 0.1)),))


def random_inertia_matrix(rng) -> np.ndarray:
    principal = rng.uniform(0.05, 0.5, 3)
    principal[2] = rng.uniform(abs(principal[0] - principal[1]) + 0.01, principal[0] + principal[1])
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return Q @ np.diag(principal) @ Q.T


def seven_modified(seed: int = 3) -> Manipulator:
    """Seven links, modified DH, joints RRPRRPR, twists 0 / +-pi/2, generic offsets and lengths,
    full non-diagonal inertias, two loads."""
    rng = np.random.default_rng(seed)
    r = lambda lo, hi: round(float(rng.uniform(lo, hi)), 4)  # noqa: E731
    links = []
    for kind in "RRPRRPR":
        I = random_inertia_matrix(rng).round(4)
        alpha = (-sp.pi / 2, 0, sp.pi / 2)[int(rng.integers(3))]  # a designer's twists; offsets are generic
        links.append(Link(R if kind == "R" else P, a=r(-0.5, 0.5), alpha=alpha, d=r(-0.3, 0.3),
                          theta=r(-3, 3), mass=r(0.5, 4), com=(r(-0.2, 0.2), r(-0.2, 0.2), r(-0.2, 0.2)),
                          inertia=Inertia.from_matrix(I.tolist())))
    return Manipulator(links=tuple(links), name="seven", convention=Convention.MODIFIED,
                       gravity=(1.2, -3.1, -8.9),
                       point_masses=(PointMass(3, 0.7, (0.1, -0.05, 0.2)), PointMass(7, 1.3, (0, 0.05, 0.1))))


def numeric_function(model: Manipulator, exprs, extra=()):
    """f(q, qd, qdd) -> numpy array of the expressions (model parameters at their values)."""
    subs = model.substitutions(require_all=True) if model.free_symbols() else {}
    flat = [sp.sympify(e).xreplace(subs) for e in exprs]
    f = sp.lambdify([list(model.q), list(model.qd), list(model.qdd), *extra], flat, "numpy", cse=True)
    return lambda q, qd, qdd, *rest: np.array(f(q, qd, qdd, *rest), dtype=float)


def pin_model(model: Manipulator):
    """Pinocchio model of ``model`` at its default values (the shared reference, pin_reference)."""
    from designer.kinematics import NumericArm
    from tests.support.pin_reference import pin_model as from_arm

    return from_arm(NumericArm.from_model(model))


def pin_rnea_crba(pm, q, qd, qdd):
    import pinocchio as pin
    data = pm.createData()
    tau = pin.rnea(pm, data, q, qd, qdd).copy()
    M = pin.crba(pm, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    return tau, M


def assert_tau_and_m_match_pinocchio(model: Manipulator, tau_exprs, m_exprs, seed: int, states: int) -> None:
    """tau (n entries) and M (n x n, row-major) against Pinocchio's rnea and crba at ``states``
    random states drawn with ``seed``: relative 1e-10."""
    n = model.n
    tau_f = numeric_function(model, list(tau_exprs))
    M_f = numeric_function(model, list(m_exprs))
    pm = pin_model(model)
    rng = np.random.default_rng(seed)
    for _ in range(states):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, n))
        tau_ref, M_ref = pin_rnea_crba(pm, q, qd, qdd)
        np.testing.assert_allclose(tau_f(q, qd, qdd), tau_ref, rtol=1e-10, atol=1e-10 * np.abs(tau_ref).max())
        np.testing.assert_allclose(M_f(q, qd, qdd).reshape(n, n), M_ref, rtol=1e-10, atol=1e-10 * np.abs(M_ref).max())
