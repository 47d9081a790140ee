"""Fast exact arithmetic for the derivations: polynomials in cos/sin of the joint angles.

Every quantity of a rigid serial arm (Jacobians, M, G, tau) is a polynomial in
c_i = cos(q_i + theta_i), s_i = sin(q_i + theta_i), the prismatic joint
variables, the joint rates and the model's parameters. :class:`TrigRing` holds
such polynomials in sympy's sparse polynomial ring (dicts of monomials, far
faster than ``expand`` on expression trees) and keeps them *reduced*: no
s_i**2 remains (it is 1 - c_i**2). The reduced form is canonical, so terms
cancel as soon as they meet and a zero test is exact.

Anything that is not a polynomial in these (a parameter's cosine, 1/L, sqrt(2))
becomes one more opaque generator.
"""

from __future__ import annotations

from collections.abc import Iterable

import sympy as sp
from sympy.core.add import Add, _addsort
from sympy.core.mul import Mul, _mulsort
from sympy.polys.domains import QQ, RR
from sympy.polys.rings import PolyElement, PolyRing

from ..jobs import NEVER, CancelToken
from ..model.manipulator import Manipulator

__all__ = ["TrigRing"]

CHOP = 1e-13  # relative size of float round-off terms dropped (only with float parameters)


def _atoms(e: sp.Expr, out: dict) -> None:
    """Collect the opaque generators of ``e`` (everything that is not + , * or a natural power)."""
    if e.is_Number:
        return
    if e.is_Add or e.is_Mul:
        for a in e.args:
            _atoms(a, out)
        return
    if e.is_Pow and e.exp.is_Integer and e.exp > 0:
        _atoms(e.base, out)
        return
    out.setdefault(e, None)


class TrigRing:
    """The polynomial ring of one model's derivation.

    ``cos(i)``, ``sin(i)`` are the generators of revolute joint i (0-based);
    ``var(e)`` converts a sympy expression of the model (parameters, joint
    symbols) to a ring element; ``expr(p)`` converts back.
    """

    def __init__(self, model: Manipulator, extra: Iterable[sp.Expr] = ()):
        self.model = model
        n = model.n
        exprs = list(model.expressions()) + list(extra)
        for link in model.links:
            exprs += [sp.cos(link.alpha), sp.sin(link.alpha)]
            if not link.is_revolute:
                exprs += [sp.cos(link.theta), sp.sin(link.theta)]
        floats = any(e.has(sp.Float) for e in exprs)
        self.domain = RR if floats else QQ
        self.c_sym = [sp.Dummy(f"c{i + 1}") for i in range(n)]
        self.s_sym = [sp.Dummy(f"s{i + 1}") for i in range(n)]
        self.trig = {}  # dummy -> cos/sin expression
        for i, link in enumerate(model.links):
            if not link.is_revolute:
                continue  # its c_i, s_i never occur
            angle = model.q[i] + link.theta
            self.trig[self.c_sym[i]] = sp.cos(angle)
            self.trig[self.s_sym[i]] = sp.sin(angle)
        atoms: dict = {}
        for e in exprs:
            _atoms(sp.sympify(e), atoms)
        joint = list(model.q) + list(model.qd) + list(model.qdd)
        params = [a for a in atoms if a not in joint]
        gens = self.c_sym + self.s_sym + joint + params
        self.ring = PolyRing(gens, self.domain)
        self.gens = dict(zip(gens, self.ring.gens))
        self.zero, self.one = self.ring.zero, self.ring.one
        self._si = {i: gens.index(self.s_sym[i]) for i in range(n)}
        self._s_positions = [self._si[i] for i in range(n) if model.links[i].is_revolute]
        self._one_minus_c2 = {self._si[i]: self.one - self.gens[self.c_sym[i]] ** 2 for i in range(n)}
        self._atoms_out = [self.trig.get(g, g) for g in gens]
        # two generators with one base (m1 and 1/m1, after a design condition put m1 in a
        # denominator) multiply to a power sympy must combine: assemble through Mul then
        self._shared_bases = len({a.as_base_exp()[0] for a in self._atoms_out}) < len(self._atoms_out)
        self._powers: dict = {}

    def __getstate__(self) -> dict:
        """Pickled without its caches (a worker process sends the ring back with a result)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_simplify_cache", "_powers")} | {"_powers": {}}

    # -- conversion ---------------------------------------------------------------
    def var(self, e) -> PolyElement:
        """A sympy expression of the model as a ring element."""
        e = sp.sympify(e)
        if e.is_Number:
            return self.ring.ground_new(self.domain.convert(e))
        if e in self.gens:
            return self.gens[e]
        if e.is_Add:
            return sum((self.var(a) for a in e.args), self.zero)
        if e.is_Mul:
            out = self.one
            for a in e.args:
                out = self.mul(out, self.var(a))
            return out
        if e.is_Pow and e.exp.is_Integer and e.exp > 0:
            return self.reduce(self.var(e.base) ** int(e.exp))
        raise ValueError(f"cannot use {e} in the equations of motion")

    def joint_trig(self, i: int):
        """(cos, sin) of the angle of joint i as ring elements (revolute joints)."""
        return self.gens[self.c_sym[i]], self.gens[self.s_sym[i]]

    def expr(self, p) -> sp.Expr:
        """Back to a sympy expression in cos(q_i), sin(q_i) and the parameters.

        The terms are distinct monomials, so the tree is assembled directly (in sympy's
        canonical argument order) instead of through Mul/Add flattening, which is slow here.
        """
        if not p:
            return sp.S.Zero
        atoms = self._atoms_out
        to_sympy = self.domain.to_sympy
        powers = self._powers
        one = self.domain.one
        terms = []
        for monom, coeff in p.items():
            factors = []
            for k, e in enumerate(monom):
                if e:
                    key = (k, e)
                    if key not in powers:
                        powers[key] = atoms[k] if e == 1 else atoms[k] ** e
                    factors.append(powers[key])
            unit = coeff == one
            c = sp.S.One if unit else to_sympy(coeff)
            if not factors:
                terms.append(c)
                continue
            if self._shared_bases or any(not f.is_commutative or f.is_Number or f.is_Mul for f in factors):
                terms.append(sp.Mul(c, *factors))  # unusual atoms: let sympy sort it out
                continue
            _mulsort(factors)
            if not unit:
                factors.insert(0, c)
            terms.append(factors[0] if len(factors) == 1 else Mul._from_args(factors))
        if len(terms) == 1:
            return terms[0]
        if any(t.is_Add for t in terms):
            return sp.Add(*terms)
        _addsort(terms)
        return Add._from_args(terms)

    # -- arithmetic -----------------------------------------------------------------
    def reduce(self, p):
        """Replace s_i**2 by 1 - c_i**2 everywhere; drop float round-off."""
        if not any(m[k] >= 2 for m in p for k in self._s_positions):
            return self.chop(p)
        ring = self.ring
        out = ring.zero
        plain = {}
        for monom, coeff in p.items():
            high = [(k, monom[k] // 2) for k in self._s_positions if monom[k] >= 2]
            if not high:
                plain[monom] = coeff
                continue
            m = list(monom)
            factor = ring.one
            for k, half in high:
                m[k] -= 2 * half
                factor = factor * self._one_minus_c2[k] ** half
            out += ring({tuple(m): coeff}) * factor
        out += ring(plain)
        return self.chop(self.reduce(out) if out and any(m[k] >= 2 for m in out for k in self._s_positions) else out)

    def chop(self, p):
        if self.domain is not RR or not p:
            return p
        vals = [abs(c) for c in p.values()]
        big = max(vals)
        if big == 0:
            return self.zero
        small = [m for m, c in p.items() if abs(c) <= CHOP * big]
        if not small:
            return p
        q = p.copy()
        for m in small:
            del q[m]
        return q

    def mul(self, a, b):
        if not a or not b:
            return self.zero
        return self.reduce(a * b)

    def dot(self, a, b, token: CancelToken = NEVER):
        out = self.zero
        for x, y in zip(a, b):
            if x and y:
                token.check()
                out += x * y
        return self.reduce(out)

    def matvec(self, m, v, token: CancelToken = NEVER):
        """3x3 (nested lists) times a 3-vector (list)."""
        return [self.dot(row, v, token) for row in m]

    def cross(self, a, b, token: CancelToken = NEVER):
        token.check()
        return [self.reduce(a[1] * b[2] - a[2] * b[1]),
                self.reduce(a[2] * b[0] - a[0] * b[2]),
                self.reduce(a[0] * b[1] - a[1] * b[0])]

    def diff_q(self, p, i: int):
        """d p / d q_i (chain rule through c_i, s_i for a revolute joint)."""
        if not p:
            return self.zero
        if self.model.links[i].is_revolute:
            c, s = self.joint_trig(i)
            return self.reduce(p.diff(c) * (-s) + p.diff(s) * c)
        return p.diff(self.gens[self.model.q[i]])

    def diff(self, p, symbol):
        """d p / d symbol for a generator (a joint rate, an acceleration)."""
        return p.diff(self.gens[symbol]) if p else self.zero

    def subs_zero(self, p, symbols):
        """p with the given generators set to zero."""
        idx = [self.ring.gens.index(self.gens[s]) for s in symbols]
        return self.ring({m: c for m, c in p.items() if not any(m[k] for k in idx)})
