"""What a simulation takes (:data:`System`) as the :class:`~designer.numeric.protocol.Dynamics` that answers
forward dynamics (ROBMAT 4.4), ``qdd(q, qd, tau)`` = M(q)^-1 (tau - h(q, q') - G(q)).

Solved with M, never by inverting it: by default with the generated recursive
code of :class:`~designer.numeric.engine.ArmDynamics` (composite rigid bodies
for M, Newton-Euler for h + G, an LDL^T solve), or over compiled symbolic
equations through :class:`~designer.numeric.adapter.CompiledAdapter`.
"""

from __future__ import annotations

from typing import Any


from ..kinematics import NumericArm
from ..model.manipulator import Manipulator
from .engine import arm_dynamics
from .adapter import CompiledAdapter
from .protocol import MAX_CONDITION, Dynamics, SingularConfigurationError

__all__ = ["SingularConfigurationError", "MAX_CONDITION", "System", "dynamics_of"]

#: an arm (model or numbers), compiled symbolic equations, or anything implementing Dynamics
System = NumericArm | Manipulator | Dynamics | Any


def dynamics_of(system: System) -> Dynamics:
    """The :class:`Dynamics` of a NumericArm, a Manipulator (at its parameter values), compiled
    equations (anything with ``M_many``) or of a Dynamics itself."""
    if isinstance(system, Manipulator):
        system = NumericArm.from_model(system)
    if isinstance(system, NumericArm):
        return arm_dynamics(system)
    if hasattr(system, "M_many"):
        return CompiledAdapter(system)
    if isinstance(system, Dynamics):
        return system
    raise TypeError(f"expected a NumericArm, Manipulator, compiled equations or Dynamics, "
                    f"not {type(system).__name__}")


