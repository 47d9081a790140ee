"""The closed form of closed chains whose loops do not close linearly (dynamics/closed_nonlinear.py).

The printed matrices and loop quantities, evaluated as printed (dynamics/closed_nonlinear_eval.py: qp
from the numeric closure, W and dW from their printed definitions), against independent sides:

- :class:`~designer.numeric.closed.ClosedDynamics` (numeric CRBA/RNEA on the tree, W from the
  numeric loop Jacobian, W' qd from the loops' second-order terms): tau_a, M_a, G_a, h_a to 1e-9;
- Pinocchio's rnea on the spanning tree at the closure's state, projected by W from central
  differences of the closure (Newton-Euler's tau_a);
- numeric/closed_terms.py's numeric Lee split (D_tra, D_rot, and H from its Christoffel symbols);
- the physical law: dM_a/dt - 2 C_a skew, dM_a/dt from central differences of M_a through fresh
  closure solves (independent of the implicit differentiation that gives dW);
- the printed W of the JSON report against the numeric closure's W.

Cases: the bundled four-bar, random Grashof four-bars (both conventions, flat and on a turning column:
two actuated joints), a four-bar cut at a fixed joint (three passive joints, qp "from the closure,
numerically") and a slider-crank (a prismatic passive joint).
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache

import numpy as np
import pytest
import sympy as sp

from designer.dynamics import derive
from designer.dynamics.closed_nonlinear_eval import LoopEvaluator
from designer.dynamics.results import Form
from designer.model import Convention
from designer.numeric.closed import ClosedDynamics
from designer.project import load_project
from tests.dynamics.test_closed_compact import fixed_cut_four_bar, slider_crank
from tests.support import robot_path
from tests.support.closed_reference import PinMechanism, four_bar

METHODS = ("lagrange", "newton-euler", "dalembert")


def _lengths(m) -> list[float]:
    """Ground, crank, coupler, rocker of a random four-bar (tests/support/closed_reference.four_bar)."""
    bars = m.links[-3:]
    loop = m.loops[0]
    ground = float(loop.frame_j.xyz[0])
    if m.convention is Convention.STANDARD:
        return [ground] + [float(b.a) for b in bars]
    return [ground, float(bars[1].a), float(bars[2].a), float(loop.frame_i.xyz[0])]


def grashof_four_bar(seed: int, conv: Convention, mounted: bool):
    """The first random four-bar from ``seed`` on whose lengths satisfy Grashof's condition (s + l <= p + q)."""
    for s in range(seed * 1000, seed * 1000 + 1000):
        m = four_bar(np.random.default_rng(s), conv, mounted=mounted)
        L = sorted(_lengths(m))
        if L[0] + L[3] <= L[1] + L[2]:
            return m
    raise AssertionError("no Grashof four-bar")


CASES = ["robot", "s0", "m1", "sm2", "mm3", "fixedcut", "slider"]


@cache
def model_of(case: str):
    if case == "robot":
        return load_project(robot_path("four_bar"))
    if case == "fixedcut":
        return fixed_cut_four_bar(0)
    if case == "slider":
        return slider_crank(0)
    conv = Convention.STANDARD if case[0] == "s" else Convention.MODIFIED
    return grashof_four_bar(int(case[-1]), conv, mounted=len(case) == 3)


@cache
def equations(case: str, method: str):
    eq = derive(model_of(case), method, form="closed")
    assert eq.form is Form.CLOSED and "loop_quantities" in eq.extras
    return eq


def _rel(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.abs(a - b).max() / max(1.0, np.abs(b).max()))


def _states(cd, seed: int, count: int = 4, reach: float = 0.5):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield rng.uniform(-reach, reach, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n)


def worst_error(ev: LoopEvaluator, cd: ClosedDynamics, seed: int = 1, reach: float = 0.5) -> float:
    """The largest relative difference of tau_a, M_a, G_a, h_a against the numeric projection."""
    err = 0.0
    for qa, qda, qdda in _states(cd, seed, reach=reach):
        err = max(err, _rel(ev.tau(qa, qda, qdda), cd.tau(qa, qda, qdda)), _rel(ev.M(qa), cd.M(qa)),
                  _rel(ev.G(qa), cd.G(qa)), _rel(ev.h(qa, qda), cd.h(qa, qda)))
    return err


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", CASES)
def test_the_closed_form_equals_the_numeric_projection(case, method):
    model = model_of(case)
    assert worst_error(LoopEvaluator(equations(case, method)), ClosedDynamics(model)) < 1e-9


@pytest.mark.parametrize("name", ["reversed:s0", "reversed:m1"])
def test_a_loop_named_from_the_ground(name):
    """Both passive joints on the loop's link_j side (tests/dynamics/test_closed_compact.py's case)."""
    from tests.dynamics.test_closed_compact import case
    model = case(name)
    eq = derive(model, "lagrange", form="closed")
    assert worst_error(LoopEvaluator(eq), ClosedDynamics(model), reach=0.3) < 1e-9


@pytest.mark.parametrize("method", METHODS)
def test_a_slider_crank_turned_by_gamma_has_the_textbooks_equations(method):
    """tests/dynamics/test_slider_crank.py's slider-crank (a passive prismatic joint on a branch turned by
    gamma): the printed closed form against the textbook's M, G and tau, written from its positions alone."""
    import math

    from tests.dynamics.test_slider_crank import _slider_crank, _textbook
    rng = np.random.default_rng(7)
    r = float(rng.uniform(0.05, 0.2))
    l = float(rng.uniform(2.5, 5.0)) * r
    m, izz = rng.uniform(0.2, 3.0, 3), rng.uniform(1e-4, 1e-2, 3)
    ev = LoopEvaluator(derive(_slider_crank(r, l, m, izz), method, form="closed"))
    for q in rng.uniform(-math.pi, math.pi, 3):
        phi, qd, qdd = q + math.pi / 2, rng.normal(), rng.normal()
        M, G = _textbook(phi, r, l, m, izz)
        dM = (_textbook(phi + 1e-4, r, l, m, izz)[0] - _textbook(phi - 1e-4, r, l, m, izz)[0]) / 2e-4
        qa = np.array([q])
        assert ev.M(qa)[0, 0] == pytest.approx(M, rel=1e-7, abs=1e-9)
        assert ev.G(qa)[0] == pytest.approx(G, rel=1e-7, abs=1e-8)
        assert ev.tau(qa, np.array([qd]), np.array([qdd]))[0] == pytest.approx(M * qdd + 0.5 * dM * qd * qd + G,
                                                                              rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("case", ["robot", "s0", "m1", "sm2", "mm3"])
def test_the_four_bars_printed_passive_positions_are_the_closures(case):
    ev = LoopEvaluator(equations(case, "lagrange"))
    cd = ClosedDynamics(model_of(case))
    for qa, _, _ in _states(cd, 2):
        wrapped = np.angle(np.exp(1j * (ev.formula_positions(qa) - cd.positions(qa)[cd.pas])))
        assert np.abs(wrapped).max() < 1e-9


def coriolis_matrix(ev: LoopEvaluator, qa, qda) -> np.ndarray:
    """C_ij = sum_k c_ijk qd_k from the printed B (c_ijk, j < k) and C (c_ijj)."""
    n = len(qa)
    B, C = ev.matrix("B", qa), ev.matrix("C", qa)
    c = np.zeros((n, n, n))
    pairs = [(j, k) for j in range(n) for k in range(j + 1, n)]
    for i in range(n):
        for j in range(n):
            c[i, j, j] = C[i, j]
        for col, (j, k) in enumerate(pairs):
            c[i, j, k] = c[i, k, j] = B[i, col]
    return np.einsum("ijk,k->ij", c, qda)


def skew_defect(ev: LoopEvaluator, cd: ClosedDynamics, seed: int = 3, eps: float = 1e-5) -> float:
    """max |S + S^T| / max |dM/dt| with S = dM_a/dt - 2 C_a, dM_a/dt by central differences along qd
    (each M_a from a fresh closure solve)."""
    worst = 0.0
    for qa, qda, _ in _states(cd, seed, 3):
        dM = (ev.M(qa + eps * qda) - ev.M(qa - eps * qda)) / (2 * eps)
        S = dM - 2 * coriolis_matrix(ev, qa, qda)
        worst = max(worst, float(np.abs(S + S.T).max() / max(1e-3, np.abs(dM).max())))
        assert _rel(coriolis_matrix(ev, qa, qda) @ qda, cd.h(qa, qda)) < 1e-9   # C qd = h
    return worst


@pytest.mark.parametrize("case", ["robot", "sm2", "mm3", "fixedcut", "slider"])
def test_mdot_minus_2c_is_skew(case):
    eq = equations(case, "lagrange")
    assert skew_defect(LoopEvaluator(eq), ClosedDynamics(model_of(case))) < 1e-7


def test_dropping_the_dw_term_is_caught():
    """With the loop's second derivatives dW set to 0 (the W' qd part of B and C dropped), the same
    checks fail: against the numeric projection and the skew symmetry."""
    eq = equations("mm3", "lagrange")
    loops = eq.extras["loop_quantities"]
    items = tuple(replace(it, value=sp.S.Zero) if it.kind == "dW" else it for it in loops.items)
    broken = replace(eq, extras={**eq.extras, "loop_quantities": replace(loops, items=items)})
    cd = ClosedDynamics(model_of("mm3"))
    assert worst_error(LoopEvaluator(broken), cd) > 1e-3
    with pytest.raises(AssertionError):
        skew_defect(LoopEvaluator(broken), cd)


@pytest.mark.parametrize("case", ["robot", "s0", "mm3"])
def test_lees_split_against_the_numeric_split(case):
    from designer.numeric.closed_terms import bodies_of, christoffel_symbols, kinematics
    ev = LoopEvaluator(equations(case, "dalembert"))
    cd = ClosedDynamics(model_of(case))
    bodies = bodies_of(cd)
    for qa, qda, _ in _states(cd, 4, 3):
        q = cd.positions(qa)
        W = cd.closure.W(q)[None]
        kin = kinematics(cd, bodies, q[None], W)
        G_tra, G_rot = christoffel_symbols(cd, bodies, kin, q[None], W)
        D_rot, D_tra = ev.matrix("D_rot", qa), ev.matrix("D_tra", qa)
        assert _rel(D_rot + D_tra, cd.M(qa)) < 1e-9
        assert _rel(D_tra, kin.D_tra[0]) < 1e-9 and _rel(D_rot, kin.D_rot[0]) < 1e-9
        H_tra, H_rot = ev.matrix("H_tra", qa, qda).ravel(), ev.matrix("H_rot", qa, qda).ravel()
        scale = max(1.0, np.abs(cd.h(qa, qda)).max())
        assert np.abs(H_tra - np.einsum("ijk,j,k->i", G_tra[0], qda, qda)).max() < 1e-9 * scale
        assert np.abs(H_rot - np.einsum("ijk,j,k->i", G_rot[0], qda, qda)).max() < 1e-9 * scale


def fd_W(cd, qa, eps=1e-6):
    return np.array([(cd.positions(qa + e) - cd.positions(qa - e)) / (2 * eps) for e in np.eye(cd.n) * eps]).T


@pytest.mark.parametrize("case", ["robot", "s0", "m1", "mm3", "slider"])
def test_newton_euler_tau_against_pinocchio(case):
    model = model_of(case)
    ev = LoopEvaluator(equations(case, "newton-euler"))
    cd, ref = ClosedDynamics(model), PinMechanism(model)
    for qa, qda, qdda in _states(cd, 5, 3):
        q, qd, qdd, _ = cd.state(qa, qda, qdda)
        expected = fd_W(cd, qa).T @ ref.rnea(q, qd, qdd)
        assert _rel(ev.tau(qa, qda, qdda), expected) < 1e-7


def test_the_json_reports_w_is_the_closures(capsys):
    """W as the JSON report prints it (parsed back, qp from the closure) against the numeric W."""
    from designer.cli import main
    path = robot_path("four_bar")
    assert main(["derive", str(path), "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    items = doc["loop_quantities"]
    assert [it["symbol"] for it in items][-3:] == ["W3_1", "dW2_1_1", "dW3_1_1"]
    assert set(doc["symbols"]["parameters"]) == {"L0", "L1", "L2", "L3", "g", "m1", "m2", "m3", "w"}
    model = load_project(path)
    cd = ClosedDynamics(model)
    names = doc["symbols"]["q"] + doc["symbols"]["parameters"] + [it["symbol"] for it in items]
    local = {name: sp.Symbol(name, real=True) for name in names}
    for qa, _, _ in _states(cd, 6, 3):
        q = cd.positions(qa)
        env = {local["q1"]: qa[0], local["qp2"]: q[1], local["qp3"]: q[2]}
        env.update({local[k]: v for k, v in model.parameter_values.items() if k in local})
        for it in items:
            if it["kind"] in ("d qp / d q_a", "det J_p", "second derivative of qp"):
                env[local[it["symbol"]]] = float(sp.sympify(it["value"], locals=local).xreplace(env))
        W = cd.closure.W(q)
        assert abs(env[local["W2_1"]] - W[1, 0]) < 1e-9 * max(1, abs(W[1, 0]))
        assert abs(env[local["W3_1"]] - W[2, 0]) < 1e-9 * max(1, abs(W[2, 0]))


@pytest.mark.parametrize("fmt, heading", [("markdown", "## Loop quantities"), ("latex", r"\section{Loop quantities}"),
                                          ("html", "<h2>Loop quantities</h2>")])
def test_every_report_defines_the_loop_quantities_above_the_matrices(fmt, heading):
    from designer.report import render
    text = render(equations("fixedcut", "lagrange"), fmt)
    assert heading in text and "from the closure, numerically" in text
    assert text.index(heading) < text.index("Equations of motion", text.index(heading))


def test_eval_form_closed_of_the_four_bar(tmp_path, capsys):
    from designer.cli import main
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": [0.4], "qd": [1.5], "qdd": [-0.3]},
                                             {"q": [2.5], "qd": [-0.7], "qdd": [0.9]}]}))
    cd = ClosedDynamics(load_project(robot_path("four_bar")))
    for method in METHODS:
        assert main(["eval", str(robot_path("four_bar")), "--states", str(states), "--form", "closed",
                     "--method", method, "--quiet"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["form"] == "closed" and doc["method"] == method
        for r, (qa, qda, qdda) in zip(doc["results"], (([0.4], [1.5], [-0.3]), ([2.5], [-0.7], [0.9]))):
            assert _rel(r["tau"], cd.tau(qa, qda, qdda)) < 1e-9 and _rel(r["M"], cd.M(qa)) < 1e-9


def test_the_palletizers_linear_closed_form_is_unchanged_by_the_nonlinear_one():
    """A parallelogram keeps its closed form in the actuated joints alone (no loop quantity), and it is
    still the numeric projection's."""
    model = load_project(robot_path("palletizer_parallelogram"))
    eq = derive(model)
    assert eq.form is Form.CLOSED and "loop_quantities" not in eq.extras
    c = eq.model
    allowed = {*c.q, *c.qd, *c.qdd} | {sp.Symbol(k, real=True) for k in model.parameter_values}
    assert eq.tau.free_symbols <= allowed
    assert worst_error(LoopEvaluator(eq), ClosedDynamics(model)) < 1e-9


def test_max_terms_limits_the_four_bars_closed_form(capsys):
    """--max-terms: auto gives the compact form and says why; closed refuses in one line."""
    from designer.cli import main
    path = str(robot_path("four_bar"))
    assert main(["derive", path, "--quiet", "--max-terms", "3"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["form"] == "compact" and "--max-terms 3" in err
    assert main(["derive", path, "--quiet", "--max-terms", "3", "--form", "closed"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "tau_1" in err and "--form compact" in err


def test_a_parameter_named_like_a_loop_quantity_is_refused_in_one_line(tmp_path, capsys):
    from designer.cli import main
    path = tmp_path / "clash.json"
    path.write_text(robot_path("four_bar").read_text().replace('"w"', '"detJp"').replace("w**2", "detJp**2"))
    assert main(["derive", str(path), "--form", "closed", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "detJp" in err and "rename it" in err


def test_a_cancel_stops_the_nonlinear_closed_form():
    from designer.dynamics import derive_job
    from designer.jobs import CancelToken, Cancelled, run
    token = CancelToken()

    def progress(p):
        if p.stage == "projection":
            token.cancel()
    with pytest.raises(Cancelled):
        run(derive_job(model_of("robot"), token=token, form="closed"), progress, token)
