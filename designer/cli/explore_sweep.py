"""``explore PROJECT sweep|map``: the commands that can run for hours, on local processes or a Dask cluster.

Where they run: ``--scheduler tcp://HOST:PORT`` (or the environment variable
``DASK_SCHEDULER_ADDRESS``, which Dask itself reads) sends blocks of work to that
Dask cluster; ``--workers N`` / ``--threads`` run them here. A sweep written to a
file streams its rows as they finish (a JSON file through a CSV beside it) and
``--resume`` continues an interrupted one. See docs/scaling.md.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..jobs import run
from .common import UserError
from .explore_io import emit, model_and_arm, output_format, pose, ratings
from .progress import add_quiet, job_bar
from .ranges import FINITE, GRID_STEPS, JOINT, PARAM_COUNT, SAMPLES, SEED, WORKERS, check_states

if TYPE_CHECKING:
    from ..explore.distribute import Compute

__all__ = ["add_compute", "compute_from", "cmd_sweep", "cmd_map"]


def add_compute(q, local_default: str) -> None:
    """The options that say where the work runs."""
    # explore.distribute.SCHEDULER_ENV, written out: importing it here would load numpy and sympy for --help
    # (tests/cli/test_startup.py holds the two the same)
    q.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on this Dask cluster, e.g. tcp://10.0.0.5:8786 (default: $DASK_SCHEDULER_ADDRESS if set)")
    q.add_argument("--workers", type=WORKERS, default=None, help=f"worker processes here (default: {local_default})")
    q.add_argument("--threads", action="store_true", help="use threads here instead of processes")
    add_quiet(q)


def compute_from(args, default_workers: int | None = 2) -> Compute | None:
    """The place the options name; None to compute in this process (``default_workers`` None and nothing
    asked). An explicit ``--workers``/``--threads`` wins over the environment variable."""
    from ..explore.distribute import Compute, scheduler_from_env
    if args.scheduler:
        if args.workers is not None or args.threads:
            raise UserError("--scheduler runs on the cluster: leave out --workers and --threads")
        return Compute("dask", scheduler=args.scheduler)
    local = args.workers is not None or args.threads
    if not local and scheduler_from_env():
        return Compute("dask", scheduler=scheduler_from_env())
    if not local and default_workers is None:
        return None
    return Compute("threads" if args.threads else "processes", args.workers or default_workers or 2)


def _spec(args, model, arm):
    from ..explore.maps import Sampling
    from ..explore.sweep import SweepAxis, SweepSpec
    params, materials = args.param or [], args.material or []
    if len(params) + len(materials) > 2:
        raise UserError("--param and --material: at most two axes in all")
    if not params and not materials:
        raise UserError("give what to sweep: --param NAME START STOP COUNT or --material LINK NAMES")
    axes = []
    for link, names in materials:
        k = JOINT.parse(link, "--material LINK")
        axes.append(SweepAxis.materials(k, [n.strip() for n in names.split(",") if n.strip()]))
    for name, start, stop, count in params:
        k = PARAM_COUNT.parse(count, f"--param {name} COUNT")
        axes.append(SweepAxis.linspace(name, FINITE.parse(start, f"--param {name} START"),
                                       FINITE.parse(stop, f"--param {name} STOP"), k))
    check_states(args.samples, arm.n, "--samples")   # each design's, in each worker
    return SweepSpec(tuple(axes), tuple(args.metric), tuple(s.strip() for s in args.stats.split(",") if s.strip()),
                     args.samples, Sampling(args.sampling), args.seed, ratings(args, arm.n, model))


def cmd_sweep(args) -> int:
    from ..explore.distribute import Compute, ComputeError, open_executor
    from ..explore.sweep import design_count
    from ..explore.sweep_file import SweepFileError, part_path, sweep_to_csv, sweep_to_json
    model, arm = model_and_arm(args)
    spec = _spec(args, model, arm)
    compute = compute_from(args) or Compute()
    fmt = output_format(args, table=True)
    if args.resume and not args.out:
        raise UserError("--resume continues a file: give --out FILE.csv or FILE.json")
    total = design_count(spec)
    for key in args.pareto or ():
        if key not in spec.keys():
            raise UserError(f"--pareto: no column '{key}' (have: {', '.join(spec.keys())})")
    maximize = (args.pareto[0] in args.maximize, args.pareto[1] in args.maximize) if args.pareto else (False, False)
    # a file streams (JSON through a CSV beside it, see sweep_file); standard output gets a temporary
    # file's bytes when the sweep is done, so that memory stays flat there too
    with tempfile.TemporaryDirectory(prefix="designer-sweep-") as scratch:
        out = args.out or str(Path(scratch) / f"sweep.{fmt}")
        rows_file = out if fmt == "csv" else str(part_path(out))
        try:
            with open_executor(compute) as (executor, slots), job_bar(args.quiet, total, "design", "sweep") as bar:
                to_file = sweep_to_csv if fmt == "csv" else sweep_to_json
                run(to_file(model, spec, out, executor, slots=slots, resume=args.resume,
                            pareto=tuple(args.pareto) if args.pareto else None, maximize=maximize), bar)
        except (ComputeError, SweepFileError) as exc:
            raise UserError(str(exc)) from None
        except KeyboardInterrupt:
            if not args.out:
                raise
            # the bar and the workers are gone by now: one line, and the file is ready for --resume
            print(f"interrupted: {_rows_in(rows_file)} of {total} designs are in {rows_file}; the same command "
                  f"with --resume continues", file=sys.stderr)
            return 130
        if not args.out:
            with open(out, "rb") as f:
                shutil.copyfileobj(f, sys.stdout.buffer)
            sys.stdout.flush()
    return 0


def _rows_in(path: str) -> int:
    try:
        with open(path, "rb") as f:
            return max(0, sum(1 for line in f if line.endswith(b"\n")) - 1)
    except OSError:
        return 0


def cmd_map(args) -> int:
    from ..explore.distribute import ComputeError, open_executor
    from ..explore.maps import grid_states, sample_configurations, states_job, summarize
    from ..explore.metrics import joint_numbers, parse_metric
    model, arm = model_and_arm(args)
    r = ratings(args, arm.n, model)
    numbers = joint_numbers(arm)   # a closed chain's actuated joints by their link numbers
    spec = parse_metric(args.metric, arm.n, numbers)
    compute = compute_from(args, default_workers=None)
    if args.joints:
        check_states(args.steps ** 2, arm.n, "--steps", f"a grid of {args.steps:,} x {args.steps:,} = ")
        x, y, Q = grid_states(arm, (args.joints[0], args.joints[1]), pose(args, arm.n), args.steps)
    else:
        check_states(args.samples, arm.n, "--samples")
        Q = sample_configurations(arm, args.samples, args.sampling, args.seed)
    try:
        with job_bar(args.quiet, len(Q), "state", "map") as bar:
            if compute is None:
                from ..explore.maps import evaluate_states   # M and G by the cheapest exact route
                values = evaluate_states(arm, Q, spec, r)
            else:
                with open_executor(compute) as (executor, slots):
                    values = run(states_job(arm, Q, args.metric, r, executor, slots), bar)
    except ComputeError as exc:
        raise UserError(str(exc)) from None
    if args.joints:
        i, j = args.joints
        grid = values.reshape(len(y), len(x))
        rows = [{f"q{i}": float(xv), f"q{j}": float(yv), spec.label: float(grid[iy, ix])}
                for iy, yv in enumerate(y) for ix, xv in enumerate(x)]
        return emit(args, rows, {"metric": spec.label, "joints": list(args.joints), "x": x, "y": y,
                                 "values": grid, "q0": pose(args, arm.n)})
    tool = arm.tool_points(Q)   # the tool point, in frame 0 (a closed chain's: its loops closed at each state)
    rows = [{**{f"q{number}": float(v) for number, v in zip(numbers, q)}, "x": float(p[0]), "y": float(p[1]),
             "z": float(p[2]), spec.label: float(val)} for q, p, val in zip(Q, tool, values)]
    return emit(args, rows, {"metric": spec.label, "stats": summarize(values), "samples": rows})


def register_sweep_and_map(whats, common, guard) -> None:
    q = whats.add_parser("map", help="a metric over a 2-D joint grid, or at samples within the joint limits")
    q.add_argument("--metric", required=True, metavar="SPEC")
    q.add_argument("--joints", nargs=2, type=JOINT, metavar=("I", "J"), help="sweep these two joints on a grid")
    q.add_argument("--steps", type=GRID_STEPS, default=50, help="grid points per joint (default 50)")
    q.add_argument("--q", nargs="+", metavar="Q", help="pose of the other joints (default: all zero)")
    q.add_argument("--samples", type=SAMPLES, default=1000, help="without --joints: number of samples (default 1000)")
    q.add_argument("--sampling", choices=["sobol", "random"], default="sobol")
    q.add_argument("--seed", type=SEED, default=0)
    add_compute(q, "this process")
    common(q)
    q.set_defaults(func=guard(cmd_map))

    q = whats.add_parser("sweep", help="one or two parameters over ranges; metric summaries per design; Pareto")
    q.add_argument("--param", nargs=4, action="append", metavar=("NAME", "START", "STOP", "COUNT"))
    q.add_argument("--material", nargs=2, action="append", metavar=("LINK", "NAMES"),
                   help="the materials of a part-made link, comma-separated (\"steel,CFRP,aluminium 6061-T6\"); "
                        "the column holds each design's index into that list")
    q.add_argument("--metric", action="append", required=True, metavar="SPEC")
    q.add_argument("--stats", default="max,mean", help="comma list of min,max,mean,std,p05,p50,p95")
    q.add_argument("--samples", type=SAMPLES, default=1000)
    q.add_argument("--sampling", choices=["sobol", "random"], default="sobol")
    q.add_argument("--seed", type=SEED, default=0)
    add_compute(q, "2")
    q.add_argument("--resume", action="store_true",
                   help="continue an interrupted sweep into --out FILE (.csv, or .json through the FILE.part.csv "
                        "it left) without recomputing its rows")
    q.add_argument("--pareto", nargs=2, metavar=("A", "B"), help="mark designs non-dominated in columns A, B")
    q.add_argument("--maximize", nargs="*", default=[], metavar="COL", help="Pareto columns to maximise")
    common(q)
    q.set_defaults(func=guard(cmd_sweep))

