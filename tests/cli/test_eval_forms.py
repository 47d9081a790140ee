"""``eval --form`` and ``torques --form``: compact (the recursive graphs, the same for every method)
or closed (the matrices the method's report prints, evaluated as printed). The closed numbers are
checked against the report itself (its JSON matrices read back and combined by the form it states),
against Pinocchio, and shown to come from the method's own result, not from the shared graph."""

from __future__ import annotations

import csv
import json
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from designer.cli import main
from designer.model import Convention
from designer.project import load_project, save_project

from tests.dynamics.test_closed_forms import with_symbols
from tests.support import ROBOTS, serial_robots
from tests.support.dyn_reference import pin_model, pin_rnea_crba
from tests.support.random_models import random_model

pin = pytest.importorskip("pinocchio")

METHODS = ("lagrange", "newton-euler", "dalembert")


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _states(tmp_path, n: int, count: int = 3, seed: int = 0) -> tuple[str, list[dict]]:
    rng = np.random.default_rng(seed)
    states = [{k: rng.uniform(-2, 2, n).tolist() for k in ("q", "qd", "qdd")} for _ in range(count)]
    path = tmp_path / "states.json"
    path.write_text(json.dumps({"states": states}))
    return str(path), states


def _eval(capsys, project, states_path, *options) -> dict:
    code, out, err = _run(capsys, "eval", project, "--states", states_path, "--quiet", *options)
    assert code == 0, err
    return json.loads(out)


def _pinocchio(model, st) -> dict:
    pm = pin_model(model)
    data = pm.createData()
    q, qd, qdd = (np.array(st[k]) for k in ("q", "qd", "qdd"))
    tau, M = pin_rnea_crba(pm, q, qd, qdd)
    G = pin.computeGeneralizedGravity(pm, data, q)
    return {"tau": tau, "M": M, "G": G, "h": pin.rnea(pm, data, q, qd, np.zeros_like(q)) - G}


def _close(got, want, rtol) -> bool:
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    return bool(np.max(np.abs(got - want)) <= rtol * max(1.0, np.max(np.abs(want))))


_PARSED: dict = {}


def _entry(text: str, local: dict) -> sp.Expr:
    """A report entry read back with the report's symbols (parsed once: the Newton-Euler tau is long)."""
    if text not in _PARSED:
        _PARSED[text] = sp.sympify(text, locals=local)
    return _PARSED[text]


def _values(doc: dict, st: dict, local: dict) -> dict:
    sym = doc["symbols"]
    values = {local[k]: v for k, v in doc["parameters"].items() if k in local}
    values.update({local[name]: x for key in ("q", "qd", "qdd") for name, x in zip(sym[key], st[key])})
    return values


def _from_report(doc: dict, st: dict) -> dict:
    """tau, M, G, h from the report's printed matrices, combined by the form the report states."""
    sym = doc["symbols"]
    local = {name: sp.Symbol(name, real=True) for name in sym["q"] + sym["qd"] + sym["qdd"] + sym["parameters"]}
    values = _values(doc, st, local)

    def mat(name):
        entries = doc["matrices"][name]["entries"]
        return np.array([[float(_entry(e, local).xreplace(values)) for e in row] for row in entries],
                        dtype=float).reshape(doc["matrices"][name]["shape"])
    qd, qdd = np.array(st["qd"]), np.array(st["qdd"])
    n = len(qd)
    if doc["method"] == "lagrange":
        assert doc["form"] == "tau = M*qdd + 2*B*velocity_products + C*velocity_squares + G"
        products = np.array([qd[j] * qd[k] for j in range(n) for k in range(j + 1, n)])
        M, G = mat("M"), mat("G")[:, 0]
        h = 2 * mat("B") @ products + mat("C") @ qd**2 if n > 1 else mat("C") @ qd**2
    elif doc["method"] == "dalembert":
        assert doc["form"] == "tau = (D_rot + D_tra)*qdd + H_rot + H_tra + G"
        M, G = mat("D_rot") + mat("D_tra"), mat("G")[:, 0]
        h = mat("H_rot")[:, 0] + mat("H_tra")[:, 0]
    else:   # tau alone: M column by column from its values (tau is linear in qdd)
        def tau(qd_, qdd_):
            return _tau_at(doc, {**st, "qd": list(qd_), "qdd": list(qdd_)}, local)
        G = tau(np.zeros(n), np.zeros(n))
        h = tau(qd, np.zeros(n)) - G
        M = np.column_stack([tau(np.zeros(n), e) - G for e in np.eye(n)])
    return {"tau": M @ qdd + h + G, "M": M, "G": G, "h": h}


def _tau_at(doc, st, local) -> np.ndarray:
    values = _values(doc, st, local)
    return np.array([float(_entry(row[0], local).xreplace(values)) for row in doc["matrices"]["tau"]["entries"]])


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_closed_evaluates_the_report_and_agrees_with_pinocchio(tmp_path, capsys, method):
    """A random 3-joint arm with symbols for its lengths and masses: eval --form closed gives the
    numbers of the report 'derive --form closed' writes, read back from its JSON, and Pinocchio's."""
    convention = list(Convention)[METHODS.index(method) % 2]
    model = with_symbols(random_model(np.random.default_rng(11), 3, convention))
    project = tmp_path / "arm.json"
    save_project(model, project)
    states_path, states = _states(tmp_path, 3)
    code, out, err = _run(capsys, "derive", project, "--method", method, "--form", "closed", "--format", "json",
                          "--quiet")
    assert code == 0, err
    report = json.loads(out)
    result = _eval(capsys, project, states_path, "--method", method, "--form", "closed")
    assert (result["method"], result["form"], result["simplify"]) == (method, "closed", "fast")
    for res, st in zip(result["results"], states):
        printed, reference = _from_report(report, st), _pinocchio(load_project(project), st)
        for key in ("tau", "M", "G", "h"):
            assert _close(res[key], printed[key], 1e-12), (key, res[key], printed[key])
            assert _close(res[key], reference[key], 1e-9), (key, res[key], reference[key])


@pytest.mark.parametrize("method", METHODS)
def test_closed_is_the_methods_own_result_not_the_shared_graph(tmp_path, capsys, monkeypatch, method):
    """Change one printed matrix of the method's result: --form closed moves with it, compact does not."""
    import designer.cli.derivation as commands
    project = str(ROBOTS / "double_pendulum.json")
    states_path, _ = _states(tmp_path, 2, count=1)
    before = {form: _eval(capsys, project, states_path, "--method", method, "--form", form)["results"][0]
              for form in ("compact", "closed")}
    changed = {"lagrange": "G", "newton-euler": "tau", "dalembert": "G"}[method]
    derive_closed = commands.derive_closed

    def tampered(*args, **kwargs):
        eq = derive_closed(*args, **kwargs)
        mats = dict(eq.matrices)
        mats[changed] = mats[changed] + sp.ones(*mats[changed].shape)   # one more N m in every entry
        return replace(eq, matrices=mats)
    monkeypatch.setattr(commands, "derive_closed", tampered)
    after = {form: _eval(capsys, project, states_path, "--method", method, "--form", form)["results"][0]
             for form in ("compact", "closed")}
    assert after["compact"] == before["compact"]
    for key, shift in (("tau", 1.0), ("G", 1.0), ("h", 0.0)):
        assert np.allclose(np.array(after["closed"][key]) - before["closed"][key], shift, atol=1e-12), key
    assert np.allclose(after["closed"]["M"], before["closed"]["M"], atol=1e-12)


def test_compact_is_the_default_and_says_so(tmp_path, capsys):
    project = str(ROBOTS / "double_pendulum.json")
    states_path, _ = _states(tmp_path, 2, count=1)
    results = [_eval(capsys, project, states_path, "--method", m) for m in METHODS]
    assert all(r["form"] == "compact" and "simplify" not in r for r in results)
    assert results[0]["results"] == results[1]["results"] == results[2]["results"]   # one graph for all
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    assert "changes nothing" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("seed, joints", [(1, "RRPR"), (2, "RPRRRR")])
def test_compact_is_the_numeric_engine_and_agrees_with_pinocchio_and_the_compiled_form(
        monkeypatch, tmp_path, capsys, seed, joints):
    """Random serial arms (R and P joints, loads, base and tool frames): eval's numbers come from the numeric
    engine without compiling the symbolic form (a 30-link arm's took 28 s; compiling is refused here), and equal
    Pinocchio's and the compiled recursive form's (the symbolic path, computed apart)."""
    import designer.numeric.evaluable as evaluable
    from designer.numeric.evaluable import compiled_equations
    from tests.support.random_models import Shapes, random_project
    model = random_project(np.random.default_rng(seed), Shapes(joints=joints, loads=True, frames=seed % 2 == 0))
    project = tmp_path / "arm.json"
    save_project(model, project)
    model = load_project(project)
    states_path, states = _states(tmp_path, model.n, seed=seed)

    def refused(*args, **kwargs):
        raise AssertionError("eval compiled the symbolic form to give numbers")
    monkeypatch.setattr(evaluable, "compiled_equations", refused)
    result = _eval(capsys, project, states_path)
    assert (result["method"], result["form"]) == ("lagrange", "compact")
    compiled = compiled_equations(model, "lagrange")
    for res, st in zip(result["results"], states):
        q, qd, qdd = (np.array(st[k]) for k in ("q", "qd", "qdd"))
        own = {"tau": compiled.tau(q, qd, qdd), "M": compiled.M(q), "G": compiled.G(q), "h": compiled.h(q, qd)}
        reference = _pinocchio(model, st)
        for key in ("tau", "M", "G", "h"):
            assert _close(res[key], reference[key], 1e-9), (key, res[key], reference[key])
            assert _close(res[key], own[key], 1e-9), key


@pytest.mark.slow
@pytest.mark.parametrize("robot", [p.stem for p in serial_robots()])
def test_closed_forms_of_the_seed_examples_agree_with_pinocchio(tmp_path, capsys, robot):
    project = ROBOTS / f"{robot}.json"
    model = load_project(project)
    states_path, states = _states(tmp_path, model.n, count=2, seed=len(robot))
    for method in METHODS:
        result = _eval(capsys, project, states_path, "--method", method, "--form", "closed")
        for res, st in zip(result["results"], states):
            reference = _pinocchio(model, st)
            for key in ("tau", "M", "G", "h"):
                assert _close(res[key], reference[key], 1e-9), (method, key)


def test_torques_closed_agrees_with_pinocchio_and_rnea_has_no_closed_form(tmp_path, capsys):
    project = str(ROBOTS / "puma560_three_link.json")
    model = load_project(project)
    rng = np.random.default_rng(3)
    rows = rng.uniform(-2, 2, (4, 3 * model.n))
    path = tmp_path / "traj.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow([f"{p}{j}" for p in ("q", "qd", "qdd") for j in range(1, model.n + 1)])
        w.writerows(rows.tolist())
    code, out, err = _run(capsys, "torques", project, path, "--method", "dalembert", "--form", "closed", "--quiet")
    assert code == 0, err
    assert "method dalembert (closed form)" in err
    got = np.array([[float(v) for v in r] for r in list(csv.reader(out.splitlines()))[1:]])
    n = model.n
    for row, tau in zip(rows, got):
        want = _pinocchio(model, {"q": row[:n], "qd": row[n:2 * n], "qdd": row[2 * n:]})["tau"]
        assert _close(tau, want, 1e-9)
    code, _, err = _run(capsys, "torques", project, path, "--form", "closed")
    assert code == 2 and "rnea is numeric and has no closed form" in err


def test_a_closed_form_over_the_limit_says_so_once(tmp_path, capsys):
    """derive_closed's own message (the limit that stopped the closed form) reaches the user with one prefix."""
    project = str(ROBOTS / "puma560_three_link.json")
    states, _ = _states(tmp_path, 3, count=1)
    code, _, err = _run(capsys, "eval", project, "--states", states, "--form", "closed", "--max-terms", "1",
                        "--quiet")
    assert code == 2
    assert "--max-terms to raise the limit" in err
    assert err.count(project) == 1 and "cannot derive the equations" not in err
