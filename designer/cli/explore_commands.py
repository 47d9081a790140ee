"""``python -m designer explore PROJECT WHAT ...``: design exploration from the command line.

WHAT is one of metric, map, sweep, conditions, significance, sizing, payload,
sensitivity, compare. Tables go to CSV, structured results to JSON (by the ``--out``
suffix, or ``--format``); without ``--out`` they go to standard output.
Definitions of every metric: docs/metrics.md.
"""

from __future__ import annotations

from .common import UserError, load_model
from .explore_io import (arm_of, emit, from_drives, guard, model_and_arm, output_format, parse_sets, pose, pose_from,
                         ratings, vector)
from .explore_sweep import register_sweep_and_map
from .progress import add_quiet, job_bar
from .ranges import (CHECKS, CHOOSE, COUNT, DURATION, FINITE, FRACTION, LENGTH, MOVE_STEPS, NON_NEGATIVE, SAMPLES,
                     SPEED, check_states)


def register(sub) -> None:
    p = sub.add_parser("explore", help="design exploration: metrics, maps, sweeps, design conditions, sizing",
                       description=__doc__.split("\n\n")[1])
    p.add_argument("project")
    whats = p.add_subparsers(dest="what", metavar="WHAT", required=True)

    def common(q, table=True):
        q.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                       help="override a parameter value (repeatable)")
        q.add_argument("--torque", metavar="T", help="rated joint torques/forces: one value or n comma-separated")
        q.add_argument("--speed", metavar="V", help="rated joint speeds (rad/s or m/s)")
        q.add_argument("--acceleration", metavar="A", help="rated joint accelerations (rad/s^2 or m/s^2)")
        q.add_argument("--payload", metavar="KG", help="payload at the tool for the deflection metric (kg, default 0)")
        q.add_argument("--out", metavar="FILE", help="write here (.csv or .json) instead of standard output")
        q.add_argument("--format", choices=["csv", "json"], default=None,
                       help=f"output format (default: from --out, else {'csv' if table else 'json'})")

    q = whats.add_parser("metric", help="every metric (or the chosen ones) at one pose")
    q.add_argument("--q", nargs="+", metavar="Q", help="the pose (default: all zero)")
    q.add_argument("--metric", action="append", metavar="SPEC", help="e.g. coupling or gravity[2] (repeatable)")
    common(q)
    q.set_defaults(func=guard(cmd_metric))

    register_sweep_and_map(whats, common, guard)

    q = whats.add_parser("conditions", help="parameter relations for decoupling, invariant M or static balance")
    q.add_argument("--kind", choices=["decoupled", "invariant", "balanced"], required=True)
    q.add_argument("--target", action="append", metavar="I[,J]", help="entry of M or joint of G (repeatable)")
    q.add_argument("--solve-for", metavar="NAMES", help="comma list of parameters to solve for")
    q.add_argument("--apply", metavar="OUT.json", help="save the model with the first (or --choose) solution")
    q.add_argument("--choose", type=CHOOSE, default=1, help="which solution --apply uses (1-based)")
    add_quiet(q)
    common(q, table=False)
    q.set_defaults(func=guard(cmd_conditions))

    q = whats.add_parser("significance", help="each term's largest share of the torque; simplified model and its bound")
    q.add_argument("--threshold", type=FRACTION, default=0.01, help="drop terms below this fraction (default 0.01)")
    q.add_argument("--samples", type=SAMPLES, default=2048)
    q.add_argument("--check", type=CHECKS, default=2000, help="fresh random states to check the bound (0: skip)")
    q.add_argument("--ops", action="store_true", help="also count operations of full and simplified tau (symbolic)")
    add_quiet(q)
    common(q)
    q.set_defaults(func=guard(cmd_significance))

    def motion(q):
        q.add_argument("--trajectory", metavar="CSV", help="columns t, q1..qn (optional qd1.., qdd1..)")
        q.add_argument("--from", dest="q_from", nargs="+", metavar="Q", help="quintic move: start pose")
        q.add_argument("--to", dest="q_to", nargs="+", metavar="Q", help="quintic move: end pose")
        q.add_argument("--duration", type=DURATION, default=1.0, help="quintic move: duration in s (default 1)")
        q.add_argument("--steps", type=MOVE_STEPS, default=201, help="quintic move: time steps (default 201)")
        q.add_argument("--iso-cube", action="store_true",
                       help="ISO 9283 test-cube path P1-P2-P3-P4-P5-P1 (straight lines; --steps in all)")
        q.add_argument("--cube-centre", nargs=3, metavar=("X", "Y", "Z"), help="cube centre in m (default: search)")
        q.add_argument("--cube-edge", metavar="E", help="cube edge in m (with --cube-centre)")
        q.add_argument("--cube-speed", metavar="V", default="0.25", help="peak tool speed in m/s (default 0.25)")

    q = whats.add_parser("sizing", help="joint torque, speed, power along a trajectory; peak and RMS per joint")
    motion(q)
    q.add_argument("--gear", metavar="N", help="gear ratios: one value or n comma-separated")
    q.add_argument("--rotor", metavar="JM", help="rotor inertias (kg m^2), motor side")
    q.add_argument("--series", action="store_true", help="CSV: the time series instead of the per-joint table")
    common(q)
    q.set_defaults(func=guard(cmd_sizing))

    q = whats.add_parser("payload", help="largest payload mass vs its offset within the rated torques (load diagram)")
    motion(q)
    q.add_argument("--z", nargs=3, default=["0", "0.2", "5"], metavar=("START", "STOP", "COUNT"),
                   help="offsets along the last frame's z axis (m; a closed chain's tool link)")
    q.add_argument("--x", nargs=3, default=["0", "0.2", "5"], metavar=("START", "STOP", "COUNT"),
                   help="offsets along the last frame's x axis (m)")
    q.add_argument("--samples", type=SAMPLES, default=1000, help="without a motion: holding still at this many samples")
    common(q)
    q.set_defaults(func=guard(cmd_payload))

    q = whats.add_parser("sensitivity", help="d(metric)/d(parameter) at a pose; parameters ranked over the workspace")
    q.add_argument("--metric", required=True, metavar="SPEC")
    q.add_argument("--q", nargs="+", metavar="Q", help="the pose (default: all zero)")
    q.add_argument("--samples", type=SAMPLES, default=256, help="workspace samples for the ranking (default 256)")
    common(q)
    q.set_defaults(func=guard(cmd_sensitivity))

    q = whats.add_parser("compare", help="A/B: the same metrics for two designs, with differences")
    q.add_argument("--with", dest="other", metavar="PROJECT_B", help="design B (default: PROJECT with --set-b)")
    q.add_argument("--set-b", action="append", default=[], metavar="NAME=VALUE", help="override in design B")
    q.add_argument("--q", nargs="+", metavar="Q", help="the pose (default: all zero)")
    q.add_argument("--samples", type=SAMPLES, default=1000)
    common(q)
    q.set_defaults(func=guard(cmd_compare))



# -- commands -----------------------------------------------------------------------
def cmd_metric(args) -> int:
    import numpy as np
    from ..explore.metrics import METRICS, compute, evaluate, joint_label, joint_numbers, parse_metric
    model, arm = model_and_arm(args)
    q = pose(args, arm.n)
    r = ratings(args, arm.n, model)
    numbers = joint_numbers(arm)
    rows = []
    if args.metric:
        for text in args.metric:
            spec = parse_metric(text, arm.n, numbers)
            rows.append({"metric": spec.label, "index": "", "value": float(evaluate(arm, [q], spec, r)[0]),
                         "unit": spec.metric.unit})
    else:
        from ..explore.metrics import MetricError
        for name, m in METRICS.items():
            try:
                v = compute(arm, [q], name, r)[0]
            except MetricError:
                continue   # needs a rating that was not given
            for idx in np.ndindex(v.shape):
                rows.append({"metric": name, "index": ",".join(str(joint_label(i, numbers)) for i in idx),
                             "value": float(v[idx]),
                             "unit": m.unit})
    return emit(args, rows, {"project": args.project, "q": q, "metrics": rows})


def cmd_conditions(args) -> int:
    from ..explore.conditions import apply_condition, find_conditions_job
    from ..jobs import run
    from ..project import save_project
    model = load_model(args.project)
    targets = None
    if args.target:   # a closed chain's joints by their link numbers (explore/joint_names.py)
        targets = [tuple(int(v) for v in t.split(",")) if all(v.strip().isdigit() for v in t.split(","))
                   else _bad_target(t) for t in args.target]
    unknowns = [s.strip() for s in args.solve_for.split(",") if s.strip()] if args.solve_for else None
    with job_bar(args.quiet, desc="conditions") as bar:
        res = run(find_conditions_job(model, args.kind, targets, unknowns), bar)
    data = {"kind": res.kind.value, "targets": [list(t) for t in res.targets], "summary": res.summary(),
            "already": res.already, "unknowns": [s.name for s in res.unknowns],
            "equations": [str(e) + " = 0" for e in res.equations],
            "solutions": [{"solution": {k.name: str(v) for k, v in c.solution.items()}, "note": c.note}
                          for c in res.conditions], "rejected": list(res.rejected)}
    if args.apply:
        if not res.conditions:
            raise UserError(f"--apply: {res.summary()}")
        if not 1 <= args.choose <= len(res.conditions):
            raise UserError(f"--choose: pick 1 to {len(res.conditions)}")
        try:
            save_project(apply_condition(model, res.conditions[args.choose - 1]), args.apply)
        except OSError as exc:
            raise UserError(f"{args.apply}: cannot write: {exc.strerror or exc}") from None
        data["applied"] = args.apply
    if output_format(args, table=False) == "csv":
        rows = ([{"solution": c.text(), "note": c.note} for c in res.conditions]
                or [{"solution": "", "note": res.summary()}])
        return emit(args, rows)
    return emit(args, data=data)


def _bad_target(text: str):
    raise UserError(f"--target {text}: write I or I,J with joint numbers")


def cmd_significance(args) -> int:
    import numpy as np
    from ..explore.metrics import joint_numbers
    from ..explore.significance import significance_job
    from ..jobs import NEVER, run
    model, arm = model_and_arm(args)
    v, a = vector(args.speed, arm.n, "--speed"), vector(args.acceleration, arm.n, "--acceleration")
    v = from_drives(model, "speed", v, "--speed")
    if v is None or a is None:
        raise UserError("significance: give the envelope with --speed and --acceleration")
    check_states(max(args.samples, args.check), arm.n, "--samples" if args.samples >= args.check else "--check")
    with job_bar(args.quiet, desc="significance") as bar:
        result = run(significance_job(model, arm, v, a, args.threshold, args.samples, args.ops, NEVER,
                                      check=args.check), bar)
    sig = result.significance
    rows = [{"term": t.label_in(joint_numbers(arm)), "contribution": t.contribution, "relative": t.relative,
             "kept": t.relative >= sig.threshold, "translation_share": t.share_translation} for t in sig.terms]
    data = {"threshold": sig.threshold, "speed": sig.speed, "acceleration": sig.acceleration,
            "reference_torque": sig.reference, "bound": sig.bound(),
            "bound_relative": sig.bound() / np.where(sig.reference > 0, sig.reference, 1), "terms": rows,
            "kept": len(sig.kept()), "total": len(sig.terms)}
    if args.check > 0:
        data["check"] = result.check
    if result.operations:
        full, simple = result.operations
        data["operations"] = {"full": full, "simplified": simple}
    return emit(args, rows, data)


def _motion(args, n: int, arm=None):
    from ..explore.metrics import joint_numbers
    from ..explore.sizing import quintic, read_trajectory
    if args.trajectory:   # a closed chain's columns name its actuated joints by their links
        return read_trajectory(args.trajectory, n, joint_numbers(arm) if arm is not None else ())
    if args.iso_cube or args.cube_centre or args.cube_edge:
        return _cube_motion(args, arm if arm is not None else model_and_arm(args)[1])
    if args.q_from or args.q_to:
        if not (args.q_from and args.q_to):
            raise UserError("give both --from and --to for a quintic move")
        check_states(args.steps, n, "--steps")
        return quintic(pose_from(args.q_from, n, "--from"), pose_from(args.q_to, n, "--to"), args.duration, args.steps)
    return None


def _cube_motion(args, arm):
    from ..explore.iso9283 import cube_path, test_cube
    if not args.iso_cube:
        raise UserError("--cube-centre and --cube-edge go with --iso-cube")
    if bool(args.cube_centre) != bool(args.cube_edge):
        raise UserError("--iso-cube: give both --cube-centre and --cube-edge, or neither (to search the largest)")
    centre = [FINITE.parse(v, "--cube-centre") for v in args.cube_centre] if args.cube_centre else None
    edge = LENGTH.parse(args.cube_edge, "--cube-edge") if args.cube_edge else None
    speed = SPEED.parse(args.cube_speed, "--cube-speed")
    check_states(args.steps, arm.n, "--steps")
    cube = test_cube(arm, centre, edge)
    return cube_path(arm, cube, speed, max(3, (args.steps - 1) // 5 + 1)).trajectory


def cmd_sizing(args) -> int:
    from ..explore.metrics import joint_numbers
    from ..explore.sizing import size_motors
    model, arm = model_and_arm(args)
    traj = _motion(args, arm.n, arm)
    if traj is None:
        raise UserError("sizing: give --trajectory CSV, a move with --from and --to, or --iso-cube")

    res = size_motors(arm, traj, from_drives(model, "gear", vector(args.gear, arm.n, "--gear"), "--gear"),
                      from_drives(model, "rotor", vector(args.rotor, arm.n, "--rotor", NON_NEGATIVE), "--rotor"))
    numbers = joint_numbers(arm)   # a closed chain's actuated joints by their link numbers
    table = res.table(numbers)
    series = [{"t": float(t), **{f"tau{k}": float(v) for k, v in zip(numbers, tau)},
               **{f"qd{k}": float(v) for k, v in zip(numbers, qd)},
               **{f"power{k}": float(v) for k, v in zip(numbers, p)}}
              for t, tau, qd, p in zip(traj.t, res.torque, traj.qd, res.power)]
    return emit(args, series if args.series else table, {"joints": table, "series": series})


def cmd_payload(args) -> int:
    import numpy as np
    from ..explore.maps import sample_configurations
    from ..explore.sizing import payload_envelope
    model, arm = model_and_arm(args)
    torque = from_drives(model, "torque", vector(args.torque, arm.n, "--torque"), "--torque")
    if torque is None:
        raise UserError("payload: give the rated torques with --torque (or drive data in the project)")
    grids = []
    for flag, (start, stop, count) in (("--z", args.z), ("--x", args.x)):
        size = COUNT.parse(count, f"{flag} COUNT")
        grids.append(np.linspace(FINITE.parse(start, f"{flag} START"), FINITE.parse(stop, f"{flag} STOP"), size))
    traj = _motion(args, arm.n, arm)
    if traj is None:
        check_states(args.samples, arm.n, "--samples")
        q, qd, qdd = sample_configurations(arm, args.samples), None, None
    else:
        q, qd, qdd = traj.q, traj.qd, traj.qdd
    Z, X = np.meshgrid(*grids, indexing="ij")
    offsets = np.column_stack([X.ravel(), np.zeros(X.size), Z.ravel()])
    mass = payload_envelope(arm, offsets, torque, q, qd, qdd)
    rows = [{"z": float(z), "x": float(x), "max_payload": float(m)} for z, x, m in zip(Z.ravel(), X.ravel(), mass)]
    return emit(args, rows, {"torque": torque, "states": len(q), "rows": rows})


def cmd_sensitivity(args) -> int:
    from ..explore.sensitivity import rank_parameters
    model, arm = model_and_arm(args)
    check_states(args.samples, arm.n, "--samples")
    ranked = rank_parameters(model, args.metric, pose(args, arm.n), ratings(args, arm.n, model), args.samples)
    rows = [{"parameter": s.parameter, "value": s.value, "derivative_at_q": s.derivative,
             "derivative_expression": "" if s.expression is None else str(s.expression),
             "influence": s.influence, "mean_abs_derivative": s.derivative_mean_abs} for s in ranked]
    return emit(args, rows, {"metric": args.metric, "q": pose(args, arm.n), "rows": rows})


def cmd_compare(args) -> int:
    from ..explore.compare import compare
    model_a, arm_a = model_and_arm(args)
    model_b = load_model(args.other) if args.other else load_model(args.project)
    sets = parse_sets(args.set + args.set_b)
    unknown = sorted(set(sets) - set(model_b.symbol_names()))
    if unknown:
        raise UserError(f"--set-b: {', '.join(unknown)} is not a parameter of design B")
    arm_b = arm_of(model_b.with_parameters(sets), "design B")
    from ..explore.metrics import design_ratings
    from ..explore.metrics import Ratings
    rated = ratings(args, arm_a.n, model_a)
    try:   # a named stiffness (k2) set for design B is B's own
        rated_b = design_ratings(model_b, rated or Ratings(), {k: v for k, v in sets.items()})
    except ValueError as exc:
        raise UserError(f"design B: {exc}") from None
    check_states(args.samples, arm_a.n, "--samples")
    rows = compare(arm_a, arm_b, pose(args, arm_a.n), rated, args.samples, ratings_b=rated_b)
    return emit(args, rows)

