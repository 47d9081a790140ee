"""Numeric commands: ``eval`` (M, G, h, tau at given states), ``torques`` (along a trajectory)
and ``simulate`` (forward dynamics integrated over time)."""

from __future__ import annotations

import csv
import io
import json
import sys
from typing import TYPE_CHECKING

from ..jobs import Progress, run
from .common import UserError, load_model, write_output
from .common import number  # noqa: F401  (callers import it from here)
from .numeric_inputs import _values, integrator, read_states, read_torque_table, simulation_inputs  # noqa: F401
from .progress import add_quiet, job_bar, loop_bar

if TYPE_CHECKING:
    from ..model.manipulator import Manipulator

METHODS = ["lagrange", "newton-euler", "dalembert"]
FORMS = ["compact", "closed"]
#: simulate --method: auto (numeric.integrate.choose_method) or one of numeric.integrate.SOLVERS (named here: the
#: numeric layer is not imported before a command runs)
INTEGRATORS = ["auto", "DOP853", "RK45", "RK23", "Radau", "BDF", "LSODA"]
_FORM_HELP = ("compact (default): the recursive Newton-Euler and composite-rigid-body algorithms (eval: numeric, at "
              "the parameter values; torques: the graphs compiled), the same for every --method (which then changes "
              "nothing); closed: the expanded matrices --method's report prints "
              "('derive --form closed': lagrange M, B, C, G; newton-euler tau; dalembert D, H, G), evaluated as "
              "printed with the parameter values put in, to check a report against")


def register(sub) -> None:
    p = sub.add_parser("eval", help="evaluate tau, M, G and h at joint states (JSON in, JSON out)")
    p.add_argument("project")
    p.add_argument("--states", required=True, metavar="STATES.json",
                   help='{"states": [{"q": [...], "qd": [...], "qdd": [...]}, ...]} in SI units and radians')
    p.add_argument("--method", choices=METHODS, default="lagrange",
                   help="the derivation whose closed form --form closed evaluates (default: lagrange)")
    _form_options(p)
    _drives_option(p)
    add_quiet(p)
    p.set_defaults(func=cmd_eval)
    p = sub.add_parser("torques", help="inverse dynamics along a trajectory (CSV), with peak and RMS per joint")
    p.add_argument("project")
    p.add_argument("trajectory", metavar="TRAJECTORY.csv", help="header row; columns q1..qn, qd1..qdn, qdd1..qddn")
    p.add_argument("--out", metavar="OUT.csv",
                   help="write the torques per row here (the summary then goes to standard output); "
                        "without it the torques go to standard output and the summary to standard error")
    p.add_argument("--method", choices=["rnea"] + METHODS, default="rnea",
                   help="rnea: numeric recursive Newton-Euler (default); or a derivation, compiled in the form "
                        "--form says")
    _form_options(p)
    p.add_argument("--strict", action="store_true",
                   help="refuse joint columns beyond the arm's joints (q3.. for a 2-joint arm) instead of warning")
    _drives_option(p)
    add_quiet(p)
    p.set_defaults(func=cmd_torques)
    p = sub.add_parser("simulate",
                       help="integrate the motion from an initial state under torques or PD control (CSV out)")
    p.add_argument("project")
    p.add_argument("--q0", nargs="+", required=True, metavar="Q", help="initial joint positions (n values; rad or m)")
    p.add_argument("--qd0", nargs="+", metavar="QD", help="initial joint velocities (default: zero)")
    p.add_argument("--t", required=True, metavar="T", help="duration in seconds")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--torque", metavar="TORQUE.csv",
                     help="joint torques over time: header t, tau1..taun; linear between rows, held after the last")
    how.add_argument("--pd", nargs=2, metavar=("KP", "KD"),
                     help="PD control with gravity compensation towards --target: gains, one number for every "
                          "joint or n numbers separated by commas")
    p.add_argument("--target", nargs="+", metavar="Q", help="the PD target (n values, or one for all; default: q0)")
    p.add_argument("--dt", metavar="DT", help="report every DT seconds (default: every integrator step)")
    p.add_argument("--rtol", default="1e-8", help="relative tolerance of the integrator (default 1e-8)")
    p.add_argument("--atol", default="1e-10", help="absolute tolerance of the integrator (default 1e-10)")
    p.add_argument("--out", metavar="OUT.csv", help="write t, q, qd, tau and energy here (default: standard output; "
                   "the summary then goes to standard error)")
    p.add_argument("--method", choices=INTEGRATORS, default="auto",
                   help="the integrator: auto (default: DOP853, Radau when the problem is stiff; the summary says "
                        "which and why, docs/command-line.md) or one of scipy's, forced")
    p.add_argument("--limits", choices=["warn", "stop", "ignore"], default="warn",
                   help="at the joint limits: warn (default: no end stops, one line per limit passed), stop (end "
                        "stops: stiff critically damped springs; adds the stop_work column, the energy check), "
                        "ignore")
    p.add_argument("--drives", action="store_true",
                   help="closed chains: every joint's drive data acts (reflected inertia N^2 Jm, viscous and Coulomb "
                        "friction, projected onto the actuated joints; the energy counts the rotors)")
    add_quiet(p)
    p.set_defaults(func=cmd_simulate)


def _form_options(p) -> None:
    from .derivation import add_budget_options
    p.add_argument("--form", choices=FORMS, default="compact", help=_FORM_HELP)
    p.add_argument("--simplify", choices=["off", "fast", "full"], default="fast",
                   help="with --form closed: the simplification of the report to evaluate (default fast)")
    add_budget_options(p)


def _drives_option(p) -> None:
    p.add_argument("--drives", action="store_true",
                   help="add the project's drive terms: reflected motor inertia N^2 Jm on the diagonal of M "
                        "(and N^2 Jm qdd in tau), viscous and Coulomb friction in tau (eval: also as "
                        "'friction') (default: rigid bodies only)")


def _drive_note(model: Manipulator, drives: bool) -> None:
    from ..model.drives import has_drive_terms
    if drives and not has_drive_terms(model):
        sys.stderr.write("note: --drives: the project has no motor inertia, gear ratio or friction; "
                         "nothing is added\n")


def closed_equations(model: Manipulator, args, progress):
    """The closed form of ``args.method`` as ``derive --form closed`` writes it (the project's symbols
    kept; derived through dynamics.derive, which decides serial or closed chain)."""
    from ..dynamics.results import Form
    from .derivation import derive_closed
    try:
        return derive_closed(args, model, progress, Form.CLOSED)
    except UserError:   # derive_closed's own, already naming the project and the limit
        raise
    except (ValueError, ArithmeticError) as exc:
        raise UserError(f"{args.project}: cannot derive the equations: {exc}") from None


def cmd_eval(args) -> int:
    """tau, M, G and h of any mechanism at states of its coordinates (a closed chain's actuated joints, named by
    their links; its tree positions, the cut joints' forces and the loop residual beside)."""
    import numpy as np
    from ..kinematics.closure import ClosureError
    from ..numeric.mechanism import with_drive_parts
    from ..numeric.near_singular import near_singular
    from ..model.mechanism import actuated_indices
    model = load_model(args.project)
    states = read_states(args.states, len(actuated_indices(model)))   # before the numbers: a bad file first
    dyn = _dynamics(model, args.project)
    source = _eval_source(model, dyn, args)
    _drive_note(model, args.drives)
    results = []
    closed: list = []   # (state, tree pose, cut forces): which are near a singular pose is said once the bar is gone
    for i, (q, qd, qdd) in enumerate(loop_bar(states, args.quiet, unit="state", desc="eval")):
        try:
            q_tree = dyn.positions(q)
            at = dyn.following(q_tree)   # the state's loops closed on its own branch
            with np.errstate(all="ignore"):
                parts = source(at, q, qd, qdd, q_tree)
                if args.drives:   # h stays Coriolis and centrifugal: tau = M qdd + h + G + friction
                    parts = with_drive_parts(at, model, parts, q, qd, qdd)
            bad = next((k for k, v in parts.items() if not np.all(np.isfinite(v))), None)
        except (OverflowError, ZeroDivisionError, FloatingPointError):
            bad = "tau"
        except ClosureError as exc:
            raise UserError(f"{args.states}: states[{i}]: {exc}") from None
        if bad is not None:  # JSON has no inf or NaN: refuse rather than write an unreadable file
            raise UserError(f"{args.states}: states[{i}]: {bad} is not finite there (numbers too large?)")
        result = {k: np.asarray(v).tolist() for k, v in parts.items()}
        cut = at.cut_forces(q, qd, qdd)   # a row per loop: what the bearings carry, where the passive joints stand
        if len(cut.force):
            result.update(q_tree=q_tree.tolist(), cut_forces=cut.as_lists(), residual=float(at.residual(q)))
            closed.append((i, q_tree, cut.force))
        results.append(result)
    closing = any("cut_forces" in r for r in results)
    if closed:
        index, poses, forces = zip(*closed)
        for w in near_singular(dyn, np.array(poses), lambda r: f"states[{index[r]}]", np.array(forces)):
            print(f"warning: {w.text()}", file=sys.stderr)
    head = {"method": args.method, "form": args.form}
    if args.form == "closed":   # the report these numbers check: derive --method M --simplify S --form closed
        head["simplify"] = args.simplify
    elif closing:   # the compact form of a mechanism with passive joints: its numeric dynamics
        head = {"method": "closed-chain numeric"}
    json.dump({**head, "drives": bool(args.drives), **({"actuated": _names(dyn.actuated, "q")} if closing else {}),
               "results": results}, sys.stdout)
    sys.stdout.write("\n")
    return 0


def _eval_source(model: Manipulator, dyn, args):
    """What ``eval`` evaluates (:func:`~designer.numeric.evaluable.evaluable`: the equations ``--method`` derives in
    the form ``--form`` says, at numbers; the numeric layer chooses the engine)."""
    from ..numeric.evaluable import evaluable
    return _source(model, args, lambda progress: evaluable(dyn, model, args.method, args.form,
                                                           lambda: closed_equations(model, args, progress), progress))


def _source(model: Manipulator, args, build):
    """``build(progress)`` under the derivation's progress bar, its ValueErrors one line naming the project."""
    try:
        with job_bar(args.quiet, desc=f"derive ({args.method}, {args.form})") as progress:
            return build(progress)
    except UserError:   # closed_equations' own, naming the limit that stopped a closed form
        raise
    except ValueError as exc:   # MissingParameterError, ClosureError: DesignerErrors
        raise UserError(f"{args.project}: {exc}") from None


def cmd_torques(args) -> int:
    """Inverse dynamics along a trajectory of any mechanism: the coordinates' torques (a closed chain's actuated
    joints, named by their links), then the cut joints' forces where the mechanism has loops."""
    import numpy as np
    from ..kinematics.closure import ClosureError
    from ..numeric.evaluable import torques
    from ..numeric.mechanism import with_drive_torques
    from ..numeric.near_singular import near_singular
    from ..tables import read_trajectory
    from ..model.mechanism import actuated_indices
    model = load_model(args.project)
    act = actuated_indices(model)
    n = len(act)
    if args.method == "rnea" and args.form == "closed":
        raise UserError("--form closed: rnea is numeric and has no closed form; choose --method lagrange, "
                        "newton-euler or dalembert")
    _, Q, QD, QDD, others = read_trajectory(args.trajectory, n, args.strict, [j + 1 for j in act])
    dyn = _dynamics(model, args.project)
    along = _source(model, args, lambda progress: torques(dyn, model, args.method, args.form,
                                                          lambda: closed_equations(model, args, progress), progress))
    follow = dyn.following()   # the rows on one branch of the loops
    try:
        with np.errstate(all="ignore"):
            tau = along(follow, Q, QD, QDD)
            if args.drives:
                _drive_note(model, True)
                tau = with_drive_torques(follow, model, tau, Q, QD, QDD)
        forces = dyn.following().cut_forces(Q, QD, QDD).force
        near = near_singular(dyn, dyn.following().positions(Q), lambda r: f"data row {r + 1}", forces) \
            if forces.shape[1] else []
    except ClosureError as exc:
        raise UserError(f"{args.trajectory}: data row {_unclosed_row(dyn, Q) + 1}: {exc}") from None
    bad = np.flatnonzero(~np.all(np.isfinite(tau), axis=1))
    if bad.size:  # a CSV cannot say inf or NaN to the next tool: refuse instead of writing them
        raise UserError(f"{args.trajectory}: data row {int(bad[0]) + 1}: the torque is not finite there "
                        "(numbers too large?)")
    loops = forces.shape[1]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(list(others) + _names(act, "tau") + [f"f{k + 1}{a}" for k in range(loops) for a in "xyz"])
    for r in range(tau.shape[0]):
        writer.writerow([others[c][r] for c in others] + [repr(float(v)) for v in tau[r]]
                        + [repr(float(v)) for v in forces[r].ravel()])
    write_output(buf.getvalue(), args.out)
    peak = np.max(np.abs(tau), axis=0)
    rms = np.sqrt(np.mean(tau**2, axis=0))
    drives = "added (--drives)" if args.drives else "not added"
    method = args.method if args.method == "rnea" else f"{args.method} ({args.form} form)"
    chain = f"closed chain (actuated joints {', '.join(str(j + 1) for j in act)}), " if loops else ""
    lines = [f"{tau.shape[0]} rows, {chain}method {method}, drive terms {drives}; N m for revolute joints, "
             "N for prismatic",
             f"{'joint':<6} {'type':<4} {'peak |tau|':>14} {'RMS tau':>14}"]
    lines += [f"{j + 1:<6} {model.links[j].joint.value:<4} {peak[k]:>14.6g} {rms[k]:>14.6g}"
              for k, j in enumerate(act)]
    for k, name in enumerate(_loop_names(dyn, loops)):
        lines.append(f"{name}: peak cut-joint force {np.linalg.norm(forces[:, k], axis=1).max():.6g} N")
    lines += [f"warning: {w.text()}" for w in near]
    print("\n".join(lines), file=sys.stdout if args.out else sys.stderr)
    return 0


def _unclosed_row(dyn, Q) -> int:
    """The first row (0-based) of the coordinates Q (N, n) whose loops do not close on the trajectory's branch."""
    from ..kinematics.closure import ClosureError
    follow = dyn.following()
    for r, q in enumerate(Q):
        try:
            follow.positions(q)
        except ClosureError:
            return r
    return len(Q) - 1


def cmd_simulate(args) -> int:
    """Any mechanism's motion (numeric/simulate.py: simulate_job over load_dynamics). The columns are the
    coordinates (a closed chain's actuated joints, named by their links), then what the mechanism has: its
    passive joints' positions, the loop residual and the cut joints' forces (frame 0, on loop k's link i from
    its link j; as torques names them)."""
    import numpy as np
    from ..kinematics.closure import ClosureError
    from ..numeric import SingularConfigurationError
    from ..numeric.mechanism import mechanism_end_stops
    from ..numeric.simulate import SimulationError, simulate_job
    model = load_model(args.project)
    dyn = _dynamics(model, args.project)
    act, n = dyn.actuated, dyn.n
    drives = bool(getattr(args, "drives", False))   # simulate_job says which mechanisms take them
    q0, qd0, duration, rtol, atol, t_eval, torque = simulation_inputs(args, n, [j + 1 for j in act])
    stops = None
    if args.limits == "stop":   # on every joint of the tree, the passive ones included
        try:
            stops = mechanism_end_stops(dyn, q0)
        except (ValueError, ClosureError) as exc:
            raise UserError(f"--limits stop: {exc}") from None
    reached = [0.0]

    def follow(step: Progress) -> None:
        reached[0] = (step.fraction or 0.0) * duration
        bar(step)
    try:
        # overflow is caught as a state that is no longer finite: numpy's warnings would only add lines
        with job_bar(args.quiet, desc="simulate") as bar, np.errstate(over="ignore", invalid="ignore"):
            traj = run(simulate_job(dyn, q0, qd0, (0.0, duration), torque=torque, rtol=rtol, atol=atol,
                                    t_eval=t_eval, end_stops=stops, drives=drives, method=integrator(args)), follow)
    except (SingularConfigurationError, SimulationError, ValueError) as exc:   # ClosureError, the inputs refused
        raise UserError(f"{args.project}: {exc}") from None
    except KeyboardInterrupt:
        # the bar is gone by now: one line; nothing was written (the rows are written at the end)
        print(f"interrupted at t = {reached[0]:.4g} s of {duration:g} s; nothing written", file=sys.stderr)
        return 130
    assert traj.kinetic is not None and traj.potential is not None and traj.q_tree is not None
    assert traj.residual is not None and traj.cut_force is not None
    kinetic, potential = traj.kinetic, traj.potential
    energy = kinetic + potential
    tau = traj.tau if traj.tau is not None else np.zeros_like(traj.q)
    # what the mechanism's loops add, present or not: the passive joints' columns, the residual, the cut forces
    passive = [j for j in range(traj.q_tree.shape[1]) if j not in act]
    loops = traj.cut_force.shape[1]
    closing = loops > 0
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["t"] + [name for p in ("q", "qd", "tau") for name in _names(act, p)]
                    + [f"q{j + 1}" for j in passive] + ["kinetic", "potential", "energy"]
                    + (["loop_residual"] if closing else []) + (["stop_work"] if stops is not None else [])
                    + [f"f{k + 1}{a}" for k in range(loops) for a in "xyz"])
    for r in range(len(traj.t)):
        cells = [traj.t[r], *traj.q[r], *traj.qd[r], *tau[r], *traj.q_tree[r][passive],
                 kinetic[r], potential[r], energy[r]] + ([traj.residual[r]] if closing else [])
        if traj.stop_work is not None:
            cells.append(traj.stop_work[r])
        cells += list(traj.cut_force[r].ravel())
        writer.writerow([repr(float(v)) for v in cells])
    write_output(buf.getvalue(), args.out)
    out = sys.stdout if args.out else sys.stderr
    if closing:
        what = "with the drive terms (--drives)" if drives else "rigid bodies"
        print(f"simulated {duration:g} s (closed chain, {what}): {traj.evaluations} evaluations of the forward "
              f"dynamics, {len(traj.t)} rows; energy {energy[0]:.6g} J at the start, {energy[-1]:.6g} J at the end; "
              f"largest loop residual {traj.residual.max() * 1000:.3g} mm; {traj.method}: {traj.method_reason}",
              file=out)
    else:
        print(f"simulated {duration:g} s: {traj.steps} time steps, {traj.evaluations} evaluations of the forward "
              f"dynamics, {len(traj.t)} rows; energy {energy[0]:.6g} J at the start, {energy[-1]:.6g} J at the end; "
              f"{traj.method}: {traj.method_reason}", file=out)
    say_run(args.limits, dyn, traj, energy, out)
    return 0


def say_run(limits: str, dyn, traj, energy, out) -> None:
    """What a run of any mechanism's engine (rigid or elastic) adds to its summary line: each loop's peak cut-joint
    force, each stretch of rows near a singular pose of a loop, the joints past their limits."""
    import numpy as np
    from ..numeric.near_singular import near_singular
    loops = traj.cut_force.shape[1]
    for k, name in enumerate(_loop_names(dyn, loops)):
        size = np.linalg.norm(traj.cut_force[:, k], axis=1)
        print(f"{name}: peak cut-joint force {size.max():.6g} N at t = {traj.t[int(np.argmax(size))]:.4g} s", file=out)
    for w in near_singular(dyn, traj.q_tree, lambda r: f"t = {traj.t[r]:.4g} s", traj.cut_force) if loops else ():
        print(f"warning: {w.text()}", file=out)
    _say_limits(limits, dyn, traj, energy, out)


def _say_limits(mode: str, dyn, traj, energy, out) -> None:
    """One line per tree joint (passive ones included) past a limit (warn), or how deep into its stop (stop)."""
    import numpy as np
    from ..numeric.end_stops import describe_passes, limit_passes, tree_limits
    if mode == "ignore":
        return
    limits, revolute = tree_limits(dyn)
    for p in limit_passes(traj.t, traj.q_tree, limits):
        what = describe_passes([p], revolute)
        print(f"end stop: {what}" if mode == "stop" else f"warning: {what} (no end stops: --limits stop models them)",
              file=out)
    if traj.stop_work is not None and (traj.tau is None or not np.any(traj.tau)):
        # passive: the stops are the only torques doing work
        gap = float(np.abs(traj.stop_work - (energy - energy[0])).max())
        print(f"energy change and the end stops' work differ by at most {gap:.3g} J", file=out)


def _dynamics(model: Manipulator, project: str):
    """The rigid numeric dynamics of any mechanism (numeric/mechanism.py: load_dynamics); one-line errors."""
    from ..kinematics.closure import ClosureError
    from ..model import MissingParameterError
    from ..numeric.mechanism import load_dynamics
    try:
        return load_dynamics(model, springs=False)
    except (MissingParameterError, ClosureError, ValueError) as exc:
        raise UserError(f"{project}: {exc}") from None


def _names(act, prefix: str) -> list[str]:
    """The coordinates named by their tree joints' link numbers (q1, q2, q4 for a palletizer)."""
    return [f"{prefix}{j + 1}" for j in act]


def _loop_names(dyn, loops: int) -> list[str]:
    """The loops' labels (no loops, no names)."""
    return list(dyn.tree.loop_names) if loops else []
