"""``catalog``: the gearboxes and motors the catalogs hold; ``size PROJECT --cycle FILE``: the feasible
motor-gearbox pairs of each joint along a cycle, ranked (docs/catalogs.md)."""

from __future__ import annotations

import json
import math

from .common import UserError, load_model, write_output
from .ranges import Bounded

__all__ = ["register"]

INERTIA_RATIO = Bounded(float, 0, 1e6, above=True)
TOP = Bounded(int, 1, 100_000)


def register(sub) -> None:
    p = sub.add_parser("catalog", help="list the catalogs' gearboxes and motors (bundled, beside a project, given)")
    p.add_argument("--project", help="also the user catalogs (*.catalog.json) beside this project")
    p.add_argument("--catalog", action="append", default=[], metavar="FILE", help="a catalog file (repeatable)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_catalog)

    p = sub.add_parser("size", help="motor-gearbox pairs per joint that carry a cycle, ranked by mass and margin")
    p.add_argument("project")
    p.add_argument("--cycle", metavar="CSV",
                   help="the cycle: t, q1..qn (optionally qd1.., qdd1..), as explore sizing --trajectory reads it; "
                        "default: the project's cycle as review takes it (time-optimal when the project says so)")
    p.add_argument("--catalog", action="append", default=[], metavar="FILE",
                   help="a catalog file read after the bundled ones and those beside the project (repeatable)")
    p.add_argument("--inertia-ratio", type=INERTIA_RATIO, default=10.0, metavar="R",
                   help="largest load-to-motor inertia ratio (default 10)")
    p.add_argument("--top", type=TOP, default=5, metavar="K", help="pairs shown per joint (default 5)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="override a parameter")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--out", help="write to this file instead of standard output")
    p.set_defaults(func=cmd_size)


def catalog_of(project: str | None, files: list[str]):
    from ..catalog import CatalogError, load_catalog
    try:
        return load_catalog(project, files)
    except CatalogError as exc:
        raise UserError(str(exc)) from None


def cmd_catalog(args) -> int:
    cat = catalog_of(args.project, args.catalog)
    from dataclasses import asdict
    if args.format == "json":
        write_output(json.dumps({"files": list(cat.files), "gearboxes": [asdict(g) for g in cat.gearboxes.values()],
                                 "motors": [asdict(m) for m in cat.motors.values()]}, indent=1) + "\n", None)
        return 0
    lines = [f"catalog files: {', '.join(cat.files) or '(none)'}", "",
             f"{'gearbox':<16} {'kind':<12} {'ratio':>6} {'rated Nm':>9} {'peak Nm':>8} {'k Nm/rad':>10} {'kg':>6}"]
    for g in cat.gearboxes.values():
        k = f"{g.stiffness.k3:.4g}" if g.stiffness else "-"
        lines.append(f"{g.name:<16} {g.kind:<12} {g.ratio:>6g} {g.rated_torque:>9g} {g.peak_torque:>8g} {k:>10} "
                     f"{_opt(g.mass):>6}")
    lines += ["", f"{'motor':<16} {'rated Nm':>9} {'peak Nm':>8} {'rpm max':>8} {'Jm kg m2':>10} {'kg':>6} {'V':>5}"]
    for m in cat.motors.values():
        lines.append(f"{m.name:<16} {m.rated_torque:>9g} {m.peak_torque:>8g} {m.max_speed * 30 / math.pi:>8.0f} "
                     f"{m.rotor_inertia:>10.3g} {_opt(m.mass):>6} {_opt(m.voltage):>5}")
    write_output("\n".join(lines) + "\n", None)
    return 0


def _project_cycle(model, cat, project: str):
    """The project's own cycle, timed as the review times it (:func:`designer.review.cycle_motion`)."""
    from ..review import ReviewError, cycle_motion
    if model.requirements.cycle is None:
        raise UserError(f"size: {project} has no cycle: give --cycle CSV")
    try:
        return cycle_motion(model, cat, project)
    except ReviewError as exc:
        raise UserError(f"size: {exc}") from None


def _opt(v) -> str:
    return "-" if v is None else f"{v:g}"


def cmd_size(args) -> int:
    from dataclasses import asdict
    from ..explore.joints import explore_joints
    from ..explore.sizing import read_trajectory
    from ..model import MissingParameterError
    from ..optimize.sizing import current_pairs, cycle_stiffness, size_cycle
    from .explore_io import parse_sets
    model = load_model(args.project, closed=True)
    sets = parse_sets(args.set)
    unknown = sorted(set(sets) - set(model.symbol_names()))
    if unknown:
        raise UserError(f"--set: {', '.join(unknown)} is not a parameter of {args.project}")
    model = model.with_parameters(sets)
    cat = catalog_of(args.project, args.catalog)
    joints = explore_joints(model)
    try:
        if args.cycle:
            traj, cycle = read_trajectory(args.cycle, joints.n, joints.numbers), args.cycle
        else:
            traj, cycle = _project_cycle(model, cat, args.project)
        result = size_cycle(model, traj, cat, args.inertia_ratio)
        stiffness = cycle_stiffness(model, traj, cat)
        current = current_pairs(model, traj, cat, args.inertia_ratio)
    except (ValueError, MissingParameterError) as exc:
        raise UserError(f"size: {exc}") from None
    if args.format == "json":
        data = {"project": args.project, "cycle": cycle, "catalogs": list(cat.files),
                "inertia_ratio_limit": args.inertia_ratio,
                "joints": [{"joint": j, "tried": r.tried, "feasible": len(r.ranked),
                            "pairs": [p.row() for p in r.ranked[:args.top]],
                            "closest": None if r.closest is None else r.closest.row(),
                            "current": None if j not in current else current[j].row()} for j, r in result.items()],
                "gearbox_stiffness": [asdict(k) for k in stiffness]}
        write_output(json.dumps(data, indent=1, default=_json_number) + "\n", args.out)
        return 0
    lines = [f"sizing along {cycle} ({traj.t[-1] - traj.t[0]:g} s, {len(traj.t)} samples); "
             f"inertia ratio at most {args.inertia_ratio:g}; catalogs: {len(cat.gearboxes)} gearboxes, "
             f"{len(cat.motors)} motors"]
    for j, r in result.items():
        ranked = r.ranked
        lines += ["", f"joint {j}: {len(ranked)} of {r.tried} pairs feasible"]
        if j in current:
            c = current[j]
            lines.append(f"  the project's pair: {c.gearbox.name} with {c.motor.name}: "
                         + (f"feasible, margin {c.margin:.1%} ({c.row()['limiting']})" if c.feasible else
                            "fails: " + ", ".join(f"{k} at {1 / (1 + v):.0%} of its limit"
                                                  for k, v in c.margins.items() if v < 0)))
        if r.closest is not None:
            c = r.closest
            lines.append(f"  closest: {c.gearbox.name} with {c.motor.name}: "
                         + ", ".join(f"{k} at {1 / (1 + v):.0%} of its limit" for k, v in c.margins.items() if v < 0))
        if not ranked:
            continue
        lines.append(f"  {'#':>2} {'gearbox':<16} {'motor':<12} {'kg':>7} {'margin':>7} {'limiting':<28} "
                     f"{'J ratio':>7} {'peak Nm':>8} {'RMS Nm':>7} {'motor rpm':>9}")
        for k, p in enumerate(ranked[:args.top], start=1):
            row = p.row()
            mass = f"{p.mass:.3g}" + ("" if p.mass_complete else "+")
            lines.append(f"  {k:>2} {p.gearbox.name:<16} {p.motor.name:<12} {mass:>7} {p.margin:>7.1%} "
                         f"{row['limiting']:<28} {p.inertia_ratio:>7.3g} {p.peak_torque:>8.4g} {p.rms_torque:>7.4g} "
                         f"{p.motor_peak_speed * 30 / math.pi:>9.0f}")
    if stiffness:
        lines += ["", "the named gearboxes' stiffness (N m/rad): no load, at the cycle's peak torque, at rated torque"]
        lines += [f"  joint {k.joint} {k.gearbox}: {k.low_load:.4g}, {k.at_cycle:.4g} (at {k.peak_torque:.4g} N m), "
                  f"{k.at_rated:.4g}" for k in stiffness]
    if any(not p.mass_complete for r in result.values() for p in r.ranked[:args.top]):
        lines += ["", "+: a datasheet gives no mass for an item of the pair; the mass shown is of the others, and such "
                      "pairs rank after those whose gearbox (then motor) mass is known"]
    write_output("\n".join(lines) + "\n", args.out)
    return 0


def _json_number(value):
    return float(value)
