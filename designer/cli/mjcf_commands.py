"""``import-mjcf``, ``import`` (URDF or MJCF, by the file) and ``export-mjcf`` (docs/mjcf.md)."""

from __future__ import annotations

import argparse

from .common import UserError
from .urdf_commands import (allowed_roots, chain_options, export_command, import_urdf_command, urdf_file_options,
                            write_import)

__all__ = ["register"]


def _import_mjcf(args: argparse.Namespace) -> int:
    from ..mjcf import MjcfError, import_mjcf
    try:
        report = import_mjcf(args.file, base=args.base, tip=args.tip, convention=args.convention,
                             drop_rest=args.drop_rest, allow_roots=allowed_roots(args), literal=args.literal)
    except MjcfError as exc:
        raise UserError(str(exc)) from None
    return write_import(report, args.out)


def _import_any(args: argparse.Namespace) -> int:
    from ..mjcf.source import MjcfError, file_format
    try:
        kind = file_format(args.file)
    except MjcfError as exc:
        raise UserError(str(exc)) from None
    if kind == "mjcf":
        return _import_mjcf(args)
    args.urdf = args.file
    return import_urdf_command(args)


def _export(args: argparse.Namespace) -> int:
    from ..mjcf.exporter import mjcf_text
    return export_command(args, mjcf_text)


def register(sub) -> None:
    p = sub.add_parser("import-mjcf", help="make a project of a serial chain in an MJCF (MuJoCo) file",
                       description="Make a project of the chain of bodies from --base to --tip of an MJCF file, "
                                   "read by MuJoCo (a closed chain where <equality><connect> closes loops, "
                                   "docs/mjcf.md). The report goes to standard error.")
    p.add_argument("file", help="the MJCF file (.xml)")
    chain_options(p, "body")
    p.set_defaults(func=_import_mjcf)

    p = sub.add_parser("import", help="make a project of a URDF or MJCF file (decided by the file)",
                       description="import-urdf or import-mjcf, by the file's top element (<robot> or <mujoco>).")
    p.add_argument("file", help="the URDF or MJCF file")
    chain_options(p, "link or body")
    urdf_file_options(p)
    p.set_defaults(func=_import_any)

    p = sub.add_parser("export-mjcf", help="write a project as an MJCF (MuJoCo) file",
                       description="Write a project as MJCF: one body per DH link, armature, damping and friction "
                                   "loss from the drive data, a motor per actuated joint; symbols take their default "
                                   "values. A closed chain: its tree with each loop as <equality><connect>.")
    p.add_argument("project")
    p.add_argument("--out", help="the MJCF file to write (default: standard output)")
    p.set_defaults(func=_export)
