"""Helpers shared by the command modules."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError

if TYPE_CHECKING:
    from ..model.manipulator import Manipulator

__all__ = ["UserError", "load_model", "number", "read_json", "write_output"]


def load_model(path: str, closed: bool = True) -> Manipulator:
    """The project at ``path`` (any mechanism: every command takes serial arms, trees with loops and elastic
    joints alike); a ProjectError as one line. ``closed`` changes nothing (accepted from callers written when
    some commands took serial arms only)."""
    from ..project import ProjectError, load_project
    try:
        model = load_project(path)
    except ProjectError as exc:
        raise UserError(str(exc)) from None
    return model


def number(text: str, what: str) -> float:
    """A command-line number, written as a number or an expression without names (``pi/2``)."""
    from ..model.expr import ExpressionError, parse_expr
    try:
        value = parse_expr(text, what)
    except ExpressionError as exc:
        raise UserError(str(exc)) from None
    if value.free_symbols:
        raise UserError(f"{what}: must be a number, not '{text.strip()}'")
    return float(value.evalf())


def read_json(path: str, what: str):
    from ..tables import json_problem
    from ..tables import read_text
    text = read_text(path, what)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: {what} is not valid JSON: {exc.msg} "
                        f"(line {exc.lineno}, column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:  # NaN/Infinity, or nesting deeper than the parser goes
        raise UserError(f"{path}: {what} is not valid JSON: {json_problem(exc)}") from None


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def write_output(text: str, out: str | None) -> None:
    """Write to the file ``out`` or, without one, to standard output."""
    if out:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{out}: cannot write: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
