"""The model of a mechanism (serial, tree, closed loops): value objects, the safe parser, validation, mass helpers."""

from .expr import ExpressionError, format_expr, is_valid_name, parse_expr, symbol, to_expr
from .manipulator import (
    Convention,
    Drive,
    Inertia,
    JointType,
    Link,
    Manipulator,
    MissingParameterError,
    PointMass,
    Pose,
    joint_symbols,
)
from .mechanism import CutJoint, Loop
from .validation import Problem, Severity, validate

__all__ = [
    "Convention", "CutJoint", "Drive", "ExpressionError", "Inertia", "JointType", "Link", "Loop", "Manipulator",
    "MissingParameterError", "PointMass", "Pose", "Problem", "Severity", "format_expr", "is_valid_name",
    "joint_symbols", "parse_expr", "symbol", "to_expr", "validate",
]
