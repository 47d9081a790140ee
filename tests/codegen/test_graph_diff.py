"""Forward-mode derivatives on shared expression graphs: sympy's own diff on small expressions, and a
derivative graph that stays linear in size where the tree would be exponential."""

from __future__ import annotations

import numpy as np
import sympy as sp

from designer.codegen.graph_diff import graph_diff


def _nodes(exprs) -> int:
    seen: set = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e not in seen:
            seen.add(e)
            stack.extend(e.args)
    return len(seen)


def test_matches_sympy_diff_on_small_expressions():
    x, y, z = sp.symbols("x y z", real=True)
    shared = sp.sin(x) * y + sp.cos(x * z)
    exprs = [shared ** 2 + 3 * shared * x, sp.exp(shared) / (1 + y ** 2), sp.sqrt(2 + sp.cos(shared)), z, sp.Integer(4)]
    derivatives = graph_diff(exprs, [x, y, z])
    rng = np.random.default_rng(3)
    for v, column in zip((x, y, z), derivatives):
        for e, d in zip(exprs, column):
            ref = sp.diff(e, v)
            for _ in range(3):
                point = dict(zip((x, y, z), rng.uniform(-1, 1, 3)))
                assert abs(float(sp.N(d.subs(point))) - float(sp.N(ref.subs(point)))) < 1e-12


def test_derivative_of_a_deep_shared_chain_stays_linear():
    # r_{k+1} = r_k * cos(q_k) + r_k * sin(q_k): as a tree it has 2^40 leaves, as a graph about 200 nodes
    q = sp.symbols("q0:40", real=True)
    r = sp.Integer(1)
    for v in q:
        r = sp.Add(sp.Mul(r, sp.cos(v), evaluate=False), sp.Mul(r, sp.sin(v), evaluate=False), evaluate=False)
    (dr,), = graph_diff([r], [q[0]])
    assert _nodes([r, dr]) < 20 * _nodes([r])
    # the value at a point: r = prod (cos + sin), dr/dq0 = (cos q0 - sin q0) / (cos q0 + sin q0) * r
    from designer.graphs.cse import graph_cse
    temps, (value,) = graph_cse([dr], sp.numbered_symbols("t"))
    point = {v: 0.1 * (k + 1) for k, v in enumerate(q)}
    env = dict(point)
    for s, e in temps:
        env[s] = float(e.xreplace(env))
    got = float(value.xreplace(env))
    c = np.cos(list(point.values()))
    s_ = np.sin(list(point.values()))
    expected = (c[0] - s_[0]) * np.prod(c[1:] + s_[1:])
    assert abs(got - expected) < 1e-12 * abs(expected)
