"""The window's closed-chain elastic read-out and PD move (issue 22) beside the serial twin's.

Run: ``python -m benchmarks.bench_closed_window [--runs R]`` from the repository root (prints figures; not a
test). Two figures, each the palletizer with a parallelogram against ``palletizer_serial.json`` (the same
drive stiffness on the joints that carry the motors):

- the read-out's elastic words at one pose (lowest frequency and sag), which the window computes on its
  thread at every slider step: the closed chain's :func:`designer.gui.modes.elastic_summary` against
  the serial :func:`designer.gui.modes.elastic_summary`;
- a 1 s move plus 1 s hold under the PD with gravity compensation along a quintic, 200 rows a second, as the
  Simulate tab runs it in its worker (:func:`designer.numeric.motion.passive_job` with a move), against the serial twin
  under the same law through the serial simulate (compiled equations);
- the bundled four-bar's same move, the slowest closure (Newton on the loop in each right-hand side).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designer.jobs import NEVER, run  # noqa: E402
from designer.model import Drive  # noqa: E402
from designer.project import load_project  # noqa: E402

from benchmarks.bench_derive import timed  # noqa: E402  (median of runs, and the last result)

K = (4e5, 2.5e5, 1.5e5, 2e3)   # N m/rad on the motors: the column, shoulder, elbow (crank) and wrist


def _stiff(model):
    motors = [i for i, link in enumerate(model.links) if link.actuated]
    links = list(model.links)
    for k, i in zip(K, motors):
        links[i] = dataclasses.replace(links[i], drive=dataclasses.replace(links[i].drive or Drive(), stiffness=k))
    return dataclasses.replace(model, links=tuple(links))


def _serial_move(arm, q0, target, duration, hold, rows):
    from designer.numeric.closed_drive import SERVO_HZ, SERVO_ZETA
    from designer.numeric.simulate import quintic
    from designer.numeric.engine import arm_dynamics
    from designer.numeric.simulate import simulate
    dyn = arm_dynamics(arm)
    inertia = np.diag(dyn.M(np.asarray(q0)))
    kp = inertia * (2 * np.pi * SERVO_HZ) ** 2
    kd = 2 * SERVO_ZETA * np.sqrt(kp * inertia)
    G = dyn.scalar_function("G")

    def law(t, q, qd):
        ref, rate = quintic(list(q0), list(target), duration, t)
        g = G(list(q))
        return [p * (r - x) + d * (v_r - v) + gi for p, d, r, x, v_r, v, gi in zip(kp, kd, ref, q, rate, qd, g)]
    span = duration + hold
    return simulate(arm, q0, np.zeros(arm.n), (0.0, span), torque=law, t_eval=np.linspace(0, span, rows))


def main(argv=None) -> int:
    from designer.numeric.mechanism import load_dynamics
    from designer.numeric.motion import Move, passive_job
    from designer.gui.modes import elastic_summary
    from designer.kinematics import NumericArm
    from designer.numeric.closed import closed_dynamics
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    closed = _stiff(load_project(ROOT / "robots" / "palletizer_parallelogram.json"))
    serial = _stiff(load_project(ROOT / "robots" / "palletizer_serial.json"))
    cd = closed_dynamics(closed)
    qa = np.array([0.2, 0.35, -0.25, 0.4])
    q_tree = cd.positions(qa)
    arm = NumericArm.from_model(serial)
    q_serial = np.array([0.2, 0.35, -0.6, 0.4])   # the serial elbow is the parallelogram's q4 - q2
    elastic_summary(closed, q_tree)   # the mechanism is built once per model and kept
    reps = 200
    t_closed, text = timed(lambda: [elastic_summary(closed, q_tree) for _ in range(reps)][-1], args.runs)
    t_serial, _ = timed(lambda: [elastic_summary(serial, q_serial) for _ in range(reps)][-1], args.runs)
    print(f"read-out's elastic words at one pose, median of {args.runs} runs of {reps}:")
    print(f"  parallelogram {1e3 * t_closed / reps:.3f} ms   serial twin {1e3 * t_serial / reps:.3f} ms   "
          f"ratio {t_closed / t_serial:.1f}x   ({text})")
    target = np.radians([30.0, 20.0, 10.0, -40.0])
    rows = 401
    move = Move(tuple(target), 1.0, 1.0)
    rigid = load_dynamics(closed, springs=False)
    t_move, result = timed(lambda: run(passive_job(rigid, q_tree, 1.0, rows, NEVER, "warn", move, cd.tree.arm)),
                           args.runs)
    serial_target = target.copy()
    serial_target[2] = target[2] - target[1]
    t_twin, traj = timed(lambda: _serial_move(arm, q_serial, serial_target, 1.0, 1.0, rows), args.runs)
    print(f"1 s PD move + 1 s hold, {rows} rows, median of {args.runs} runs:")
    miss = np.abs(result.q[-1, list(result.actuated)] - target).max()
    print(f"  parallelogram {t_move:.2f} s (at the end {miss:.1e} "
          f"rad from the target)   serial twin {t_twin:.2f} s ({np.abs(traj.q[-1] - serial_target).max():.1e} rad)   "
          f"ratio {t_move / t_twin:.1f}x")
    bar = load_project(ROOT / "robots" / "four_bar.json")
    bar_cd = closed_dynamics(bar)
    q_bar = bar_cd.positions(np.zeros(bar_cd.n))
    bar_move = Move((0.4,) * bar_cd.n, 1.0, 1.0)
    t_bar, _ = timed(lambda: run(passive_job(bar_cd, q_bar, 1.0, rows, NEVER, "warn", bar_move, bar_cd.tree.arm)),
                     args.runs)
    print(f"  four-bar (robots/four_bar.json) the same move by 0.4 rad: {t_bar:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
