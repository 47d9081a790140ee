"""The compact (recursive) form of closed chains: the tree's recursion with the projection as steps.

Each quantity of the generated Python code (tau_a, M_a, G_a, h_a; passive positions computed in the
code from the linear closure or the four-bar's two circles, or given for a general loop) against two
independent sides: Pinocchio's rnea on the spanning tree at the loop-consistent state of the numeric
closure, projected by W from central differences of that closure, and the numeric projection
(designer.numeric.closed). Random four-bars (both conventions, flat and on a turning column),
parallelogram arms, slider-cranks (a prismatic passive joint) and four-bars cut at a fixed joint
(three passive joints) besides the bundled four-bar, palletizer and SR400.
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import replace

import numpy as np
import pytest

from designer.codegen.files import full_plan
from designer.codegen.python_code import emit_python
from designer.dynamics import derive
from designer.dynamics.closed_compact import closed_compact_equations_job
from designer.jobs import run
from designer.model import Convention, Link, Loop, Manipulator, Pose
from designer.numeric.closed import ClosedDynamics
from designer.project import load_project
from tests.support import robot_path
from tests.support.closed_reference import PinMechanism, _body, four_bar, parallelogram_arm

FUNCS = ("tau", "mass_matrix", "gravity", "bias")


def fixed_cut_four_bar(seed: int):
    """A random four-bar with a fourth, passive joint at the ground pin and the loop cut there as a
    fixed joint: three passive joints, no closed-form closure (the code takes them as inputs)."""
    m = four_bar(np.random.default_rng(seed), Convention.STANDARD)
    theta = sum(float(link.theta) for link in m.links)
    links = m.links + (Link(theta=-theta, actuated=False, mass=0.5, com=(0.05, 0.01, 0)),)
    return replace(m, links=links, loops=(replace(m.loops[0], link_i=4, joint="F"),), name="fixed-cut four-bar")


def slider_crank(seed: int):
    """A random slider-crank (modified convention): crank (actuated), connecting rod and a slider on a
    prismatic joint along the base's y axis (both passive), pinned by the cut joint: a prismatic passive
    joint, no closed-form closure."""
    rng = np.random.default_rng(seed)
    L1, L2 = rng.uniform(0.2, 0.4), rng.uniform(0.8, 1.2)
    s, phi = float(rng.uniform(-0.2, 0.2)), float(rng.uniform(-1, 1))
    B = L1 * np.array([math.cos(phi), math.sin(phi)])
    y = B[1] + math.sqrt(L2**2 - (s - B[0]) ** 2)      # the slider's pin on the rod's circle about B
    rod = math.atan2(y - B[1], s - B[0]) - phi
    links = (Link(theta=phi, **_body(rng, L1)), Link(a=L1, theta=rod, actuated=False, **_body(rng, L2)),
             Link(joint="P", parent=0, alpha=-math.pi / 2, a=s, d=y, actuated=False, **_body(rng, 0.2)))
    loop = Loop(2, 3, Pose((L2, 0, 0)), Pose((0, 0, 0), (math.pi / 2, 0, 0)), "R", "slider")
    return Manipulator(links=links, convention=Convention.MODIFIED, gravity=(0, -9.81, 0), loops=(loop,),
                       name="slider-crank")


def case(name: str):
    kind, _, rest = name.partition(":")
    if kind == "robot":
        return load_project(robot_path(rest))
    seed = int(rest[-1])
    conv = Convention.STANDARD if rest[0] == "s" else Convention.MODIFIED
    if kind in ("fourbar", "reversed"):
        m = four_bar(np.random.default_rng(seed), conv, mounted="m" in rest[1:])
        if kind == "fourbar":
            return m
        # the loop named from the ground: both passive joints on its link_j side
        lp = m.loops[0]
        return replace(m, loops=(Loop(lp.link_j, lp.link_i, lp.frame_j, lp.frame_i, lp.joint, "reversed"),))
    if kind == "parallelogram":
        return parallelogram_arm(np.random.default_rng(seed), conv, wrist=seed % 2 == 1)
    if kind == "slider":
        return slider_crank(seed)
    return fixed_cut_four_bar(seed)


# each kind of closure once per convention (a random case: its seed is the last digit; fourbar "m" in the
# name after the convention letter: mounted on a turning column)
CASES = ["robot:four_bar", "robot:palletizer_parallelogram", "robot:acma_sr400",
         "fourbar:s0", "fourbar:m1", "fourbar:sm2", "fourbar:mm3",
         "reversed:m1", "parallelogram:s0", "parallelogram:m1", "fixedcut:s0", "slider:m0"]


def module_of(model, tmp_path, name: str = "closed_code"):
    eq = run(closed_compact_equations_job(model))
    path = tmp_path / f"{name}.py"
    path.write_text(emit_python(full_plan(eq, "compact", only=FUNCS)), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return eq, mod


def fd_W(cd, qa, eps=1e-6):
    return np.array([(cd.positions(qa + e) - cd.positions(qa - e)) / (2 * eps) for e in np.eye(cd.n) * eps]).T


@pytest.mark.parametrize("name", CASES)
def test_generated_compact_code_matches_pinocchio_and_the_numeric_projection(name, tmp_path):
    model = case(name)
    eq, mod = module_of(model, tmp_path)
    cc = eq.extras["closed_compact"]
    cd = ClosedDynamics(model)
    ref = PinMechanism(model)
    n, rng = cd.n, np.random.default_rng(7)
    for _ in range(2):
        qa, qda, qdda = rng.uniform(-0.5, 0.5, n), rng.normal(size=n), rng.normal(size=n)
        q, qd, qdd, _ = cd.state(qa, qda, qdda)
        first = (qa, q[cd.pas]) if cc.closure == "input" else (qa,)
        W = fd_W(cd, qa)
        zero = np.zeros(cd.n_tree)
        G_tree = ref.rnea(q, zero, zero)
        # the velocity terms: the tree's bias with the passive joints' acceleration at qdd_a = 0
        _, _, qdd0, _ = cd.state(qa, qda, np.zeros(n))
        expected = {"tau": W.T @ ref.rnea(q, qd, qdd), "gravity": W.T @ G_tree,
                    "bias": W.T @ (ref.rnea(q, qd, qdd0) - G_tree),
                    "mass_matrix": W.T @ np.array([ref.rnea(q, zero, e) - G_tree for e in np.eye(cd.n_tree)]).T @ W}
        got = {"tau": mod.tau(*first, qda, qdda), "gravity": mod.gravity(*first), "bias": mod.bias(*first, qda),
               "mass_matrix": np.asarray(mod.mass_matrix(*first)).reshape(n, n)}
        numeric = {"tau": cd.tau(qa, qda, qdda), "gravity": cd.G(qa), "bias": cd.h(qa, qda), "mass_matrix": cd.M(qa)}
        for key in FUNCS:
            scale = max(1.0, float(np.abs(expected[key]).max()))
            # finite differences of the closure: W to about 1e-9
            assert np.abs(np.asarray(got[key]) - expected[key]).max() < 1e-6 * scale, key
            assert np.abs(np.asarray(got[key]) - numeric[key]).max() < 1e-10 * scale, key
        M = got["mass_matrix"]
        assert np.allclose(M, M.T) and np.linalg.eigvalsh(M).min() > 0


def test_the_four_bar_code_computes_its_passive_positions_on_the_nominal_branch(tmp_path):
    """The closed-form circles in the code give the numeric closure's passive angles (the same branch),
    through a full turn of a crank-rocker's crank (angles compared modulo 2 pi)."""
    model = load_project(robot_path("four_bar"))
    eq = run(closed_compact_equations_job(model))
    cc = eq.extras["closed_compact"]
    assert cc.closure == "four-bar"
    rf = eq.extras["recursive"]
    cd = ClosedDynamics(model)
    follow = cd.following()
    for angle in np.linspace(0, 2 * np.pi, 9):
        q = follow.positions(np.array([angle]))
        tau = steps_value(model, rf, [angle], [0.3], [0.0])   # the report's steps evaluate in order
        expected = follow.tau(np.array([angle]), np.array([0.3]), np.zeros(1))
        assert abs(tau - expected[0]) < 1e-9 * max(1.0, abs(expected[0]))
        qp = [env_value for s, env_value in steps_env(model, rf, [angle], [0.3], [0.0]).items()
              if s.name in ("qp2", "qp3")]
        assert np.allclose(np.angle(np.exp(1j * (np.array(qp, dtype=float) - q[cd.pas]))), 0, atol=1e-9)


def steps_env(model, rf, q, qd, qdd) -> dict:
    import sympy as sp
    c = rf.model
    env = {s: sp.Float(v) for s, v in zip(list(c.q) + list(c.qd) + list(c.qdd), [*q, *qd, *qdd])}
    env.update(model.substitutions())
    for a in rf.assignments:
        env[a.symbol] = a.value.xreplace(env).evalf()
    return env


def steps_value(model, rf, q, qd, qdd) -> float:
    return float(rf.tau[0].xreplace(steps_env(model, rf, q, qd, qdd)))


@pytest.mark.parametrize("name", ["puma560_three_link", "stanford_modified"])
def test_a_serial_arm_given_as_a_tree_has_the_serial_recursive_torques(name):
    """tree_recursion on a serial chain is customized._tau (the same joint frames; both conventions,
    a prismatic joint)."""
    import sympy as sp

    from designer.dynamics.customized import custom_tau
    from designer.dynamics.tree_recursion import tree_joints, tree_tau_named
    from designer.model.angles import exact_angles
    model = exact_angles(load_project(robot_path(name))).model
    tau = tree_tau_named(model, tree_joints(model, model.q), model.qd, model.qdd)
    args = list(model.q) + list(model.qd) + list(model.qdd)
    subs = model.substitutions()
    x = np.random.default_rng(0).normal(size=len(args))
    a = np.array(sp.lambdify(args, [t.xreplace(subs) for t in tau])(*x), dtype=float)
    b = np.ravel(np.array(sp.lambdify(args, custom_tau(model).xreplace(subs))(*x), dtype=float))
    assert np.abs(a - b).max() < 1e-10 * max(1.0, np.abs(b).max())


def test_derive_forms_of_closed_chains():
    """compact: any closed chain; auto and closed: the closed form (a four-bar's in loop quantities,
    dynamics/closed_nonlinear.py); auto within the time limit, else compact saying why."""
    from designer.dynamics.results import Form
    four = load_project(robot_path("four_bar"))
    pal = load_project(robot_path("palletizer_parallelogram"))
    assert derive(four, form="compact").form is Form.COMPACT
    auto = derive(four)
    assert auto.form is Form.CLOSED and "loop_quantities" in auto.extras
    assert derive(four, form="closed").form is Form.CLOSED
    slow = derive(four, time_limit=1e-9)
    assert slow.form is Form.COMPACT and "too_slow" in slow.extras
    assert derive(pal).form is Form.CLOSED and "loop_quantities" not in derive(pal).extras
    assert "closed_compact" in derive(pal, form="compact").extras


def test_compiled_compact_form_evaluates_many_states():
    """compile_equations on a four-bar's compact form (parameters written in as numbers): tau and M of
    many states at once, against the numeric projection; a loop whose passive positions are inputs is
    refused (its functions take qp)."""
    from designer.numeric.compiled import compile_equations
    model = load_project(robot_path("four_bar"))
    compiled = compile_equations(derive(model, form="compact"))
    with pytest.raises(ValueError, match="loop quantities"):
        compile_equations(derive(model))   # the closed form reads qp, W, dW: refused in one line
    cd = ClosedDynamics(model)
    rng = np.random.default_rng(12)
    Q, QD, QDD = rng.uniform(-1, 1, (3, 6, 1))
    tau, M = compiled.tau_many(Q, QD, QDD), compiled.M_many(Q)
    for k in range(6):
        assert np.allclose(tau[k], cd.tau(Q[k], QD[k], QDD[k]), rtol=1e-10, atol=1e-12)
        assert np.allclose(M[k], cd.M(Q[k]), rtol=1e-10, atol=1e-14)
    with pytest.raises(ValueError, match="qp"):
        compile_equations(derive(fixed_cut_four_bar(0), form="compact"))


@pytest.mark.parametrize("stage", ["loop Jacobian", "tree recursion", "mass matrix"])
def test_a_cancel_stops_the_compact_form_at_each_stage(stage):
    from designer.dynamics import derive_job
    from designer.jobs import CancelToken, Cancelled
    token = CancelToken()

    def progress(p):
        if p.stage == stage:
            token.cancel()
    with pytest.raises(Cancelled):
        run(derive_job(load_project(robot_path("four_bar")), token=token, form="compact"), progress, token)
