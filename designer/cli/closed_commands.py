"""``simulate`` of a closed-chain project (a tree with loops; its ``eval`` and ``torques``: numeric_commands.py).

The commands take and give the actuated joints only, named by their link numbers (a palletizer
whose joints 1, 2, 4 are actuated reads q1, q2, q4); the passive joints follow from the loops.
Each also gives the forces the cut joints carry (frame 0, on loop k's link i from its link j):
eval as ``cut_forces``, torques as columns ``f{k}x f{k}y f{k}z`` with their peaks in the summary,
simulate as the loop residual of every row.
"""

from __future__ import annotations

import csv
import io
import sys
from typing import TYPE_CHECKING

from .common import UserError, write_output
from .numeric_commands import _dynamics, _names
from .progress import job_bar

if TYPE_CHECKING:
    from ..model.manipulator import Manipulator

__all__ = ["closed_simulate"]


def closed_simulate(args, model: Manipulator) -> int:
    import numpy as np
    from ..kinematics.closure import ClosureError
    from ..jobs import run
    from ..numeric.simulate import SimulationError, simulate_job
    from .numeric_inputs import integrator, simulation_inputs
    cd = _dynamics(model, args.project)
    q0, qd0, duration, rtol, atol, t_eval, torque = simulation_inputs(args, cd.n, [j + 1 for j in cd.act])
    mode = getattr(args, "limits", "warn")
    stops = None
    if mode == "stop":   # on every joint of the tree, the passive ones included (numeric/closed_drive.py)
        from ..numeric.closed_drive import closed_end_stops_for
        try:
            stops = closed_end_stops_for(cd, q0)
        except (ValueError, ClosureError) as exc:
            raise UserError(f"--limits stop: {exc}") from None
    try:
        with job_bar(args.quiet, desc="simulate") as bar:
            traj = run(simulate_job(cd, q0, qd0, (0.0, duration), torque=torque, rtol=rtol, atol=atol,
                                    t_eval=t_eval, drives=bool(getattr(args, "drives", False)), end_stops=stops,
                                    method=integrator(args)), bar)
    except (ClosureError, SimulationError) as exc:
        raise UserError(f"{args.project}: {exc}") from None
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    passive = [f"q{j + 1}" for j in cd.pas]
    loops = len(cd.tree.loops)
    force_cols = [f"f{k + 1}{a}" for k in range(loops) for a in "xyz"]   # as torques names them
    writer.writerow(["t"] + _names(cd, "q") + _names(cd, "qd") + _names(cd, "tau") + passive
                    + ["kinetic", "potential", "energy", "loop_residual"] + (["stop_work"] if stops else [])
                    + force_cols)
    assert traj.kinetic is not None and traj.potential is not None and traj.tau is not None   # a closed chain's run
    assert traj.q_tree is not None and traj.residual is not None and traj.cut_force is not None
    energy = traj.kinetic + traj.potential
    for r in range(len(traj.t)):
        cells = [traj.t[r], *traj.q[r], *traj.qd[r], *traj.tau[r], *traj.q_tree[r][cd.pas],
                 traj.kinetic[r], traj.potential[r], energy[r], traj.residual[r]]
        if traj.stop_work is not None:
            cells.append(traj.stop_work[r])
        cells += list(traj.cut_force[r].ravel())
        writer.writerow([repr(float(v)) for v in cells])
    write_output(buf.getvalue(), args.out)
    drives = "with the drive terms (--drives)" if getattr(args, "drives", False) else "rigid bodies"
    out = sys.stdout if args.out else sys.stderr
    print(f"simulated {duration:g} s (closed chain, {drives}): {traj.evaluations} evaluations of the forward dynamics, "
          f"{len(traj.t)} rows; energy {energy[0]:.6g} J at the start, {energy[-1]:.6g} J at the end; "
          f"largest loop residual {traj.residual.max() * 1000:.3g} mm; {traj.method}: {traj.method_reason}", file=out)
    for k, name in enumerate(cd.tree.loop_names):
        size = np.linalg.norm(traj.cut_force[:, k], axis=1)
        print(f"{name}: peak cut-joint force {size.max():.6g} N at t = {traj.t[int(np.argmax(size))]:.4g} s", file=out)
    _say_limits(mode, cd, traj, out)
    return 0


def _say_limits(mode: str, cd, traj, out) -> None:
    """One line per tree joint (passive ones included) past a limit (warn), or how deep into its stop (stop)."""
    import numpy as np
    from ..numeric.end_stops import describe_passes, limit_passes
    if mode == "ignore":
        return
    revolute = list(cd.tree.arm.revolute)
    for p in limit_passes(traj.t, traj.q_tree, cd.tree.arm.limits):
        what = describe_passes([p], revolute)
        print(f"end stop: {what}" if mode == "stop" else f"warning: {what} (no end stops: --limits stop models them)",
              file=out)
    if traj.stop_work is not None and not np.any(traj.tau):   # passive: the stops are the only torques doing work
        energy = traj.kinetic + traj.potential
        gap = float(np.abs(traj.stop_work - (energy - energy[0])).max())
        print(f"energy change and the end stops' work differ by at most {gap:.3g} J", file=out)
