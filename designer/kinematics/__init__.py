"""Kinematics: pure functions from a model to transforms, frames and Jacobians."""

from .numeric import NumericArm, dh_frames, dh_matrices, dh_transform, display_arm
from .symbolic import (JointAxis, com_jacobians, com_positions, frames, joint_axes, link_transform,
                       point_jacobian, tool_jacobian)

__all__ = ["JointAxis", "NumericArm", "com_jacobians", "com_positions", "dh_frames", "dh_matrices", "dh_transform",
           "display_arm", "frames", "joint_axes", "link_transform", "point_jacobian", "tool_jacobian"]
