"""A nonlinear closure's flat code (numeric/closed_newton.py) against the interpreted path it replaces.

The loops' terms are written once (kinematics/tree.py: scalar_loop_terms, traced for both paths): they are held first
to what they are, independently, on random (open) poses of every mechanism below: the residual to the cut frames
of numpy's TreeArm.frames, the Jacobian to central differences of the residual, the rate term J' qd to central
differences of J along qd. Then the interpreted closure (kinematics/closure.py: the four-bar's closed form or
Newton on numpy's least squares, continuation from the nominal pose) and the interpreted projected dynamics
(ClosedDynamics._forward_checked: numpy W, rates, the tree's CRBA/RNEA, Cholesky) against the traced code run as C
and as generated Python, on random mechanisms of every nonlinear kind the format has: planar and spatial (mounted)
four-bars in both conventions, a loop named from the ground, slider-cranks (a passive prismatic joint), a four-bar
cut at a fixed joint (three passive joints) and four-bars cut at a ball joint. Then a physical law: a passive
closed chain falling for 1 s on the compiled path keeps its energy to the integrator's tolerance, its loops closed,
and runs as the interpreted path does.
"""

from __future__ import annotations

import pickle
from dataclasses import replace
from functools import lru_cache

import numpy as np
import pytest

from designer.kinematics.closure import TOL
from designer.kinematics.tree import TreeArm
from designer.model import Convention
from designer.numeric.closed import ClosedDynamics
from designer.numeric.native import CFunction, load
from designer.numeric.simulate import simulate
from tests.dynamics.test_closed_compact import fixed_cut_four_bar, slider_crank
from tests.support.closed_reference import four_bar


def _ball(model):
    return replace(model, loops=(replace(model.loops[0], joint="S"),))


def _reversed(model):
    lp = model.loops[0]
    return replace(model, loops=(replace(lp, link_i=lp.link_j, link_j=lp.link_i, frame_i=lp.frame_j,
                                         frame_j=lp.frame_i),))


CASES = {
    "planar four-bar, standard": lambda s: four_bar(np.random.default_rng(s), Convention.STANDARD),
    "planar four-bar, modified": lambda s: four_bar(np.random.default_rng(s), Convention.MODIFIED),
    "spatial (mounted) four-bar, standard": lambda s: four_bar(np.random.default_rng(s), Convention.STANDARD,
                                                               mounted=True),
    "spatial (mounted) four-bar, modified": lambda s: four_bar(np.random.default_rng(s), Convention.MODIFIED,
                                                               mounted=True),
    "four-bar named from the ground": lambda s: _reversed(four_bar(np.random.default_rng(s), Convention.MODIFIED,
                                                                   mounted=True)),
    "slider-crank": slider_crank,
    "four-bar cut at a fixed joint": fixed_cut_four_bar,
    "planar four-bar cut at a ball joint": lambda s: _ball(four_bar(np.random.default_rng(s), Convention.STANDARD)),
    "spatial four-bar cut at a ball joint": lambda s: _ball(four_bar(np.random.default_rng(s), Convention.MODIFIED,
                                                                     mounted=True)),
}


@lru_cache(maxsize=1)
def _compiler_works() -> bool:
    """Whether this machine builds machine code at all (a one-line module): then every mechanism's must build."""
    return load([CFunction("one", (1,), 1, "static int one(const double *x, double *y)\n{\n    y[0] = x[0];\n"
                                           "    return 1;\n}\n")]) is not None


def _engine(model) -> ClosedDynamics:
    cd = ClosedDynamics(model)
    assert cd.closure.linear is None and cd._newton is not None, "a nonlinear closure has its flat code"
    if _compiler_works():
        assert cd._newton.native is not None, "the mechanism's machine code builds where a compiler works"
    return cd


@pytest.mark.parametrize("name", list(CASES))
def test_loop_terms_are_the_cut_frames_gap_and_its_derivatives(name):
    tree = TreeArm.from_model(CASES[name](4))
    rng = np.random.default_rng(5)
    h = 1e-6
    for _ in range(3):
        q, qd = rng.uniform(-1, 1, (2, tree.n))   # open poses: the terms hold away from closure too
        terms = tree.loop_terms(q, qd)
        T = tree.frames(q)
        expected, axes = [], []
        for k, kind, which in terms.rows:
            i, j, Fi, Fj, _ = tree.loops[k]
            Ti, Tj = T[i + 1] @ Fi, T[j + 1] @ Fj
            expected.append((Ti - Tj)[which, 3] if kind == "force" else Tj[:3, which[0]] @ Ti[:3, which[1]])
            axes.append(np.zeros(3) if kind == "force" else np.cross(Tj[:3, which[0]], Ti[:3, which[1]]))
        assert np.allclose(terms.residual, expected, rtol=0, atol=1e-12), name
        assert np.allclose(terms.moment_axes, axes, rtol=0, atol=1e-12), name
        assert np.array_equal(tree.loop_terms(q).residual, terms.residual)
        size = max(1.0, float(np.abs(terms.jacobian).max()))
        fd = np.array([(tree.loop_terms(q + h * e).residual - tree.loop_terms(q - h * e).residual) / (2 * h)
                       for e in np.eye(tree.n)]).T
        assert np.allclose(terms.jacobian, fd, rtol=0, atol=1e-8 * size), (name, np.abs(terms.jacobian - fd).max())
        rate = (tree.loop_terms(q + h * qd).jacobian - tree.loop_terms(q - h * qd).jacobian) / (2 * h) @ qd
        assert np.abs(terms.rate).max() > 1e-3 and np.allclose(terms.rate, rate, rtol=0, atol=1e-7 * size), name
    clone = pickle.loads(pickle.dumps(tree))   # to a worker process after use: its flat code is traced again there
    assert np.array_equal(clone.loop_terms(q, qd).jacobian, tree.loop_terms(q, qd).jacobian)
    q[0] = np.nan   # not finite: NaN out, no exception
    assert np.isnan(tree.loop_terms(q, qd).residual).any()


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", list(CASES))
def test_compiled_nonlinear_path_equals_the_interpreted_one(name, seed):
    model = CASES[name](seed)
    cd = _engine(model)
    flat = cd._newton
    native = flat.native
    rng = np.random.default_rng(100 + seed)
    direction = rng.uniform(-1, 1, cd.n)
    direction /= np.abs(direction).max()
    q_c = np.zeros(cd.n_tree)   # the nominal pose, closed; each state's Newton in C starts from the last
    for k in range(1, 9):       # up to 0.4 rad from the nominal pose, 0.05 rad a step
        qa = 0.05 * k * direction
        qd, tau = rng.uniform(-1, 1, (2, cd.n))
        ref_q = ClosedDynamics(model).closure.solve(qa)   # interpreted: closed form or numpy Newton, continued
        if native is not None:
            found = flat.close(qa, q_c)
            assert found is not None, (name, qa)
            q_c = found
            assert np.allclose(q_c, ref_q, rtol=0, atol=1e-10), (name, q_c, ref_q)
            assert cd.closure.residual(q_c) <= TOL * cd.closure.size
        else:
            q_c = ref_q
        for gravity in (True, False):
            ref = cd._forward_checked(ref_q, qd, tau, gravity)
            scale = max(1.0, float(np.abs(ref).max()))
            generated = flat(q_c, qd, tau, gravity, compiled=False)
            assert generated is not None and np.allclose(generated, ref, rtol=0, atol=1e-10 * scale), (name, generated,
                                                                                                      ref)
            if native is not None:
                compiled = flat(q_c, qd, tau, gravity)
                assert compiled is not None and np.allclose(compiled, ref, rtol=0, atol=1e-10 * scale)
                both = flat.close_forward(qa, qd, tau, q_c, gravity)   # closed already: Newton checks and stops
                assert both is not None and np.array_equal(both[1], q_c)
                assert np.allclose(both[0], ref, rtol=0, atol=1e-10 * scale)
    if native is not None:   # from the nominal pose by continuation in C, as the interpreted closure does
        far = 0.4 * direction
        found = flat.close(far, np.zeros(cd.n_tree))
        assert found is not None and np.allclose(found, ClosedDynamics(model).closure.solve(far), rtol=0, atol=1e-10)


def _without_flat_code(model) -> ClosedDynamics:
    cd = ClosedDynamics(model)
    cd.__dict__["_newton"] = None   # the interpreted path throughout
    return cd


@pytest.mark.parametrize("name", ["planar four-bar, standard", "spatial (mounted) four-bar, modified", "slider-crank",
                                  "four-bar cut at a fixed joint", "spatial four-bar cut at a ball joint"])
def test_a_passive_closed_chain_falls_keeping_its_energy_and_its_loops_closed(name):
    model = CASES[name](2)
    cd = _engine(model)
    if cd._newton.native is None:
        pytest.skip("no C compiler here: the interpreted path is the only one")
    qa = np.zeros(cd.n)
    run = simulate(cd, qa, np.zeros(cd.n), (0.0, 1.0), rtol=1e-10, atol=1e-12)
    total = run.kinetic + run.potential
    swing = float(run.kinetic.max())
    assert swing > 1e-3, "the chain falls"
    # energy from the interpreted side (numpy W and the tree's mass matrix, the frames' heights)
    assert np.abs(total - total[0]).max() <= 1e-7 * swing, (name, np.abs(total - total[0]).max(), swing)
    assert run.residual.max() <= TOL * cd.closure.size
    slow = simulate(_without_flat_code(model), qa, np.zeros(cd.n), (0.0, 1.0), rtol=1e-10, atol=1e-12)
    assert np.allclose(run.q[-1], slow.q[-1], rtol=0, atol=1e-8), (run.q[-1], slow.q[-1])


@pytest.mark.parametrize("name", ["spatial (mounted) four-bar, standard", "slider-crank",
                                  "four-bar cut at a fixed joint", "planar four-bar cut at a ball joint"])
def test_a_runs_rows_extras_equal_the_interpreted_protocol_row_by_row(name):
    model = CASES[name](3)
    cd = _engine(model)
    rng = np.random.default_rng(7)
    Q = np.cumsum(rng.uniform(-0.04, 0.04, (12, cd.n)), axis=0)   # a path from near the nominal pose
    QD, QDD = rng.uniform(-1, 1, (2, 12, cd.n))
    rows = cd.rows_extras(Q, QD, QDD)
    slow = _without_flat_code(model)   # the interpreted closure, numpy W, rates, frames and RNEA, row by row
    follow = slow.following()
    for r in range(len(Q)):
        p = follow.close(Q[r])
        assert np.allclose(rows["positions"][r], p, rtol=0, atol=1e-10)
        assert rows["residual"][r] <= TOL * cd.closure.size
        kinetic, potential = slow._energy(p, QD[r])
        assert np.allclose(rows["energy"][r], [kinetic, potential], rtol=0, atol=1e-10 * max(1.0, abs(potential)))
        cut = slow._cut(p, QD[r], QDD[r])
        assert np.allclose(rows["cut"][r], cut, rtol=0, atol=1e-9 * max(1.0, np.abs(cut).max())), (r, rows["cut"][r],
                                                                                                    cut)
