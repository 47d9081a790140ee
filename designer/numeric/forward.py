"""Forward dynamics (ROBMAT 4.4): q'' = M(q)^-1 (tau - h(q, q') - G(q)).

Solved with M, never by inverting it: by default with the generated recursive
code of :class:`~designer.numeric.engine.ArmDynamics` (composite rigid bodies
for M, Newton-Euler for h + G, an LDL^T solve), or over compiled symbolic
equations through :class:`~designer.numeric.adapter.CompiledAdapter`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..kinematics import NumericArm
from ..model.manipulator import Manipulator
from .engine import arm_dynamics
from .adapter import CompiledAdapter
from .protocol import MAX_CONDITION, Dynamics, SingularConfigurationError

__all__ = ["SingularConfigurationError", "MAX_CONDITION", "System", "dynamics_of", "forward_dynamics"]

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


def forward_dynamics(system: System, q, qd, tau=None) -> np.ndarray:
    """Joint accelerations q'' under joint torques ``tau`` (zero when None), over states (..., n).

    Raises
    ------
    SingularConfigurationError
        When M(q) is singular or its condition number exceeds :data:`MAX_CONDITION`.
    ValueError
        When an array does not have n values per state.
    """
    dyn = dynamics_of(system)
    if tau is None:
        tau = np.zeros(np.shape(q)[:-1] + (dyn.n,)) if np.ndim(q) else np.zeros(dyn.n)
    return dyn.qdd(q, qd, tau)
