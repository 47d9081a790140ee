"""Figures for the control engineer's models (issue 10): base parameters, base-parameter code,
agreement with Pinocchio, and the generated MATLAB code under GNU Octave.

Run: ``python -m benchmarks control`` or ``python benchmarks/bench_control.py [--runs R]``
(prints figures; not a test).

* base parameter count and numerical rank of Y for every bundled arm;
* PUMA 560 with symbolic lengths, g and ten symbolic inertial parameters per link: count_ops of the
  tau function that ``codegen --parameters base`` writes (after CSE and the peephole passes; target
  <= 500) beside the standard-parameter tree form,
  and the time of the plan behind ``codegen --parameters base`` (median of R runs);
* the largest difference to Pinocchio of the numeric regressor (``computeJointTorqueRegressor``,
  joint-frame parameters) and of the linearization (``computeABADerivatives``) over random
  seven-joint arms of both conventions;
* one call of the generated ``puma_tau.m`` on 10,000 states under octave-cli (median of R calls
  inside one Octave session), beside a Python loop of Pinocchio's rnea over the same states;
* seconds and peak memory of ``codegen --parameters base --lang c`` of a generic 7-joint arm
  (tests/support/anyarm_arms.generic_arm: random twists and offsets, a prismatic joint, full
  inertias, numbers), both DH conventions, beside ``codegen --lang c`` (standard parameters) of
  the same arm; each in a child process (issue 9's target: < 10 s and < 1 GB).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sympy as sp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_derive import puma_symbolic  # noqa: E402
from designer.identification.code_plan import plan_base_code  # noqa: E402
from designer.codegen.matlab_code import emit_matlab  # noqa: E402
from designer.control import linearize  # noqa: E402
from designer.dynamics import count_ops_cse, tree_tau  # noqa: E402
from designer.identification.base_params import base_parameters, joint_frame_regressor  # noqa: E402
from designer.dynamics.standard_ne import standard_tau, standard_tau_steps  # noqa: E402
from designer.kinematics import NumericArm  # noqa: E402
from designer.model import Convention  # noqa: E402
from designer.identification.regressor import regressor  # noqa: E402
from designer.project import load_project  # noqa: E402


def counts() -> None:
    print("base parameters of the bundled arms (count = numerical rank of Y stacked over random states):")
    rng = np.random.default_rng(0)
    for path in sorted((ROOT / "robots").glob("*.json")):
        model = load_project(path)
        bp = base_parameters(model)
        arm = NumericArm.from_model(model)
        Q = rng.uniform(-np.pi, np.pi, (model.n, 60))
        Y = regressor(arm, Q, rng.normal(size=Q.shape), rng.normal(size=Q.shape)).reshape(-1, 10 * model.n)
        s = np.linalg.svd(Y, compute_uv=False)
        rank = int(np.sum(s > 1e-9 * s[0]))
        print(f"  {path.stem:<24} n={model.n}  standard {10 * model.n:>3}  base {bp.count:>3}  rank {rank:>3}"
              f"  numeric groupings {len(bp.numeric_groups)}")


def puma_ops(runs: int) -> None:
    model = puma_symbolic()
    inputs = base_parameters(model).joint_frame_inputs()
    steps, named = standard_tau_steps(model, inputs, sp.numbered_symbols("s", real=True))
    base = count_ops_cse([v for _, v in steps] + list(named))  # each step once, as the generated code has it
    graph = count_ops_cse(standard_tau(model, inputs))  # the same recursion as one expression graph
    std = count_ops_cse(tree_tau(model))
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        plan = plan_base_code(model)[0]
        times.append(time.perf_counter() - t)
    code = next(f for f in plan.functions if f.name == "tau")
    emitted = sum(sp.count_ops(v) for _, v in code.temps) + sum(sp.count_ops(e) for _, e in code.outputs)
    print(f"PUMA 560 symbolic, tau with base parameters: the function codegen --parameters base writes "
          f"{emitted} operations (target <= 500); the same steps under sympy.cse alone {base}, as one graph "
          f"{graph}; standard parameters {std} (ratio {emitted / std:.2f}); plan of codegen --parameters base "
          f"(tau, M, G): median {statistics.median(times):.2f} s")


def pinocchio_errors() -> None:
    import pinocchio as pin
    from tests.support.pin_reference import pin_model, random_arm
    order = [0, 1, 2, 3, 4, 5, 7, 6, 8, 9]
    worst_y = worst_a = 0.0
    rng = np.random.default_rng(1)
    for k in range(10):
        convention = list(Convention)[k % 2]
        from tests.support.random_models import model_from_arm
        arm = random_arm(rng, 7, convention)
        model = model_from_arm(arm)
        pm = pin_model(arm)
        data = pm.createData()
        for _ in range(10):
            q, qd, qdd = rng.uniform(-np.pi, np.pi, 7), rng.normal(size=7), rng.normal(size=7)
            Y = joint_frame_regressor(model, arm, q, qd, qdd).reshape(7, 7, 10)
            Yp = pin.computeJointTorqueRegressor(pm, data, q, qd, qdd).reshape(7, 7, 10)[:, :, order]
            worst_y = max(worst_y, float(np.abs(Y - Yp).max() / max(1.0, np.abs(Yp).max())))
            lm = linearize(arm, q, qd, qdd)
            pin.computeABADerivatives(pm, data, q, qd, lm.tau0)
            ref = np.hstack([data.ddq_dq, data.ddq_dv])
            worst_a = max(worst_a, float(np.abs(lm.A[7:] - ref).max() / max(1.0, np.abs(ref).max())))
    print(f"largest difference to Pinocchio (relative to the largest entry), 100 states of 10 random 7-joint arms:"
          f" regressor {worst_y:.1e}, linearization A {worst_a:.1e}")


def octave(runs: int) -> None:
    exe = shutil.which("octave-cli")
    if exe is None:
        print("octave-cli not installed: no MATLAB timing")
        return
    model = load_project(ROOT / "robots" / "puma560.json")
    plan, _ = plan_base_code(model)
    N = 10000
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in emit_matlab(plan, "puma").items():
            (Path(tmp) / name).write_text(text, encoding="utf-8")
        script = (f"Q = rand(6, {N}); t = zeros(1, {runs}); puma_tau(Q, Q, Q);"
                  f"for k = 1:{runs}, tic; puma_tau(Q, Q, Q); t(k) = toc; end;"
                  "fid = fopen('t.txt', 'w'); fprintf(fid, '%.6f', median(t)); fclose(fid);")
        subprocess.run([exe, "--no-gui", "--quiet", "--norc", "--eval", script], cwd=tmp, capture_output=True,
                       timeout=600)
        octave_s = float((Path(tmp) / "t.txt").read_text())
    import pinocchio as pin
    from tests.support.pin_reference import pin_model
    arm = NumericArm.from_model(model)
    pm = pin_model(arm)
    data = pm.createData()
    Q = np.random.default_rng(0).uniform(-1, 1, (N, 6))
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for q in Q:
            pin.rnea(pm, data, q, q, q)
        times.append(time.perf_counter() - t)
    peer = statistics.median(times)
    print(f"generated puma_tau.m (base parameters) under Octave, {N} states in one call: median {octave_s:.4f} s; "
          f"Pinocchio rnea in a Python loop: {peer:.4f} s (ratio {octave_s / peer:.2f})")


def generic_codegen(timeout: float) -> None:
    import resource

    from benchmarks.bench_anyarm import _run
    from designer.project.io import save_project
    from tests.support.anyarm_arms import generic_arm
    with tempfile.TemporaryDirectory() as tmp:
        for convention in Convention:
            path = Path(tmp) / f"gen7_{convention.value}.json"
            save_project(generic_arm(7, convention=convention), path)
            for extra in (["--parameters", "base"], []):
                args = ["codegen", str(path), "--lang", "c", *extra, "--out", str(path.with_suffix(".c")), "--quiet"]
                label = "base" if extra else "standard"
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                wall = _run(ROOT, args, timeout)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                # CPU seconds beside the wall time: on a shared machine the wall time also counts waiting
                print(f"generic 7-joint arm ({convention.value} DH), codegen --lang c, {label} parameters:"
                      f" {wall} (CPU {cpu:.1f} s)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before a codegen child is stopped")
    parser.add_argument("--only", choices=["counts", "puma", "pinocchio", "octave", "generic"],
                        help="one part of the figures")
    args = parser.parse_args()
    if args.only:
        {"counts": counts, "puma": lambda: puma_ops(args.runs), "pinocchio": pinocchio_errors,
         "octave": lambda: octave(args.runs), "generic": lambda: generic_codegen(args.timeout)}[args.only]()
        return 0
    counts()
    puma_ops(args.runs)
    pinocchio_errors()
    octave(args.runs)
    generic_codegen(args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
