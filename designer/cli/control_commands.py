"""Commands for the control engineer: regressor (base parameters, excitation) and linearize."""

from __future__ import annotations

from typing import TYPE_CHECKING

import csv
import io
import json

from ..errors import DesignerError
from .common import UserError, load_model, write_output
from .explore_io import pose_from
from .ranges import HARMONICS, PERIOD, RATING, REPORT_STEP

if TYPE_CHECKING:
    import numpy as np

_REPORT_FORMATS = ("json", "latex", "markdown", "html")


def register(sub) -> None:
    p = sub.add_parser("regressor", help="standard or base inertial parameters (tau = Y pi), and the condition "
                                         "number of Y over an excitation trajectory")
    p.add_argument("project")
    p.add_argument("--base", action="store_true", help="the base parameters: grouping formulas, dropped parameters")
    p.add_argument("--drives", action="store_true", help="include the drive parameters (Ia = N^2 Jm, viscous fv, "
                                                         "Coulomb fc) of the joints with drive data")
    p.add_argument("--format", choices=_REPORT_FORMATS, default="json")
    p.add_argument("--trajectory", metavar="CSV", help="condition number of Y_b over this trajectory "
                                                       "(columns q1..qn, qd1..qdn, qdd1..qddn)")
    p.add_argument("--excite", action="store_true", help="generate a finite Fourier series trajectory within the "
                                                         "joint limits and report its condition number")
    p.add_argument("--period", type=PERIOD, default=10.0, help="--excite: period in s (default 10)")
    p.add_argument("--harmonics", type=HARMONICS, default=5, help="--excite: harmonics per joint (default 5)")
    p.add_argument("--speed", help="--excite: speed limit(s), one value or one per joint")
    p.add_argument("--acceleration", help="--excite: acceleration limit(s), one value or one per joint")
    p.add_argument("--excite-out", metavar="CSV", help="--excite: write the trajectory here")
    p.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    p.set_defaults(func=cmd_regressor)

    p = sub.add_parser("linearize", help="state-space model A, B at an operating point, continuous and discrete")
    p.add_argument("project")
    p.add_argument("--q", nargs="+", metavar="Q", help="joint positions (n values; default zero)")
    p.add_argument("--qd", nargs="+", metavar="QD", help="joint velocities (default zero)")
    p.add_argument("--qdd", nargs="+", metavar="QDD", help="joint accelerations (default zero)")
    p.add_argument("--dt", help="sample time in s: also give the discrete-time model")
    p.add_argument("--method", choices=["zoh", "tustin"], default="zoh", help="discretization (default zoh)")
    p.add_argument("--format", choices=["json", "matlab", "python"], default="json")
    p.add_argument("--symbolic", action="store_true",
                   help="json: also dtau/dq, dtau/dqd, M (and A, B up to three joints) as expressions")
    p.add_argument("--elastic", action="store_true",
                   help="the elastic-joint model of the drive data's stiffness: x = (q, theta, qd, thetad), "
                        "inputs the motor torques (docs/elastic.md)")
    p.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    p.set_defaults(func=cmd_linearize)


def _limits(text: str | None, n: int, flag: str):
    import numpy as np
    if text is None:
        return None
    values = [RATING.parse(v, flag) for v in text.replace(",", " ").split()]
    if len(values) not in (1, n):
        raise UserError(f"{flag}: give one positive value or {n}")
    return np.broadcast_to(np.array(values), (n,)).copy()


def _condition(args, model, bp) -> dict | None:
    """cond(Y_b) of any mechanism's base regressor (control/excitation.py) over ``--trajectory`` or a generated
    ``--excite`` of its coordinates (a closed chain's actuated joints: the columns named by their links, as
    ``torques`` reads them); ``--excite-out`` gets the trajectory."""
    if not (args.trajectory or args.excite):
        return None
    from ..control.excitation import condition_number, fourier_excitation
    from ..identification.base_params import MechanismRegressor
    from ..model import MissingParameterError
    try:
        reg = MechanismRegressor(model, bp)
    except (MissingParameterError, DesignerError, ValueError) as exc:
        raise UserError(f"{args.project}: {exc}") from None
    if args.trajectory:
        from ..tables import read_trajectory
        _, Q, QD, QDD, _ = read_trajectory(args.trajectory, reg.n, numbers=reg.numbers)
        try:
            cond = condition_number(reg, Q.T, QD.T, QDD.T)
        except DesignerError as exc:
            raise UserError(f"{args.trajectory}: {exc}") from None
        return {"trajectory": args.trajectory, "samples": len(Q), "condition": cond}
    try:
        ex = fourier_excitation(reg, args.period, args.harmonics, speed=_limits(args.speed, reg.n, "--speed"),
                                acceleration=_limits(args.acceleration, reg.n, "--acceleration"))
    except ValueError as exc:
        raise UserError(f"--excite: {exc}") from None
    if args.excite_out:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["t"] + [f"{p}{j}" for p in ("q", "qd", "qdd") for j in reg.numbers])
        for k in range(len(ex.t)):
            w.writerow([repr(float(x)) for x in (ex.t[k], *ex.q[:, k], *ex.qd[:, k], *ex.qdd[:, k])])
        write_output(buf.getvalue(), args.excite_out)
    return {"trajectory": f"Fourier series, {args.harmonics} harmonics, period {args.period:g} s",
            "samples": len(ex.t), "condition": ex.condition}


def cmd_regressor(args) -> int:
    """The standard or base parameters of any mechanism (identification/base_params.py's grouping: a closed chain's
    numeric one of W^T Y_tree) and cond(Y_b) over a trajectory."""
    from ..model import MissingParameterError
    from ..identification.base_params import mechanism_base_parameters
    from ..report.identification import regressor_report

    model = load_model(args.project)
    try:
        bp = mechanism_base_parameters(model, drives=args.drives)
    except (MissingParameterError, DesignerError, ValueError) as exc:
        raise UserError(f"{args.project}: {exc}") from None
    cond = _condition(args, model, bp)
    try:
        text = regressor_report(model, bp, cond, args.format, args.drives, args.base, args.project)
    except ValueError as exc:
        raise UserError(f"{args.project}: {exc}") from None
    write_output(text, args.out)
    return 0


def _matrix_text(name: str, m: np.ndarray, fmt: str) -> str:
    m = m[:, None] if m.ndim == 1 else m  # vectors as columns
    if fmt == "matlab":
        rows = ";\n     ".join(" ".join(repr(float(x)) for x in row) for row in m)
        return f"{name} = [{rows}];\n"
    rows = ",\n     ".join("[" + ", ".join(repr(float(x)) for x in row) + "]" for row in m)
    return f"{name} = numpy.array([{rows}])\n"


def _symbolic(model, where: str) -> dict:
    """``linearize --symbolic`` of any mechanism (control/symbolic.py; a closed chain's loops must close
    linearly)."""
    from ..control.symbolic import mechanism_symbolic_linearization
    from ..dynamics.closed_form import NotLinearClosure
    from ..report.printing import to_text
    try:
        lin = mechanism_symbolic_linearization(model)
    except NotLinearClosure as exc:
        raise UserError(f"{where}: linearize --symbolic: {exc}") from None
    text = lambda m: None if m is None else [[to_text(e, ordered=False) for e in m.row(i)] for i in range(m.rows)]  # noqa: E731
    return {"dtau_dq": text(lin.dtau_dq), "dtau_dqd": text(lin.dtau_dqd), "M": text(lin.M), "A": text(lin.A),
            "B": text(lin.B)}


def cmd_linearize(args) -> int:
    from ..codegen.plan import comment_text
    from ..control.linearize import linearize_dynamics
    from .numeric_commands import _dynamics, _names

    model = load_model(args.project)
    if args.elastic and args.symbolic:
        raise UserError("linearize --elastic: numbers only (without --symbolic)")
    rigid = _dynamics(model, args.project)   # a closed chain's: its actuated joints, named by their links
    dyn = elastic_dynamics(model, args.project) if args.elastic else rigid
    names = _names(rigid.actuated, "q")
    q, qd, qdd = (pose_from(getattr(args, k), rigid.n, f"--{k}") for k in ("q", "qd", "qdd"))
    motors = [f"theta{names[i][1:]}" for i in dyn.joints.elastic] if args.elastic else []
    state = names + motors + ["qd" + v[1:] for v in names] + ["thetad" + v[5:] for v in motors]
    try:
        lm = linearize_dynamics(dyn, q, qd, qdd)
        dm = lm.discretize(REPORT_STEP.parse(args.dt, "--dt"), args.method) if args.dt is not None else None
    except ValueError as exc:
        raise UserError(f"linearize: {exc}") from None
    if args.format == "json":
        eig = lambda v: [[float(x.real), float(x.imag)] for x in v]  # noqa: E731
        data = {"model": model.name, "state": state,
                "q0": lm.q0.tolist(), "qd0": lm.qd0.tolist(), "qdd0": lm.qdd0.tolist(), "tau0": lm.tau0.tolist(),
                "A": lm.A.tolist(), "B": lm.B.tolist(), "eigenvalues": eig(lm.eigenvalues),
                "dtau_dq": lm.dtau_dq.tolist(), "dtau_dqd": lm.dtau_dqd.tolist(), "M": lm.M.tolist()}
        if args.symbolic:
            data["symbolic"] = _symbolic(model, args.project)
        if dm is not None:
            data["discrete"] = {"dt": dm.dt, "method": dm.method, "Ad": dm.Ad.tolist(), "Bd": dm.Bd.tolist(),
                                "eigenvalues": eig(dm.eigenvalues)}
        write_output(json.dumps(data, indent=1) + "\n", args.out)
        return 0
    if args.symbolic:
        raise UserError("linearize --symbolic: use --format json")
    comment = "%" if args.format == "matlab" else "#"
    title = comment_text(model.name or args.project)
    what = ("x = [q; theta; qd; thetad], dx/dt = A x + B tau_m (the motor torques)" if args.elastic
            else "x = [q; qd], dx/dt = A x + B tau")
    out = [f"{comment} Linearized model of {title}: {what}", f"{comment} state: {', '.join(state)}",
           f"{comment} operating point q0 = {lm.q0.tolist()}, qd0 = {lm.qd0.tolist()}, qdd0 = {lm.qdd0.tolist()}"]
    if args.format == "python":
        out.append("import numpy\n")
    for name, m in (("q0", lm.q0), ("tau0", lm.tau0), ("A", lm.A), ("B", lm.B), ("M", lm.M)):
        out.append(_matrix_text(name, m, args.format).rstrip())
    if dm is not None:
        out.append(f"{comment} discrete time, {dm.method}, dt = {dm.dt:g} s: x[k+1] = Ad x[k] + Bd tau[k]")
        out.append(f"dt = {dm.dt!r}" + (";" if args.format == "matlab" else ""))
        out += [_matrix_text("Ad", dm.Ad, args.format).rstrip(), _matrix_text("Bd", dm.Bd, args.format).rstrip()]
    write_output("\n".join(out) + "\n", args.out)
    return 0


def elastic_dynamics(model, where: str):
    """The elastic-joint model of any mechanism (numeric/mechanism.py: load_dynamics with the drive data's
    springs; a closed chain's on its actuated joints); a UserError when no joint has a spring."""
    from ..model import MissingParameterError
    from ..kinematics.closure import ClosureError
    from ..numeric.mechanism import load_dynamics
    try:
        dyn = load_dynamics(model)
    except (DesignerError, MissingParameterError, ClosureError, ValueError) as exc:
        raise UserError(f"{where}: {exc}") from None
    if getattr(dyn, "joints", None) is None:   # load_dynamics gives the rigid link side without a spring
        raise UserError(f"{where}: no actuated joint has a drive stiffness (drive data 'stiffness', N m/rad)")
    return dyn


def codegen_control(args, derive, progress) -> int:
    """``codegen``: C (source and header), Python, MATLAB (a folder of .m files), standard or base
    parameters; every language with the Coriolis matrix and the regressor (:mod:`designer.codegen.files`)."""
    from ..model import MissingParameterError
    from pathlib import Path

    from ..codegen.files import code_files, full_plan, parse_functions
    from ..identification.code_plan import base_plan
    from ..dynamics.results import SimplifyMode
    from ..jobs import NEVER, Progress
    from ..jobs.interrupt import interruptible

    if args.lang == "matlab" and not args.out:
        raise UserError("codegen --lang matlab: give --out DIRECTORY for the .m files")
    drives = getattr(args, "drives", False)
    try:
        only = parse_functions(args.functions) if getattr(args, "functions", None) else None
    except ValueError as exc:
        raise UserError(f"codegen --functions: {exc}") from None
    args.only = only   # parsed once: the compact derivation reads it too
    token = getattr(args, "deadline", None) or NEVER   # codegen's --time-limit (cmd_codegen says what ran out)
    try:
        if args.parameters == "base":
            model = load_model(args.project)
            progress(Progress("base parameters"))
            with interruptible(token):   # stopped at the limit also inside one long sympy call (the plan is pure)
                plan = base_plan(model, drives, only, token)   # a closed chain's: its closed-loop base parameters
        else:
            if args.form == "compact":
                args.simplify = SimplifyMode.OFF.value
            eq = derive(args, progress)
            args.derived_form = eq.form.value   # what a time limit's message suggests instead depends on it
            progress(Progress("common subexpressions"))
            with interruptible(token):
                plan = full_plan(eq, args.form, drives, token, only)   # a linear closure's: its closed forms
    except UserError:   # already one line naming the project
        raise
    except (ValueError, MissingParameterError) as exc:
        raise UserError(f"{args.project}: cannot generate code: {exc}") from None
    finally:
        progress.done()
    elastic = _elastic_code(args, plan) if getattr(args, "elastic", False) else None
    if not args.out and args.lang == "c":  # the source on standard output; --header still writes the header
        from ..codegen.c_library import emit_c_library
        source, header = emit_c_library(plan, args.prefix, Path(args.header).name if args.header else None)
        write_output(source + (elastic[0] if elastic else ""), None)
        if args.header:
            write_output(_with_header_part(header, elastic), args.header)
        return 0
    if not args.out:
        from ..codegen.python_code import emit_python
        write_output(emit_python(plan) + (elastic[0] if elastic else ""), None)
        return 0
    if args.lang == "matlab":
        try:
            Path(args.out).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"{args.out}: cannot create the folder: {exc.strerror or exc}") from None
    for path, text in code_files(plan, args.lang, args.out, args.prefix, args.header).items():
        if elastic:
            text = _with_header_part(text, elastic) if path.endswith(".h") else text + elastic[0]
        write_output(text, path)
    return 0


def _elastic_code(args, plan) -> tuple[str, str]:
    """``codegen --elastic``: (source, header) text of the elastic-joint forward dynamics to append."""
    from ..codegen.c_code import c_identifier
    from ..codegen.files import NEEDS, elastic_c, elastic_python
    if args.lang == "matlab":
        raise UserError("codegen --elastic: C or Python (MATLAB: not yet)")
    missing = [f for f in NEEDS if f not in {g.name for g in plan.functions}]
    if missing:
        raise UserError(f"codegen --elastic needs the functions {', '.join(NEEDS)} (missing: {', '.join(missing)})")
    model = load_model(args.project)   # a closed chain: its actuated joints' gearboxes
    try:
        names = [name for name, _ in plan.parameters]   # a named stiffness (k2) is read from p
        if args.lang == "python":
            return elastic_python(model, names), ""
        return elastic_c(model, c_identifier(args.prefix or plan.model_name), names)
    except ValueError as exc:
        raise UserError(f"{args.project}: {exc}") from None


def _with_header_part(header: str, elastic) -> str:
    """The C header with the elastic declarations before its closing C++ guard."""
    if not elastic or not elastic[1]:
        return header
    at = header.rindex("#ifdef __cplusplus")
    return header[:at] + elastic[1] + "\n" + header[at:]
