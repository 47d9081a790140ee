"""codegen of linearly closing closed chains (parallelograms): every function in C, Python and MATLAB.

The reference is Pinocchio's rnea of the spanning tree (tests/support/closed_reference.py, built
independently of designer.kinematics and designer.numeric) at loop-consistent states, projected by
W from central differences of the numeric closure; the drive terms by the same W from the project's
drive data in the test (W^T diag(N^2 Jm) W, W^T (b W qd + fc sign(W qd))); the physical laws of the
Coriolis matrix (C qd = h, M' - 2C skew); the regressor Y_a against tau_a = Y_a pi and the numeric
W^T Y_tree (designer/identification/regressor.py, itself tested against Pinocchio's regressor).
"""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess
from dataclasses import replace

import numpy as np
import pytest

from designer.cli import main
from designer.dynamics.inertial import drive_parameter_values
from designer.model import Convention, Drive
from designer.model.drives import drive_arrays
from designer.numeric.closed import ClosedDynamics
from designer.identification.regressor import Regressor
from designer.project import load_project, save_project
from tests.support import robot_path
from tests.support.closed_reference import PinMechanism, parallelogram_arm

pytest.importorskip("pinocchio")


def with_random_drives(model, rng):
    """Drive data on a random half of the tree's joints, passive ones included (a bearing's friction,
    a rotor on a passive joint: both project through W)."""
    links = list(model.links)
    for i in rng.choice(len(links), size=max(2, len(links) // 2), replace=False):
        links[i] = replace(links[i], drive=Drive(gear_ratio=float(rng.uniform(5, 100)),
                                                 motor_inertia=float(rng.uniform(1e-5, 1e-3)),
                                                 viscous=float(rng.uniform(0, 20)), coulomb=float(rng.uniform(0, 5))))
    return replace(model, links=tuple(links))


def mechanism(kind: str):
    if kind == "palletizer":
        return with_random_drives(load_project(robot_path("palletizer_parallelogram")), np.random.default_rng(7))
    if kind == "sr400":   # Khalil-Kleinfinger's gamma and b on the branching links
        return with_random_drives(load_project(robot_path("acma_sr400")), np.random.default_rng(9))
    conv, seed, wrist = {"standard": (Convention.STANDARD, 0, False), "modified-wrist": (Convention.MODIFIED, 1, True),
                         "standard-wrist": (Convention.STANDARD, 2, True)}[kind]
    rng = np.random.default_rng(seed)
    return with_random_drives(parallelogram_arm(rng, conv, wrist=wrist), rng)


def fd_W(cd, qa, eps=1e-6):
    return np.array([(cd.positions(qa + e) - cd.positions(qa - e)) / (2 * eps) for e in np.eye(cd.n) * eps]).T


class Reference:
    """tau_a, M_a, G_a, h_a and the drive terms from Pinocchio's rnea of the tree and a differenced W."""

    def __init__(self, model):
        self.cd, self.pin = ClosedDynamics(model), PinMechanism(model)
        self.refl, self.visc, self.coul = drive_arrays(model)
        self.reg = Regressor(self.cd)
        self.pi = np.concatenate([self.reg.values, drive_parameter_values(model)])

    def at(self, qa, qda, qdda, drives: bool):
        cd, ref = self.cd, self.pin
        q, qd, qdd, _ = cd.state(qa, qda, qdda)
        W = fd_W(cd, qa)
        zero = np.zeros(cd.n_tree)
        G = W.T @ ref.rnea(q, zero, zero)
        tree_M = np.array([ref.rnea(q, zero, e) - ref.rnea(q, zero, zero) for e in np.eye(cd.n_tree)]).T
        q0, qd0, qdd0, _ = cd.state(qa, qda, np.zeros(cd.n))
        h = W.T @ ref.rnea(q0, qd0, qdd0) - G
        M = W.T @ tree_M @ W
        tau = W.T @ ref.rnea(q, qd, qdd)
        if drives:
            friction = W.T @ (self.visc * (W @ qda) + self.coul * np.sign(W @ qda))
            M = M + W.T @ np.diag(self.refl) @ W
            tau = tau + W.T @ (self.refl * (W @ qdda)) + friction
            h = h + friction
        return {"tau": tau, "M": M, "G": G, "h": h}


def check(call, model, drives: bool, states: int = 3, seed: int = 0):
    """``call(name, q, qd, qdd)`` the generated function's output (flat) at one state."""
    r = Reference(model)
    n = r.cd.n
    rng = np.random.default_rng(seed)
    for _ in range(states):
        qa, qda, qdda = rng.uniform(-0.6, 0.6, n), rng.normal(size=n), rng.normal(size=n)
        want = r.at(qa, qda, qdda, drives)
        scale = max(1.0, np.abs(want["tau"]).max(), np.abs(want["M"]).max())
        tol = 1e-7 * scale     # W by differences: 1e-9 relative
        assert np.abs(call("tau", qa, qda, qdda) - want["tau"]).max() < tol
        M = call("mass_matrix", qa, qda, qdda).reshape(n, n)
        assert np.abs(M - want["M"]).max() < tol
        if drives:   # and what eval --drives gives (ClosedDynamics.drive_terms)
            dM, dtau, _ = r.cd.drive_terms(qa, qda, qdda)
            assert np.abs(call("tau", qa, qda, qdda) - r.cd.tau(qa, qda, qdda) - dtau).max() < 1e-9 * scale
            assert np.abs(M - r.cd.M(qa) - dM).max() < 1e-9 * scale
        assert np.abs(call("gravity", qa, qda, qdda) - want["G"]).max() < tol
        assert np.abs(call("bias", qa, qda, qdda) - want["h"]).max() < tol
        C = call("coriolis_matrix", qa, qda, qdda).reshape(n, n)
        rigid_h = r.at(qa, qda, qdda, False)["h"]
        assert np.abs(C @ qda - rigid_h).max() < tol             # C qd = h of the rigid bodies
        e = 1e-6
        Mdot = (call("mass_matrix", qa + e * qda, qda, qdda) - call("mass_matrix", qa - e * qda, qda, qdda)
                ).reshape(n, n) / (2 * e)
        S = Mdot - 2 * C
        assert np.abs(S + S.T).max() < 1e-6 * scale
        Y = call("regressor", qa, qda, qdda).reshape(n, -1)
        assert Y.shape[1] == len(r.pi) if drives else Y.shape[1] == 10 * r.cd.n_tree
        pi = r.pi if drives else r.reg.values
        assert np.abs(Y @ pi - want["tau"]).max() < tol
        assert np.abs(Y[:, :10 * r.cd.n_tree] - r.reg.actuated(qa, qda, qdda)).max() < 1e-10 * max(1.0, np.abs(Y).max())


def python_module(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("kind, drives", [(k, d) for k in ("standard", "modified-wrist", "palletizer")
                                           for d in (False, True)] + [("sr400", True)])
def test_generated_python_of_a_closed_chain_matches_pinocchio(tmp_path, kind, drives):
    model = mechanism(kind)
    save_project(model, tmp_path / "arm.json")
    assert main(["codegen", str(tmp_path / "arm.json"), "--lang", "python", "--out", str(tmp_path / "arm.py"),
                 "--quiet"] + (["--drives"] if drives else [])) == 0
    mod = python_module(tmp_path / "arm.py")

    def call(name, q, qd, qdd):
        args = {"tau": (q, qd, qdd), "regressor": (q, qd, qdd), "bias": (q, qd), "coriolis_matrix": (q, qd)}
        return np.ravel(np.asarray(getattr(mod, name)(*args.get(name, (q,))), dtype=float))
    check(call, model, drives)


def _compile(tmp_path, name: str):
    run = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O0", "-shared", "-fPIC",
                          str(tmp_path / f"{name}.c"), "-o", str(tmp_path / f"lib{name}.so"), "-lm"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return ctypes.CDLL(str(tmp_path / f"lib{name}.so"))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
@pytest.mark.parametrize("kind", ["standard-wrist", "palletizer"])
def test_generated_c_of_a_closed_chain_with_drives_matches_pinocchio(tmp_path, kind):
    model = mechanism(kind)
    save_project(model, tmp_path / "arm.json")
    assert main(["codegen", str(tmp_path / "arm.json"), "--lang", "c", "--prefix", "arm", "--drives",
                 "--out", str(tmp_path / "arm.c"), "--quiet"]) == 0
    lib = _compile(tmp_path, "arm")
    n, width = ClosedDynamics(model).n, len(Reference(model).pi)
    dbl = ctypes.POINTER(ctypes.c_double)

    def call(name, q, qd, qdd):
        inputs = {"tau": (q, qd, qdd), "regressor": (q, qd, qdd), "bias": (q, qd), "coriolis_matrix": (q, qd)}
        size = {"mass_matrix": n * n, "coriolis_matrix": n * n, "regressor": n * width}.get(name, n)
        out = np.zeros(size)
        arrays = [np.ascontiguousarray(a, dtype=float) for a in inputs.get(name, (q,))]
        getattr(lib, f"arm_{name}")(*[a.ctypes.data_as(dbl) for a in arrays], None, out.ctypes.data_as(dbl))
        return out
    check(call, model, True, states=2, seed=1)


@pytest.mark.skipif(shutil.which("octave-cli") is None, reason="GNU Octave (octave-cli) not installed")
def test_generated_matlab_of_a_closed_chain_runs_under_octave(tmp_path):
    model = mechanism("palletizer")
    save_project(model, tmp_path / "arm.json")
    assert main(["codegen", str(tmp_path / "arm.json"), "--lang", "matlab", "--prefix", "pal", "--drives",
                 "--out", str(tmp_path), "--quiet"]) == 0
    r = Reference(model)
    n, N = r.cd.n, 3
    rng = np.random.default_rng(5)
    Q, QD, QDD = rng.uniform(-0.6, 0.6, (n, N)), rng.normal(size=(n, N)), rng.normal(size=(n, N))
    for name, a in (("Q", Q), ("QD", QD), ("QDD", QDD)):
        np.savetxt(tmp_path / f"{name}.txt", a)
    script = ("Q = load('Q.txt'); QD = load('QD.txt'); QDD = load('QDD.txt');"
              "tau = pal_tau(Q, QD, QDD); M = reshape(pal_mass_matrix(Q), [], size(Q, 2));"
              "C = reshape(pal_coriolis_matrix(Q, QD), [], size(Q, 2)); h = pal_bias(Q, QD);"
              "Y = reshape(pal_regressor(Q, QD, QDD), [], size(Q, 2));"
              "save('-ascii', '-double', 'tau.txt', 'tau'); save('-ascii', '-double', 'M.txt', 'M');"
              "save('-ascii', '-double', 'C.txt', 'C'); save('-ascii', '-double', 'h.txt', 'h');"
              "save('-ascii', '-double', 'Y.txt', 'Y');")
    run = subprocess.run(["octave-cli", "--no-gui", "--quiet", "--norc", "--eval", script], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 or "ignoring const execution_exception" in run.stderr, run.stderr
    tau, h = (np.loadtxt(tmp_path / f"{k}.txt").reshape(n, N) for k in ("tau", "h"))
    M = np.loadtxt(tmp_path / "M.txt").reshape(n, n, N, order="F")
    C = np.loadtxt(tmp_path / "C.txt").reshape(n, n, N, order="F")
    Y = np.loadtxt(tmp_path / "Y.txt").reshape(n, -1, N, order="F")
    for k in range(N):
        want = r.at(Q[:, k], QD[:, k], QDD[:, k], True)
        tol = 1e-7 * max(1.0, np.abs(want["tau"]).max())
        assert np.abs(tau[:, k] - want["tau"]).max() < tol and np.abs(h[:, k] - want["h"]).max() < tol
        assert np.abs(M[:, :, k] - want["M"]).max() < tol
        assert np.abs(C[:, :, k] @ QD[:, k] - r.at(Q[:, k], QD[:, k], QDD[:, k], False)["h"]).max() < tol
        assert np.abs(Y[:, :, k] @ r.pi - want["tau"]).max() < tol


def test_closed_chain_codegen_refusals_are_one_line(tmp_path, capsys):
    for name in ("palletizer_parallelogram", "four_bar"):   # the closed form's code and the compact form's
        assert main(["codegen", str(robot_path(name)), "--lang", "python", "--elastic", "--quiet"]) == 2
        err = capsys.readouterr().err
        assert "--elastic" in err and len(err.strip().splitlines()) == 1


def pinocchio_rank(model, states: int = 40) -> int:
    """The rank of Pinocchio's joint-torque regressor of the spanning tree projected by a differenced W."""
    import pinocchio as pin
    cd, ref = ClosedDynamics(model), PinMechanism(model)
    rng = np.random.default_rng(11)
    rows = []
    for _ in range(states):
        qa, qda, qdda = rng.uniform(-0.5, 0.5, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n)
        q, qd, qdd, _ = cd.state(qa, qda, qdda)
        o = ref.order
        Y_pin = pin.computeJointTorqueRegressor(ref.model, ref.model.createData(), q[o], qd[o], qdd[o])
        Y = np.empty_like(Y_pin)
        Y[o] = Y_pin
        rows.append(fd_W(cd, qa).T @ Y)
    s = np.linalg.svd(np.vstack(rows), compute_uv=False)
    return int(np.sum(s > 1e-7 * s[0]))


def reweighed(model, rng):
    """The same mechanism with other masses (the grouping depends on the geometry only)."""
    model = model.numeric()
    return replace(model, links=tuple(replace(link, mass=float(link.mass) * float(rng.uniform(0.5, 2.0)))
                                      if link.mass != 0 else link for link in model.links))


@pytest.mark.parametrize("kind, drives", [("standard", False), ("palletizer", False), ("palletizer", True)])
def test_base_parameter_code_of_a_closed_chain_matches_pinocchio(tmp_path, kind, drives):
    """codegen --parameters base: as many inputs as Pinocchio's projected regressor has rank; with the
    base values of the project and of the same mechanism with other masses, tau, M, G, h are
    Pinocchio's, C qd = h and the base regressor times the base values is tau."""
    from designer.identification.regressor import base_grouping
    model = mechanism(kind)
    save_project(model, tmp_path / "arm.json")
    assert main(["codegen", str(tmp_path / "arm.json"), "--lang", "python", "--parameters", "base",
                 "--out", str(tmp_path / "base.py"), "--quiet"] + (["--drives"] if drives else [])) == 0
    mod = python_module(tmp_path / "base.py")
    if not drives:
        assert len(mod.PARAMETERS) == pinocchio_rank(model)
    other = reweighed(model, np.random.default_rng(3))
    for target in (model, other):
        beta = base_grouping(ClosedDynamics(target), drives=drives).values

        def call(name, q, qd, qdd, beta=beta):
            args = {"tau": (q, qd, qdd), "regressor": (q, qd, qdd), "bias": (q, qd), "coriolis_matrix": (q, qd)}
            return np.ravel(np.asarray(getattr(mod, name)(*args.get(name, (q,)), beta), dtype=float))
        r = Reference(target)
        n = r.cd.n
        rng = np.random.default_rng(4)
        for _ in range(2):
            qa, qda, qdda = rng.uniform(-0.6, 0.6, n), rng.normal(size=n), rng.normal(size=n)
            want = r.at(qa, qda, qdda, drives)
            tol = 1e-7 * max(1.0, np.abs(want["tau"]).max(), np.abs(want["M"]).max())
            assert np.abs(call("tau", qa, qda, qdda) - want["tau"]).max() < tol
            assert np.abs(call("mass_matrix", qa, qda, qdda).reshape(n, n) - want["M"]).max() < tol
            assert np.abs(call("gravity", qa, qda, qdda) - want["G"]).max() < tol
            assert np.abs(call("bias", qa, qda, qdda) - want["h"]).max() < tol
            rigid_h = r.at(qa, qda, qdda, False)["h"]
            assert np.abs(call("coriolis_matrix", qa, qda, qdda).reshape(n, n) @ qda - rigid_h).max() < tol
            assert np.abs(call("regressor", qa, qda, qdda).reshape(n, -1) @ beta - want["tau"]).max() < tol


def test_the_windows_code_export_writes_the_closed_chains_own_functions(tmp_path):
    """File > Export's generate_files takes the closed forms' Equations: its Coriolis matrix and regressor
    are the mechanism's (not those of a serial arm of the actuated links)."""
    from designer.codegen.files import generate_files
    from designer.dynamics.closed_form import closed_chain_equations
    model = mechanism("standard")
    eq = closed_chain_equations(model)
    (text,) = generate_files(eq, "python", str(tmp_path / "arm.py"), drives=True).values()
    (tmp_path / "arm.py").write_text(text)
    mod = python_module(tmp_path / "arm.py")

    def call(name, q, qd, qdd):
        args = {"tau": (q, qd, qdd), "regressor": (q, qd, qdd), "bias": (q, qd), "coriolis_matrix": (q, qd)}
        return np.ravel(np.asarray(getattr(mod, name)(*args.get(name, (q,))), dtype=float))
    check(call, model, True, states=2)


def test_the_windows_base_parameter_export_of_a_closed_chain(tmp_path):
    """File > Export with base parameters (generate_base_files) writes the closed-loop base parameters'
    code, not the serial grouping of the tree read as a chain."""
    from designer.identification.code_plan import generate_base_files
    from designer.identification.regressor import base_grouping
    model = mechanism("standard")
    (text,) = generate_base_files(model, "python", str(tmp_path / "base.py")).values()
    (tmp_path / "base.py").write_text(text)
    mod = python_module(tmp_path / "base.py")
    cd = ClosedDynamics(model)
    assert len(mod.PARAMETERS) == base_grouping(cd).count
    rng = np.random.default_rng(8)
    qa, qda, qdda = rng.uniform(-0.5, 0.5, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n)
    want = Reference(model).at(qa, qda, qdda, False)["tau"]
    assert np.abs(mod.tau(qa, qda, qdda) - want).max() < 1e-7 * max(1.0, np.abs(want).max())
