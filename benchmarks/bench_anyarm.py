"""Arms users bring: seconds and peak memory of derive, eval (20 states) and codegen per method.

Run: ``python benchmarks/bench_anyarm.py [--timeout S] [--tree PATH] [--arms gen7,kr5,puma]``
(prints figures; not a test). Each command runs as ``python -m designer ...`` in a child process
that reports its own peak resident memory (``resource.getrusage``); ``--tree`` measures another
checkout (e.g. main, for the before figures) on the same arm files. Arms: a generic 7-joint
modified-DH arm (twists and offsets no multiple of 90 degrees, one prismatic joint, full
inertias, numbers), Corke's KUKA KR5 with its twists as floats, and the PUMA 560 of robots/.
Targets (issue 9): each command under 10 s and 1 GB on the 7-joint arm.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_CHILD = ("import resource, runpy, sys\n"
          "sys.argv = ['designer'] + sys.argv[1:]\n"
          "try:\n    runpy.run_module('designer', run_name='__main__')\n"
          "except SystemExit as e:\n    code = e.code\nelse:\n    code = 0\n"
          "print('PEAK_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
          "sys.exit(code or 0)\n")


def _run(tree: Path, args: list[str], timeout: float) -> str:
    env = dict(os.environ, PYTHONPATH=str(tree))
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, *args], capture_output=True, text=True, env=env,
                              timeout=timeout, cwd=tree)
    except subprocess.TimeoutExpired:
        return f"> {timeout:.0f} s (stopped)"
    seconds = time.perf_counter() - start
    peak = next((int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK_KB")), 0)
    if done.returncode:
        last = [line for line in done.stderr.splitlines() if line and not line.startswith("PEAK_KB")]
        return f"{seconds:6.1f} s {peak / 1024:6.0f} MB  FAILED: {last[-1][:70] if last else done.returncode}"
    return f"{seconds:6.1f} s {peak / 1024:6.0f} MB"


def _arms(folder: Path, wanted: list[str]) -> dict[str, tuple[Path, int]]:
    from tests.support.anyarm_arms import generic_arm, kr5
    from designer.project import load_project
    from designer.project.io import save_project
    import numpy as np
    out = {}
    for name in wanted:
        model = {"gen7": lambda: generic_arm(7), "kr5": lambda: kr5(True),
                 "puma": lambda: load_project(ROOT / "robots" / "puma560.json")}[name]()
        path = folder / f"{name}.json"
        save_project(model, path)
        rng = np.random.default_rng(1)
        states = [{k: rng.uniform(-2, 2, model.n).tolist() for k in ("q", "qd", "qdd")} for _ in range(20)]
        (folder / f"{name}.states.json").write_text(json.dumps({"states": states}))
        out[name] = (path, model.n)
    return out


def _operations(arms: dict) -> None:
    from designer.codegen.plan import plan_code
    from designer.dynamics import Form, derive
    from designer.project import load_project
    for name, (path, _) in arms.items():
        plan = plan_code(derive(load_project(path), form=Form.COMPACT))
        print(f"  {name}: operations after CSE (compact forms, symbols kept): "
              + ", ".join(f"{f.name} {f.operations}" for f in plan.functions))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds before a command is stopped")
    ap.add_argument("--tree", type=Path, default=ROOT, help="checkout to measure (default: this one)")
    ap.add_argument("--arms", default="gen7,kr5,puma")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        arms = _arms(Path(tmp), args.arms.split(","))
        print(f"tree {args.tree}")
        for name, (path, _) in arms.items():
            states = path.with_suffix(".states.json")
            for method in ("lagrange", "newton-euler", "dalembert"):
                out = str(path.parent / f"{name}.{method}.json")
                print(f"{name:5s} derive {method:13s}", _run(args.tree, ["derive", str(path), "--method", method,
                                                                       "--out", out], args.timeout), flush=True)
                print(f"{name:5s} eval   {method:13s}", _run(args.tree, ["eval", str(path), "--states", str(states),
                                                                       "--method", method], args.timeout), flush=True)
            for lang in ("c", "python"):
                print(f"{name:5s} codegen {lang:12s}", _run(args.tree, ["codegen", str(path), "--lang", lang, "--out",
                                                                       str(path.with_suffix("." + lang))],
                                                           args.timeout), flush=True)
        if args.tree == ROOT:
            _operations(arms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
