"""Unexpanded ("tree") arithmetic for the same recursions, for code generation and operation counts.

:class:`TreeAlgebra` offers the interface of :class:`~designer.dynamics.trigpoly.TrigRing` that
the recursions use, but keeps sympy expressions as built (nothing expanded), skipping structural
zeros and ones. The recursive Newton-Euler algorithm then yields tau as a nested expression whose
common subexpressions ``sympy.cse`` finds: far fewer operations to evaluate than the expanded form
that is best for reading (:func:`generic_tree_tau`, :func:`generic_tree_mass_matrix`).

:func:`tree_tau` and :func:`tree_mass_matrix` give the cheapest forms we have: the customized
Newton-Euler and composite-rigid-body recursions of :mod:`~designer.dynamics.customized`
(PUMA 560 with ten symbolic inertial parameters per link: 707 / 433 operations after cse,
against 790 / 870 for the generic forms; see benchmarks/bench_derive.py).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING, cast

import sympy as sp

from ..jobs import NEVER, CancelToken, Job, Progress, run
from ..model.angles import exact_angles
from ..model.manipulator import Manipulator

if TYPE_CHECKING:
    from .trigpoly import TrigRing

__all__ = ["TreeAlgebra", "tree_tau", "tree_mass_matrix", "generic_tree_tau", "generic_tree_mass_matrix", "compact_job"]


class TreeAlgebra:
    """sympy expressions as they come; the same method names as TrigRing."""

    def __init__(self, model: Manipulator):
        self.model = model
        self.zero, self.one = sp.S.Zero, sp.S.One
        self.gens = {s: s for s in list(model.q) + list(model.qd) + list(model.qdd)}
        self.domain = None

    def ring(self, value):
        return sp.sympify(value)

    def var(self, e):
        return sp.sympify(e)

    def joint_trig(self, i: int):
        angle = self.model.q[i] + self.model.links[i].theta
        return sp.cos(angle), sp.sin(angle)

    def expr(self, p):
        return p

    def reduce(self, p):
        return p

    def mul(self, a, b):
        if a == 0 or b == 0:
            return sp.S.Zero
        return a * b

    def dot(self, a, b, token: CancelToken = NEVER):
        token.check()
        return sp.Add(*[x * y for x, y in zip(a, b) if x != 0 and y != 0])

    def matvec(self, m, v, token: CancelToken = NEVER):
        return [self.dot(row, v, token) for row in m]

    def cross(self, a, b, token: CancelToken = NEVER):
        token.check()
        return [self.dot((a[1], -a[2]), (b[2], b[1])), self.dot((a[2], -a[0]), (b[0], b[2])),
                self.dot((a[0], -a[1]), (b[1], b[0]))]


def tree_tau(model: Manipulator, token: CancelToken = NEVER, qd=None, qdd=None) -> sp.Matrix:
    """tau(q, qd, qdd) for code generation: the customized Newton-Euler form (fewest operations);
    ``qd``/``qdd`` replace the rate symbols (zeros for G and h)."""
    from .customized import custom_tau
    return custom_tau(model, token, qd, qdd)


def tree_mass_matrix(model: Manipulator, token: CancelToken = NEVER) -> sp.Matrix:
    """M(q) for code generation: the composite-rigid-body form in joint frames (fewest operations)."""
    from .customized import custom_mass_matrix
    return custom_mass_matrix(model, token)


def generic_tree_tau(model: Manipulator, token: CancelToken = NEVER) -> sp.Matrix:
    """tau(q, qd, qdd) from the recursive Newton-Euler algorithm, unexpanded (for code generation)."""
    from .newton_euler import newton_euler_job
    tr = cast("TrigRing", TreeAlgebra(model))  # duck-typed: the ring operations the jobs call
    return sp.Matrix(run(newton_euler_job(model, tr, token), None, token))


def generic_tree_mass_matrix(model: Manipulator, token: CancelToken = NEVER) -> sp.Matrix:
    """M(q) = sum m J_v^T J_v + J_w^T I J_w with link-frame Jacobians, unexpanded (for code generation)."""
    from .bodies import arm_frames_job
    from .lagrange import body_jacobians_job, mass_gravity_job
    tr = cast("TrigRing", TreeAlgebra(model))  # duck-typed: the ring operations the jobs call

    def job():
        frames = yield from arm_frames_job(model, tr, token)
        jac = yield from body_jacobians_job(model, tr, frames, token)
        return (yield from mass_gravity_job(model, tr, jac, frames, token))
    M_rot, M_tra, _ = run(job(), None, token)
    n = model.n
    return sp.Matrix(n, n, lambda i, j: M_rot[i][j] + M_tra[i][j])


def compact_job(model: Manipulator, token: CancelToken, need: Collection[str] = ("tau", "M", "G", "h")
                ) -> Job[tuple]:
    """Generator returning (tau, M, G, h) as the shared recursive graphs (exact angles read);
    ``need``: those to build, the others are None (code generation of tau and M alone). The one
    builder of the compact forms: derivations, code generation and the compiled numeric functions."""
    if not model.is_serial:   # the recursions below read the links as one chain (closed chains: closed_form.py)
        from ..errors import DesignerError
        raise DesignerError("a closed chain has no compact (recursive) form yet: derive its closed form")
    exact = exact_angles(model).model
    zeros = [0] * model.n
    steps = {"tau": lambda: tree_tau(exact, token),
             "M": lambda: tree_mass_matrix(exact, token),
             "G": lambda: tree_tau(exact, token, zeros, zeros),
             "h": lambda: tree_tau(replace(exact, gravity=(0, 0, 0)), token, None, zeros)}
    built: dict = {}
    for k, (name, make) in enumerate(steps.items()):
        if name in need:
            yield Progress("recursive form", k / len(steps), name)
            built[name] = make()
    return tuple(built.get(name) for name in steps)
