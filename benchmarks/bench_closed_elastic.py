"""``simulate --elastic`` of a closed chain (issue 22): 1 s of the palletizer with a parallelogram, its four
motors' gearboxes elastic, released from rest with the springs holding gravity and the motors free, beside
the same run of its serial twin (robots/palletizer_serial.json, the same drive data on its four joints).

Run: ``python -m benchmarks.bench_closed_elastic [--runs R] [--t T]`` from the repository root (prints
figures; not a test). Both runs are :func:`designer.numeric.simulate.simulate` of an ``ElasticDynamics`` with the
command line's tolerances (rtol 1e-8, atol 1e-10, Radau): the closed chain's link side closes its loops and
runs the tree's RNEA and CRBA in Python at every evaluation (numeric/closed.py), the serial twin's
is generated code; the energy drift is the largest |E - E(0)| (links, rotors, springs, gravity).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designer.kinematics import NumericArm  # noqa: E402
from designer.model.extras import Drive  # noqa: E402
from designer.numeric.closed import ClosedDynamics  # noqa: E402
from designer.numeric.elastic import ElasticArm, elastic_joints  # noqa: E402
from designer.numeric import arm_dynamics  # noqa: E402
from designer.numeric.elastic import ElasticDynamics  # noqa: E402
from designer.numeric.simulate import simulate  # noqa: E402
from designer.project import load_project  # noqa: E402

from benchmarks.bench_derive import timed  # noqa: E402  (median of runs, and the last result)

#: per motor (base, shoulder, elbow, wrist): stiffness N m/rad, gear ratio, rotor kg m^2 (strain-wave-like)
DRIVES = ((2e5, 120.0, 5e-3), (3e5, 150.0, 8e-3), (2e5, 150.0, 8e-3), (2e4, 80.0, 1e-3))


def _model(name: str):
    loaded = load_project(ROOT / "robots" / f"{name}.json")
    model = getattr(loaded, "model", loaded)
    links = list(model.links)
    motors = [i for i, link in enumerate(links) if link.actuated]
    for i, (k, n, jm) in zip(motors, DRIVES):
        links[i] = replace(links[i], drive=Drive(stiffness=k, gear_ratio=n, motor_inertia=jm))
    return replace(model, links=tuple(links))


def _run(model, q0, seconds: float, closed: bool):
    joints = elastic_joints(model)
    if closed:
        cd = ClosedDynamics(model)
        arm, side, energy_side = None, cd.following(), cd.following()
    else:
        arm, side, energy_side = NumericArm.from_model(model), None, None
    traj = simulate(ElasticDynamics(arm_dynamics(arm) if side is None else side, joints), q0, None, (0.0, seconds),
                    rtol=1e-8, atol=1e-10)
    energy = ElasticArm(arm, joints, energy_side).energy(traj.states())
    return traj, float(np.abs(energy - energy[0]).max()), float(energy[0])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--t", type=float, default=1.0, help="simulated seconds (default 1)")
    args = parser.parse_args(argv)
    cases = (("palletizer (parallelogram)", "palletizer_parallelogram", [0.0, 0.2, 0.3, 0.0], True),
             ("serial twin", "palletizer_serial", [0.0, 0.2, 0.1, 0.0], False))   # its elbow angle is q4 - q2
    print(f"simulate --elastic, {args.t:g} s released from rest, motors free; median of {args.runs} runs")
    times = []
    for label, name, q0, closed in cases:
        model = _model(name)
        seconds, (traj, drift, e0) = timed(lambda m=model, q=q0, c=closed: _run(m, q, args.t, c), args.runs)
        times.append(seconds)
        print(f"  {label:<27} {seconds:7.2f} s  {traj.steps:5d} steps  {traj.evaluations:6d} evaluations "
              f"({1e3 * seconds / traj.evaluations:.2f} ms each)  energy drift {drift:.2g} J of {e0:.6g} J")
    print(f"  ratio closed / serial: {times[0] / times[1]:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
