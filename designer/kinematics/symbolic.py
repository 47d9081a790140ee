"""Symbolic kinematics: link transforms, frames, joint axes, Jacobians (both DH conventions)."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

import sympy as sp

from ..model.manipulator import Convention, Link, Manipulator

__all__ = ["link_transform", "frames", "JointAxis", "joint_axes",
           "com_positions", "point_jacobian", "com_jacobians", "tool_jacobian"]


def link_transform(link: Link, q, convention: Convention) -> sp.Matrix:
    """The 4x4 transform from frame i-1 to frame i for joint value ``q``.

    standard: Rot(z, theta) Trans(z, d) Trans(x, a) Rot(x, alpha);
    modified: Rot(x, alpha_{i-1}) Trans(x, a_{i-1}) Rot(z, theta) Trans(z, d).
    """
    theta, d = link.joint_values(q)
    ct, st = sp.cos(theta), sp.sin(theta)
    ca, sa = sp.cos(link.alpha), sp.sin(link.alpha)
    a = link.a
    if Convention(convention) is Convention.STANDARD:
        return sp.Matrix([
            [ct, -st * ca, st * sa, a * ct],
            [st, ct * ca, -ct * sa, a * st],
            [0, sa, ca, d],
            [0, 0, 0, 1],
        ])
    return sp.Matrix([
        [ct, -st, 0, a],
        [st * ca, ct * ca, -sa, -sa * d],
        [st * sa, ct * sa, ca, ca * d],
        [0, 0, 0, 1],
    ])


def frames(model: Manipulator, q: Sequence | None = None) -> list[sp.Matrix]:
    """T_0^i for i = 0..n (T_0^0 is the identity), in the base frame."""
    q = model.q if q is None else q
    out = [sp.eye(4)]
    for link, qi in zip(model.links, q):
        out.append(out[-1] * link_transform(link, qi, model.convention))
    return out


@dataclass(frozen=True)
class JointAxis:
    """Where joint i moves: a point on its axis and the unit axis, in the base frame."""

    origin: sp.Matrix
    axis: sp.Matrix
    revolute: bool


def joint_axes(model: Manipulator, T: list[sp.Matrix] | None = None) -> list[JointAxis]:
    """Joint i turns or slides along z_{i-1} (standard) or z_i (modified)."""
    T = frames(model) if T is None else T
    out = []
    for i, link in enumerate(model.links, start=1):
        k = i - 1 if model.convention is Convention.STANDARD else i
        out.append(JointAxis(T[k][:3, 3], T[k][:3, 2], link.is_revolute))
    return out


def com_positions(model: Manipulator, T: list[sp.Matrix] | None = None) -> list[sp.Matrix]:
    """Each link's centre of mass in the base frame."""
    T = frames(model) if T is None else T
    return [(T[i] * sp.Matrix([*link.com, 1]))[:3, 0] for i, link in enumerate(model.links, start=1)]


def point_jacobian(axes: list[JointAxis], point: sp.Matrix, upto: int) -> sp.Matrix:
    """Geometric 6 x n Jacobian [v; w] of a point moving with link ``upto`` (1-based)."""
    n = len(axes)
    J = sp.zeros(6, n)
    for j, ax in enumerate(axes[:upto]):
        if ax.revolute:
            J[:3, j] = ax.axis.cross(point - ax.origin)
            J[3:, j] = ax.axis
        else:
            J[:3, j] = ax.axis
    return J


def com_jacobians(model: Manipulator) -> list[sp.Matrix]:
    """The geometric Jacobian of every link's centre of mass."""
    T = frames(model)
    axes = joint_axes(model, T)
    return [point_jacobian(axes, p, i) for i, p in enumerate(com_positions(model, T), start=1)]


def tool_jacobian(model: Manipulator) -> sp.Matrix:
    """The geometric Jacobian of the origin of the last frame."""
    T = frames(model)
    return point_jacobian(joint_axes(model, T), T[-1][:3, 3], model.n)
