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
from .common import number  # noqa: F401  (elastic_commands imports it from here)
from .numeric_inputs import _values, integrator, read_states, read_torque_table, simulation_inputs  # noqa: F401
from .progress import add_quiet, job_bar, loop_bar

if TYPE_CHECKING:
    from ..model.manipulator import Manipulator

METHODS = ["lagrange", "newton-euler", "dalembert"]
FORMS = ["compact", "closed"]
#: simulate --method: auto (numeric.integrate.choose_method) or one of numeric.integrate.SOLVERS (named here: the
#: numeric layer is not imported before a command runs)
INTEGRATORS = ["auto", "DOP853", "RK45", "RK23", "Radau", "BDF", "LSODA"]
_FORM_HELP = ("compact (default): the recursive Newton-Euler and composite-rigid-body graphs, the same for every "
              "--method (which then changes nothing); closed: the expanded matrices --method's report prints "
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
    from .dynamics_commands import add_budget_options
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


def compiled_for(model: Manipulator, method: str, where: str, quiet: bool = True, args=None):
    """Compile the model's equations at its default parameter values: the recursive forms (the same
    for every method, never expanded), or with ``args.form`` closed the closed form ``method``'s
    report prints (:func:`closed_equations`)."""
    from ..model import MissingParameterError
    from ..dynamics.engine import compact_equations_job
    from ..dynamics.results import Method
    from ..jobs import run
    from ..numeric.compiled import compile_equations
    try:
        numeric = model.numeric()
    except MissingParameterError as exc:
        raise UserError(f"{where}: {exc}") from None
    closed = args is not None and getattr(args, "form", "compact") == "closed"
    with job_bar(quiet, desc=f"derive ({method}, {'closed' if closed else 'compact'})") as progress:
        if closed:
            eq = closed_equations(model, args, progress)
            progress(Progress("compile"))
            return compile_equations(eq, form="derived")
        eq = run(compact_equations_job(numeric, Method(method)), progress)
        progress(Progress("compile"))
        return compile_equations(eq)


def closed_equations(model: Manipulator, args, progress, assemble: bool = True):
    """The closed form of ``args.method`` as ``derive --form closed`` writes it (the project's symbols
    kept; derived through dynamics.derive, which decides serial or closed chain), with ``assemble`` tau, M, G
    and h rebuilt from the method's printed matrices alone."""
    from dataclasses import replace

    from ..dynamics.methods import METHODS as STRATEGIES
    from ..dynamics.results import Form
    from .dynamics_commands import derive_closed
    try:
        eq = derive_closed(args, model, progress, Form.CLOSED)
    except (ValueError, ArithmeticError) as exc:
        raise UserError(f"{args.project}: cannot derive the equations: {exc}") from None
    if not assemble:
        return eq
    tau, M, G, h = STRATEGIES[eq.method].assemble(model, eq.matrices)
    return replace(eq, tau=tau, mass_matrix=M, gravity=G, coriolis=h)


def cmd_eval(args) -> int:
    import numpy as np
    model = load_model(args.project, closed=True)
    if not model.is_serial:
        return closed_eval(args, model)
    states = read_states(args.states, model.n)
    cd = compiled_for(model, args.method, args.project, args.quiet, args)
    from ..model.drives import friction_torque, with_drives
    _drive_note(model, args.drives)
    results = []
    for i, (q, qd, qdd) in enumerate(loop_bar(states, args.quiet, unit="state", desc="eval")):
        try:
            with np.errstate(all="ignore"):
                M, tau = cd.M(q), cd.tau(q, qd, qdd)
                result = {}
                if args.drives:   # h stays Coriolis and centrifugal: tau = M qdd + h + G + friction
                    M, tau = with_drives(model, M, tau, qd, qdd)
                    result["friction"] = friction_torque(model, qd)
                parts = {"tau": tau, "M": M, "G": cd.G(q), "h": cd.h(q, qd), **result}
            bad = next((k for k, v in parts.items() if not np.all(np.isfinite(v))), None)
        except (OverflowError, ZeroDivisionError, FloatingPointError):
            bad = "tau"
        if bad is not None:  # JSON has no inf or NaN: refuse rather than write an unreadable file
            raise UserError(f"{args.states}: states[{i}]: {bad} is not finite there (numbers too large?)")
        results.append({k: np.asarray(v).tolist() for k, v in parts.items()})
    head = {"method": args.method, "form": args.form}
    if args.form == "closed":   # the report these numbers check: derive --method M --simplify S --form closed
        head["simplify"] = args.simplify
    json.dump({**head, "drives": bool(args.drives), "results": results}, sys.stdout)
    sys.stdout.write("\n")
    return 0


def cmd_torques(args) -> int:
    import numpy as np
    from ..model import MissingParameterError
    from ..tables import read_trajectory
    model = load_model(args.project, closed=True)
    if not model.is_serial:
        return closed_torques(args, model)
    n = model.n
    if args.method == "rnea" and args.form == "closed":
        raise UserError("--form closed: rnea is numeric and has no closed form; choose --method lagrange, "
                        "newton-euler or dalembert")
    _, Q, QD, QDD, others = read_trajectory(args.trajectory, n, args.strict)
    if args.method == "rnea":
        from ..kinematics import NumericArm
        from ..numeric import arm_dynamics
        try:
            arm = NumericArm.from_model(model)
        except MissingParameterError as exc:
            raise UserError(f"{args.project}: {exc}") from None
        with np.errstate(all="ignore"):
            tau = arm_dynamics(arm).tau(Q, QD, QDD)  # every row at once
    else:
        with np.errstate(all="ignore"):
            tau = compiled_for(model, args.method, args.project, args.quiet, args).tau_many(Q, QD, QDD)
    if args.drives:
        from ..model.drives import drive_arrays, friction_torque
        _drive_note(model, True)
        tau = tau + drive_arrays(model)[0] * QDD + friction_torque(model, QD)
    bad = np.flatnonzero(~np.all(np.isfinite(tau), axis=1))
    if bad.size:  # a CSV cannot say inf or NaN to the next tool: refuse instead of writing them
        raise UserError(f"{args.trajectory}: data row {int(bad[0]) + 1}: the torque is not finite there "
                        "(numbers too large?)")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(list(others) + [f"tau{j}" for j in range(1, n + 1)])
    for r in range(tau.shape[0]):
        writer.writerow([others[c][r] for c in others] + [repr(float(v)) for v in tau[r]])
    write_output(buf.getvalue(), args.out)
    peak = np.max(np.abs(tau), axis=0)
    rms = np.sqrt(np.mean(tau**2, axis=0))
    drives = "added (--drives)" if args.drives else "not added"
    method = args.method if args.method == "rnea" else f"{args.method} ({args.form} form)"
    lines = [f"{tau.shape[0]} rows, method {method}, drive terms {drives}; N m for revolute joints, "
             "N for prismatic",
             f"{'joint':<6} {'type':<4} {'peak |tau|':>14} {'RMS tau':>14}"]
    for j, link in enumerate(model.links):
        lines.append(f"{j + 1:<6} {link.joint.value:<4} {peak[j]:>14.6g} {rms[j]:>14.6g}")
    print("\n".join(lines), file=sys.stdout if args.out else sys.stderr)
    return 0


def cmd_simulate(args) -> int:
    import numpy as np
    from ..model import MissingParameterError
    from ..kinematics import NumericArm
    from ..numeric import SingularConfigurationError, arm_dynamics
    from ..numeric.simulate import SimulationError, simulate_job
    model = load_model(args.project, closed=True)
    if not model.is_serial:
        from .closed_commands import closed_simulate
        return closed_simulate(args, model)
    if getattr(args, "drives", False):
        raise UserError(f"{args.project}: simulate --drives: closed chains only so far (a serial arm simulates its "
                        "rigid bodies)")
    n = model.n
    try:
        arm = NumericArm.from_model(model)
    except (MissingParameterError, ValueError) as exc:
        raise UserError(f"{args.project}: {exc}") from None
    q0, qd0, duration, rtol, atol, t_eval, torque = simulation_inputs(args, n)
    stops = None
    if args.limits == "stop":
        from ..numeric.end_stops import end_stops_for
        try:
            stops = end_stops_for(arm, q0)
        except ValueError as exc:
            raise UserError(f"--limits stop: {exc}") from None
    reached = [0.0]

    def follow(step: Progress) -> None:
        reached[0] = (step.fraction or 0.0) * duration
        bar(step)
    try:
        # overflow is caught as a state that is no longer finite: numpy's warnings would only add lines
        with job_bar(args.quiet, desc="simulate") as bar, np.errstate(over="ignore", invalid="ignore"):
            traj = run(simulate_job(arm, q0, qd0, (0.0, duration), torque=torque, rtol=rtol, atol=atol,
                                    t_eval=t_eval, end_stops=stops, method=integrator(args)), follow)
    except (SingularConfigurationError, SimulationError) as exc:
        raise UserError(f"{args.project}: {exc}") from None
    except KeyboardInterrupt:
        # the bar is gone by now: one line; nothing was written (the rows are written at the end)
        print(f"interrupted at t = {reached[0]:.4g} s of {duration:g} s; nothing written", file=sys.stderr)
        return 130
    kinetic, potential = arm_dynamics(arm).energy(traj.q, traj.qd)
    tau = traj.tau if traj.tau is not None else np.zeros_like(traj.q)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["t"] + [f"{p}{j}" for p in ("q", "qd", "tau") for j in range(1, n + 1)]
                    + ["kinetic", "potential", "energy"] + (["stop_work"] if stops is not None else []))
    for r in range(len(traj.t)):
        cells = [traj.t[r], *traj.q[r], *traj.qd[r], *tau[r], kinetic[r], potential[r], kinetic[r] + potential[r]]
        if traj.stop_work is not None:
            cells.append(traj.stop_work[r])
        writer.writerow([repr(float(v)) for v in cells])
    write_output(buf.getvalue(), args.out)
    energy = kinetic + potential
    summary = sys.stdout if args.out else sys.stderr
    print(f"simulated {duration:g} s: {traj.steps} time steps, {traj.evaluations} evaluations of the forward "
          f"dynamics, {len(traj.t)} rows; energy {energy[0]:.6g} J at the start, {energy[-1]:.6g} J at the end; "
          f"{traj.method}: {traj.method_reason}", file=summary)
    _say_limits(args.limits, arm, traj, model, energy, summary)
    return 0


def _say_limits(mode: str, arm, traj, model, energy, out) -> None:
    """One line per joint limit passed (warn), or how deep the end stops were met (stop)."""
    import numpy as np
    from ..numeric.end_stops import describe_passes, limit_passes
    if mode == "ignore":
        return
    passes = limit_passes(traj.t, traj.q, arm.limits)
    revolute = [link.is_revolute for link in model.links]
    for p in passes:
        what = describe_passes([p], revolute)
        print(f"end stop: {what}" if mode == "stop" else f"warning: {what} (no end stops: --limits stop models them)",
              file=out)
    if traj.stop_work is not None and traj.tau is None:   # passive: the stops are the only torques doing work
        gap = float(np.abs(traj.stop_work - (energy - energy[0])).max())
        print(f"energy change and the end stops' work differ by at most {gap:.3g} J", file=out)


# a closed chain's eval and torques: the actuated joints named by their links, the cut joints' forces beside

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


def closed_eval(args, model: Manipulator) -> int:
    import numpy as np
    from ..kinematics.closure import ClosureError
    from .numeric_inputs import read_states
    closed = getattr(args, "form", "compact") == "closed"
    if args.method != "lagrange" and not closed:
        raise UserError(f"{args.project}: a closed-chain project evaluates its numeric projected dynamics "
                        "(no --method without --form closed)")
    cd = _dynamics(model, args.project)
    src = cd
    if closed:   # the closed form derive --form closed prints, evaluated as printed (a nonlinear loop's
        # quantities from its numeric closure and their definitions)
        from ..dynamics.closed_nonlinear_eval import LoopEvaluator
        from ..model import MissingParameterError
        try:
            with job_bar(args.quiet, desc=f"derive ({args.method}, closed)") as progress:
                eq = closed_equations(model, args, progress, assemble=False)
            src = LoopEvaluator(eq)
        except (MissingParameterError, ClosureError, ValueError) as exc:
            raise UserError(f"{args.project}: {exc}") from None
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
