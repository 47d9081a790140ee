"""Commands about the model itself: info, validate, fk."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from .common import UserError, load_model
from .ranges import FINITE

if TYPE_CHECKING:
    from ..model.manipulator import Manipulator


def register(sub) -> None:
    p = sub.add_parser("info", help="show the arm as a table: DH rows, masses, parameters, warnings")
    p.add_argument("project")
    p.set_defaults(func=cmd_info)
    p = sub.add_parser("validate", help="check a project file; exit 0 when it has no errors")
    p.add_argument("project")
    p.set_defaults(func=cmd_validate)
    p = sub.add_parser("fk", help="forward kinematics: every frame at the given joint values, as JSON")
    p.add_argument("project")
    p.add_argument("--q", nargs="+", required=True, metavar="Q",
                   help="joint values (rad or m), numbers or expressions like pi/2, separated by spaces or "
                        "commas: --q -pi/2 0.5 or --q=-pi/2,0.5")
    # Let "-pi/2" be a joint value, as argparse already lets "-1.5" be one (the command has no
    # single-dash options but -h, which argparse matches before this test).
    p._negative_number_matcher = re.compile(r"^-[^-]")
    p.set_defaults(func=cmd_fk)


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def describe(model: Manipulator) -> str:
    out = [f"{model.name or '(unnamed)'}: {model.n} links, {model.convention.value} DH convention"]
    if model.description:
        out.append(model.description)
    rows = [["#", "name", "joint", "a", "alpha", "d", "theta", "mass", "com", "inertia (xx yy zz xy xz yz)"]]
    for i, l in enumerate(model.links, start=1):
        if l.part is not None:   # the expressions a part makes are long: its own line below says it
            rows.append([str(i), l.name, l.joint.value, str(l.a), str(l.alpha), str(l.d), str(l.theta),
                         "(part)", "[" + ", ".join(map(str, l.com)) + "]", "(part)"])
            continue
        rows.append([str(i), l.name, l.joint.value, str(l.a), str(l.alpha), str(l.d), str(l.theta), str(l.mass),
                     "[" + ", ".join(map(str, l.com)) + "]",
                     "0" if l.inertia.is_zero else " ".join(map(str, l.inertia.entries()))])
    out += ["", _table(rows), *_parts_lines(model), "", "gravity: [" + ", ".join(map(str, model.gravity)) + "]"]
    if model.gravity_in_world and model.base is not None:
        out[-1] += " in the world; in frame 0: [" + ", ".join(map(str, model.gravity_frame0)) + "]"
    for k, p in enumerate(model.point_masses, start=1):
        out.append(f"point mass {k}: {p.mass} on link {p.link} at [" + ", ".join(map(str, p.position)) + "]")
    from ..model.mechanism import structure_lines
    out += structure_lines(model)
    if model.parameters:
        out.append("parameters: " + ", ".join(f"{k} = {v:g}" for k, v in model.parameters))
    from ..numeric.checks import check_model   # loads the numeric layer: only for info and validate
    problems = check_model(model)
    for problem in problems:
        out.append(f"{problem.severity.value}: {problem}")
    return "\n".join(out) + "\n"


def _parts_lines(model: Manipulator) -> list[str]:
    """One line per part-made link: shape, material, dimensions, and its mass at the defaults."""
    from ..model.evaluate import NotANumber, real_value
    from ..model.parts import parts_of
    out = []
    values = model.parameter_values
    for i, part in parts_of(model):
        link = model.links[i]
        dims = ", ".join(f"{k} = {v}" for k, v in part.dims)
        line = f"link {i + 1}: {part.shape.replace('_', ' ')} of {part.material.name} ({dims})"
        try:
            line += f", {real_value(link.mass, values):.4g} kg"
        except (NotANumber, ValueError, TypeError):
            pass
        out.append(line)
    return [""] + out if out else []


def cmd_info(args) -> int:
    print(describe(load_model(args.project)), end="")
    return 0


def cmd_validate(args) -> int:
    from ..model import Severity
    model = load_model(args.project)  # errors of reading raise here
    from ..numeric.checks import check_model   # loads the numeric layer: only for info and validate
    problems = check_model(model)
    for p in problems:
        print(f"{p.severity.value}: {p}")
    failed = [p for p in problems if p.severity is Severity.ERROR]
    if failed:   # the checks of the numbers (designer/numeric/checks.py): the file reads, the arm is wrong
        raise UserError(f"{args.project}: not valid: {failed[0]}")
    if not model.unvalued_symbols():   # the loops' closure and mobility need numbers (nothing to check without loops)
        problems += _mechanism_problems(args.project, model)
    print(f"{args.project}: valid ({model.n} links, {len(problems)} warning(s))")
    return 0


def _mechanism_problems(project: str, model) -> list:
    """The loops' geometric checks (assembly from the nominal pose, mobility): a UserError naming the loop for an
    error; the warnings (a loop assembled from a nominal pose that does not close) printed and returned."""
    from ..kinematics.closure import mechanism_problems
    from ..model import MissingParameterError, Severity
    from ..kinematics.tree import TreeArm
    try:
        problems = mechanism_problems(TreeArm.from_model(model))
    except (MissingParameterError, ValueError) as exc:
        raise UserError(f"{project}: {exc}") from None
    failed = [p for p in problems if p.severity is Severity.ERROR]
    if failed:
        raise UserError(f"{project}: " + "; ".join(map(str, failed)))
    for p in problems:
        print(f"{p.severity.value}: {p}")
    return problems


def cmd_fk(args) -> int:
    """The forward kinematics of any mechanism at its coordinates (a closed chain's actuated joints, its loops
    closed: numeric/mechanism.py's forward_kinematics)."""
    from ..kinematics.closure import ClosureError
    from ..model import MissingParameterError
    from ..numeric.mechanism import forward_kinematics
    model = load_model(args.project)
    texts = [part for item in args.q for part in item.split(",") if part.strip()]
    act = [k for k, link in enumerate(model.links, start=1) if link.actuated]
    if len(texts) != len(act):
        raise UserError(f"--q: {len(act)} joint values needed, {len(texts)} given"
                        + ("" if len(act) == model.n else f" (the actuated joints q{', q'.join(map(str, act))})"))
    q = [FINITE.parse(text, f"--q[{k}]") for k, text in enumerate(texts, start=1)]
    try:
        result = forward_kinematics(model, q)
    except (ClosureError, MissingParameterError) as exc:
        raise UserError(f"{args.project}: {exc}") from None
    print(json.dumps(result, indent=1))
    return 0
