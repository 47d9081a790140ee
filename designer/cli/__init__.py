"""The command line: ``python -m designer COMMAND ...`` (also ``manipulator-designer``).

Each command lives in a module of this package with a ``register(subparsers)``
function; user errors exit with status 2 and a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import DesignerError
from .common import UserError

__all__ = ["main", "UserError", "COMMAND_MODULES"]

# modules that register commands, in --help order
COMMAND_MODULES = ["model_commands", "dynamics_commands", "numeric_commands", "explore_commands", "urdf_commands",
                   "mjcf_commands", "control_commands", "modes_commands", "report_commands", "review_commands",
                   "catalog_commands", "optimize_commands", "gui_command"]


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its errors on one line (a bad option, a number out of its range: cli/ranges.py)
    with where to find the usage, instead of the usage and then the error. The subcommands' parsers are
    of this class too (argparse makes them of the parent's class)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="manipulator-designer",
        description="Manipulator Designer: DH models of robot arms (serial, trees, closed loops, elastic joints), "
                    "their kinematics and equations of motion.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue  # a command group not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except DesignerError as exc:  # UserError, and the core's own errors when a command forgets to wrap them
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
