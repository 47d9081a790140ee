"""``python -m designer gui [PROJECT]``: open the window, as ``python main.py`` does."""

from __future__ import annotations

import argparse


def register(sub) -> None:
    p = sub.add_parser("gui", help="open the desktop window (on PROJECT, or on the PUMA 560 example)")
    p.add_argument("project", nargs="?", help="a project file (.json) to open")
    p.set_defaults(func=cmd_gui)


def cmd_gui(args: argparse.Namespace) -> int:
    from ..launch import main  # imports Qt only after checking that it can load

    return main([args.project] if args.project else [])
