"""``codegen`` as a whole command on symbolic arms, beside Corke's symbolic ``rne`` in the same run.

Run: ``python -m benchmarks.bench_codegen [--runs R] [--langs c,python] [--tree PATH]`` from the
repository root (prints figures; not a test).

Arms: the PUMA 560 of :mod:`benchmarks.bench_derive` (symbolic d1, a2, a3, d3, d4, g and ten
inertial parameters per link) and a generic 7-joint modified-DH arm (twists and offsets no
multiple of 90 degrees, one prismatic joint, a point load) with every length, mass, COM and
inertia entry a symbol. Each figure is the time of ``designer.cli.main(["codegen", ...])`` in a
fresh child process after the child imported sympy and the command line (the start-up every
command pays; the peer's child likewise imports roboticstoolbox and builds its robot before its
clock starts). The peer: roboticstoolbox-python's symbolic ``rne`` for tau and for M (column j =
rne(q, 0, e_j) without gravity), skipped when it is not installed (``pip install
roboticstoolbox-python``, the ``bench`` extra). Runs interleave ours and the peer's, so a busy
machine slows both alike; medians.

Operation counts (issue 31): ``count_ops`` of the tau function ``codegen`` writes with the
project's parameters (m, c, I about the COM), after CSE and the peephole passes, for the PUMA 560 and
the 7-joint arm: per call (the target) and its prepare step's, run once per parameter set (Khalil's
grouped parameters and the other parameter-only pieces), beside the same tau computing everything
per call (the form before) and, for the PUMA, the peers computed in the run: roboticstoolbox's
symbolic ``rne`` tau after ``sympy.cse`` (when installed) and SymPyBotics' inverse-dynamics code
(its own CSE; when importable: it is not on PyPI, ``--sympybotics PATH`` takes a source checkout).
Target: at most 500 per call on the PUMA. ``--ops-only`` prints these alone.

Targets (issue 9): the PUMA 560's whole ``codegen --functions tau,M`` (what the peer computes)
under 0.5x the peer's tau and M (the default, all six functions, is printed beside it); the symbolic
7-joint arm's ``codegen`` under 20 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_OURS = ("import resource, sys, time\n"
         "import sympy\n"
         "from designer.cli import main\n"
         "start = time.perf_counter()\n"
         "code = main(['codegen'] + sys.argv[1:])\n"
         "print('SECONDS', time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
         "sys.exit(code or 0)\n")

_PEER = ("import sys, time\n"
         "sys.path.insert(0, sys.argv[1])\n"
         "from benchmarks.bench_derive import rtb_peer\n"
         "tau, mass = rtb_peer()\n"
         "start = time.perf_counter()\n"
         "tau(); mass()\n"
         "print('SECONDS', time.perf_counter() - start, 0)\n")


def _child(code: str, args: list[str], tree: Path, timeout: float) -> tuple[float, float]:
    """(seconds, peak MB) reported by the child; inf when it failed or ran out of time."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    try:
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                              cwd=tree, timeout=timeout)
    except subprocess.TimeoutExpired:
        return float("inf"), 0.0
    line = next((x for x in done.stdout.splitlines() if x.startswith("SECONDS")), None)
    if done.returncode or line is None:
        tail = [x for x in done.stderr.splitlines() if x.strip()]
        print(f"  failed: {tail[-1] if tail else done.returncode}", file=sys.stderr)
        return float("inf"), 0.0
    _, seconds, peak_kb = line.split()
    return float(seconds), int(peak_kb) / 1024


def sympybotics_ops() -> int:
    """count_ops of SymPyBotics' inverse-dynamics code (its own common subexpressions) for the PUMA 560 of
    :mod:`benchmarks.bench_derive` (symbolic lengths and g; its inputs are the barycentric parameters: first
    moments and inertia about each link frame, m). ImportError when SymPyBotics is not importable."""
    import warnings

    import sympy as sp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import sympybotics
        from sympybotics.dynamics import Dynamics
        from sympybotics.robotmodel import Geometry
        from sympybotics.symcode import Subexprs
    from benchmarks.bench_derive import DH
    robot = sympybotics.RobotDef("puma", [(str(alpha), str(a), str(d), "q") for a, alpha, d in DH],
                                 dh_convention="standard")
    robot.frictionmodel = None
    robot.gravityacc = sp.Matrix([0, 0, -sp.Symbol("g")])
    dyn = Dynamics(robot, Geometry(robot))
    found = Subexprs()
    dyn.gen_invdyn(found.collect)
    temps, outputs = found.get(dyn.invdyn)
    return int(sum(sp.count_ops(e) for _, e in temps) + sum(sp.count_ops(e) for e in outputs))


def operation_counts() -> None:
    """Operations of the generated tau per call and of its prepare step (once per parameter set), beside the
    same tau computing everything per call (named steps on m, c, I about the COM; one graph) and the peers'."""
    from benchmarks.bench_derive import emitted_tau_ops, puma_symbolic, rtb_peer
    from designer.codegen.plan import compact_tau_function, plan_function, temp_prefix
    from designer.dynamics import count_ops_cse, tree_tau
    from designer.dynamics.standard_ne import custom_tau_steps
    from designer.model.angles import exact_angles
    from tests.support.anyarm_arms import symbolic_arm

    def index_of(model) -> dict:
        names = set(model.symbol_names()) - {s.name for s in (*model.q, *model.qd, *model.qdd)}
        return {name: k for k, name in enumerate(sorted(names))}

    def one_graph(model) -> int:
        index = index_of(model)
        tau = tree_tau(exact_angles(model).model)
        return plan_function("tau", tau, model, index, temp_prefix(set(index))).operations

    def all_per_call(model) -> int:   # the named steps on m, c, I_c without a prepare step (the form before)
        index = index_of(model)
        step_prefix = temp_prefix(set(index), "s")
        steps, named = custom_tau_steps(exact_angles(model).model, sp.numbered_symbols(step_prefix, real=True))
        prefix = temp_prefix(set(index) | {step_prefix + "0"})
        return plan_function("tau", named, model, index, prefix, steps=tuple(steps)).operations

    def prepared(model) -> tuple[str, int]:
        index = index_of(model)
        func = compact_tau_function(model, model, index, temp_prefix(set(index)))
        return (f"{func.operations} per call, prepare step {func.prepare_operations} once per parameter set "
                f"({len(func.prepared)} values); everything per call: {all_per_call(model)}, one graph "
                f"{one_graph(model)}"), func.operations

    import sympy as sp
    print("generated tau, the project's parameters (m, c, I about the COM), operations after CSE:")
    puma = puma_symbolic()
    text, ours = prepared(puma)
    assert ours == emitted_tau_ops(puma)
    peers = []
    try:
        peer = count_ops_cse(rtb_peer()[0]())
        peers.append(f"roboticstoolbox rne tau (inputs m, r, I: all per call) after sympy.cse {peer}, "
                     f"ratio {ours / peer:.2f}")
    except ImportError:
        peers.append("roboticstoolbox not installed (pip install roboticstoolbox-python): no count")
    try:
        peer = sympybotics_ops()
        peers.append(f"SymPyBotics invdyn code (inputs the link-frame first moments and inertias) {peer}, "
                     f"ratio {ours / peer:.2f}")
    except ImportError:
        peers.append("SymPyBotics not importable (not on PyPI: its repository on --sympybotics PATH): no count")
    print(f"  PUMA 560 symbolic: ours {text}")
    print(f"    peers: {'; '.join(peers)}")
    print(f"    target (issue 31) <= 500 per call: {'met' if ours <= 500 else 'NOT met'}")
    print(f"  7-joint symbolic arm: ours {prepared(symbolic_arm(7))[0]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--langs", default="c,python")
    ap.add_argument("--tree", type=Path, default=ROOT, help="checkout to measure (default: this one)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--ops-only", action="store_true", help="only the operation counts of the generated tau")
    ap.add_argument("--sympybotics", type=Path, help="a SymPyBotics source checkout (not on PyPI) for its count")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.sympybotics:
        sys.path.insert(0, str(args.sympybotics))
    operation_counts()
    if args.ops_only:
        return 0
    from benchmarks.bench_derive import puma_symbolic
    from designer.project.io import save_project
    from tests.support.anyarm_arms import symbolic_arm
    try:
        import roboticstoolbox  # noqa: F401
        peer = True
    except ImportError:
        print("roboticstoolbox-python not installed: peer skipped (pip install roboticstoolbox-python)")
        peer = False
    langs = args.langs.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        arms = {"puma": Path(tmp) / "puma_sym.json", "seven": Path(tmp) / "seven_sym.json"}
        save_project(puma_symbolic(), arms["puma"])
        save_project(symbolic_arm(7), arms["seven"])

        def ours(arm: str, lang: str, only: str | None = None) -> tuple[float, float]:
            out = Path(tmp) / f"{arm}.{'c' if lang == 'c' else 'py'}"
            chosen = ["--functions", only] if only else []
            return _child(_OURS, [str(arms[arm]), "--lang", lang, "--out", str(out), "--quiet", *chosen],
                          args.tree, args.timeout)

        # like for like: tau and M, what the peer computes; then every function codegen writes by default
        # (bias, gravity, Coriolis matrix and regressor too)
        kinds = {"ours tau,M": "tau,M", "ours": None}
        times: dict = {(lang, who): [] for lang in langs for who in (*kinds, "peer")}
        for _ in range(args.runs):
            for lang in langs:
                for who, only in kinds.items():
                    times[(lang, who)].append(ours("puma", lang, only)[0])
            if peer:
                times[(langs[0], "peer")].append(_child(_PEER, [str(ROOT)], ROOT, args.timeout)[0])
        print(f"tree {args.tree}; PUMA 560 symbolic (lengths, g, 10 inertial parameters per link), medians of "
              f"{args.runs} runs, start-up excluded")
        peer_t = statistics.median(times[(langs[0], "peer")]) if peer else None
        if peer_t is not None:
            print(f"  peer: roboticstoolbox rne, tau and M          {peer_t:8.3f} s")
        for lang in langs:
            for who, only in kinds.items():
                t = statistics.median(times[(lang, who)])
                target = f" (target < 0.5: {'met' if t / peer_t < 0.5 else 'NOT met'})" if only else ""
                ratio = f"  ratio {t / peer_t:.2f}{target}" if peer_t else ""
                what = f"--functions {only}" if only else "all six functions"
                print(f"  ours: codegen --lang {lang:7s} {what:22s} {t:8.3f} s{ratio}")
        print("generic 7-joint arm, every length, mass, COM and inertia entry a symbol (target < 20 s)")
        for lang in langs:
            seconds, peak = ours("seven", lang)
            print(f"  ours: codegen --lang {lang:7s} (whole command) {seconds:8.3f} s, peak {peak:.0f} MB "
                  f"({'met' if seconds < 20 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
