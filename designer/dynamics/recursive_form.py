"""The recursive form as a list of named assignments (customized Newton-Euler, the way
OpenSYMORO prints it): per link the angular velocity w, angular acceleration wd, linear
acceleration of the joint-frame origin vd, the matrix U = [wd x] + [w x]^2, the inertial force F
and moment N, then backwards the force f and moment n link j-1 exerts on link j, and tau_j.

Every right-hand side uses only the joint variables, the parameters and names assigned before
it, so the list evaluates in the order printed. Components that are 0, a joint variable or a
parameter (or its negative) are written in place instead of named.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..jobs import NEVER, CancelToken
from ..model.angles import exact_angles
from ..model.manipulator import Manipulator

__all__ = ["Assignment", "RecursiveForm", "recursive_form", "KINDS"]

#: kind -> what it is (for the report's legend)
KINDS = {
    "w": "angular velocity of link j",
    "wd": "angular acceleration of link j",
    "vd": "linear acceleration of the origin of joint frame j (gravity included)",
    "U": "[wd x] + [w x][w x] of link j",
    "F": "inertial force of link j and its loads",
    "N": "inertial moment of link j and its loads about the joint-frame origin",
    "f": "force on link j from link j-1",
    "n": "moment on link j from link j-1",
    "tau": "torque (revolute) or force (prismatic) of joint j",
}
_AXES = "xyz"


@dataclass(frozen=True)
class Assignment:
    """``symbol = value``; ``kind`` is a key of :data:`KINDS`, ``link`` 1-based."""

    symbol: sp.Symbol
    value: sp.Expr
    kind: str
    link: int


@dataclass(frozen=True)
class RecursiveForm:
    """The named assignments in evaluation order and tau as names of it."""

    model: Manipulator
    assignments: tuple[Assignment, ...]
    tau: tuple[sp.Expr, ...]

    def evaluate(self, q, qd, qdd, values: dict | None = None) -> list[float]:
        """tau at one state by evaluating the assignments in order (a check of the report)."""
        env: dict = {s: sp.Float(v) for s, v in zip(self.model.q, q)}
        env.update({s: sp.Float(v) for s, v in zip(self.model.qd, qd)})
        env.update({s: sp.Float(v) for s, v in zip(self.model.qdd, qdd)})
        env.update(self.model.substitutions(values) if self.model.free_symbols() else {})
        for a in self.assignments:
            env[a.symbol] = sp.sympify(a.value).xreplace(env).evalf()
        return [float(sp.sympify(t).xreplace(env).evalf()) for t in self.tau]


def _inline(e: sp.Expr) -> bool:
    if not e.args:
        return True
    return isinstance(e, sp.Mul) and len(e.args) == 2 and e.args[0] == -1 and not e.args[1].args


def recursive_form(model: Manipulator, token: CancelToken = NEVER) -> RecursiveForm:
    """The customized Newton-Euler recursion of ``model`` as named assignments."""
    from sympy.core.parameters import distribute

    from .customized import _tau
    out: list[Assignment] = []

    def name(kind: str, j: int, values: list) -> list:
        def one(e, suffix):
            e = sp.sympify(e)
            if _inline(e):
                return e
            sym = sp.Symbol(f"{kind}{j + 1}{suffix}", real=True)
            out.append(Assignment(sym, e, kind, j + 1))
            return sym
        if kind == "tau":
            return [one(values[0], "")]
        if kind == "U":
            return [[one(e, f"_{_AXES[r]}{_AXES[c]}") for c, e in enumerate(row)] for r, row in enumerate(values)]
        return [one(e, f"_{_AXES[k]}") for k, e in enumerate(values)]

    exact = exact_angles(model).model
    with distribute(False):
        tau = _tau(exact, token, exact.qd, exact.qdd, name)
    return RecursiveForm(model, tuple(out), tuple(tau))
