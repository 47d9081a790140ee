"""Arms that users bring: derivations that never blow up, code that never nests too deep, exact
angles read from floats, the recursive form as a report. Every number is checked against
Pinocchio (rnea, crba) on the same DH table."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import sympy as sp

from tests.support.codegen import generate
from designer.codegen.bounded import MAX_ARGS, MAX_DEPTH, nesting
from designer.codegen.plan import plan_code
from designer.dynamics import ExpansionTooLarge, Form, Method, derive
from designer.dynamics.engine import compact_equations_job
from designer.jobs import CancelToken, Cancelled, run
from designer.model import Convention, Inertia, Link, Manipulator, PointMass
from designer.model.angles import exact_angle, exact_angles
from designer.numeric.compiled import compile_equations
from designer.report import render

from tests.support.anyarm_arms import P, R, generic_arm, kr5, panda, symbolic_arm
from tests.support.dyn_reference import pin_model, pin_rnea_crba

pin = pytest.importorskip("pinocchio")


def _assert_matches_pinocchio(model: Manipulator, cd, seed: int, states: int = 3) -> None:
    pm = pin_model(model)
    data = pm.createData()
    rng = np.random.default_rng(seed)
    for _ in range(states):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, model.n))
        tau, M = pin_rnea_crba(pm, q, qd, qdd)
        G = pin.computeGeneralizedGravity(pm, data, q)
        h = pin.rnea(pm, data, q, qd, np.zeros(model.n)) - G
        for got, want in ((cd.tau(q, qd, qdd), tau), (cd.M(q), M), (cd.G(q), G), (cd.h(q, qd), h),
                          (cd.tau_many(q[None], qd[None], qdd[None])[0], tau), (cd.M_many(q[None])[0], M)):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(want).max()))


def _eval(model: Manipulator, method: Method):
    """What ``eval --method`` runs (designer.numeric.evaluable.compiled_equations): the compact graphs of
    the method, compiled."""
    return compile_equations(run(compact_equations_job(model, method)))


def _random_arm(rng, n: int) -> Manipulator:
    """Both conventions, R and P, twists and offsets anywhere (some exactly k pi/2 as floats),
    full inertias, point loads."""
    def angle():
        return float(rng.integers(-2, 3) * math.pi / 2) if rng.random() < 0.3 else float(rng.uniform(-math.pi, math.pi))

    def inertia():
        d = rng.uniform(0.05, 0.5, 3)
        d[2] = rng.uniform(abs(d[0] - d[1]) + 0.01, d[0] + d[1])
        Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        I = Q @ np.diag(d) @ Q.T
        return Inertia(I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2])
    links = tuple(Link(R if rng.random() < 0.7 else P, a=float(rng.uniform(-0.5, 0.5)), alpha=angle(),
                       d=float(rng.uniform(-0.3, 0.3)), theta=angle(), mass=float(rng.uniform(0.5, 4)),
                       com=tuple(rng.uniform(-0.2, 0.2, 3)), inertia=inertia()) for _ in range(n))
    loads = tuple(PointMass(int(k) + 1, float(rng.uniform(0.1, 2)), tuple(rng.uniform(-0.3, 0.3, 3)))
                  for k in rng.choice(n, size=min(2, n), replace=False))
    g = rng.normal(size=3)
    return Manipulator(links=links, convention=Convention.STANDARD if rng.random() < 0.5 else Convention.MODIFIED,
                       gravity=tuple(9.81 * g / np.linalg.norm(g)), point_masses=loads, name="random")


@pytest.mark.slow
def test_random_arms_compiled_compact_form_matches_pinocchio():
    """24 random arms (2 to 8 joints), each one's compact form compiled (as ``torques --method`` and the window's
    compiled functions run it) against Pinocchio. The compact form is the same recursive graphs for every method,
    so the methods take turns; most of the time is the compiler's (1.3 to 4.6 s an arm), and the numeric engine
    that ``eval`` runs is checked on random arms apart (tests/cli/test_eval_forms.py). Fifty arms took 4 minutes
    of one core, past ten on a busy machine."""
    rng = np.random.default_rng(2024)
    methods = list(Method)
    for k in range(24):
        model = _random_arm(rng, int(rng.integers(2, 9)))
        _assert_matches_pinocchio(model, _eval(model, methods[k % 3]), seed=k, states=2)


@pytest.mark.slow
@pytest.mark.parametrize("float_twists", [True, False])
@pytest.mark.parametrize("arm", [kr5, panda])
def test_kr5_and_panda_match_pinocchio(arm, float_twists):
    model = arm(float_twists)
    _assert_matches_pinocchio(model, _eval(model, Method.NEWTON_EULER), seed=3)


def test_float_twists_derive_as_the_exact_ones():
    """1.5707963267948966 is read as pi/2: the same code as for the table written with pi."""
    as_floats, exact = plan_code(derive(kr5(True), form=Form.COMPACT)), plan_code(derive(kr5(False), form=Form.COMPACT))
    assert [f.operations for f in as_floats.functions] == [f.operations for f in exact.functions]
    notes = exact_angles(kr5(True)).notes()
    assert "links[1].alpha = -1.5707963267948966 read as -pi/2" in notes and len(notes) == 5  # alpha_2 is 0


@pytest.mark.parametrize("value, expected", [(1.5707963267948966, sp.pi / 2), (-3.141592653589793, -sp.pi),
                                             (0.5235987755982988, sp.pi / 6), (1.5707963267948, None),
                                             (0.1, None), (1.0, None)])
def test_exact_angle(value, expected):
    assert exact_angle(sp.Float(value)) == expected


SEVEN = [  # joint, a, alpha, d, theta (modified DH), mass, com, inertia (xx, yy, zz, xy, xz, yz)
    ("R", 0.0, 0.0, 0.30, 0.2, 3.0, (0.01, 0.02, -0.1), (0.05, 0.04, 0.02, 0.002, -0.001, 0.003)),
    ("R", 0.05, -1.2, 0.0, -0.4, 2.5, (0.1, -0.02, 0.01), (0.03, 0.05, 0.04, -0.004, 0.002, 0.001)),
    ("P", 0.30, 0.7, 0.1, 0.9, 2.0, (0.0, 0.05, 0.1), (0.04, 0.03, 0.02, 0.001, 0.0, -0.002)),
    ("R", -0.1, 1.5707963267948966, 0.25, 0.0, 1.5, (0.02, 0.0, 0.05), (0.02, 0.02, 0.01, 0.0, 0.001, 0.0)),
    ("R", 0.0, -2.1, 0.0, 1.3, 1.2, (-0.03, 0.04, 0.0), (0.01, 0.015, 0.012, 0.001, -0.002, 0.0005)),
    ("R", 0.08, 0.4, -0.05, -2.2, 0.8, (0.0, -0.01, 0.03), (0.005, 0.006, 0.004, 0.0, 0.0003, -0.0002)),
    ("R", 0.0, 3.141592653589793, 0.1, 0.6, 0.4, (0.01, 0.01, 0.02), (0.002, 0.002, 0.001, 0.0001, 0.0, 0.0)),
]


def _seven() -> Manipulator:
    links = tuple(Link(R if j == "R" else P, a=a, alpha=al, d=d, theta=th, mass=m, com=c, inertia=Inertia(*i))
                  for j, a, al, d, th, m, c, i in SEVEN)
    return Manipulator(links=links, name="seven", convention=Convention.MODIFIED, gravity=(0, 0, -9.81),
                       point_masses=(PointMass(7, 0.6, (0.0, 0.02, 0.08)),))


@pytest.mark.slow
def test_seven_joint_arm_eval_from_the_command_line(tmp_path, capsys):
    from designer.cli import main
    from designer.project.io import save_project
    model = _seven()
    save_project(model, tmp_path / "seven.json")
    rng = np.random.default_rng(11)
    states = [dict(zip(("q", "qd", "qdd"), rng.uniform(-2, 2, (3, 7)).tolist())) for _ in range(3)]
    (tmp_path / "states.json").write_text(json.dumps({"states": states}))
    pm = pin_model(model)
    for method in Method:
        assert main(["eval", str(tmp_path / "seven.json"), "--states", str(tmp_path / "states.json"),
                     "--method", method.value]) == 0
        results = json.loads(capsys.readouterr().out)["results"]
        for s, r in zip(states, results):
            tau, M = pin_rnea_crba(pm, *(np.array(s[k]) for k in ("q", "qd", "qdd")))
            np.testing.assert_allclose(r["tau"], tau, rtol=1e-10, atol=1e-10 * np.abs(tau).max())
            np.testing.assert_allclose(r["M"], M, rtol=1e-10, atol=1e-10 * np.abs(M).max())


@pytest.mark.slow
def test_twelve_joints_evaluate_and_generate_bounded_code(tmp_path):
    model = generic_arm(12, seed=8, joints="RRPRRRRPRRRR")
    eq = derive(model, Method.LAGRANGE)  # auto: far too large to expand, so the recursive form
    assert eq.form is Form.COMPACT
    cd = compile_equations(eq)
    _assert_matches_pinocchio(model, cd, seed=12, states=1)
    for f in cd.plan.functions:
        for e in [v for _, v in f.temps] + [v for _, v in f.outputs]:
            depth, width = nesting(sp.sympify(e))
            assert depth <= MAX_DEPTH + 1 and width <= MAX_ARGS
    c_source = generate(eq, "c")
    (tmp_path / "arm.c").write_text(c_source)
    import shutil
    import subprocess
    if shutil.which("gcc"):
        run = subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-c", str(tmp_path / "arm.c"), "-o",
                              str(tmp_path / "arm.o")], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr


def test_long_sums_are_split_into_partial_results():
    """A closed form of thousands of terms: printed on one line, Python's compiler overflows."""
    from sympy.printing.pycode import PythonCodePrinter
    from designer.codegen.bounded import bound_nesting
    x, y = sp.symbols("x y")
    huge = sp.Add(*[sp.Float(k + 1) * sp.cos(sp.Float(k) * x) * sp.sin(y) for k in range(5000)])
    printer = PythonCodePrinter({"fully_qualified_modules": True, "order": "none"})
    with pytest.raises(RecursionError):
        compile(f"out = {printer.doprint(huge)}", "<one line>", "exec")
    temps, (out,) = bound_nesting([], [huge], sp.numbered_symbols("t"))
    lines = [f"{s} = {printer.doprint(v)}" for s, v in temps] + [f"out = {printer.doprint(out)}"]
    space = {"x": 0.3, "y": -0.7}
    exec(compile("import math\n" + "\n".join(lines), "<split>", "exec"), space)
    want = sum((k + 1) * math.cos(k * 0.3) * math.sin(-0.7) for k in range(5000))
    assert space["out"] == pytest.approx(want, rel=1e-12)
    assert all(nesting(v)[1] <= MAX_ARGS for _, v in temps)


def test_closed_form_asked_for_beyond_the_limit_names_the_entry():
    """Every parameter a symbol: nothing merges, the estimate (4e12 terms) refuses before expanding."""
    expected = r"the expanded tau_\d has about \S+ terms \(limit 1,000,000,000\); show the recursive form instead\?"
    with pytest.raises(ExpansionTooLarge, match=expected):
        derive(symbolic_arm(7), Method.NEWTON_EULER, form=Form.CLOSED)
    assert derive(symbolic_arm(7), Method.DALEMBERT).form is Form.COMPACT  # auto


def test_cancel_stops_the_recursive_form():
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        derive(generic_arm(7), token=token)


@pytest.mark.slow
def test_recursive_report_evaluates_in_printed_order():
    """The JSON report's assignments, parsed and evaluated line by line, give Pinocchio's tau."""
    model = _seven()
    eq = derive(model, Method.LAGRANGE, form=Form.COMPACT)
    doc = json.loads(render(eq, "json"))
    local = {n: sp.Symbol(n, real=True) for n in doc["symbols"]["q"] + doc["symbols"]["qd"] + doc["symbols"]["qdd"]}
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.uniform(-2, 2, (3, 7))
    env = {local[f"q{k + 1}"]: q[k] for k in range(7)}
    env.update({local[f"qd{k + 1}"]: qd[k] for k in range(7)})
    env.update({local[f"qdd{k + 1}"]: qdd[k] for k in range(7)})
    for a in doc["assignments"]:
        sym = local.setdefault(a["name"], sp.Symbol(a["name"], real=True))
        value = sp.sympify(a["value"], locals=local).xreplace(env)
        assert not value.free_symbols, a["name"]  # only names defined above
        env[sym] = float(value)
    tau = [float(sp.sympify(t, locals=local).xreplace(env)) for t in doc["tau"]]
    want, _ = pin_rnea_crba(pin_model(model), q, qd, qdd)
    np.testing.assert_allclose(tau, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())
    assert len(doc["assignments"]) < 250  # a few pages
    from designer.report.printing import to_latex
    for fmt, name in (("markdown", "w2_x ="), ("html", "w2_x ="), ("latex", to_latex(sp.Symbol("w2_x")) + " &=")):
        text = render(eq, fmt)
        assert name in text and text.count("\n") < 400
