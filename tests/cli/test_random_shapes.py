"""Random projects of every shape the format allows (tests/support/random_models.py: random_project), saved by the
project writer, through the command line: in process for many (validate, info, fk, eval, simulate, modes, review:
each exits 0, or 2 with one line naming what and where, never a traceback), as subprocesses for a few; eval's
numbers against Pinocchio, the compact form's and each derivation's closed form (Lagrange, Newton-Euler)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.cli import main
from designer.model import Convention
from designer.numeric.mechanism import load_dynamics
from designer.project.io import save_project
from tests.support import ROOT, examples
from tests.support.closed_reference import PinMechanism, closable_state, pin_actuated_terms, pin_tree_terms
from tests.support.random_models import Shapes, random_project

pytest.importorskip("pinocchio")
SEEDS = st.integers(0, 2**32 - 1)


def _run(capsys, *argv) -> tuple[int, str, str]:
    """One command in process: exit 0, or 2 with one line on standard error."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), code
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("error: "), err
    return code, out, err


def _project(tmp_path, model, name="p.json"):
    path = tmp_path / name
    save_project(model, path)
    return path


def _states_file(path, rng, n: int, count: int = 2, span: float = 0.05, model=None, dyn=None) -> list[dict]:
    """States (a closed chain's where its loops close: :func:`closable_state`) written as eval reads them."""
    def q():
        return closable_state(rng, model, dyn, span)[0] if model is not None and model.loops else \
            rng.uniform(-span, span, n)
    states = [{"q": q().tolist(), "qd": rng.normal(size=n).tolist(), "qdd": rng.normal(size=n).tolist()}
              for _ in range(count)]
    path.write_text(json.dumps({"states": states}))
    return states


def _reference(model, dyn, result, state) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pinocchio's M, G, h at an eval state: the tree's, or the actuated ones at the tree pose eval reports."""
    q, qd = np.array(state["q"]), np.array(state["qd"])
    if "q_tree" not in result:
        return pin_tree_terms(model, q, qd)
    return pin_actuated_terms(PinMechanism(model, exact_cuts=True), dyn, np.array(result["q_tree"]), qd)


def _check_eval(model, dyn, out: str, states, rtol: float) -> float:
    """eval's M, G, h against Pinocchio, and tau = M qdd + h + G: the worst relative error."""
    worst = 0.0
    for result, state in zip(json.loads(out)["results"], states):
        M_ref, G_ref, h_ref = _reference(model, dyn, result, state)
        for got, ref in ((result["M"], M_ref), (result["G"], G_ref), (result["h"], h_ref),
                         (result["tau"], M_ref @ state["qdd"] + h_ref + G_ref)):
            err = float(np.abs(np.array(got) - ref).max() / max(1.0, np.abs(ref).max()))
            assert err < rtol, (got, ref)
            worst = max(worst, err)
    return worst


@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=SEEDS)   # capsys: each command's output is read (and so cleared) after it
def test_random_projects_through_every_command(tmp_path_factory, capsys, seed):
    rng = np.random.default_rng(seed)
    tmp = tmp_path_factory.mktemp("cli")
    model = random_project(rng, Shapes.every(rng))
    project = _project(tmp, model)
    assert _run(capsys, "validate", project)[0] == 0
    code, out, _ = _run(capsys, "info", project)
    assert code == 0 and out.count("\n") >= model.n
    dyn = load_dynamics(model, springs=False)
    states = _states_file(tmp / "states.json", rng, dyn.n, model=model, dyn=dyn)
    q = [f"{v!r}" for v in states[0]["q"]]
    code, out, _ = _run(capsys, "fk", project, "--q", *q)
    assert code == 0 and json.loads(out)
    code, out, _ = _run(capsys, "eval", project, "--states", tmp / "states.json", "--quiet")
    assert code == 0
    _check_eval(model, dyn, out, states, 1e-8 if model.loops else 1e-10)
    code, _, err = _run(capsys, "simulate", project, "--q0", *q, "--t", "0.05", "--quiet", "--out", tmp / "run.csv")
    assert code == 0, err
    with open(tmp / "run.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) > 2 and all(np.isfinite(float(r["energy"])) for r in rows)
    code, out, err = _run(capsys, "modes", project, "--quiet")
    springs = any(link.drive is not None and link.drive.stiffness is not None and link.actuated
                  for link in model.links)
    if springs or any(link.part is not None for link in model.links):
        assert code == 0, err
        assert all(f > 0 for f in json.loads(out)["locked"]["frequency_hz"])
    else:
        assert code == 2 and "no actuated joint has a drive stiffness" in err
    code, out, err = _run(capsys, "review", project)
    if model.requirements.items:
        assert code == 0, err + out   # loose requirements: every one passes
        assert "light enough" in out
    else:
        assert code == 2 and "no requirements" in err


def test_a_tree_without_loops_evaluates_in_both_forms(tmp_path, capsys):
    """A tree (branches, gamma and b, a prismatic joint) without loops: eval's compact form (it said "a closed
    chain has no compact (recursive) form yet") and each method's closed form (a prismatic joint's unused
    cos/sin generators broke the closure check: TypeError) against Pinocchio."""
    rng = np.random.default_rng(6)
    model = random_project(rng, Shapes(joints="RP", convention=Convention.MODIFIED, branches=1, named=True,
                                       loads=True, offsets=True))
    assert not model.is_serial and not model.loops
    project = _project(tmp_path, model)
    dyn = load_dynamics(model)
    states = _states_file(tmp_path / "states.json", rng, model.n, span=2.0)
    code, out, err = _run(capsys, "eval", project, "--states", tmp_path / "states.json", "--quiet")
    assert code == 0, err
    _check_eval(model, dyn, out, states, 1e-10)
    for method in ("lagrange", "newton-euler"):
        code, out, err = _run(capsys, "eval", project, "--states", tmp_path / "states.json", "--form", "closed",
                              "--method", method, "--quiet")
        assert code == 0, err
        _check_eval(model, dyn, out, states, 1e-9)


SYMBOLIC = {"serial": Shapes(joints="PRP", named=True, loads=True, frames=True, degenerate=True),
            "tree": Shapes(joints="RR", branches=1, loads=True),
            "four-bar": Shapes(joints="R", loops=("R",), planar=True),
            "ball-cut": Shapes(joints="R", loops=("S",), planar=True)}


@pytest.mark.parametrize("kind", SYMBOLIC)
@pytest.mark.parametrize("method", ["lagrange", "newton-euler"])
def test_derived_equations_equal_pinocchio(tmp_path, capsys, kind, method):
    """Symbolic against numeric, computed independently: each derivation's closed form as printed (sympy, our
    DH) evaluated by eval --form closed, against Pinocchio's crba and rnea (its own kinematics from the DH
    numbers; a closed chain's constrained dynamics)."""
    rng = np.random.default_rng(list(SYMBOLIC).index(kind) + 11)
    model = random_project(rng, SYMBOLIC[kind])
    project = _project(tmp_path, model)
    dyn = load_dynamics(model)
    states = _states_file(tmp_path / "states.json", rng, dyn.n, span=0.1 if model.loops else 2.0, model=model,
                          dyn=dyn)
    code, out, err = _run(capsys, "eval", project, "--states", tmp_path / "states.json", "--form", "closed",
                          "--method", method, "--quiet")
    assert code == 0, err
    _check_eval(model, dyn, out, states, 1e-8 if model.loops else 1e-9)


KINDS = {"serial": Shapes(joints="RPRR", named=True, frames=True, limits=True, drives=True, parts=True, loads=True),
         "closed": Shapes(joints="RR", loops=("R", "F"), planar=True, branches=1),
         "elastic": Shapes(joints="RRR", elastic=True, drives=True, requirements=True)}


@pytest.mark.parametrize("kind", KINDS)
def test_commands_as_processes(tmp_path, kind):
    """python -m designer as a user runs it, one project of each kind: every command exits 0."""
    rng = np.random.default_rng(5)
    model = random_project(rng, KINDS[kind])
    project = _project(tmp_path, model)
    n = load_dynamics(model, springs=False).n
    _states_file(tmp_path / "states.json", rng, n)
    q = ["0.01"] * n
    commands = [["validate"], ["info"], ["fk", "--q", *q], ["eval", "--states", tmp_path / "states.json"],
                ["simulate", "--q0", *q, "--t", "0.05", "--out", tmp_path / "run.csv"], ["modes"]]
    if model.requirements.items:
        commands.append(["review"])
    for cmd in commands:
        done = subprocess.run([sys.executable, "-m", "designer", cmd[0], str(project), *map(str, cmd[1:])],
                              capture_output=True, text=True, cwd=ROOT, timeout=300)
        if cmd[0] == "modes" and kind == "closed" and not any(l.part for l in model.links):
            assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
            continue
        assert done.returncode == 0, (cmd, done.stderr)
        assert "Traceback" not in done.stderr


def _bodies(model, **fields):
    from dataclasses import replace
    return replace(model, links=tuple(replace(link, **fields) for link in model.links))


def _degenerate(kind: str):
    from dataclasses import replace

    from designer.model import Inertia
    model = random_project(np.random.default_rng(1), Shapes(joints="RRPR", offsets=False, elastic=True,
                                                            drives=True, loads=True))
    return {"zero inertia": lambda: _bodies(model, inertia=Inertia()),
            "1e-9 m links": lambda: _bodies(model, a=1e-9, d=1e-9),
            "1e6 kg links": lambda: _bodies(model, mass=1e6),
            "1e6 kg on 1e-9 m": lambda: _bodies(model, mass=1e6, a=1e-9, d=0, inertia=Inertia(1e-12, 1e-12, 1e-12)),
            "stretched out": lambda: _bodies(model, alpha=0, theta=0, d=0, a=0.5),   # planar, at a singular pose
            "zero masses": lambda: replace(_bodies(model, mass=0, inertia=Inertia(), com=(0, 0, 0)),
                                           point_masses=())}[kind]()


DEGENERATE = ["zero inertia", "1e-9 m links", "1e6 kg links", "1e6 kg on 1e-9 m", "stretched out", "zero masses"]


@pytest.mark.parametrize("kind", DEGENERATE)
def test_degenerate_but_legal_arms_give_results_or_one_message(tmp_path, capsys, kind):
    """fk, eval, simulate and modes on arms at the edges of the format: a result (eval's against Pinocchio) or, where
    none exists (a massless arm has no forward dynamics and no natural frequencies), one line saying so."""
    model = _degenerate(kind)
    project = _project(tmp_path, model)
    dyn = load_dynamics(model, springs=False)
    states = _states_file(tmp_path / "states.json", np.random.default_rng(2), model.n, span=1.0)
    states[0]["q"] = [0.0] * model.n
    (tmp_path / "states.json").write_text(json.dumps({"states": states}))
    assert _run(capsys, "fk", project, "--q", *["0"] * model.n)[0] == 0
    code, out, err = _run(capsys, "eval", project, "--states", tmp_path / "states.json", "--quiet")
    assert code == 0, err
    _check_eval(model, dyn, out, states, 1e-9)
    massless = kind == "zero masses"
    code, _, err = _run(capsys, "simulate", project, "--q0", *["0"] * model.n, "--t", "0.05", "--quiet",
                        "--out", tmp_path / "run.csv")
    assert code == (2 if massless else 0), err
    assert not massless or "mass matrix singular" in err
    code, out, err = _run(capsys, "modes", project, "--quiet")   # a traceback (LinAlgError) for the massless arm
    assert code == (2 if massless else 0), err
    if massless:
        assert "--q: the mass matrix is singular at q = [0.0, 0.0, 0.0, 0.0]" in err
    else:
        assert np.all(np.isfinite(json.loads(out)["locked"]["frequency_hz"]))


def test_a_four_bar_at_its_dead_centre(tmp_path, capsys):
    """Turned up to its dead centre (coupler and rocker in line; found by bisection on the numeric closure): just
    inside, fk, eval and simulate give results (eval's M_a symmetric positive definite); past it, each says in one
    line that the loop cannot close there, naming the loop and the actuated value."""
    from designer.kinematics.closure import ClosureError
    from tests.support.closed_reference import four_bar
    model = four_bar(np.random.default_rng(3))
    project = _project(tmp_path, model)
    inside, outside = 0.0, 3.0

    def closes(a: float) -> bool:
        follow = load_dynamics(model).following()
        try:
            for x in np.linspace(0.0, a, 50):
                follow.positions(np.array([x]))
        except ClosureError:
            return False
        return True
    assert not closes(outside)
    for _ in range(30):
        mid = 0.5 * (inside + outside)
        inside, outside = (mid, outside) if closes(mid) else (inside, mid)
    for q, ok in ((inside - 1e-4, True), (outside + 1e-3, False)):
        (tmp_path / "s.json").write_text(json.dumps({"states": [{"q": [q], "qd": [0.1], "qdd": [0.0]}]}))
        for argv in (["fk", project, "--q", repr(q)], ["eval", project, "--states", tmp_path / "s.json", "--quiet"],
                     ["simulate", project, "--q0", repr(q), "--t", "0.01", "--quiet", "--out", tmp_path / "r.csv"]):
            code, out, err = _run(capsys, *argv)
            if ok:
                assert code == 0, err
                if argv[0] == "eval":
                    M = np.array(json.loads(out)["results"][0]["M"])
                    assert M[0, 0] > 0
            else:
                assert code == 2 and "loops[1] (four-bar) cannot close" in err, err
