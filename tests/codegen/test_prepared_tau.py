"""The generated tau with its parameter-only work in a prepare step (codegen/prepare.py, the grouped
parameters of dynamics/grouping.py) against Pinocchio's rnea: random arms (revolute and prismatic joints,
standard and modified DH, twists of 0, +-pi/2 and any angle, point loads) with symbolic and numeric
parameters, the Python module (numpy and math) and the C compiled when gcc is present; and the PUMA
560's operation count per call (issue 31: at most 500)."""

from __future__ import annotations

import ctypes
import dataclasses
import importlib.util
import math
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp

from designer.codegen.c_code import emit_c
from designer.codegen.plan import plan_code
from designer.codegen.python_code import emit_python
from designer.dynamics.engine import compact_equations_job
from designer.jobs import run
from designer.model import Convention, Inertia
from tests.support.dyn_reference import pin_model, pin_rnea_crba

pytest.importorskip("pinocchio")


def _arm(rng, convention: str, joints: str):
    """A random numeric arm: twists 0, +-pi/2 or any angle, joints 2 and 3 parallel when both revolute."""
    from tests.support.pin_reference import random_arm
    from tests.support.random_models import model_from_arm
    arm = random_arm(rng, len(joints), Convention(convention), joints)
    arm.dh[:, 1] = rng.choice([0.0, math.pi / 2, -math.pi / 2, arm.dh[0, 1]], size=len(joints))
    arm.dh[1, 1] = arm.dh[2, 1] = 0.0
    return model_from_arm(arm)


def _symbolic(model):
    """``model`` with every length, twist that is no multiple of 90 degrees, mass, COM and inertia entry and
    the gravity a symbol whose value is the number it had."""
    values: dict[str, float] = {}

    def sym(name: str, value):
        value = float(value)
        if name.startswith("alpha") and (abs(value) < 1e-12 or abs(abs(value) - math.pi / 2) < 1e-12):
            return sp.sympify(value)   # exact_angles makes it exact: the skipped products stay exercised
        values[name] = value
        return sp.Symbol(name, real=True)
    links = []
    for k, link in enumerate(model.links, start=1):
        inertia = Inertia(*(sym(f"I{e}{k}", getattr(link.inertia, e)) for e in ("xx", "yy", "zz", "xy", "xz", "yz")))
        links.append(dataclasses.replace(
            link, a=sym(f"a{k}", link.a), alpha=sym(f"alpha{k}", link.alpha), d=sym(f"d{k}", link.d),
            mass=sym(f"m{k}", link.mass), com=tuple(sym(f"c{x}{k}", c) for x, c in zip("xyz", link.com)),
            inertia=inertia))
    gravity = tuple(sym(f"g{x}", g) for x, g in zip("xyz", model.gravity))
    return dataclasses.replace(model, links=tuple(links), gravity=gravity, parameters=tuple(values.items()))


def _load(source: str, path, name: str):
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = [(c, j) for c in ("standard", "modified") for j in ("RRRRRR", "RPRRPR", "PRRRRP")]


@pytest.mark.parametrize("convention,joints", CASES)
def test_prepared_tau_matches_pinocchio(convention, joints, tmp_path):
    rng = np.random.default_rng(sum(map(ord, "prepared" + convention + joints)))
    numeric = _arm(rng, convention, joints)
    model = _symbolic(numeric)
    eq = run(compact_equations_job(model, need=("tau",)))
    plan = plan_code(eq, only=["tau"])
    tau = plan.functions[0]
    assert tau.prepare is not None and tau.prepared, "symbolic inertial parameters leave work to prepare"
    assert tau.operations > 0 and tau.prepare_operations > 0
    numpy_module = _load(emit_python(plan), tmp_path / "arm_np.py", f"arm_np_{convention}_{joints}")
    math_module = _load(emit_python(plan, "math"), tmp_path / "arm_math.py", f"arm_math_{convention}_{joints}")
    p = [dict(model.parameters)[name] for name, _ in plan.parameters]
    prepared = numpy_module.prepare(p)
    assert len(prepared) == len(p) + tau.prepare.size
    # the same arm with numbers: nothing left to prepare, the same torques
    numeric_plan = plan_code(run(compact_equations_job(numeric, need=("tau",))), only=["tau"])
    assert numeric_plan.functions[0].prepare is None
    numeric_module = _load(emit_python(numeric_plan, "math"), tmp_path / "arm_num.py", f"arm_num_{convention}_{joints}")
    pm = pin_model(numeric)
    for _ in range(3):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, model.n))
        ref, _ = pin_rnea_crba(pm, q, qd, qdd)
        tol = {"rtol": 1e-12, "atol": 1e-12 * np.abs(ref).max()}
        np.testing.assert_allclose(numpy_module.tau(q, qd, qdd, prepared), ref, **tol)
        np.testing.assert_allclose(numpy_module.tau(q, qd, qdd, p), ref, **tol)      # a plain p, prepared per call
        np.testing.assert_allclose(numpy_module.tau(q, qd, qdd), ref, **tol)         # the prepared defaults
        np.testing.assert_allclose(math_module.tau(q, qd, qdd, math_module.prepare(p)), ref, **tol)
        np.testing.assert_allclose(numeric_module.tau(q, qd, qdd), ref, **tol)
    if shutil.which("gcc") is None:
        return
    src, lib = tmp_path / "arm.c", tmp_path / "libarm.so"
    src.write_text(emit_c(plan, "arm"), encoding="utf-8")
    done = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC", str(src),
                           "-o", str(lib), "-lm"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    so = ctypes.CDLL(str(lib))
    dbl = ctypes.POINTER(ctypes.c_double)

    def ptr(a):
        return a.ctypes.data_as(dbl)
    pc = np.ascontiguousarray(p, dtype=float)
    pp = np.full(len(p) + tau.prepare.size, np.nan)
    so.arm_prepare(ptr(pc), ptr(pp))
    expected = np.asarray(prepared, dtype=float)   # the same formulas; sums that cancel round differently
    np.testing.assert_allclose(pp, expected, rtol=1e-12, atol=1e-14 * np.abs(expected).max())
    for _ in range(3):
        q, qd, qdd = (np.ascontiguousarray(v) for v in rng.uniform(-2.5, 2.5, (3, model.n)))
        ref, _ = pin_rnea_crba(pm, q, qd, qdd)
        tol = {"rtol": 1e-12, "atol": 1e-12 * np.abs(ref).max()}
        out = np.full(model.n, np.nan)
        so.arm_tau_prepared(ptr(q), ptr(qd), ptr(qdd), ptr(pp), ptr(out))
        np.testing.assert_allclose(out, ref, **tol)
        out[:] = np.nan
        so.arm_tau(ptr(q), ptr(qd), ptr(qdd), ptr(pc), ptr(out))   # prepares, then the same
        np.testing.assert_allclose(out, ref, **tol)


def test_symbolic_puma_tau_is_at_most_500_operations_per_call():
    """The PUMA 560 with symbolic lengths, g and ten inertial parameters per link: 621 operations when every
    call computed everything; issue 31's target is 500 per call (the prepare step's run once)."""
    from benchmarks.bench_derive import emitted_tau_ops, puma_symbolic
    assert emitted_tau_ops(puma_symbolic()) <= 500
