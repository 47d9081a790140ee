"""Kinematics: pure functions from a model to transforms, frames and Jacobians.

The names below load with their module on first use (:mod:`designer.lazy`): :mod:`.numeric`, the
numeric arm the 3D view draws, imports without sympy; :mod:`.symbolic` with it (issue 29).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names

if TYPE_CHECKING:
    from .numeric import NumericArm, dh_frames, dh_matrices, dh_transform, display_arm
    from .symbolic import (JointAxis, com_jacobians, com_positions, frames, joint_axes, link_transform,
                           point_jacobian, tool_jacobian)

__all__ = ["JointAxis", "NumericArm", "com_jacobians", "com_positions", "dh_frames", "dh_matrices", "dh_transform",
           "display_arm", "frames", "joint_axes", "link_transform", "point_jacobian", "tool_jacobian"]

if not TYPE_CHECKING:   # mypy reads the imports above; a module __getattr__ would make any name pass
    __getattr__, __dir__ = lazy_names(__name__, {
        "numeric": ("NumericArm", "dh_frames", "dh_matrices", "dh_transform", "display_arm"),
        "symbolic": ("JointAxis", "com_jacobians", "com_positions", "frames", "joint_axes", "link_transform",
                     "point_jacobian", "tool_jacobian"),
    })
