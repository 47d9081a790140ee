"""What the links' bending costs in a frequency map: joints only against joints plus virtual joints.

Run: ``python -m benchmarks.bench_flex [--runs R] [--grid G]`` (prints figures; not a test).

1. The PUMA 560 (no part-made links; the gearbox stiffnesses of benchmarks/bench_elastic.py), lowest
   natural frequency with the motors locked over a G x G grid of joints 2 and 3: ``modes.lowest_frequency``
   over the engine's batched M (the `frequency` metric; target under 1 s for 100 x 100) beside a loop of
   Pinocchio's ``crba`` and scipy's ``eigh(K, M)``, the peer.
2. The bundled tube arm (robots/tube_arm.json: three part-made tubes, elastic joints), the same map with
   ``frequency`` (rigid links) and with ``frequency_links`` (``flex_modes.lowest_flex_frequency``) at 2, 4
   and 8 segments per link (the metric takes 2, the `modes` command and the window 4): the ratio to
   the rigid-link map is the cost of the links' bending; the frequencies say what it changes, and
   the difference to 8 segments what fewer segments lose.
Runs are interleaved; medians are printed, and the worst of ours against the limit.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_elastic import frequency_map_pin, puma
from designer.kinematics import NumericArm
from designer.numeric import arm_dynamics
from designer.numeric.elastic import elastic_joints
from designer.numeric.flex_modes import lowest_flex_frequency
from designer.numeric.modes import lowest_frequency
from designer.project import load_project

ROOT = Path(__file__).resolve().parent.parent


def grid(n: int, count: int, lo: float = -np.pi, hi: float = np.pi) -> np.ndarray:
    a = np.linspace(lo, hi, count)
    Q = np.zeros((count, count, n))
    Q[..., 1], Q[..., 2] = np.meshgrid(a, a, indexing="ij")
    return Q.reshape(-1, n)


def timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--grid", type=int, default=100, help="grid points per joint")
    args = ap.parse_args(argv)
    try:
        import pinocchio  # noqa: F401
        peer = True
    except ImportError:
        print("Pinocchio not installed (pip install pin): no peer figures")
        peer = False
    arm, joints = puma()
    Q = grid(6, args.grid)
    tube = load_project(ROOT / "robots" / "tube_arm.json")
    tarm, tjoints = NumericArm.from_model(tube), elastic_joints(tube)
    Qt = grid(3, args.grid, -2.6, 0.0)
    arm_dynamics(arm).M(Q[:2]), arm_dynamics(tarm).M(Qt[:2])   # generate the engines' code before timing
    times: dict[str, list[float]] = {}
    results: dict[str, np.ndarray] = {}

    def run(name, fn, *a):
        t, out = timed(fn, *a)
        times.setdefault(name, []).append(t)
        results[name] = out

    for _ in range(args.runs):
        run("puma", lambda: lowest_frequency(arm_dynamics(arm).M(Q), joints))
        if peer:
            run("puma peer", frequency_map_pin, arm, joints, Q)
        run("tube rigid", lambda: lowest_frequency(arm_dynamics(tarm).M(Qt), tjoints))
        for s in (2, 4, 8):
            run(f"tube {s}", lowest_flex_frequency, tarm, tjoints, Qt, s)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"PUMA 560 frequency map, {args.grid} x {args.grid} poses of joints 2 and 3, joints only "
          f"({results['puma'].min():.2f} to {results['puma'].max():.2f} Hz):")
    print(f"  ours      median {med['puma'] * 1e3:.1f} ms, worst {max(times['puma']) * 1e3:.1f} ms; target < 1000 ms")
    if peer:
        print(f"  Pinocchio median {med['puma peer'] * 1e3:.1f} ms (crba + scipy eigh per pose); ratio ours/peer "
              f"{med['puma'] / med['puma peer']:.3f}; largest difference "
              f"{np.abs(results['puma'] - results['puma peer']).max():.2e} Hz")
    print(f"tube arm frequency map, {args.grid} x {args.grid} poses of joints 2 and 3:")
    rigid = results["tube rigid"]
    print(f"  rigid links (frequency)        median {med['tube rigid'] * 1e3:8.1f} ms; "
          f"{rigid.min():.2f} to {rigid.max():.2f} Hz")
    for s in (2, 4, 8):
        f = results[f"tube {s}"]
        print(f"  link bending, {s} segments/link median {med[f'tube {s}'] * 1e3:8.1f} ms "
              f"(x{med[f'tube {s}'] / med['tube rigid']:.0f}); {f.min():.2f} to {f.max():.2f} Hz, "
              f"{100 * np.max(1 - f / rigid):.0f} % below the rigid links at most, "
              f"{100 * np.max(np.abs(f / results['tube 8'] - 1)):.3f} % from 8 segments' at most")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
