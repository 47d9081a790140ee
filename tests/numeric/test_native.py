"""The machine code of one state (designer.numeric.native) against the generated Python and Pinocchio,
its fallback without a compiler, its disk cache, and singular states."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.model import Convention
from designer.numeric import ArmDynamics, SingularConfigurationError, arm_dynamics, native
from designer.numeric.engine import _c_functions
from designer.numeric.simulate import PDControl, simulate

from tests.support.pin_reference import pin, pin_model, random_arm

needs_compiler = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (make test installs gcc)")

# both conventions, prismatic joints, point masses (random_arm adds two), 7 and 8 joints
CASES = [(Convention.STANDARD, "RRPRRRR"), (Convention.MODIFIED, "RPRRPRRR"), (Convention.STANDARD, None),
         (Convention.MODIFIED, None)]


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Every test builds into its own cache folder, with the default compiler and fresh notices."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.delenv("DESIGNER_NATIVE", raising=False)
    monkeypatch.setattr(native, "_MEMO", {})
    monkeypatch.setattr(native, "_NOTICED", set())


def _close(a, b, tol=1e-12):
    """Agreement relative to the size of the reference (absolute below 1)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(1.0, float(np.max(np.abs(b))))
    assert a.shape == b.shape and np.max(np.abs(a - b)) <= tol * scale, np.max(np.abs(a - b)) / scale


def _python(arm: NumericArm) -> ArmDynamics:
    dyn = ArmDynamics(arm)
    dyn._native = None    # never built: the generated Python
    return dyn


@needs_compiler
@pytest.mark.parametrize("convention,joints", CASES)
def test_machine_code_equals_python_and_pinocchio(convention, joints):
    arm = random_arm(np.random.default_rng(11), 7, convention, joints)
    n = arm.n
    ours, py = ArmDynamics(arm), _python(arm)
    lib = ours.native
    assert lib is not None
    model = pin_model(arm)
    data = model.createData()
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, qd, qdd, tau = (rng.uniform(-2, 2, n) for _ in range(4))
        G = pin.computeGeneralizedGravity(model, data, q)
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        expected = {"M": (ours.M(q), py.M(q), M), "G": (ours.G(q), py.G(q), G),
                    "h": (ours.h(q, qd), py.h(q, qd), pin.nonLinearEffects(model, data, q, qd) - G),
                    "tau": (ours.tau(q, qd, qdd), py.tau(q, qd, qdd), pin.rnea(model, data, q, qd, qdd)),
                    "qdd": (ours.qdd(q, qd, tau), py.qdd(q, qd, tau), pin.aba(model, data, q, qd, tau))}
        for mine, generated, peer in expected.values():
            _close(mine, generated)
            _close(mine, peer)
        _close(np.array(ours.energy(q, qd)), np.array(py.energy(q, qd)))
        # the simulation's right-hand sides: [qd, qdd] under tau0 + Kp (target - q) - Kd qd
        kp, kd, target, tau0 = (rng.uniform(0, 5, n) for _ in range(4))
        u = tau0 + kp * (target - q) - kd * qd
        dy = np.empty(2 * n)
        assert lib.rhs_qdd(np.concatenate([q, qd]), np.concatenate([kp, kd, target, tau0]), dy)
        _close(dy, np.concatenate([qd, pin.aba(model, data, q, qd, u)]))
        assert lib.rhs_free(np.concatenate([q, qd]), np.concatenate([kp, kd, target, tau0]), dy)
        _close(dy, np.concatenate([qd, pin.aba(model, data, q, qd, u + G)]))


@needs_compiler
def test_bad_arrays_are_refused_by_the_machine_code_and_named_by_the_engine():
    arm = random_arm(np.random.default_rng(2), 3, Convention.STANDARD, "RRP")
    dyn = ArmDynamics(arm)
    lib = dyn.native
    out = np.empty(3)
    with pytest.raises(TypeError, match="dyn_qdd: argument 1 must be 3 contiguous float64"):
        lib.dyn_qdd(np.zeros(3), np.zeros(4), np.zeros(3), out)
    with pytest.raises(TypeError):
        lib.dyn_qdd(np.zeros(3, dtype=int), np.zeros(3), np.zeros(3), out)
    with pytest.raises(ValueError, match="qd: expected 3 values"):
        dyn.qdd(np.zeros(3), np.zeros(4), np.zeros(3))
    # lists, integers and strided views still work (converted on the engine's own path)
    expected = _python(arm).qdd(np.zeros(3), np.ones(3), np.zeros(3))
    _close(dyn.qdd([0, 0, 0], [1, 1, 1], [0, 0, 0]), expected)
    _close(dyn.qdd(np.zeros(6)[::2], np.ones(6)[::2], np.zeros(3)), expected)


def test_without_a_compiler_one_line_and_the_same_results(monkeypatch, capsys):
    monkeypatch.setenv("CC", "no-such-compiler-here")
    arm = random_arm(np.random.default_rng(4), 4, Convention.MODIFIED, "RPRR")
    dyn = ArmDynamics(arm)
    assert dyn.native is None
    assert ArmDynamics(arm).native is None           # a second arm: no second notice
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "no-such-compiler-here" in lines[0] and "generated Python" in lines[0]
    model = pin_model(arm)
    q, qd, tau = np.full(4, 0.3), np.full(4, -0.2), np.arange(4.0)
    _close(dyn.qdd(q, qd, tau), pin.aba(model, model.createData(), q, qd, tau), 1e-10)
    # a simulation past HOT_CALLS evaluations runs on the Python path
    monkeypatch.setattr(native, "HOT_CALLS", 10)
    traj = simulate(arm, q, qd, (0.0, 0.2), torque=PDControl([50.0] * 4, [1.0] * 4, [0.0] * 4))
    assert traj.evaluations > 10 and np.all(np.isfinite(traj.q))
    assert capsys.readouterr().err == ""


@needs_compiler
def test_a_failed_build_is_one_line(monkeypatch, capsys):
    monkeypatch.setenv("CC", "false")     # a "compiler" that fails every build
    dyn = ArmDynamics(random_arm(np.random.default_rng(5), 2, Convention.STANDARD, "RR"))
    assert dyn.native is None
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "the C build failed" in lines[0]


@needs_compiler
def test_the_disk_cache_is_reused_and_a_damaged_file_rebuilt(monkeypatch):
    calls = []
    real = subprocess.run

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)
    monkeypatch.setattr(native.subprocess, "run", counting)
    arm = random_arm(np.random.default_rng(6), 3, Convention.STANDARD, "RPR")
    path = native.cached_path(*_c_functions(ArmDynamics(arm).model))
    assert ArmDynamics(arm).native is not None and len(calls) == 1 and path.exists()
    native._MEMO.clear()                           # as a new process would: from the disk
    again = ArmDynamics(arm)
    assert again.native is not None and len(calls) == 1
    q = np.array([0.1, 0.2, 0.3])
    _close(again.G(q), _python(arm).G(q))
    # a damaged file (of an arm this process never loaded) is built again and then works
    other = random_arm(np.random.default_rng(8), 3, Convention.MODIFIED, "RRP")
    damaged = native.cached_path(*_c_functions(ArmDynamics(other).model))
    damaged.parent.mkdir(parents=True, exist_ok=True)
    damaged.write_bytes(b"not a shared library")
    fresh = ArmDynamics(other)
    assert fresh.native is not None and len(calls) == 2
    _close(fresh.M(q), _python(other).M(q))
    assert not [p for p in damaged.parent.iterdir() if p.is_dir()]   # no build folder left behind


@needs_compiler
def test_a_singular_mass_matrix_is_named_with_its_q(monkeypatch):
    from designer.project import from_dict
    data = {"format": "manipulator-designer", "version": 1, "convention": "standard", "gravity": [0, 0, -9.81],
            "links": [{"joint": "R", "a": 1, "alpha": 0, "d": 0, "theta": 0, "mass": 1},
                      {"joint": "R", "a": 0.5, "alpha": 0, "d": 0, "theta": 0, "mass": 0}]}
    arm = NumericArm.from_model(from_dict(data))
    dyn = arm_dynamics(arm)     # the one simulate uses: its right-hand side is the machine code's
    lib = dyn.native
    assert lib is not None
    out = np.empty(2)
    assert not lib.dyn_qdd(np.array([0.1, 0.2]), np.zeros(2), np.zeros(2), out)   # doubtful, not a number
    with pytest.raises(SingularConfigurationError, match=r"q = \[0.1, 0.2\].*condition number") as err:
        dyn.qdd(np.array([0.1, 0.2]), np.zeros(2), np.zeros(2))
    assert np.array_equal(err.value.q, [0.1, 0.2])
    calls = []

    def counting(*args):
        calls.append(1)
        return real(*args)
    real = lib.rhs_qdd
    monkeypatch.setattr(lib, "rhs_qdd", counting)
    with pytest.raises(SingularConfigurationError, match=r"q = \[0.1, 0.2\]"):
        simulate(arm, [0.1, 0.2], [0.0, 0.0], (0.0, 1.0))
    assert calls    # the machine code's right-hand side saw the singular state and handed it on


@needs_compiler
@pytest.mark.parametrize("torque", ["pd", "none"])
def test_simulation_on_machine_code_matches_the_python_path(torque, monkeypatch):
    from designer.project import load_project
    from tests.support.arms import ROBOTS
    model = load_project(ROBOTS / "puma560.json")
    law = PDControl([100.0] * 6, [2.0] * 6, [0.5] * 6) if torque == "pd" else None
    q0 = np.zeros(6) if torque == "pd" else np.full(6, 0.3)
    fast_arm = NumericArm.from_model(model)
    assert arm_dynamics(fast_arm).native is not None
    fast = simulate(fast_arm, q0, np.zeros(6), (0.0, 0.3), torque=law)
    monkeypatch.setenv("DESIGNER_NATIVE", "0")
    slow = simulate(NumericArm.from_model(model), q0, np.zeros(6), (0.0, 0.3), torque=law)
    assert fast.steps == slow.steps
    assert np.max(np.abs(fast.q[-1] - slow.q[-1])) <= 1e-12
    assert np.max(np.abs(fast.qd[-1] - slow.qd[-1])) <= 1e-11
