"""``optimize PROJECT --vary NAME LO HI ... --minimize QUANTITY --require "QUANTITY<=VALUE" ... --out BEST.json``:
the best design over parameters and materials, written as a project (docs/optimize.md)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace

from .common import UserError, load_model, write_output
from .explore_sweep import add_compute
from .ranges import FINITE, PAYLOAD, Bounded

__all__ = ["register"]

STARTS = Bounded(int, 1, 1000)
ITERATIONS = Bounded(int, 1, 100_000)
SEED = Bounded(int, 0, 2**32 - 1)
POPULATION = Bounded(int, 4, 100_000)
GENERATIONS = Bounded(int, 1, 100_000)


def register(sub) -> None:
    p = sub.add_parser("optimize", help="the best design: parameters and materials varied, an objective, requirements")
    p.add_argument("project")
    p.add_argument("--vary", nargs=3, action="append", default=[], metavar=("NAME", "LO", "HI"),
                   help="a parameter varied between LO and HI (repeatable)")
    p.add_argument("--choose", nargs=2, action="append", default=[], metavar=("TARGET", "A,B"),
                   help="a discrete choice: LINK.material among materials, or JOINT.drive among catalog items "
                        "(GEARBOX, MOTOR or GEARBOX+MOTOR); repeatable, every combination tried")
    p.add_argument("--minimize", action=_Goal, dest="goals", default=[], metavar="QUANTITY",
                   help="mass, peak_torque, rms_torque or an explore metric spec; two or more objectives "
                        "(--minimize/--maximize repeated) give a Pareto front")
    p.add_argument("--maximize", action=_Goal, dest="goals", default=[], metavar="QUANTITY")
    p.add_argument("--require", action="append", default=[], metavar="QUANTITY<=VALUE",
                   help="a requirement, QUANTITY<=VALUE or QUANTITY>=VALUE (repeatable), besides the project's own")
    p.add_argument("--no-project-requirements", action="store_true",
                   help="leave out the project's own requirements (format version 4; by default each is a "
                        "constraint, evaluated as `review` evaluates it)")
    p.add_argument("--payload", type=PAYLOAD, default=None, metavar="KG",
                   help="payload at the tool for the deflection, compliance and frequency metrics (kg; default: "
                        "the project's payload, as the window's Optimize dialog starts with; 0 without one)")
    p.add_argument("--q", nargs="+", metavar="Q", help="the metrics' pose (default: every joint at zero)")
    p.add_argument("--cycle", metavar="CSV", help="a cycle (t, q1..qn) for peak_torque and rms_torque, taken with "
                                                  "the file's own timing (see --time-optimal)")
    p.add_argument("--time-optimal", action="store_true",
                   help="time the cycle (--cycle's path, else the project's cycle) as fast as each design's drives "
                        "allow, as a project cycle's \"timing\": \"time-optimal\" does (docs/optimize.md); the "
                        "written project keeps its own cycle")
    p.add_argument("--starts", type=STARTS, default=4, help="starting points of the local search (default 4)")
    p.add_argument("--iterations", type=ITERATIONS, default=100, help="iterations per start at most (default 100)")
    p.add_argument("--seed", type=SEED, default=0, help="seed of the random starting points")
    front = p.add_argument_group("a Pareto front (two or more objectives)")
    front.add_argument("--population", type=POPULATION, default=40, help="NSGA-II's population (default 40)")
    front.add_argument("--generations", type=GENERATIONS, default=30, help="generations (default 30)")
    add_compute(front, "none: each population in this process")
    front.add_argument("--pick", default="ideal", metavar="ideal|OBJECTIVE",
                       help="the design of the front --out writes: ideal (nearest the ideal point, each objective "
                            "scaled to the front's range; default) or an objective's name (the front's best in it)")
    front.add_argument("--out-front", metavar="FRONT.csv|FRONT.json",
                       help="write the front: each design's objectives, variables, choices and requirements")
    p.add_argument("--out", required=True, metavar="BEST.json", help="the best design, written as a project")
    p.add_argument("--format", choices=("text", "json"), default="text", help="the summary on standard output")
    p.set_defaults(func=cmd_optimize)


class _Goal(argparse.Action):
    """--minimize / --maximize, in the order given: (quantity, maximize) pairs."""

    def __call__(self, parser, namespace, values, option_string=None):
        goals = list(getattr(namespace, self.dest, None) or [])
        goals.append((values, option_string == "--maximize"))
        setattr(namespace, self.dest, goals)


def _problem(args, model):
    import numpy as np
    from ..explore.joints import explore_joints
    from ..optimize.problem import Choice, Problem, Requirement, Variable, parse_requirement
    variables = tuple(Variable(name, FINITE.parse(lo, f"--vary {name} LO"), FINITE.parse(hi, f"--vary {name} HI"))
                      for name, lo, hi in args.vary)
    choices = tuple(Choice(target, tuple(o.strip() for o in options.split(",") if o.strip()))
                    for target, options in args.choose)
    joints = explore_joints(model)
    q = None
    if args.q:
        from .explore_io import pose_from
        q = tuple(float(v) for v in pose_from(args.q, joints.n, "--q"))
    cycle = None
    if args.time_optimal:
        model = _time_optimal(model, args.cycle)   # the review's timing, per design (optimize/problem.py: _cycle)
    elif args.cycle:
        from ..explore.sizing import read_trajectory
        cycle = read_trajectory(args.cycle, joints.n, joints.numbers)
        if not np.all(np.isfinite(cycle.q)):
            raise UserError(f"--cycle {args.cycle}: not finite")
    from .catalog_commands import catalog_of
    (objective, maximize), *_ = args.goals
    return Problem(model, variables, objective,
                   (*(() if args.no_project_requirements else Requirement.of_project(model)),
                    *(parse_requirement(t) for t in args.require)), choices, maximize,
                   _payload(args.payload, model), q, cycle, catalog_of(args.project, []))


def _time_optimal(model, csv: str | None):
    """``model`` with its cycle timed as fast as the drives allow: ``--cycle``'s path (the file's samples joined
    as the project's trajectory file is) or the project's own cycle, ``"timing": "time-optimal"``."""
    import os
    from ..model.requirements import Cycle
    reqs = model.requirements
    if csv:
        if not os.path.isfile(csv):
            raise UserError(f"--cycle {csv}: no such file")
        cycle = Cycle(trajectory=os.path.abspath(csv), timing="time-optimal")
    elif reqs.cycle is None:
        raise UserError("optimize: --time-optimal times a cycle: give --cycle CSV or a cycle in the project")
    else:
        cycle = replace(reqs.cycle, timing="time-optimal", time=0.0 if not reqs.cycle.trajectory else reqs.cycle.time)
    return replace(model, requirements=replace(reqs, cycle=cycle))


def _own_cycle(design, model):
    """The design as written: the project's own cycle (not the one --time-optimal timed)."""
    return replace(design, requirements=replace(design.requirements, cycle=model.requirements.cycle))


def _payload(given: float | None, model) -> float:
    """--payload, else the project's own payload (its requirements'), else none."""
    if given is not None:
        return float(given)
    payload = model.requirements.payload
    return 0.0 if payload is None else float(payload.mass)


def _progress(line: str) -> None:
    sys.stderr.write(f"optimize: {line}\n")


def cmd_optimize(args) -> int:
    from ..model import MissingParameterError
    from ..optimize.problem import optimize
    from ..project import save_project
    if not args.goals:
        raise UserError("optimize: give an objective: --minimize QUANTITY or --maximize QUANTITY")
    model = load_model(args.project, closed=True)
    started = time.perf_counter()
    if len(args.goals) > 1:
        return _cmd_front(args, model, started)
    if args.workers is not None or args.threads or args.scheduler:
        raise UserError("optimize: --workers, --threads and --scheduler evaluate a Pareto front's populations: "
                        "give two or more objectives")
    try:
        problem = _problem(args, model)
        result = optimize(problem, args.starts, args.seed, args.iterations,
                          progress=_progress)
    except (ValueError, MissingParameterError) as exc:
        raise UserError(f"optimize: {exc}") from None
    seconds = time.perf_counter() - started
    how = {"method": result.method, "iterations": result.iterations, "evaluations": result.evaluations,
           "gradient_evaluations": result.gradient_evaluations, "starts": result.starts,
           "combinations": result.combinations, "seconds": round(seconds, 3)}
    if result.best is None or result.model is None:
        raise _none_meets(problem, result.closest, result.evaluations, args.out)
    try:
        save_project(_own_cycle(result.model, model), args.out)
    except OSError as exc:
        raise UserError(f"{args.out}: cannot write: {exc.strerror or exc}") from None
    best = result.best
    rows = [{"requirement": r.text, "source": "project" if r.project is not None else "--require", "value": v,
             "bound": r.bound, "margin": r.margin(v)}
            for r, v in zip(problem.requirements, best.quantities)]
    if args.format == "json":
        write_output(json.dumps({"objective": {"quantity": problem.objective, "value": best.objective,
                                               "sense": "max" if problem.maximize else "min"},
                                 "values": best.values, "choices": dict(zip((c.target for c in problem.choices),
                                                                            best.picks)),
                                 "requirements": rows, "how": how, "out": args.out}, indent=1) + "\n", None)
        return 0
    lines = [f"{'maximum' if problem.maximize else 'minimum'} {problem.objective}: {best.objective:.6g}",
             *(f"  {name} = {value:.6g}" for name, value in best.values.items()),
             *(f"  {c.target} = {pick}" for c, pick in zip(problem.choices, best.picks))]
    if rows:
        width = max(32, *(len(r["requirement"]) for r in rows))
        lines.append(f"{'requirement':<{width}} {'value':>12} {'bound':>10} {'margin':>12}")
        lines += [f"{r['requirement']:<{width}} {r['value']:>12.6g} {r['bound']:>10.6g} {r['margin']:>12.3g}"
                  for r in rows]
    lines.append(f"how: {how['method']}; {how['starts']} start(s) x {how['combinations']} combination(s), "
                 f"{how['iterations']} iterations, {how['evaluations']} evaluations"
                 + (f" + {how['gradient_evaluations']} gradient evaluations" if how["gradient_evaluations"] else "")
                 + f", {how['seconds']:.3g} s")
    lines.append(f"written: {args.out}")
    write_output("\n".join(lines) + "\n", None)
    return 0


# -- two or more objectives: a Pareto front ----------------------------------------------------------------
def _requirement_rows(problem, design) -> list[dict]:
    return [{"requirement": r.text, "source": "project" if r.project is not None else "--require", "value": v,
             "bound": r.bound, "margin": r.margin(v)}
            for r, v in zip(problem.requirements, design.quantities)]


def _front_rows(problem, front) -> list[dict]:
    return [{"objectives": dict(zip(front.names, map(float, f))), "values": d.values,
             "choices": dict(zip((c.target for c in problem.choices), d.picks)),
             "requirements": _requirement_rows(problem, d)}
            for d, f in zip(front.designs, front.objectives)]


def _write_front(path: str, problem, front) -> None:
    import csv
    rows = _front_rows(problem, front)
    try:
        if path.lower().endswith(".json"):
            with open(path, "w", encoding="utf-8") as fh:
                json.dump({"objectives": [{"quantity": n, "sense": "max" if m else "min"}
                                          for n, m in zip(front.names, front.maximize)],
                           "front": rows}, fh, indent=1)
                fh.write("\n")
            return
        reqs = [r.text for r in problem.requirements]
        with open(path, "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([*front.names, *(v.name for v in problem.variables), *(c.target for c in problem.choices),
                        *reqs])
            for row, d in zip(rows, front.designs):
                w.writerow([*(repr(v) for v in row["objectives"].values()), *(repr(v) for v in d.values.values()),
                            *d.picks, *(repr(v) for v in d.quantities)])
    except OSError as exc:
        raise UserError(f"--out-front {path}: cannot write: {exc.strerror or exc}") from None


def _cmd_front(args, model, started: float) -> int:
    from ..jobs import Progress
    from ..model import MissingParameterError
    from ..optimize.pareto import Objective, pareto
    from ..optimize.problem import design_model
    from ..project import save_project

    from .explore_sweep import compute_from

    def progress(step: Progress) -> None:
        if step.stage == "pareto" and step.detail and not args.quiet:   # a line per generation, not per block
            _progress(step.detail)
    if args.out_front and not args.out_front.lower().endswith((".csv", ".json")):
        raise UserError(f"--out-front {args.out_front}: name a .csv or .json file")
    try:
        problem = _problem(args, model)
        objectives = [Objective(q, mx) for q, mx in args.goals]
        if args.pick != "ideal" and args.pick not in [o.quantity.strip() for o in objectives]:
            raise UserError(f"--pick {args.pick}: ideal or one of the objectives "
                            f"({', '.join(o.quantity for o in objectives)})")
        front = pareto(problem, objectives, args.population, args.generations, args.seed, progress=progress,
                       compute=compute_from(args, default_workers=None))
    except (ValueError, MissingParameterError) as exc:
        raise UserError(f"optimize: {exc}") from None
    seconds = time.perf_counter() - started
    how = {"method": front.method, "population": front.population, "generations": front.generations,
           "evaluations": front.evaluations, "seconds": round(seconds, 3)}
    if not front.designs:
        raise _none_meets(problem, front.closest, front.evaluations, args.out)
    k = front.pick(args.pick)
    best = front.designs[k]
    if args.out_front:
        _write_front(args.out_front, problem, front)
    try:
        save_project(_own_cycle(design_model(problem, best.values, best.picks), model), args.out)
    except OSError as exc:
        raise UserError(f"{args.out}: cannot write: {exc.strerror or exc}") from None
    if args.format == "json":
        write_output(json.dumps({"objectives": [{"quantity": n, "sense": "max" if m else "min"}
                                                for n, m in zip(front.names, front.maximize)],
                                 "front": _front_rows(problem, front), "picked": k, "pick": args.pick,
                                 "how": how, "out": args.out, "out_front": args.out_front}, indent=1) + "\n", None)
        return 0
    heads = [f"{'max' if m else 'min'} {n}" for n, m in zip(front.names, front.maximize)]
    heads += [v.name for v in problem.variables] + [c.target for c in problem.choices]
    width = [max(12, len(h)) for h in heads]
    lines = [f"Pareto front: {len(front.designs)} design(s); * the one written (--pick {args.pick})",
             "  " + " ".join(f"{h:>{w}}" for h, w in zip(heads, width))]
    for i, (d, f) in enumerate(zip(front.designs, front.objectives)):
        cells = [f"{v:.6g}" for v in (*f, *d.values.values())] + list(d.picks)
        lines.append(("* " if i == k else "  ") + " ".join(f"{c:>{w}}" for c, w in zip(cells, width)))
    rows = _requirement_rows(problem, best)
    if rows:
        w = max(32, *(len(r["requirement"]) for r in rows))
        lines.append(f"the written design's requirements:\n{'requirement':<{w}} {'value':>12} {'bound':>10} "
                     f"{'margin':>12}")
        lines += [f"{r['requirement']:<{w}} {r['value']:>12.6g} {r['bound']:>10.6g} {r['margin']:>12.3g}"
                  for r in rows]
    lines.append(f"how: {how['method']}; population {how['population']} x {how['generations']} generations, "
                 f"{how['evaluations']} evaluations, {how['seconds']:.3g} s")
    if args.out_front:
        lines.append(f"front written: {args.out_front}")
    lines.append(f"written: {args.out}")
    write_output("\n".join(lines) + "\n", None)
    return 0


def _none_meets(problem, closest, evaluations: int, out) -> UserError:
    """The refusal when no design meets the requirements: the closest design's failing requirements named."""
    detail = ""
    if closest is not None:
        short = [f"{r.text} is {v:.6g}" for r, v in zip(problem.requirements, closest.quantities)
                 if not r.margin(v) >= 0]
        detail = "; closest: " + ", ".join(short)
    return UserError(f"optimize: no design meets the requirements ({evaluations} evaluations){detail}; "
                     f"{out} not written")
