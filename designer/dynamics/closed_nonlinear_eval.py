"""Numbers from a nonlinear closed form (:mod:`~designer.dynamics.closed_nonlinear`), as printed.

The passive positions qp come from the numeric closure (:mod:`designer.kinematics.closure`, the nominal
pose's branch); every other loop quantity (detJp, W, dW, qdp, qddp) from its printed definition, in
order, and the method's printed matrices from those: so ``eval --form closed`` checks the report
itself. tau is assembled as the method's form says (:meth:`DerivationMethod.assemble`); G, h and M
follow from tau at zero rates, zero accelerations and unit accelerations (tau is linear in qdd_a, and
so is qddp at zero rates): the same for the three methods.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import numpy as np
import sympy as sp

from .closed_nonlinear import LoopQuantities
from .results import Equations

__all__ = ["LoopEvaluator"]


class LoopEvaluator:
    """tau_a, M_a, G_a, h_a and the method's matrices of ``eq`` (a closed chain's closed form, nonlinear or
    linear) at actuated states (``values``: parameter values over the project's defaults)."""

    def __init__(self, eq: Equations, values: Mapping[str, float] | None = None):
        from ..kinematics.closure import Closure
        from ..kinematics.tree import TreeArm
        from .methods import METHODS
        loops = cast("LoopQuantities | None", eq.extras.get("loop_quantities"))
        self.eq = eq
        # a linear closure's closed form reads no loop quantity: evaluated the same way
        mech = loops.mechanism if loops is not None else cast(dict, eq.extras["closed_chain"])["mechanism"]
        items = loops.items if loops is not None else ()
        self.pas = loops.pas if loops is not None else ()
        self.closure = Closure(TreeArm.from_model(mech, values))
        given = dict(mech.parameter_values)
        given.update(values or {})
        subs = {sp.Symbol(k, real=True): sp.Float(v, 17) for k, v in given.items() if v is not None}
        c = eq.model
        self.joints = [*c.q, *c.qd, *c.qdd]
        self.qp = [it.symbol for it in items if it.kind == "qp"]
        known = self.joints + self.qp
        self.defs = []
        for it in items:
            if it.kind in ("closure", "qp"):
                continue
            self.defs.append((it.symbol, sp.lambdify(list(known), sp.sympify(it.value).xreplace(subs), "math")))
            known = known + [it.symbol]
        self.args = known
        tau = METHODS[eq.method].assemble(c, eq.matrices)[0]
        self._tau = sp.lambdify(known, tau.xreplace(subs), "numpy")
        self._mats = {k: sp.lambdify(known, m.xreplace(subs), "numpy") for k, m in eq.matrices.items()}
        self._formula = None
        closure_items = [it for it in items if it.kind in ("closure", "qp") and it.value is not None]
        if closure_items:
            known = list(c.q)
            fs = []
            for it in closure_items:
                fs.append((it.symbol, sp.lambdify(list(known), sp.sympify(it.value).xreplace(subs), "math")))
                known.append(it.symbol)
            self._formula = fs
        self.n = c.n

    def positions(self, q_a, guess=None) -> np.ndarray:
        """The tree's joint values closing the loops (the nominal pose's branch)."""
        return self.closure.solve(np.asarray(q_a, float), guess)

    def values(self, q_a, qd_a=None, qdd_a=None, guess=None) -> list[float]:
        """Every argument of the compiled matrices: the joints, qp (numeric closure), the defined quantities."""
        n = self.n
        qd_a = np.zeros(n) if qd_a is None else qd_a
        qdd_a = np.zeros(n) if qdd_a is None else qdd_a
        q_tree = self.positions(q_a, guess)
        env = [*map(float, q_a), *map(float, qd_a), *map(float, qdd_a), *(float(q_tree[i]) for i in self.pas)]
        for _, f in self.defs:
            env.append(float(f(*env)))
        return env

    def formula_positions(self, q_a) -> np.ndarray:
        """The passive positions from their printed closed-form closure (a four-bar's two circles)."""
        if self._formula is None:
            raise ValueError("the passive positions have no closed form here (from the closure, numerically)")
        env = [float(x) for x in q_a]
        out = {}
        for sym, f in self._formula:
            env.append(float(f(*env)))
            out[sym] = env[-1]
        return np.array([out[s] for s in self.qp])

    def matrix(self, name: str, q_a, qd_a=None, qdd_a=None, guess=None) -> np.ndarray:
        return np.array(self._mats[name](*self.values(q_a, qd_a, qdd_a, guess)), dtype=float)

    def tau(self, q_a, qd_a, qdd_a, guess=None) -> np.ndarray:
        return np.array(self._tau(*self.values(q_a, qd_a, qdd_a, guess)), dtype=float).ravel()

    def G(self, q_a, guess=None) -> np.ndarray:
        zero = np.zeros(self.n)
        return self.tau(q_a, zero, zero, guess)

    def h(self, q_a, qd_a, guess=None) -> np.ndarray:
        return self.tau(q_a, qd_a, np.zeros(self.n), guess) - self.G(q_a, guess)

    def M(self, q_a, guess=None) -> np.ndarray:
        zero, G = np.zeros(self.n), self.G(q_a, guess)
        return np.array([self.tau(q_a, zero, e, guess) - G for e in np.eye(self.n)]).T
