"""Numeric commands: ``eval`` (M, G, h, tau at given states), ``torques`` (along a trajectory)
and ``simulate`` (forward dynamics integrated over time)."""

from __future__ import annotations

import csv
import io
import json
import math
import sys

import numpy as np

from ..model import MissingParameterError
from ..model.manipulator import Manipulator
from ..jobs import Progress, run
from ..tables import read_columns, read_trajectory
from .common import UserError, load_model, number, read_json, write_output
from .progress import add_quiet, job_bar, loop_bar

METHODS = ["lagrange", "newton-euler", "dalembert"]


def register(sub) -> None:
    p = sub.add_parser("eval", help="evaluate tau, M, G and h at joint states (JSON in, JSON out)")
    p.add_argument("project")
    p.add_argument("--states", required=True, metavar="STATES.json",
                   help='{"states": [{"q": [...], "qd": [...], "qdd": [...]}, ...]} in SI units and radians')
    p.add_argument("--method", choices=METHODS, default="lagrange",
                   help="the symbolic derivation to evaluate (default: lagrange)")
    _drives_option(p)
    p.add_argument("--elastic", action="store_true",
                   help='the elastic-joint model: states {"q", "qd", "theta", "thetad", "tau_m"} give qdd and '
                        "thetadd over the method's M, G, h (docs/elastic.md)")
    add_quiet(p)
    p.set_defaults(func=cmd_eval)
    p = sub.add_parser("torques", help="inverse dynamics along a trajectory (CSV), with peak and RMS per joint")
    p.add_argument("project")
    p.add_argument("trajectory", metavar="TRAJECTORY.csv", help="header row; columns q1..qn, qd1..qdn, qdd1..qddn")
    p.add_argument("--out", metavar="OUT.csv",
                   help="write the torques per row here (the summary then goes to standard output); "
                        "without it the torques go to standard output and the summary to standard error")
    p.add_argument("--method", choices=["rnea"] + METHODS, default="rnea",
                   help="rnea: numeric recursive Newton-Euler (default); or a compiled symbolic derivation")
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
    p.add_argument("--elastic", action="store_true",
                   help="the elastic-joint model of the drive data's stiffness, PD on the motor side, the rigid "
                        "arm's run beside it (docs/elastic.md)")
    p.add_argument("--move", metavar="S", help="--elastic: reach --target along a quintic in S seconds")
    add_quiet(p)
    p.set_defaults(func=cmd_simulate)


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


def compiled_for(model: Manipulator, method: str, where: str, quiet: bool = True):
    """Derive the model's equations by ``method`` at its default parameter values, and compile them."""
    from ..dynamics.engine import compact_equations_job
    from ..dynamics.results import Method
    from ..jobs import run
    from ..numeric.compiled import compile_equations
    try:
        numeric = model.numeric()
    except MissingParameterError as exc:
        raise UserError(f"{where}: {exc}") from None
    with job_bar(quiet, desc=f"derive ({method})") as progress:
        # the compiled functions come from the recursive forms whatever the method: never expanded
        eq = run(compact_equations_job(numeric, Method(method)), progress)
        progress(Progress("compile"))
        return compile_equations(eq)


def _vector(value, n: int, where: str) -> list[float]:
    if not isinstance(value, list):
        raise UserError(f"{where}: must be a list of {n} numbers")
    if len(value) != n:
        raise UserError(f"{where}: {len(value)} values, the arm has {n} joints")
    for k, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not _finite(v):
            text = json.dumps(v)
            raise UserError(f"{where}[{k}]: {text if len(text) <= 40 else text[:37] + '...'} is not a finite number")
    return [float(v) for v in value]


def _finite(v: int | float) -> bool:
    try:
        return math.isfinite(float(v))
    except OverflowError:  # an integer beyond the float range
        return False


def read_states(path: str, n: int) -> list[tuple[list[float], list[float], list[float]]]:
    data = read_json(path, "states file")
    if not isinstance(data, dict) or not isinstance(data.get("states"), list):
        raise UserError(f'{path}: expected an object {{"states": [...]}}')
    out = []
    for i, state in enumerate(data["states"]):
        if not isinstance(state, dict):
            raise UserError(f"{path}: states[{i}]: must be an object with q, qd, qdd")
        extra = sorted(set(state) - {"q", "qd", "qdd"})
        if extra:
            raise UserError(f"{path}: states[{i}]: unknown key '{extra[0]}' (expected q, qd, qdd)")
        vecs = []
        for key in ("q", "qd", "qdd"):
            if key not in state:
                raise UserError(f"{path}: states[{i}].{key}: missing")
            vecs.append(_vector(state[key], n, f"{path}: states[{i}].{key}"))
        out.append((vecs[0], vecs[1], vecs[2]))
    return out


def cmd_eval(args) -> int:
    if args.elastic:
        from .elastic_commands import cmd_eval_elastic
        return cmd_eval_elastic(args)
    model = load_model(args.project)
    states = read_states(args.states, model.n)
    cd = compiled_for(model, args.method, args.project, args.quiet)
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
    json.dump({"method": args.method, "drives": bool(args.drives), "results": results}, sys.stdout)
    sys.stdout.write("\n")
    return 0


def cmd_torques(args) -> int:
    model = load_model(args.project)
    n = model.n
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
            tau = compiled_for(model, args.method, args.project, args.quiet).tau_many(Q, QD, QDD)
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
    lines = [f"{tau.shape[0]} rows, method {args.method}, drive terms {drives}; N m for revolute joints, "
             "N for prismatic",
             f"{'joint':<6} {'type':<4} {'peak |tau|':>14} {'RMS tau':>14}"]
    for j, link in enumerate(model.links):
        lines.append(f"{j + 1:<6} {link.joint.value:<4} {peak[j]:>14.6g} {rms[j]:>14.6g}")
    print("\n".join(lines), file=sys.stdout if args.out else sys.stderr)
    return 0


def _values(tokens: list[str] | None, n: int, what: str, default: list[float] | None = None,
            scalar: bool = False) -> list[float]:
    """n numbers from the command line: separate words or commas; ``scalar`` also takes one for all."""
    if tokens is None:
        if default is None:
            raise UserError(f"{what}: missing")
        return default
    words = [w for t in tokens for w in t.split(",") if w.strip()]
    values = [number(w, what) for w in words]
    if scalar and len(values) == 1:
        values = values * n
    if len(values) != n:
        raise UserError(f"{what}: {len(values)} value{'' if len(values) == 1 else 's'}, the arm has {n} joints")
    bad = next((v for v in values if not math.isfinite(v)), None)
    if bad is not None:
        raise UserError(f"{what}: {bad} is not a finite number")
    return values


def read_torque_table(path: str, n: int):
    """A :class:`~designer.numeric.simulate.TorqueTable` from CSV columns t, tau1..taun."""
    from ..numeric.simulate import TorqueTable
    names = ["t"] + [f"tau{j}" for j in range(1, n + 1)]
    _, _, data, values = read_columns(path, "torque table", names, f"t, tau1..tau{n}")
    for r in range(1, len(data)):
        if values[r, 0] <= values[r - 1, 0]:
            raise UserError(f"{path}, line {data[r][0]}: t = {values[r, 0]:g} does not come after the row before")
    return TorqueTable(values[:, 0], values[:, 1:])


def _positive(text: str, what: str) -> float:
    v = number(text, what)
    if not (math.isfinite(v) and v > 0):
        raise UserError(f"{what}: must be a positive number, not '{text}'")
    return v


def cmd_simulate(args) -> int:
    if args.elastic:
        from .elastic_commands import cmd_simulate_elastic
        return cmd_simulate_elastic(args)
    if args.move is not None:
        raise UserError("--move: only with --elastic")
    from ..kinematics import NumericArm
    from ..numeric import SingularConfigurationError, arm_dynamics
    from ..numeric.simulate import PDControl, SimulationError, simulate_job
    model = load_model(args.project)
    n = model.n
    try:
        arm = NumericArm.from_model(model)
    except (MissingParameterError, ValueError) as exc:
        raise UserError(f"{args.project}: {exc}") from None
    q0 = _values(args.q0, n, "--q0")
    qd0 = _values(args.qd0, n, "--qd0", [0.0] * n)
    duration = _positive(args.t, "--t")
    rtol, atol = _positive(args.rtol, "--rtol"), _positive(args.atol, "--atol")
    t_eval = None
    if args.dt is not None:
        dt = _positive(args.dt, "--dt")
        if duration / dt > 1e7:
            raise UserError(f"--dt: {duration / dt:.3g} rows is too many (at most 10,000,000)")
        t_eval = np.append(np.arange(0.0, duration, dt), duration)
        t_eval = t_eval[np.concatenate([np.diff(t_eval) > 1e-12 * duration, [True]])]
    if args.target is not None and args.pd is None:
        raise UserError("--target: only with --pd KP KD")
    torque = None
    if args.torque:
        torque = read_torque_table(args.torque, n)
    elif args.pd:
        kp = _values([args.pd[0]], n, "--pd KP", scalar=True)
        kd = _values([args.pd[1]], n, "--pd KD", scalar=True)
        if min(kp + kd) < 0:
            raise UserError("--pd: gains must not be negative")
        torque = PDControl(kp, kd, _values(args.target, n, "--target", q0, scalar=True))
    reached = [0.0]

    def follow(step: Progress) -> None:
        reached[0] = (step.fraction or 0.0) * duration
        bar(step)
    try:
        # overflow is caught as a state that is no longer finite: numpy's warnings would only add lines
        with job_bar(args.quiet, desc="simulate") as bar, np.errstate(over="ignore", invalid="ignore"):
            traj = run(simulate_job(arm, q0, qd0, (0.0, duration), torque=torque, rtol=rtol, atol=atol,
                                    t_eval=t_eval), follow)
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
                    + ["kinetic", "potential", "energy"])
    for r in range(len(traj.t)):
        cells = [traj.t[r], *traj.q[r], *traj.qd[r], *tau[r], kinetic[r], potential[r], kinetic[r] + potential[r]]
        writer.writerow([repr(float(v)) for v in cells])
    write_output(buf.getvalue(), args.out)
    energy = kinetic + potential
    print(f"simulated {duration:g} s: {traj.steps} time steps, {traj.evaluations} evaluations of the forward "
          f"dynamics, {len(traj.t)} rows; energy {energy[0]:.6g} J at the start, {energy[-1]:.6g} J at the end",
          file=sys.stdout if args.out else sys.stderr)
    return 0
