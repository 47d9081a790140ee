"""``import-urdf`` and ``export-urdf``: real arms in and out (docs/urdf.md)."""

from __future__ import annotations

import argparse
import sys

from ..errors import DesignerError
from .common import UserError, load_model, write_output
from .ranges import DENSITY

__all__ = ["allowed_roots", "chain_options", "export_command", "import_urdf_command", "register", "urdf_file_options",
           "write_import"]


def import_urdf_command(args: argparse.Namespace) -> int:
    """``import-urdf`` (also ``import`` of a URDF or xacro file)."""
    from ..urdf import UrdfError
    from ..urdf.pipeline import FileOptions, import_file
    from ..urdf.xacro_run import parse_package_options, parse_xacro_args
    try:
        # ``import`` of a URDF file may come without the URDF-only options
        paths, named = parse_package_options(getattr(args, "package_path", None) or [])
        options = FileOptions(parse_xacro_args(getattr(args, "xacro_arg", None) or []), paths, named,
                              getattr(args, "density", None), allowed_roots(args))
        report = import_file(args.urdf, options, base=args.base, tip=args.tip, convention=args.convention,
                             drop_rest=args.drop_rest, massless=args.massless, literal=args.literal)
    except UrdfError as exc:
        raise UserError(str(exc)) from None
    return write_import(report, args.out)


def allowed_roots(args: argparse.Namespace) -> list[str]:
    """The folders of ``--allow-root``, each an existing folder (else one line naming it)."""
    from pathlib import Path
    roots = list(getattr(args, "allow_root", None) or [])
    for root in roots:
        if not Path(root).is_dir():
            raise UserError(f"--allow-root {root}: no such folder")
    return roots


def write_import(report, out: str | None) -> int:
    """The imported project to ``out`` (or standard output), the report to standard error."""
    from ..project import ProjectError, save_project
    from ..project.io import dumps_project
    if out:
        try:
            save_project(report.model, out)
        except (OSError, ProjectError) as exc:
            raise UserError(f"{out}: cannot write: {getattr(exc, 'strerror', None) or exc}") from None
    else:
        sys.stdout.write(dumps_project(report.model))
    sys.stderr.write(report.text())
    return 0


def export_command(args: argparse.Namespace, text_of) -> int:
    """Write the project ``args.project`` as ``text_of(model)`` to ``args.out``; what the export had to
    change (comments at the top of the text) as notes on standard error. A closed chain reaches the
    writer, which writes it (URDF: the spanning tree with mimic joints) or refuses it (MJCF)."""
    model = load_model(args.project)
    try:
        text = text_of(model)
    except DesignerError as exc:
        raise UserError(f"{args.project}: {exc}") from None
    from ..urdf.exporter import export_notes
    for note in export_notes(text):
        sys.stderr.write(f"note: {note}\n")
    write_output(text, args.out)
    return 0


def _export(args: argparse.Namespace) -> int:
    from ..urdf import urdf_text
    return export_command(args, urdf_text)


def chain_options(p: argparse.ArgumentParser, what: str) -> None:
    """The options of every import: the chain (``what``: link, body), the convention, the output."""
    p.add_argument("--base", help=f"the {what} the arm stands on (default: the root)")
    p.add_argument("--tip", help=f"the last {what} of the arm (default: the only end of the tree, or where it "
                                 "branches; for MJCF also a site, a tool flange)")
    p.add_argument("--convention", choices=["standard", "modified"], default="standard")
    p.add_argument("--drop-rest", action="store_true",
                   help="leave out what hangs behind movable joints off the chain (default: lock them at zero "
                        "and lump)")
    p.add_argument("--literal", action="store_true",
                   help="take the file's numbers as written (default: an angle or axis within 1e-5 rad of an exact "
                        "one, as 1.5708 for pi/2, is read as that where the file gives it, and the report says how "
                        "far the file as written lies from it)")
    p.add_argument("--out", help="the project file to write (default: standard output)")
    p.add_argument("--allow-root", action="append", metavar="DIR", default=[],
                   help="a folder outside the file's own that its includes may be read from (repeatable; "
                        "MJCF <include>, xacro includes)")


def urdf_file_options(p: argparse.ArgumentParser) -> None:
    """What reading a URDF or xacro file takes besides the chain: links without inertia (massless or from
    meshes at a density), package folders, xacro arguments."""
    p.add_argument("--massless", action="store_true",
                   help="URDF: import a moving link without <inertial> as massless, with a warning (default: refuse)")
    p.add_argument("--density", type=DENSITY, metavar="KG_M3",
                   help="compute mass, COM and inertia of links without <inertial> from their collision (else visual) "
                        "meshes at this density (aluminium 2700, steel 7850)")
    p.add_argument("--package-path", action="append", metavar="DIR|PKG=DIR", default=[],
                   help="where $(find PKG) and package://PKG/ look: a package folder, a folder of packages, or "
                        "PKG=DIR (repeatable; the file's own tree is searched too)")
    p.add_argument("--xacro-arg", action="append", metavar="NAME:=VALUE", default=[],
                   help="an argument of a .xacro file (repeatable)")


def register(sub) -> None:
    p = sub.add_parser("import-urdf", help="make a project of a serial chain in a URDF file",
                       description="Make a project of the serial chain from --base to --tip of a URDF file "
                                   "(a closed chain where its mimic joints describe a loop, docs/urdf.md). "
                                   "The report (what was lumped, locked, dropped) goes to standard error.")
    p.add_argument("urdf", help="the URDF file, or a .xacro file (run through xacro, in a limited process)")
    chain_options(p, "link")
    urdf_file_options(p)
    p.set_defaults(func=import_urdf_command)

    p = sub.add_parser("export-urdf", help="write a project as a URDF file",
                       description="Write a project as URDF: one link per DH link, the base and tool frames "
                                   "as fixed joints; symbols take their default values. A closed chain: its "
                                   "spanning tree with mimic joints, what is dropped said on standard error.")
    p.add_argument("project")
    p.add_argument("--out", help="the URDF file to write (default: standard output)")
    p.set_defaults(func=_export)
