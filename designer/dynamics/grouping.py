"""Khalil and Gautier's grouping rules on the standard inertial parameters, symbolic and exact.

Applied from the tip to the base in the joint frames of :mod:`designer.dynamics.customized` (frame j'
has joint j along z_j'; see :mod:`designer.identification.base_params` for the rules): a revolute
joint's body {m_j, MZ_j e_z, YY_j diag(1, 1, 0)} moves onto link j-1 and leaves XXR_j = XX_j - YY_j;
a prismatic joint's inertia tensor moves onto link j-1. The grouped parameters give the same tau for
every state: the identification's base parameters start from them, and ``codegen`` computes them once
when the parameters are bound (they are what its per-call tau reads).
"""

from __future__ import annotations

import sympy as sp

from ..model.manipulator import Convention, Manipulator
from .inertial import PARAMETER_KINDS, join, joint_frame_parameters, move_parameters, split, standard_parameters

__all__ = ["symbolic_grouping", "grouped_parameters"]


def _parent_transform(model: Manipulator, j: int) -> tuple[list, list]:
    """(R, P) of joint frame j' in (j-1)' with the joint variable at zero (theta/d offsets kept)."""
    link = model.links[j]
    if model.convention is Convention.STANDARD:
        prev = model.links[j - 1]
        alpha, a = prev.alpha, prev.a
    else:
        alpha, a = link.alpha, link.a
    ct, st, ca, sa = sp.cos(link.theta), sp.sin(link.theta), sp.cos(alpha), sp.sin(alpha)
    R = [[ct, -st, 0], [ca * st, ca * ct, -sa], [sa * st, sa * ct, ca]]
    return R, [a, -sa * link.d, ca * link.d]


class _Linear:
    """A linear combination of the standard parameters, {symbol: coefficient}: the grouping's sums
    without sympy's evaluation of ever longer Adds (seconds per step on a 7-joint arm with float
    geometry; coefficients that are floats stay Python floats)."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict):
        self.terms = terms

    def __add__(self, other):
        if not isinstance(other, _Linear):
            if other == 0:
                return self
            return NotImplemented
        out = dict(self.terms)
        for sym, c in other.terms.items():
            v = out.get(sym, 0) + c
            if v == 0:
                out.pop(sym, None)
            else:
                out[sym] = v
        return _Linear(out)

    __radd__ = __add__

    def __mul__(self, c):
        if isinstance(c, _Linear):
            return NotImplemented
        if c == 0:
            return 0
        return self if c == 1 else _Linear({sym: v * c for sym, v in self.terms.items()})

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def expr(self) -> sp.Expr:
        return sp.Add(*[sp.sympify(c) * sym for sym, c in self.terms.items()])


def _expr(x) -> sp.Expr:
    return x.expr() if isinstance(x, _Linear) else sp.sympify(x)


def _scalar(x):
    """A number as a Python float (fast products), an expression as it is."""
    return float(x) if isinstance(x, sp.Float) else x


def symbolic_grouping(model: Manipulator, symbols: list) -> tuple[list[list], set]:
    """Joint-frame slots after the grouping rules, and the (link, kind) slots emptied by them."""
    slots = joint_frame_parameters(model, [_Linear({sym: 1}) for sym in symbols])
    emptied: set = set()
    for j in range(model.n - 1, -1, -1):
        m, ms, J = split(slots[j])
        if model.links[j].is_revolute:
            body = join(m, [0, 0, ms[2]], [[J[1][1], 0, 0], [0, J[1][1], 0], [0, 0, 0]])
            J[0][0] = J[0][0] - J[1][1]
            slots[j] = join(0, [ms[0], ms[1], 0], [[J[0][0], J[0][1], J[0][2]], [J[0][1], 0, J[1][2]],
                                                   [J[0][2], J[1][2], J[2][2]]])
            emptied |= {(j, "m"), (j, "mz"), (j, "YY")}
        else:
            body = join(0, [0, 0, 0], J)
            slots[j] = join(m, ms, [[0] * 3 for _ in range(3)])
            emptied |= {(j, k) for k in PARAMETER_KINDS[4:]}
        if j > 0:
            R, P = _parent_transform(model, j)
            moved = move_parameters(body, [[_scalar(x) for x in row] for row in R], [_scalar(x) for x in P])
            slots[j - 1] = [a + b for a, b in zip(slots[j - 1], moved)]
    return [[_expr(x) for x in slot] for slot in slots], emptied


def grouped_parameters(model: Manipulator, symbols) -> tuple[list, list[list]]:
    """(standard, slots): per joint the ten joint-frame parameters after the grouping rules
    (``slots``, in :func:`~designer.dynamics.inertial.split` order), as sums over the standard
    parameters; ``standard`` holds the ``(symbol, value)`` of those standard parameters that are
    not atoms (``symbols`` gives their names; an atom, a number or a model symbol, stands in the
    sums itself). Run the recursion with ``slots`` and compute ``standard`` first: the same tau for
    every state as the model's own parameters."""
    values = standard_parameters(model)
    names = [sp.Dummy() for _ in values]
    slots, _ = symbolic_grouping(model, names)
    standard, subs = [], {}
    for dummy, value in zip(names, values):
        value = sp.sympify(value)
        if value.args:
            sym = next(symbols)
            standard.append((sym, value))
            subs[dummy] = sym
        else:
            subs[dummy] = value
    return standard, [[sp.sympify(v).xreplace(subs) for v in slot] for slot in slots]
