"""The design review of the tube arm (robots/tube_arm_requirements.json), and its payload capacity over the
cycle's samples all at once against one envelope per sample, in the same run.

Run: ``python -m benchmarks.bench_review [--repeat 5]`` (prints figures; not a test).

Printed: the median time of one whole review (imports warm; each requirement's share), the median time of the
payload capacity over the 301 cycle samples through two batch inverse dynamics (``designer.review``) and through
``explore.sizing.payload_envelope`` called per sample (what the review did before), their ratio and the largest
difference of the values (0: the same numbers), and one cold ``python -m designer review`` (imports included:
scipy.stats for the box's Sobol samples is most of it).
Target: the batch at least ten times faster than per sample, values equal.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designer.explore.sizing import payload_envelope  # noqa: E402
from designer.project import load_project  # noqa: E402
from designer.review import review  # noqa: E402
from designer.review.evaluate import _Context, _evaluate, payload_per_sample  # noqa: E402
from benchmarks.clock import median_seconds  # noqa: E402

PROJECT = ROOT / "robots" / "tube_arm_requirements.json"




def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    model = load_project(PROJECT)
    review(model, strict=False)    # warm: imports, the box's Sobol engine
    whole = median_seconds(lambda: review(model, strict=False), args.repeat)
    items = model.requirements.items
    times: list[list[float]] = [[] for _ in items]
    for _ in range(args.repeat):    # in the review's order, on a fresh context (the cycle's torques computed once)
        ctx = _Context(model)
        for k, r in enumerate(items, start=1):
            t0 = time.perf_counter()
            _evaluate(ctx, k, r)
            times[k - 1].append(time.perf_counter() - t0)
    shares = [(r.metric, statistics.median(t)) for r, t in zip(items, times)]
    s = ctx.cycle()
    torque = ctx.drives["torque"]
    offset = np.asarray(model.requirements.payload.offset, float)

    def per_sample():
        return np.array([payload_envelope(ctx.bare, offset[None, :], torque, s.q[i:i + 1], s.qd[i:i + 1],
                                          s.qdd[i:i + 1])[0] for i in range(len(s.q))])

    batch = median_seconds(lambda: payload_per_sample(ctx, s), args.repeat)
    loop = median_seconds(per_sample, args.repeat)
    diff = float(np.max(np.abs(payload_per_sample(ctx, s) - per_sample())))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "designer", "review", str(PROJECT)], cwd=ROOT, capture_output=True,
                   check=False)
    cold = time.perf_counter() - t0
    print(f"review of {PROJECT.name}: {len(model.requirements.items)} requirements, median {whole * 1e3:.1f} ms "
          f"(imports warm)")
    print("  " + ", ".join(f"{m} {t * 1e3:.1f} ms" for m, t in shares))
    print(f"payload capacity over {len(s.q)} cycle samples: batch {batch * 1e3:.1f} ms, one envelope per sample "
          f"{loop * 1e3:.1f} ms, ratio {loop / batch:.1f}x, largest difference {diff:.3g} kg")
    print(f"cold `python -m designer review` (one run, imports included): {cold:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
