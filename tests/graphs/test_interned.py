"""graph_cse.interned: copies of a subexpression become one object (what the graph CSE then
names once), values unchanged."""

from __future__ import annotations

import sympy as sp
from sympy.core.cache import clear_cache
from sympy.core.parameters import distribute

from designer.graphs.cse import graph_cse, interned

a, b, c, q = sp.symbols("a b c q", real=True)


def _copy(e: sp.Basic) -> sp.Basic:
    """The same expression rebuilt node by node: equal, but no node shared with ``e`` (sympy's
    cache would hand back the same objects; in a large graph it has long evicted them)."""
    clear_cache()
    return _rebuilt(e)


def _rebuilt(e: sp.Basic) -> sp.Basic:
    if not e.args:
        return e
    return e.func(*[_rebuilt(x) for x in e.args], evaluate=False)


def test_copies_become_one_object_and_keep_their_value():
    inner = sp.Mul(sp.sin(q), a + b, evaluate=False)
    e1 = sp.Add(sp.Mul(inner, c, evaluate=False), sp.Mul(sp.cos(q), _copy(inner), evaluate=False), evaluate=False)
    e2 = _copy(e1)
    assert e1 == e2 and e1 is not e2 and e1.args[0] is not e2.args[0]
    one, two = interned([e1, e2])
    assert one is two
    # the inner product, built three times: one object wherever it appears
    found = {id(n) for n in sp.preorder_traversal(one) if n == inner}
    assert len(found) == 1
    assert sp.expand(one - e1) == 0


def test_graph_cse_names_a_copied_subexpression_once():
    with distribute(False):
        inner = sp.sin(q) * (a + b) + c
        e1 = inner * q
    e2 = _copy(inner) * a   # built apart: without interning, two distinct but equal nodes
    temps, reduced = graph_cse([e1, e2], sp.numbered_symbols("x", real=True))
    assert len([t for t, v in temps if v == inner or v.has(sp.sin(q))]) >= 1
    env = {}
    for s, v in temps:
        env[s] = v.xreplace(env)
    got = [r.xreplace(env) for r in reduced]
    assert sp.expand(got[0] - e1) == 0 and sp.expand(got[1] - e2) == 0
    # the sum inner is computed once: one temporary holds it, both outputs read that temporary
    holder = [s for s, v in temps if v.xreplace(env) == inner]
    assert len(holder) == 1 and all(r.has(holder[0]) for r in reduced)
