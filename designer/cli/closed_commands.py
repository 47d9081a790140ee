"""``eval``, ``torques`` and ``simulate`` of a closed-chain project (a tree with loops).

The commands take and give the actuated joints only, named by their link numbers (a palletizer
whose joints 1, 2, 4 are actuated reads q1, q2, q4); the passive joints follow from the loops.
Each also gives the forces the cut joints carry (frame 0, on loop k's link i from its link j):
eval as ``cut_forces``, torques as columns ``f{k}x f{k}y f{k}z`` with their peaks in the summary,
simulate as the loop residual of every row.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from typing import TYPE_CHECKING

from .common import UserError, write_output
from .progress import job_bar, loop_bar

if TYPE_CHECKING:
    from ..model.manipulator import Manipulator

__all__ = ["closed_eval", "closed_torques", "closed_simulate"]


def _dynamics(model: Manipulator, project: str):
    from ..kinematics.closure import ClosureError
    from ..model import MissingParameterError
    from ..numeric.closed import ClosedDynamics
    try:
        return ClosedDynamics(model)
    except (MissingParameterError, ClosureError, ValueError) as exc:
        raise UserError(f"{project}: {exc}") from None


def _names(cd, prefix: str) -> list[str]:
    return [f"{prefix}{j + 1}" for j in cd.act]


def _closed_form(args, model: Manipulator):
    """``eval --form closed``: the closed form ``derive --form closed --method M --simplify S`` prints,
    evaluated as printed (a nonlinear loop's quantities from its numeric closure and their definitions)."""
    from ..kinematics.closure import ClosureError
    from ..model import MissingParameterError
    from ..dynamics.closed_nonlinear_eval import LoopEvaluator
    from ..dynamics.results import Form
    from .dynamics_commands import derive_closed
    with job_bar(args.quiet, desc=f"derive ({args.method}, closed)") as progress:
        try:
            eq = derive_closed(args, model, progress, Form.CLOSED)
        except (ValueError, ArithmeticError) as exc:
            raise UserError(f"{args.project}: cannot derive the equations: {exc}") from None
    try:
        return LoopEvaluator(eq)
    except (MissingParameterError, ClosureError, ValueError) as exc:
        raise UserError(f"{args.project}: {exc}") from None


def closed_eval(args, model: Manipulator) -> int:
    import numpy as np
    from ..kinematics.closure import ClosureError
    from .numeric_inputs import read_states
    closed = getattr(args, "form", "compact") == "closed"
    if args.method != "lagrange" and not closed:
        raise UserError(f"{args.project}: a closed-chain project evaluates its numeric projected dynamics "
                        "(no --method without --form closed)")
    cd = _dynamics(model, args.project)
    src = _closed_form(args, model) if closed else cd
    states = read_states(args.states, cd.n)
    results = []
    for i, (q, qd, qdd) in enumerate(loop_bar(states, args.quiet, unit="state", desc="eval")):
        try:
            q_tree = cd.positions(q)
            at = cd.following(q_tree)
            parts = {"tau": src.tau(q, qd, qdd, q_tree), "M": src.M(q, q_tree), "G": src.G(q, q_tree),
                     "h": src.h(q, qd, q_tree)} if closed else \
                {"tau": at.tau(q, qd, qdd), "M": at.M(q), "G": at.G(q), "h": at.h(q, qd)}
            forces = at.cut_forces(q, qd, qdd)   # what the bearings carry: the rigid bodies'
            if args.drives:   # tau = M qdd + h + G + friction as for a serial arm (h: a passive rotor's W' qd)
                d = at.drive_parts(q, qd, qdd)
                parts.update(M=parts["M"] + d["M"], tau=parts["tau"] + d["tau"], h=parts["h"] + d["h"] - d["friction"],
                             friction=d["friction"])
        except ClosureError as exc:
            raise UserError(f"{args.states}: states[{i}]: {exc}") from None
        result = {k: np.asarray(v).tolist() for k, v in parts.items()}
        result["q_tree"] = q_tree.tolist()
        result["cut_forces"] = forces.as_lists()
        result["residual"] = cd.closure.residual(q_tree)
        results.append(result)
    head = {"method": args.method, "form": "closed", "simplify": args.simplify} if closed else \
        {"method": "closed-chain numeric"}
    json.dump({**head, "drives": bool(args.drives), "actuated": _names(cd, "q"),
               "results": results}, sys.stdout)
    sys.stdout.write("\n")
    return 0


def closed_torques(args, model: Manipulator) -> int:
    import numpy as np
    from ..kinematics.closure import ClosureError
    from ..tables import read_columns
    if args.method != "rnea":
        raise UserError(f"{args.project}: a closed-chain project takes the numeric method only")
    cd = _dynamics(model, args.project)
    names = [f"{p}{j + 1}" for p in ("q", "qd", "qdd") for j in cd.act]
    _, header, data, values = read_columns(args.trajectory, "trajectory", names,
                                            "columns " + ", ".join(names) + " (the actuated joints)")
    n = cd.n
    Q, QD, QDD = values[:, :n], values[:, n:2 * n], values[:, 2 * n:]
    tau = np.empty_like(Q)
    loops = len(cd.tree.loops)
    forces = np.empty((len(Q), loops, 3))
    follow = cd.following()
    for r in loop_bar(range(len(Q)), args.quiet, unit="row", desc="torques"):
        try:
            tau[r] = follow.tau(Q[r], QD[r], QDD[r])
            if args.drives:
                tau[r] += follow.drive_terms(Q[r], QD[r], QDD[r])[1]
            forces[r] = follow.cut_forces(Q[r], QD[r], QDD[r]).force
        except ClosureError as exc:
            raise UserError(f"{args.trajectory}: data row {r + 1}: {exc}") from None
    others = {c: [row[header.index(c)].strip() for _, row in data] for c in header if c not in names}
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    force_cols = [f"f{k + 1}{a}" for k in range(loops) for a in "xyz"]
    writer.writerow(list(others) + _names(cd, "tau") + force_cols)
    for r in range(len(Q)):
        writer.writerow([others[c][r] for c in others] + [repr(float(v)) for v in tau[r]]
                        + [repr(float(v)) for v in forces[r].ravel()])
    write_output(buf.getvalue(), args.out)
    peak, rms = np.abs(tau).max(axis=0), np.sqrt(np.mean(tau**2, axis=0))
    drives = "added (--drives)" if args.drives else "not added"
    lines = [f"{len(Q)} rows, closed chain (actuated joints {', '.join(str(j + 1) for j in cd.act)}), drive terms "
             f"{drives}; N m for revolute joints, N for prismatic",
             f"{'joint':<6} {'peak |tau|':>14} {'RMS tau':>14}"]
    lines += [f"{j + 1:<6} {peak[k]:>14.6g} {rms[k]:>14.6g}" for k, j in enumerate(cd.act)]
    for k, name in enumerate(cd.tree.loop_names):
        lines.append(f"{name}: peak cut-joint force {np.linalg.norm(forces[:, k], axis=1).max():.6g} N")
    print("\n".join(lines), file=sys.stdout if args.out else sys.stderr)
    return 0


def closed_simulate(args, model: Manipulator) -> int:
    import numpy as np
    from ..kinematics.closure import ClosureError
    from ..jobs import run
    from ..numeric.simulate import SimulationError, simulate_job
    from .numeric_inputs import simulation_inputs
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
                                    t_eval=t_eval, drives=bool(getattr(args, "drives", False)), end_stops=stops), bar)
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
          f"largest loop residual {traj.residual.max() * 1000:.3g} mm", file=out)
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
