"""Numeric commands: ``eval`` (M, G, h, tau at given states) and ``torques`` (along a trajectory)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys

import numpy as np

from ..model import MissingParameterError
from ..model.manipulator import Manipulator
from .common import UserError, load_model, read_json, read_text, write_output

METHODS = ["lagrange", "newton-euler", "dalembert"]


def register(sub) -> None:
    p = sub.add_parser("eval", help="evaluate tau, M, G and h at joint states (JSON in, JSON out)")
    p.add_argument("project")
    p.add_argument("--states", required=True, metavar="STATES.json",
                   help='{"states": [{"q": [...], "qd": [...], "qdd": [...]}, ...]} in SI units and radians')
    p.add_argument("--method", choices=METHODS, default="lagrange",
                   help="the symbolic derivation to evaluate (default: lagrange)")
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
    p.set_defaults(func=cmd_torques)


def compiled_for(model: Manipulator, method: str, where: str):
    """Derive the model's equations by ``method`` at its default parameter values, and compile them."""
    from ..dynamics import derive
    from ..dynamics.results import Method, SimplifyMode
    from ..numeric.compiled import compile_equations
    try:
        numeric = model.numeric()
    except MissingParameterError as exc:
        raise UserError(f"{where}: {exc}") from None
    eq = derive(numeric, Method(method), SimplifyMode.OFF)
    return compile_equations(eq)


def _vector(value, n: int, where: str) -> list[float]:
    if not isinstance(value, list):
        raise UserError(f"{where}: must be a list of {n} numbers")
    if len(value) != n:
        raise UserError(f"{where}: {len(value)} values, the arm has {n} joints")
    for k, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise UserError(f"{where}[{k}]: {json.dumps(v)} is not a finite number")
    return [float(v) for v in value]


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
    model = load_model(args.project)
    states = read_states(args.states, model.n)
    cd = compiled_for(model, args.method, args.project)
    results = []
    for q, qd, qdd in states:
        results.append({"tau": cd.tau(q, qd, qdd).tolist(), "M": cd.M(q).tolist(), "G": cd.G(q).tolist(),
                        "h": cd.h(q, qd).tolist()})
    json.dump({"method": args.method, "results": results}, sys.stdout)
    sys.stdout.write("\n")
    return 0


def read_trajectory(path: str, n: int,
                    strict: bool = False) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, dict]:
    """(header, Q, QD, QDD, other columns) of a trajectory CSV; user errors name the line.

    Joint columns beyond the arm's n joints (q3.. for a 2-joint arm: a trajectory of another arm?)
    are passed through with a warning on standard error, or refused when ``strict``."""
    rows = list(csv.reader(io.StringIO(read_text(path, "trajectory"))))
    # line numbers as a person counts them; blank lines are skipped
    numbered = [(k, r) for k, r in enumerate(rows, start=1) if any(c.strip() for c in r)]
    if not numbered:
        raise UserError(f"{path}: empty file (expected a header row q1..q{n}, qd1..qd{n}, qdd1..qdd{n})")
    header = [c.strip() for c in numbered[0][1]]
    names = [f"{p}{j}" for p in ("q", "qd", "qdd") for j in range(1, n + 1)]
    for name in names:
        if name not in header:
            raise UserError(f"{path}, line {numbered[0][0]}: missing column '{name}' "
                            f"(an arm with {n} joints needs q1..q{n}, qd1..qd{n}, qdd1..qdd{n})")
    dup = next((c for c in header if header.count(c) > 1), None)
    if dup:
        raise UserError(f"{path}, line {numbered[0][0]}: column '{dup}' appears twice")
    beyond = [c for c in header if (m := re.fullmatch(r"(?:q|qd|qdd)(\d+)", c)) and int(m.group(1)) > n]
    if beyond:
        what = (f"{path}, line {numbered[0][0]}: column{'s' if len(beyond) > 1 else ''} {', '.join(beyond)} "
                f"{'are' if len(beyond) > 1 else 'is'} for joints beyond the arm's {n}")
        if strict:
            raise UserError(f"{what} (a trajectory of another arm?)")
        print(f"warning: {what}: copied to the output unchanged (--strict refuses them)", file=sys.stderr)
    index = [header.index(name) for name in names]
    values = np.empty((len(numbered) - 1, 3 * n))
    others: dict[str, list[str]] = {c: [] for c in header if c not in names}
    for r, (line, row) in enumerate(numbered[1:]):
        if len(row) != len(header):
            raise UserError(f"{path}, line {line}: {len(row)} fields, the header has {len(header)}")
        for k, (name, col) in enumerate(zip(names, index)):
            cell = row[col].strip()
            try:
                v = float(cell)
            except ValueError:
                raise UserError(f"{path}, line {line}: column {name}: '{cell}' is not a number") from None
            if not math.isfinite(v):
                raise UserError(f"{path}, line {line}: column {name}: '{cell}' is not a finite number")
            values[r, k] = v
        for c in others:
            others[c].append(row[header.index(c)].strip())
    if values.shape[0] == 0:
        raise UserError(f"{path}: no data rows after the header")
    return header, values[:, :n], values[:, n:2 * n], values[:, 2 * n:], others


def cmd_torques(args) -> int:
    model = load_model(args.project)
    n = model.n
    _, Q, QD, QDD, others = read_trajectory(args.trajectory, n, args.strict)
    if args.method == "rnea":
        from ..kinematics import NumericArm
        from ..numeric.recursive import rnea
        try:
            arm = NumericArm.from_model(model)
        except MissingParameterError as exc:
            raise UserError(f"{args.project}: {exc}") from None
        tau = np.array([rnea(arm, q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)]).reshape(-1, n)
    else:
        tau = compiled_for(model, args.method, args.project).tau_many(Q, QD, QDD)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(list(others) + [f"tau{j}" for j in range(1, n + 1)])
    for r in range(tau.shape[0]):
        writer.writerow([others[c][r] for c in others] + [repr(float(v)) for v in tau[r]])
    write_output(buf.getvalue(), args.out)
    peak = np.max(np.abs(tau), axis=0)
    rms = np.sqrt(np.mean(tau**2, axis=0))
    lines = [f"{tau.shape[0]} rows, method {args.method}; N m for revolute joints, N for prismatic",
             f"{'joint':<6} {'type':<4} {'peak |tau|':>14} {'RMS tau':>14}"]
    for j, link in enumerate(model.links):
        lines.append(f"{j + 1:<6} {link.joint.value:<4} {peak[j]:>14.6g} {rms[j]:>14.6g}")
    print("\n".join(lines), file=sys.stdout if args.out else sys.stderr)
    return 0
