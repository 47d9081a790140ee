"""The numeric layer's engines (generated recursive code, batch engine, compiled adapter) against Pinocchio."""

from __future__ import annotations

import math

from dataclasses import replace

import numpy as np
import pytest

from designer.kinematics import NumericArm, dh_frames
from designer.model import Convention
from designer.numeric import ArmDynamics, CompiledAdapter, Dynamics, SingularConfigurationError, arm_dynamics
from designer.numeric.batch import BatchDynamics
from designer.numeric.forward import dynamics_of
from designer.trace import DEPTH

from tests.support.pin_reference import pin, pin_model, random_arm

# both conventions, R and P mixed, random twists and offsets (not multiples of 90 degrees), 7+ joints
CASES = [(Convention.STANDARD, "RRPRRRR"), (Convention.MODIFIED, "RRRRRRR"), (Convention.STANDARD, "PRPRRPRR"),
         (Convention.MODIFIED, "RPRRPRRR"), (Convention.STANDARD, None), (Convention.MODIFIED, None)]


def _close(a, b, tol=1e-10):
    """Agreement relative to the size of the reference (absolute below 1)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(1.0, float(np.max(np.abs(b))))
    assert a.shape == b.shape and np.max(np.abs(a - b)) <= tol * scale, np.max(np.abs(a - b))


def _pin_M(model, data, q):
    M = pin.crba(model, data, q)
    return np.triu(M) + np.triu(M, 1).T


def _arm(seed, convention, joints, n=7):
    return random_arm(np.random.default_rng(seed), n, convention, joints)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("convention,joints", CASES)
def test_forward_dynamics_matches_aba(seed, convention, joints):
    arm = _arm(seed, convention, joints)
    model, rng = pin_model(arm), np.random.default_rng(100 + seed)
    data = model.createData()
    dyn = arm_dynamics(arm)
    Q, QD, TAU = (rng.uniform(-2, 2, (5, arm.n)) for _ in range(3))
    expected = np.array([pin.aba(model, data, q, qd, tau) for q, qd, tau in zip(Q, QD, TAU)])
    for k in range(5):
        _close(dyn.qdd(Q[k], QD[k], TAU[k]), expected[k])
    _close(dyn.qdd(Q, QD, TAU), expected)                       # vectorised, (N, n)
    _close(dynamics_of(arm).qdd(Q.reshape(5, 1, -1), QD.reshape(5, 1, -1), TAU.reshape(5, 1, -1)),
           expected.reshape(5, 1, -1))                           # any leading shape


def test_twists_written_as_floats_of_right_angles():
    """cos(1.5707963267948966) = 6e-17 is snapped to 0 in the generated code; results still match."""
    rng = np.random.default_rng(7)
    arm = random_arm(rng, 7, Convention.MODIFIED, "RRRPRRR")
    dh = arm.dh.copy()
    right = 1.5707963267948966
    dh[:, 1] = [0.0, right, -right, right, 3.141592653589793, -right, 0.3]
    arm = replace(arm, dh=dh)
    model = pin_model(arm)
    data = model.createData()
    dyn = ArmDynamics(arm)
    # the exact zeros drop terms: fewer operations than with the twists off by 1e-9
    nudged = ArmDynamics(replace(arm, dh=dh + [0, 1e-9, 0, 0]))
    assert dyn.operations["M"] < nudged.operations["M"]
    for _ in range(3):
        q, qd, tau = (rng.uniform(-2, 2, arm.n) for _ in range(3))
        _close(dyn.qdd(q, qd, tau), pin.aba(model, data, q, qd, tau))
        _close(dyn.M(q), _pin_M(model, data, q))


@pytest.mark.parametrize("engine", ["generated", "batch"])
@pytest.mark.parametrize("convention,joints", CASES[:4])
def test_protocol_quantities_match_pinocchio(engine, convention, joints):
    arm = _arm(3, convention, joints)
    dyn = arm_dynamics(arm) if engine == "generated" else BatchDynamics(arm)
    assert isinstance(dyn, Dynamics)
    model, rng = pin_model(arm), np.random.default_rng(5)
    data = model.createData()
    Q, QD, QDD = (rng.uniform(-2, 2, (4, arm.n)) for _ in range(3))
    M, G, h, tau = dyn.M(Q), dyn.G(Q), dyn.h(Q, QD), dyn.tau(Q, QD, QDD)
    assert M.shape == (4, arm.n, arm.n) and G.shape == h.shape == tau.shape == (4, arm.n)
    for k, (q, qd, qdd) in enumerate(zip(Q, QD, QDD)):
        g = pin.computeGeneralizedGravity(model, data, q)
        _close(M[k], _pin_M(model, data, q))
        _close(G[k], g)
        _close(h[k], pin.nonLinearEffects(model, data, q, qd) - g)
        _close(tau[k], pin.rnea(model, data, q, qd, qdd))
        _close(dyn.M(q), M[k])  # one state answers the same as a row of many
        # Christoffel symbols: C(q, qd) = Gamma qd is Pinocchio's Coriolis matrix
        _close(np.einsum("ijk,k->ij", dyn.christoffel(q), qd), pin.computeCoriolisMatrix(model, data, q, qd))


@pytest.mark.parametrize("convention", list(Convention))
def test_tool_jacobian_matches_pinocchio(convention):
    arm = _arm(11, convention, "RPRRRPR")
    model = pin_model(arm)
    a, alpha = arm.dh[-1, 0], arm.dh[-1, 1]
    c, s = np.cos(alpha), np.sin(alpha)
    # the last DH frame seen from the last joint (standard: Tx(a) Rx(alpha); modified: the joint frame)
    place = (pin.SE3(np.array([[1, 0, 0], [0, c, -s], [0, s, c]]), np.array([a, 0, 0]))
             if convention is Convention.STANDARD else pin.SE3.Identity())
    fid = model.addFrame(pin.Frame("tool", model.njoints - 1, place, pin.FrameType.OP_FRAME))
    data = model.createData()
    dyn = arm_dynamics(arm)
    Q = np.random.default_rng(2).uniform(-2, 2, (3, arm.n))
    J = dyn.tool_jacobian(Q)
    for k, q in enumerate(Q):
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        _close(J[k], pin.getFrameJacobian(model, data, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED))
        _close(dh_frames(arm, q)[-1], data.oMf[fid].homogeneous)


def test_compiled_equations_answer_through_the_adapter():
    from designer.dynamics import derive
    from designer.dynamics.results import Method, SimplifyMode
    from designer.numeric.compiled import compile_equations
    from designer.project import load_project
    from tests.support import robot_path
    model = load_project(robot_path("stanford_modified"))
    arm = NumericArm.from_model(model)
    adapter = CompiledAdapter(compile_equations(derive(model.numeric(), Method.NEWTON_EULER, SimplifyMode.OFF)), arm)
    assert isinstance(adapter, Dynamics)
    ours = arm_dynamics(arm)
    rng = np.random.default_rng(1)
    Q, QD, X = (rng.uniform(-1, 1, (2, 3, arm.n)) for _ in range(3))
    for name, args in (("M", (Q,)), ("G", (Q,)), ("h", (Q, QD)), ("tau", (Q, QD, X)), ("qdd", (Q, QD, X))):
        _close(getattr(adapter, name)(*args), getattr(ours, name)(*args), 1e-9)
        _close(getattr(adapter, name)(*(a[1, 2] for a in args)), getattr(ours, name)(*args)[1, 2], 1e-9)
    _close(adapter.christoffel(Q), ours.christoffel(Q), 1e-9)
    _close(adapter.tool_jacobian(Q), ours.tool_jacobian(Q))


def test_energy_matches_pinocchio():
    arm = _arm(4, Convention.STANDARD, None, n=8)
    model = pin_model(arm)
    data = model.createData()
    rng = np.random.default_rng(9)
    Q, QD = rng.uniform(-2, 2, (2, 4, arm.n))
    kinetic, potential = arm_dynamics(arm).energy(Q, QD)
    for k, (q, qd) in enumerate(zip(Q, QD)):
        _close(kinetic[k], 0.5 * qd @ _pin_M(model, data, q) @ qd)
        # Pinocchio's potential is -m g . c too, zero with every COM at the origin
        _close(potential[k], pin.computePotentialEnergy(model, data, q))


def test_twelve_joints_generate_flat_code():
    """A generic 12-joint arm: every quantity generates, evaluates and agrees; no line nests deeply."""
    arm = _arm(12, Convention.MODIFIED, "RRPRRRPRRRRR", n=12)
    model = pin_model(arm)
    data = model.createData()
    dyn = ArmDynamics(arm)
    q, qd, tau = np.random.default_rng(3).uniform(-1, 1, (3, 12))
    _close(dyn.qdd(q, qd, tau), pin.aba(model, data, q, qd, tau))
    _close(dyn.tau(q, qd, tau), pin.rnea(model, data, q, qd, tau))
    import ast

    def depth(node) -> int:
        below = max((depth(child) for child in ast.iter_child_nodes(node)), default=0)
        negative_number = isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)
        return below + (isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call)) and not negative_number)

    tree = ast.parse(dyn.source("qdd"))
    assert max(depth(stmt) for stmt in tree.body[0].body) <= DEPTH
    assert len(tree.body[0].body) > 500  # the deep sums are split into statements


def test_singular_states_are_named():
    from designer.project import from_dict
    data = {"format": "manipulator-designer", "version": 1, "convention": "standard", "gravity": [0, 0, -9.81],
            "links": [{"joint": "R", "a": 1, "alpha": 0, "d": 0, "theta": 0, "mass": 1},
                      {"joint": "R", "a": 0.5, "alpha": 0, "d": 0, "theta": 0, "mass": 0}]}
    dyn = ArmDynamics(NumericArm.from_model(from_dict(data)))
    Q = np.array([[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(SingularConfigurationError, match=r"q = \[0.1, 0.2\].*condition number") as err:
        dyn.qdd(Q, np.zeros((2, 2)), np.zeros((2, 2)))
    assert err.value.condition > 1e12
    with pytest.raises(ValueError, match="qd: expected 2 values"):
        dyn.qdd([0.1, 0.2], [0.0], [0.0, 0.0])


def test_numeric_layer_does_not_load_the_symbolic_dynamics():
    """The numeric layer depends on the model and kinematics only (no dynamics <-> numeric cycle)."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    code = ("import sys, designer.numeric, designer.numeric.forward, designer.numeric.simulate, "
            "designer.numeric.batch, designer.explore.batch; "
            "print(sorted(m for m in sys.modules if m.startswith('designer.dynamics')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root,
                         env={**os.environ, "PYTHONPATH": str(root)}, timeout=300)
    assert out.stdout.strip() == "[]"


def test_traced_code_holds_constants_beyond_the_float_range():
    """A constant that overflows while tracing is written 'inf' in the generated source, which must
    evaluate (to inf) instead of raising NameError."""
    from designer.trace import build
    f = build("f", "def f(x):\n    return x * inf + nan * 0\n", vectorised=False)
    assert math.isnan(f(1.0))
    g = build("g", "def g(x):\n    return x * inf\n", vectorised=False)
    assert g(2.0) == math.inf
