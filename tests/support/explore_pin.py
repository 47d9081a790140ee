"""Pinocchio as the independent reference for the exploration tests.

The DH-to-Pinocchio builder is the numeric tests' (tests/support/pin_reference.py);
this module adds what exploration needs: the tool Jacobian and plain M, G, h.
"""

from __future__ import annotations


import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
from tests.support.pin_reference import pin_model, random_arm  # noqa: E402

from designer.model import Convention  # noqa: E402

__all__ = ["pin", "PinArm", "random_arm"]


def _tool_placement(arm) -> pin.SE3:
    a, alpha = arm.dh[-1, 0], arm.dh[-1, 1]
    if arm.convention is not Convention.STANDARD:
        return pin.SE3.Identity()
    c, s = np.cos(alpha), np.sin(alpha)
    return pin.SE3(np.array([[1, 0, 0], [0, c, -s], [0, s, c]]), np.array([a, 0.0, 0.0]))


class PinArm:
    """A Pinocchio model of a NumericArm with a frame at the tool (origin of DH frame n)."""

    def __init__(self, arm):
        self.arm = arm
        self.model = pin_model(arm)
        self.tool = self.model.addFrame(pin.Frame("tool", self.model.njoints - 1, 0, _tool_placement(arm),
                                                  pin.FrameType.OP_FRAME))
        self.data = self.model.createData()

    def M(self, q):
        M = pin.crba(self.model, self.data, np.asarray(q, float))
        return np.triu(M) + np.triu(M, 1).T

    def G(self, q):
        return pin.computeGeneralizedGravity(self.model, self.data, np.asarray(q, float)).copy()

    def h(self, q, qd):
        n = self.arm.n
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        return pin.rnea(self.model, self.data, q, qd, np.zeros(n)) - self.G(q)

    def J(self, q):
        q = np.asarray(q, float)
        pin.computeJointJacobians(self.model, self.data, q)
        pin.updateFramePlacements(self.model, self.data)
        return pin.getFrameJacobian(self.model, self.data, self.tool, pin.LOCAL_WORLD_ALIGNED).copy()

    def tool_position(self, q):
        pin.framesForwardKinematics(self.model, self.data, np.asarray(q, float))
        return self.data.oMf[self.tool].translation.copy()
