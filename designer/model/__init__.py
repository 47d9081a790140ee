"""The model of a serial arm: value objects, the safe expression parser, validation, mass helpers."""

from .expr import ExpressionError, format_expr, is_valid_name, parse_expr, symbol, to_expr
from .manipulator import (
    Convention,
    Inertia,
    JointType,
    Link,
    Manipulator,
    MissingParameterError,
    PointMass,
    joint_symbols,
)
from .validation import Problem, Severity, validate

__all__ = [
    "Convention", "ExpressionError", "Inertia", "JointType", "Link", "Manipulator",
    "MissingParameterError", "PointMass", "Problem", "Severity", "format_expr", "is_valid_name",
    "joint_symbols", "parse_expr", "symbol", "to_expr", "validate",
]
