"""The elastic-joint model's coupling terms, symbolic (docs/elastic.md).

The link side of the reduced model is the rigid derivation's own form with the joint torques
replaced: tau(q, q', q'') = tau_s at an elastic joint (tau as each method writes it: M q'' + B + C + G
for Lagrange-Euler, the recursive tau for Newton-Euler, ...), and tau(q, q', q'') + N^2 Jm q'' = N tau_m
at a rigid joint. What the elastic model adds are the coupling terms, written here with symbols
per joint i (numbered from 1):

    tau_s_i   = k_i (theta_i / N_i - q_i) + d_i (theta_i' / N_i - q_i')      (spring, joint side)
    motor_i:    Jm_i theta_i'' + tau_s_i / N_i = taum_i                        (motor side)

``derive --elastic`` adds them to the report (report.writing.elastic_section) with the drive data's
values of k, d, N, Jm; the numeric model (designer/numeric/elastic.py) and ``codegen --elastic`` use the same equations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy as sp

from ..model.manipulator import Manipulator

__all__ = ["ElasticTerms", "elastic_terms"]


@dataclass(frozen=True)
class ElasticTerms:
    """The coupling terms: per elastic joint its spring torque and motor equation (= 0), per rigid joint
    with a rotor the right-hand side of its link equation, and the symbols' values (SI)."""

    joints: tuple[int, ...]              # the elastic joints, 0-based
    spring: tuple[sp.Expr, ...]          # tau_s_i
    motor: tuple[sp.Expr, ...]           # Jm_i theta_i'' + tau_s_i / N_i - taum_i
    link: tuple[sp.Eq, ...]              # tau_i(q, q', q'') [+ N_i^2 Jm_i q_i''] = tau_s_i or N_i taum_i
    values: dict[str, float]


def elastic_terms(model: Manipulator) -> ElasticTerms:
    """The coupling terms of ``model``'s elastic joints (drive data ``stiffness``); ValueError without any."""
    joints, spring, motor, link, values = [], [], [], [], {}
    for i, l in enumerate(model.links):
        d = l.drive
        j = i + 1
        q, qd, qdd = model.q[i], model.qd[i], model.qdd[i]
        tau = sp.Symbol(f"tau_{j}")
        N, Jm, taum = sp.Symbol(f"N_{j}", positive=True), sp.Symbol(f"Jm_{j}", positive=True), sp.Symbol(f"taum_{j}")
        gear = 1.0 if d is None or d.gear_ratio is None else d.gear_ratio
        rotor = 0.0 if d is None or d.motor_inertia is None else d.motor_inertia
        if d is None or d.stiffness is None:
            if rotor:
                values.update({N.name: gear, Jm.name: rotor})
                link.append(sp.Eq(tau + N ** 2 * Jm * qdd, N * taum))
            continue
        k, c = sp.Symbol(f"k_{j}", positive=True), sp.Symbol(f"d_{j}", nonnegative=True)
        th, thd, thdd = (sp.Symbol(f"theta{s}_{j}") for s in ("", "d", "dd"))
        k, c = (_named(model, value, default, values) for value, default in ((d.stiffness, k), (d.damping, c)))
        s = k * (th / N - q) + (c * (thd / N - qd) if d.damping else 0)
        values.update({N.name: gear, Jm.name: rotor})
        joints.append(i)
        spring.append(s)
        motor.append(Jm * thdd + s / N - taum)
        link.append(sp.Eq(tau, s))
    if not joints:
        raise ValueError("no joint has a drive stiffness (drive data 'stiffness', N m/rad): the arm is rigid")
    return ElasticTerms(tuple(joints), tuple(spring), tuple(motor), tuple(link), values)


def _named(model: Manipulator, value, default: sp.Symbol, values: dict[str, float]) -> sp.Expr:
    """The symbol a drive field is written with: the project's own expression when it is named (``k2``,
    valued by its parameters), else ``default`` (k_j, d_j) valued by the number."""
    if isinstance(value, sp.Basic):
        values.update({s.name: model.parameter_values.get(s.name, math.nan)
                       for s in sorted(value.free_symbols, key=lambda s: s.name)})
        return value
    if value:
        values[default.name] = value
    return default
