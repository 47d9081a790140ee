"""The model's two enums, what moves at a joint and the DH convention, in a module without sympy.

The window draws a project's arm from its numbers before sympy is imported (issue 29): the numeric
kinematics and the 3D view need these enums and nothing else of the model. :mod:`.manipulator` and
:mod:`designer.model` re-export them (the same objects).
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Convention", "JointType"]


class JointType(str, Enum):
    """What moves at a joint."""

    REVOLUTE = "R"
    PRISMATIC = "P"


class Convention(str, Enum):
    """Denavit-Hartenberg convention (see docs/project-format.md)."""

    STANDARD = "standard"
    MODIFIED = "modified"
