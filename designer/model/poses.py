"""Rigid transforms of floats from URDF-style roll-pitch-yaw angles, in numpy alone (no sympy): the base and tool
frames of a model (:class:`designer.model.extras.Pose`) and of the window's first look (designer/glance.py)."""

from __future__ import annotations

import numpy as np

__all__ = ["pose_matrix", "rpy_matrix"]


def rpy_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Rz(yaw) Ry(pitch) Rx(roll), the URDF ``rpy`` convention."""
    cr, sr, cp, sp_, cy, sy = np.cos(roll), np.sin(roll), np.cos(pitch), np.sin(pitch), np.cos(yaw), np.sin(yaw)
    return np.array([[cy * cp, cy * sp_ * sr - sy * cr, cy * sp_ * cr + sy * sr],
                     [sy * cp, sy * sp_ * sr + cy * cr, sy * sp_ * cr - cy * sr],
                     [-sp_, cp * sr, cp * cr]])


def pose_matrix(xyz, rpy) -> np.ndarray:
    """The 4x4 homogeneous transform of a translation and roll-pitch-yaw angles (floats)."""
    T = np.eye(4)
    T[:3, :3] = rpy_matrix(*(float(v) for v in rpy))
    T[:3, 3] = [float(v) for v in xyz]
    return T
