"""Design conditions: parameter relations that make a dynamic term vanish or stop depending on q.

Every entry of M(q) and G(q), reduced with sin^2 = 1 - cos^2, is a unique polynomial in cos q_i, sin q_i
and the prismatic q_j, so decoupling, invariance and static balance are coefficient equations
(docs/metrics.md, "Design conditions"). :func:`find_conditions` solves them for chosen unknowns and keeps
the physically admissible solutions; :func:`apply_condition` makes the model that satisfies one."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from collections.abc import Iterable, Sequence

import sympy as sp

from ..jobs import NEVER, CancelToken, Job, Progress, run
from ..model.expr import symbol
from ..model.manipulator import Manipulator
from .joint_names import joint_position, model_joint_numbers
from .sweep import joint_count

__all__ = ["Kind", "Condition", "ConditionResult", "trig_coefficients", "find_conditions", "find_conditions_job",
           "apply_condition", "default_unknowns"]


class Kind(str, Enum):
    DECOUPLED = "decoupled"   # M_ij == 0 for the given pairs (default: every pair i < j)
    INVARIANT = "invariant"   # M independent of q (given entries, default: all)
    BALANCED = "balanced"     # G_i == 0 for the given joints (default: all)


@dataclass(frozen=True)
class Condition:
    """One admissible solution: unknown symbol -> expression in the remaining parameters."""

    solution: dict[sp.Symbol, sp.Expr]
    note: str = ""   # e.g. which sign conditions remain undecided

    def text(self) -> str:
        return ", ".join(f"{k} = {sp.sstr(v)}" for k, v in sorted(self.solution.items(), key=lambda kv: kv[0].name))


@dataclass(frozen=True)
class ConditionResult:
    kind: Kind
    targets: tuple[tuple[int, ...], ...]   # entries of M or joints of G by joint name (1-based; closed: links)
    equations: tuple[sp.Expr, ...]         # the coefficient equations (each == 0)
    unknowns: tuple[sp.Symbol, ...]
    conditions: tuple[Condition, ...]
    rejected: tuple[str, ...]              # solutions dropped and why
    already: bool = False                  # holds for every parameter value

    def summary(self) -> str:
        what = {Kind.DECOUPLED: "M_ij = 0 identically", Kind.INVARIANT: "M independent of q",
                Kind.BALANCED: "G_i = 0 identically"}[self.kind]
        if self.already:
            return f"{what}: holds already, for every value of the parameters"
        if not self.conditions and not self.unknowns:
            return f"{what}: " + ("; ".join(self.rejected) or "it does not hold, and there is nothing to solve for")
        if not self.conditions:
            why = "; ".join(self.rejected) if self.rejected else "the coefficient equations have no solution"
            return (f"{what}: no solution for {', '.join(s.name for s in self.unknowns)} with positive masses "
                    f"and inertias ({why})")
        return f"{what} when: " + " | or | ".join(c.text() + (f" ({c.note})" if c.note else "")
                                                   for c in self.conditions)


def _joint_generators(model: Manipulator) -> tuple[dict, list[sp.Symbol], list[sp.Symbol], list[sp.Symbol]]:
    cos_s = [sp.Dummy(f"c{i + 1}") for i in range(model.n)]
    sin_s = [sp.Dummy(f"s{i + 1}") for i in range(model.n)]
    subs = {}
    for i, (link, q) in enumerate(zip(model.links, model.q)):
        if link.is_revolute:
            subs[sp.cos(q)] = cos_s[i]
            subs[sp.sin(q)] = sin_s[i]
    return subs, cos_s, sin_s, list(model.q)


def trig_coefficients(expr: sp.Expr, model: Manipulator) -> dict[tuple[int, ...], sp.Expr]:
    """The canonical coefficients of ``expr`` as a polynomial in cos q_i, sin q_i (revolute) and
    q_j (prismatic), with no sine squared; keys are exponent tuples (cos..., sin..., q...)."""
    subs, cos_s, sin_s, qs = _joint_generators(model)
    e = sp.expand(sp.expand_trig(sp.sympify(expr)))
    e = sp.expand(e.xreplace(subs))
    revolute = [l.is_revolute for l in model.links]
    gens = [c for c, r in zip(cos_s, revolute) if r] + [s for s, r in zip(sin_s, revolute) if r] + \
           [q for q, r in zip(qs, revolute) if not r]
    if any(q in e.free_symbols for q, r in zip(qs, revolute) if r):
        raise ValueError("expression is not a polynomial in the cosines and sines of the revolute joints")
    if not gens:
        return {(): e} if e != 0 else {}
    poly = sp.Poly(e, *gens)
    k = sum(revolute)
    # reduce sin^2 -> 1 - cos^2, repeatedly, until every sine has degree <= 1
    out: dict[tuple[int, ...], sp.Expr] = {}
    work = list(poly.terms())
    while work:
        monom, coeff = work.pop()
        monom = list(monom)
        for r in range(k):
            if monom[k + r] >= 2:
                # s^2 = 1 - c^2
                a, b = list(monom), list(monom)
                a[k + r] -= 2
                b[k + r] -= 2
                b[r] += 2
                work += [(tuple(a), coeff), (tuple(b), -coeff)]
                break
        else:
            key = tuple(monom)
            out[key] = out.get(key, 0) + coeff
    return {m: c for m, c in ((m, sp.expand(c)) for m, c in out.items()) if c != 0}


def _tiers(model: Manipulator) -> tuple[list[sp.Symbol], list[sp.Symbol], list[sp.Symbol]]:
    """Symbols used only in inertial data, not in the geometry or gravity, grouped as
    (COM and load positions, inertias, masses)."""
    geometric: set[sp.Symbol] = set()
    for link in model.links:
        for e in (link.a, link.alpha, link.d, link.theta):
            geometric |= e.free_symbols
    for g in model.gravity:
        geometric |= g.free_symbols
    seen: set[sp.Symbol] = set()
    tiers = []
    for group in ([c for l in model.links for c in l.com] + [c for p in model.point_masses for c in p.position],
                  [e for l in model.links for e in l.inertia.entries()],
                  [l.mass for l in model.links] + [p.mass for p in model.point_masses]):
        tier = []
        for e in group:
            for s in sorted(e.free_symbols, key=lambda s: s.name):
                if s not in geometric and s not in seen:
                    seen.add(s)
                    tier.append(s)
        tiers.append(tier)
    return tuple(tiers)  # type: ignore[return-value]


def default_unknowns(model: Manipulator) -> list[sp.Symbol]:
    """Symbols used only in inertial data (mass, COM, inertia, point loads), not in the geometry or
    gravity: COM coordinates first, then inertias, then masses."""
    return [s for tier in _tiers(model) for s in tier]


def _physical(model: Manipulator) -> list[tuple[sp.Expr, bool, str]]:
    """(expression, strictly positive?, label) for every mass and diagonal inertia."""
    values = model.parameter_values
    out = []
    for i, link in enumerate(model.links, start=1):
        out.append((link.mass, True, f"m of link {i}"))
        for name in ("xx", "yy", "zz"):
            e = getattr(link.inertia, name)
            strict = bool(e.free_symbols) and all(values.get(s.name, 1.0) != 0 for s in e.free_symbols)
            out.append((e, strict, f"I{name} of link {i}"))
    for k, p in enumerate(model.point_masses, start=1):
        out.append((p.mass, True, f"mass of point load {k}"))
    return [(e, strict, label) for e, strict, label in out if e != 0]


def _assumed(model: Manipulator) -> dict[sp.Symbol, sp.Symbol]:
    """Replace each symbol by one with its physical sign: masses and inertias positive."""
    positive: set[sp.Symbol] = set()
    for e, _strict, _ in _physical(model):
        if e.is_Symbol:
            positive.add(e)
    return {s: sp.Symbol(s.name, positive=True) if s in positive else sp.Symbol(s.name, real=True)
            for s in model.free_symbols()}


def _admissible(model: Manipulator, sol: dict) -> tuple[bool, str]:
    rename = _assumed(model)
    undecided = []
    for e, strict, label in _physical(model):
        value = sp.simplify(e.xreplace(sol).xreplace(rename))
        ok = value.is_positive if strict else value.is_nonnegative
        if ok is False:
            return False, f"needs {label} = {sp.sstr(e.xreplace(sol))}, not {'positive' if strict else '>= 0'}"
        if ok is None and (e.free_symbols & set(sol)):
            undecided.append(f"{label} = {sp.sstr(e.xreplace(sol))} must be {'> 0' if strict else '>= 0'}")
    return True, "; ".join(undecided)


def _targets(kind: Kind, n: int, targets) -> list[tuple[int, ...]]:
    if targets:
        out = [tuple(int(v) for v in t) if not isinstance(t, int) else (int(t),) for t in targets]
    elif kind is Kind.BALANCED:
        out = [(i,) for i in range(1, n + 1)]
    elif kind is Kind.DECOUPLED:
        out = [(i, j) for i in range(1, n + 1) for j in range(i + 1, n + 1)]
    else:
        out = [(i, j) for i in range(1, n + 1) for j in range(i, n + 1)]
    want = 1 if kind is Kind.BALANCED else 2
    for t in out:
        if len(t) != want or any(not 1 <= v <= n for v in t):
            raise ValueError(f"{kind.value}: entry {t} is not "
                             f"{'a joint' if want == 1 else 'a pair of joints'} of 1..{n}")
    return out


def find_conditions(model: Manipulator, kind: Kind | str, targets: Sequence | None = None,
                    unknowns: Iterable[str | sp.Symbol] | None = None, equations=None) -> ConditionResult:
    """:func:`find_conditions_job` run to its end."""
    return run(find_conditions_job(model, kind, targets, unknowns, equations))


def find_conditions_job(model: Manipulator, kind: Kind | str, targets: Sequence | None = None,
                        unknowns: Iterable[str | sp.Symbol] | None = None, equations=None,
                        token: CancelToken = NEVER) -> Job[ConditionResult]:
    """Solve for the parameter relations of ``kind`` (see the module text), reporting each stage
    (the derivation, the coefficients per entry, each tier of unknowns: one ``sympy.solve`` each,
    tens of seconds on the PUMA 560, with no place inside for a cancel check).

    Parameters
    ----------
    targets:
        1-based entries (i, j) of M, or joints i of G; default all (off-diagonal ones for decoupling). A
        closed chain's actuated joints by their link numbers (explore/joint_names.py).
    unknowns:
        Names of the parameters to solve for; default :func:`default_unknowns`.
    equations:
        Already derived :class:`~designer.dynamics.results.Equations` of the model (else derived here).
    """
    kind = Kind(kind)
    numbers = model_joint_numbers(model)
    if targets and numbers != tuple(range(1, len(numbers) + 1)):   # joints by their link numbers (a closed
        # chain's actuated ones, the palletizer's 1, 2, 4, 6): to their places
        targets = [tuple(joint_position(int(v), numbers, f"{kind.value}: entry {t}") + 1
                         for v in ((t,) if isinstance(t, int) else t)) for t in targets]
    pairs = _targets(kind, joint_count(model), targets)
    if equations is None and unknowns is None and not model.free_symbols():
        yield Progress("checking M and G at random poses", 0.0)
        return _numeric_check(model, kind, pairs)
    if equations is None:
        yield Progress("deriving M and G", 0.0)
        token.check()
        equations = _lagrange(model, token)
    eqs: list[sp.Expr] = []
    for k, t in enumerate(pairs):
        yield Progress("coefficient equations", 0.1 + 0.1 * k / len(pairs), f"entry {t}")
        token.check()
        entry = equations.gravity[t[0] - 1] if kind is Kind.BALANCED else equations.mass_matrix[t[0] - 1, t[1] - 1]
        coeffs = trig_coefficients(entry, equations.model)   # a closed chain's: its actuated joints
        for monom, c in coeffs.items():
            if kind is Kind.INVARIANT and not any(monom):
                continue
            eqs.append(c)
    eqs = list(dict.fromkeys(sp.factor(e) for e in eqs if e != 0))
    syms = (default_unknowns(model) if unknowns is None
            else [u if isinstance(u, sp.Symbol) else symbol(u) for u in unknowns])
    names = set(model.symbol_names())
    for s in syms:
        if s.name not in names:
            raise ValueError(f"'{s.name}' is not a parameter of the model")
    if not eqs:
        return ConditionResult(kind, _named(model, pairs), (), tuple(syms), (), (), already=True)
    # By default solve for positions first (a counterweight's place), then add inertias, then masses:
    # the first tier with an admissible solution answers.
    if unknowns is None:
        com, inertia, mass = _tiers(model)
        attempts = [com, com + inertia, syms]
    else:
        attempts = [syms]
    kept: list[Condition] = []
    rejected: list[str] = []
    for k, attempt in enumerate(attempts):
        if not attempt:
            continue
        yield Progress("solving", 0.2 + 0.8 * k / len(attempts),
                       f"for {', '.join(s.name for s in attempt)}")
        token.check()
        kept, rejected = [], []
        # sympy.solve passes over an equation that none of the unknowns enters: it must hold by itself
        unmet = [e for e in eqs if not (e.free_symbols & set(attempt))]
        if unmet:
            rejected = [f"needs {sp.sstr(unmet[0])} = 0, which none of {', '.join(s.name for s in attempt)} enters"]
            continue
        for sol in sp.solve(eqs, attempt, dict=True):
            ok, note = _admissible(model, sol)
            if ok:
                kept.append(Condition({k: sp.simplify(v) for k, v in sol.items()}, note))
            else:
                rejected.append(note)
        if kept:
            break
    return ConditionResult(kind, _named(model, pairs), tuple(eqs), tuple(syms), tuple(kept), tuple(rejected))


def _named(model: Manipulator, pairs) -> tuple[tuple[int, ...], ...]:
    """The targets by the joints' names: a closed chain's link numbers (explore/joint_names.py)."""
    numbers = model_joint_numbers(model)
    return tuple(tuple(numbers[v - 1] for v in t) for t in pairs)


def _lagrange(model: Manipulator, token: CancelToken):
    """M and G in closed form: a serial arm's, or a closed chain's in its actuated joints (parallelograms:
    :mod:`designer.dynamics.closed_form`); a four-bar has none, which the error says."""
    from ..dynamics.engine import derive
    from ..dynamics.results import Method, SimplifyMode
    eq = derive(model, Method.LAGRANGE, SimplifyMode.OFF, token=token, loop_quantities=False)
    if "no_closed_form" in eq.extras:
        raise ValueError("the loops do not close linearly (a four-bar): its M_a and G_a read the loop's W, which "
                         "the link lengths change through the closure, so no parameter relation can be solved "
                         "for in closed form (explore sweep and sensitivity take a four-bar)")
    return eq


def _numeric_check(model: Manipulator, kind: Kind, pairs: list) -> ConditionResult:
    """A model without symbols has nothing to solve for: whether the condition holds, from M and G at
    random poses (the closed forms of a 12-joint arm, derived only to be compared with 0, took longer
    than anyone waits)."""
    import numpy as np

    from .batch import batch_of
    from .joints import explore_arm, explore_joints
    if not pairs:   # a one-joint arm has no pair to decouple
        return ConditionResult(kind, (), (), (), (), (), already=True)
    rng = np.random.default_rng(0)
    # a four-bar's crank may not turn all the way: a closed chain's states near the nominal pose, where the loops close
    span = 0.5 if explore_joints(model).closed else np.pi
    b = batch_of(explore_arm(model), rng.uniform(-span, span, (8, joint_count(model))))
    if kind is Kind.BALANCED:
        values = np.stack([b.G[:, t[0] - 1] for t in pairs], axis=1)
        scale = max(float(np.abs(b.M).max()) * float(np.linalg.norm(b.arm.gravity)), 1e-300)
    else:
        values = np.stack([b.M[:, t[0] - 1, t[1] - 1] for t in pairs], axis=1)
        scale = max(float(np.abs(b.M).max()), 1e-300)
        if kind is Kind.INVARIANT:
            values = values - values[:1]
    holds = bool(np.all(np.abs(values) <= 1e-9 * scale))
    note = () if holds else ("it does not hold, and the model has no symbolic parameters to solve for",)
    return ConditionResult(kind, _named(model, pairs), (), (), (), note, already=holds)


def apply_condition(model: Manipulator, condition: Condition | dict) -> Manipulator:
    """The model with the solved parameters replaced by their expressions (and dropped from the
    parameter values, since they are no longer free)."""
    sol = condition.solution if isinstance(condition, Condition) else condition
    sol = {(symbol(k) if isinstance(k, str) else k): sp.sympify(v) for k, v in sol.items()}
    out = model.map_expressions(lambda e: e.xreplace(sol) if e.free_symbols else e)
    solved = {s.name for s in sol}
    return replace(out, parameters=tuple((k, v) for k, v in model.parameters if k not in solved))
