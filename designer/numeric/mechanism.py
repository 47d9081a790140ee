"""The numeric dynamics of any model: callers never choose the engine.

A serial arm gets its generated recursive engine (:class:`~designer.numeric.engine.ArmDynamics`, one per
arm object); a closed chain its dynamics in the actuated coordinates
(:class:`~designer.numeric.closed.ClosedDynamics`). Both answer :class:`~designer.numeric.protocol.Dynamics`,
the closed chain's extras included (a serial arm answers them as the mechanism without loops).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..kinematics import NumericArm
from ..model.manipulator import Manipulator
from .protocol import Dynamics

__all__ = ["load_dynamics"]


def load_dynamics(model: Manipulator, overrides: Mapping[str, float] | None = None) -> Dynamics:
    """The :class:`Dynamics` of ``model`` at its parameter values (``overrides`` for some of them);
    MissingParameterError for a symbol without a value, ClosureError for loops that cannot close at the
    nominal pose."""
    if model.is_serial:
        from .engine import arm_dynamics
        return arm_dynamics(NumericArm.from_model(model, overrides))
    from .closed import ClosedDynamics
    return ClosedDynamics(model, overrides)
