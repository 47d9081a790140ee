"""The model of a mechanism (serial, tree, closed loops): value objects, the safe parser, validation, mass helpers.

The names below load with their module on first use (:mod:`designer.lazy`): importing a sympy-free
module of the package (:mod:`.kinds`) does not import sympy with the parser and the value objects,
which the window's first picture of the arm would wait for (issue 29).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names

if TYPE_CHECKING:
    from .expr import ExpressionError, format_expr, is_valid_name, parse_expr, symbol, to_expr
    from .kinds import Convention, JointType
    from .manipulator import (Drive, Inertia, Link, Manipulator, MissingParameterError, PointMass, Pose,
                              joint_symbols)
    from .mechanism import CutJoint, Loop
    from .validation import Problem, Severity, validate

__all__ = [
    "Convention", "CutJoint", "Drive", "ExpressionError", "Inertia", "JointType", "Link", "Loop", "Manipulator",
    "MissingParameterError", "PointMass", "Pose", "Problem", "Severity", "format_expr", "is_valid_name",
    "joint_symbols", "parse_expr", "symbol", "to_expr", "validate",
]

if not TYPE_CHECKING:   # mypy reads the imports above; a module __getattr__ would make any name pass
    __getattr__, __dir__ = lazy_names(__name__, {
        "expr": ("ExpressionError", "format_expr", "is_valid_name", "parse_expr", "symbol", "to_expr"),
        "kinds": ("Convention", "JointType"),
        "manipulator": ("Drive", "Inertia", "Link", "Manipulator", "MissingParameterError", "PointMass", "Pose",
                        "joint_symbols"),
        "mechanism": ("CutJoint", "Loop"),
        "validation": ("Problem", "Severity", "validate"),
    })
