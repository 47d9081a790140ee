"""Common subexpressions of expression graphs that already share their parts, in linear time.

The recursive forms (:mod:`designer.dynamics.customized`) are directed acyclic graphs: one
sympy object for the angular velocity of link 3, used by every later link. ``sympy.cse`` walks
them as trees and spends minutes on a generic 7-joint arm (80 s for tau alone). :func:`graph_cse`
visits each distinct node once, names every node that is used more than once, and leaves the
finer search (common factors inside sums and products) to ``sympy.cse`` on the small pieces.
"""

from __future__ import annotations

from collections.abc import Iterator

import sympy as sp

from ..jobs import NEVER, CancelToken
from .peephole import cancel_sums, flip_signs, reuse_products

__all__ = ["graph_cse", "graph_symbols", "fold_negations", "polish", "trivial", "drop_unused", "interned",
           "cse_graph", "ordered_assignments"]


def trivial(e: sp.Basic) -> bool:
    """Atoms and -atom: not worth a name."""
    if not e.args:
        return True
    return isinstance(e, sp.Mul) and len(e.args) == 2 and e.args[0] == -1 and not e.args[1].args


#: nodes visited between two cancel checks (a few milliseconds)
CHECK_EVERY = 4096


def graph_cse(exprs: list, symbols: Iterator[sp.Symbol], token: CancelToken = NEVER) -> tuple[list, list]:
    """(replacements, reduced) like ``sympy.cse``: every non-trivial node with two or more uses
    becomes a temporary, in an order that evaluates."""
    exprs = interned(exprs, token)
    return _named(exprs, *_uses(exprs, token), symbols, token)


def interned(exprs: list, token: CancelToken = NEVER) -> list:
    """``exprs`` with equal subexpressions made one object, bottom up (two nodes of the same kind
    over the same argument objects are one). A graph built in parts holds copies (the Christoffel
    sums of a 12-joint arm's Coriolis matrix): as dictionary keys each copy was compared with its
    twin all the way down, 75 s of the 12-joint arm's CSE; over shared arguments the comparison
    stops at the first level."""
    exprs = [sp.sympify(e) for e in exprs]   # kept: every node stays alive, so no id is reused
    canon: dict = {}    # id(node) -> its one object
    table: dict = {}    # (kind, ids of the one objects of its arguments) -> the one object
    stack = [(e, False) for e in exprs]
    steps = 0
    while stack:        # iterative post-order: deeper than Python's recursion limit
        steps += 1
        if steps % CHECK_EVERY == 0:
            token.check()
        node, done = stack.pop()
        if id(node) in canon:
            continue
        if not node.args:
            canon[id(node)] = node
            continue
        if not done:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if id(a) not in canon)
            continue
        args = tuple(canon[id(a)] for a in node.args)
        key = (node.func, tuple(map(id, args)))
        one = table.get(key)
        if one is None:
            one = node if all(x is y for x, y in zip(args, node.args)) else node.func(*args, evaluate=False)
            table[key] = one
        canon[id(node)] = one
    return [canon[id(e)] for e in exprs]


def _uses(exprs: list, token: CancelToken) -> tuple[dict, list]:
    """(uses of each distinct node, the nodes children first)."""
    uses: dict = {}
    order: list = []
    stack = [(sp.sympify(e), False) for e in reversed(exprs)]
    steps = 0
    while stack:  # iterative post-order: the graphs are deeper than Python's recursion limit
        steps += 1
        if steps % CHECK_EVERY == 0:
            token.check()
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in uses:
            uses[node] += 1
            continue
        uses[node] = 1
        if node.args:
            stack.append((node, True))
            stack.extend((a, False) for a in reversed(node.args))
    return uses, order


def _shared(uses: dict) -> int:
    return sum(1 for node, count in uses.items() if count > 1 and not trivial(node))


def _named(exprs: list, uses: dict, order: list, symbols: Iterator[sp.Symbol], token: CancelToken) -> tuple[list, list]:
    rebuilt: dict = {}
    temps: list = []
    for k, node in enumerate(order):  # children before parents
        if k % CHECK_EVERY == 0:
            token.check()
        args = [rebuilt.get(a, a) for a in node.args]
        new = node if all(x is y for x, y in zip(args, node.args)) else node.func(*args, evaluate=False)
        if uses[node] > 1 and not trivial(node):
            sym = next(symbols)
            temps.append((sym, new))
            new = sym
        rebuilt[node] = new
    return temps, [rebuilt.get(e, e) for e in (sp.sympify(x) for x in exprs)]


def graph_symbols(exprs) -> set:
    """The free symbols of ``exprs``, each shared node visited once (``free_symbols`` walks a
    shared graph as a tree: minutes for a 7-joint tau)."""
    seen: set = set()
    found: set = set()
    stack = [sp.sympify(e) for e in exprs]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, sp.Symbol):
            found.add(node)
        else:
            stack.extend(node.args)
    return found


def fold_negations(temps: list, outputs: list) -> tuple[list, list]:
    """``temps`` and ``outputs`` with the sign of every temporary that is a negated product or symbol
    (``x9 = -x8``, ``x4 = -x2*x3``: ``sympy.cse`` names the -1 it pulls out of sums) moved into its
    uses: the sign then joins the sums that read it (``a - x8`` rather than ``a + x9``), one
    negation fewer per such temporary. Temporaries must come in an order that evaluates."""
    sub: dict = {}
    kept = []
    for sym, value in temps:
        value = value.xreplace(sub) if sub else value
        if isinstance(value, sp.Mul) and value.args[0] == -1:
            positive = sp.Mul(*value.args[1:])
            if not positive.args:  # -symbol: no temporary at all
                sub[sym] = value
                continue
            sub[sym] = -sym  # the product stays one temporary (inlined it would be recomputed), without its sign
            value = positive
        kept.append((sym, value))
    return kept, [sp.sympify(e).xreplace(sub) for e in outputs] if sub else list(outputs)


def drop_unused(temps: list, outputs: list) -> list:
    """The temporaries that an output needs, directly or through later temporaries, in their order.

    A term that cancels after substitution (the centrifugal qd1**2 of a one-joint arm) can leave its
    temporary behind, which C compilers flag as unused (an error under -Wall -Werror)."""
    needed: set = set()
    for e in outputs:
        needed |= sp.sympify(e).free_symbols
    kept = []
    for sym, value in reversed(temps):
        if sym in needed:
            kept.append((sym, value))
            needed |= value.free_symbols
    return kept[::-1]


def ordered_assignments(assignments: list) -> list:
    """``[(symbol, value)]`` sorted so that each comes after the assignments it uses."""
    value = dict(assignments)
    done: set = set()
    out: list = []
    for root, _ in assignments:
        stack = [(root, False)]
        while stack:
            sym, ready = stack.pop()
            if sym in done:
                continue
            if ready:
                done.add(sym)
                out.append((sym, value[sym]))
                continue
            stack.append((sym, True))
            # in name order: a set's order changes with the hash seed, and so would the generated code
            stack.extend((s, False) for s in sorted(value[sym].free_symbols, key=str) if s in value and s not in done)
    return out


def cse_graph(exprs: list, symbols: Iterator[sp.Symbol], refine: int | None = None,
              token: CancelToken = NEVER) -> tuple[list, list]:
    """:func:`graph_cse`, then ``sympy.cse`` over the small pieces (common factors inside sums and
    products): the operation counts of ``sympy.cse`` alone, in a fraction of its time.

    ``refine``: skip the ``sympy.cse`` pass on graphs with more shared nodes than this (it rebuilds
    every piece: about 4 s for the Coriolis matrix of a 7-joint arm, for some 10% fewer operations).
    """
    exprs = interned(exprs, token)
    uses, order = _uses(exprs, token)
    token.check()
    # order="none": the same operation counts as the canonical order, several times faster
    if _shared(uses) <= SMALL and (refine is None or _shared(uses) <= refine):
        # small graphs: sympy.cse alone shares as much or more (PUMA 560 M: 434 against 464, G 197 against
        # 224; of 20 small graphs of 7 arms it lost 3, by 1% at most) and costs less than both passes
        return fold_negations(*sp.cse(exprs, symbols=symbols, order="none"))
    shared, outputs = _named(exprs, uses, order, symbols, token)
    if refine is not None and len(shared) > refine:
        return shared, outputs
    pieces = [v for _, v in shared] + outputs
    found: list = []
    reduced: list = []
    for start in range(0, len(pieces), CHUNK):  # pieces of a bounded size: a cancel is honoured between them
        token.check()
        more, done = sp.cse(pieces[start:start + CHUNK], symbols=symbols, order="none")
        found += more
        reduced += done
    named = [(s, r) for (s, _), r in zip(shared, reduced)]
    return fold_negations(ordered_assignments(found + named), reduced[len(shared):])


#: graphs with at most this many shared nodes get sympy.cse alone (PUMA 560 M: 134, a generic 7-joint M: 291)
SMALL = 150
#: pieces per sympy.cse call of the refining pass (a generic 7-joint arm's tau: about 400 pieces, 0.4 s)
CHUNK = 500


def _ops(temps: list, outputs: list) -> int:
    return int(sum(sp.count_ops(v) for _, v in temps) + sum(sp.count_ops(e) for e in outputs))


def _alias(value: sp.Basic) -> bool:
    return value.is_Symbol or (isinstance(value, sp.Mul) and len(value.args) == 2 and value.args[0] == -1
                               and value.args[1].is_Symbol)


def inline_aliases(temps: list, outputs: list) -> tuple[list, list]:
    """Temporaries that are another symbol (or its negative) replaced by it: a later pass then sees
    ``qd2*x98`` where ``x82 = qd2*tx0`` and ``tx0 = x98`` hid it."""
    sub: dict = {}
    kept = []
    for sym, value in temps:
        value = value.xreplace(sub) if sub else value
        if _alias(value):
            sub[sym] = value
        else:
            kept.append((sym, value))
    return kept, [sp.sympify(e).xreplace(sub) for e in outputs] if sub else list(outputs)


def reuse_temporaries(temps: list, outputs: list, symbols: Iterator[sp.Symbol]) -> tuple[list, list]:
    """A second ``sympy.cse`` over the reduced expressions: a product that one temporary holds and
    another expression still spells out (the steps were reduced before their pieces had names)
    becomes a read of that temporary."""
    found, reduced = sp.cse([v for _, v in temps] + list(outputs), symbols=symbols, order="none")
    pieces = {s for s, _ in found}
    sub: dict = {}
    for (sym, _), r in zip(temps, reduced):   # a temporary that is exactly a found piece holds it
        if r in pieces and r not in sub:
            sub[r] = sym
    kept = [(s, v.xreplace(sub)) for s, v in found if s not in sub]
    for (sym, value), r in zip(temps, reduced):
        r = r.xreplace(sub)
        kept.append((sym, value if r == sym else r))   # the temporary that holds the piece keeps its value
    if not _acyclic(kept):   # never seen on the recursions; a guard, since the pieces are renamed
        return temps, list(outputs)
    return inline_aliases(*fold_negations(ordered_assignments(kept), [r.xreplace(sub) for r in reduced[len(temps):]]))


def _acyclic(assignments: list) -> bool:
    """Whether ``[(symbol, value)]`` can be put in an order that evaluates (Kahn's algorithm)."""
    value = dict(assignments)
    needs = {s: {t for t in v.free_symbols if t in value} for s, v in assignments}
    readers: dict = {}
    for s, deps in needs.items():
        for t in deps:
            readers.setdefault(t, []).append(s)
    ready = [s for s, deps in needs.items() if not deps]
    count = {s: len(deps) for s, deps in needs.items()}
    done = 0
    while ready:
        s = ready.pop()
        done += 1
        for r in readers.get(s, ()):
            count[r] -= 1
            if not count[r]:
                ready.append(r)
    return done == len(needs)


def polish(temps: list, outputs: list, symbols: Iterator[sp.Symbol]) -> tuple[list, list]:
    """:func:`reuse_temporaries`, the cancelling sums of :mod:`~designer.graphs.peephole` (with the
    products they leave spelled out read from temporaries), then its sign flips, each kept only where
    it lowers the count (PUMA 560 base-parameter tau: 507 -> 499 operations)."""
    best = (temps, list(outputs))
    for step in (lambda t, o: reuse_temporaries(t, o, symbols), lambda t, o: _cancelled(t, o, symbols), flip_signs):
        t, o = step(*inline_aliases(*best))
        if _ops(t, o) < _ops(*best):
            best = (t, o)
    return best


def _cancelled(temps: list, outputs: list, symbols: Iterator[sp.Symbol]) -> tuple[list, list]:
    t, o = cancel_sums(temps, outputs)
    t, o = reuse_temporaries(ordered_assignments(t), o, symbols)
    t, o = reuse_products(t, o)
    if not _acyclic(t):   # a guard: a product is read only from a temporary that does not read its reader
        return temps, list(outputs)
    return ordered_assignments(t), o
