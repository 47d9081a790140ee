"""The numeric layer: one arm's dynamics at numbers, for one state or arrays of states.

- :mod:`~designer.numeric.model`: the arm's constants (:class:`ArmModel`), apart from per-state values
- :mod:`~designer.numeric.algorithms`: RNEA, CRBA, LDL^T, energy, written once over any scalar
- :mod:`~designer.numeric.engine`: :class:`ArmDynamics`, those algorithms generated as flat code
- :mod:`~designer.numeric.batch`: the batch engine (Jacobians, Christoffel symbols, Lee's split)
- :mod:`~designer.numeric.protocol`: :class:`Dynamics`, the calls every engine answers (a closed chain's
  extras included); :mod:`~designer.numeric.mechanism`: ``load_dynamics(model)``, the engine of any model;
  :mod:`~designer.numeric.closed`: a closed chain's engine in its actuated coordinates;
  :mod:`~designer.numeric.adapter`: :class:`CompiledAdapter`, compiled symbolic equations behind them
- :mod:`~designer.numeric.forward`, :mod:`~designer.numeric.simulate`: forward dynamics, the one simulation of
  every mechanism (serial, closed, elastic)
- :mod:`~designer.numeric.elastic` (:class:`ElasticDynamics`: Spong's model as a mechanism),
  :mod:`~designer.numeric.modes`, :mod:`~designer.numeric.stiffness`: elastic joints (model, natural
  frequencies, tool compliance)
- :mod:`~designer.numeric.recursive`: single-state conveniences; :mod:`~designer.numeric.compiled`:
  compiled symbolic equations

M is computed three ways, and each stays for what only it gives: the engine's CRBA (traced flat
code, the fastest for any number of states; simulation and ``eval``), the batch engine's sum over
the COM Jacobians (it yields Lee's D_tra/D_rot split, the Jacobians and dM/dq that the explore
metrics read in the same pass), and compiled equations (the numbers of a derivation's own
expressions, to check what a report prints). The tests compare each with Pinocchio.
"""

from .engine import ArmDynamics, arm_dynamics
from .model import ArmModel, arm_model
from .adapter import CompiledAdapter
from .protocol import MAX_CONDITION, Dynamics, SingularConfigurationError
from .recursive import (bias, christoffel, coriolis_coefficients, coriolis_matrix, gravity_torque,
                        lumped_bodies, mass_matrix, rnea)

__all__ = ["ArmDynamics", "ArmModel", "CompiledAdapter", "Dynamics", "MAX_CONDITION", "SingularConfigurationError",
           "arm_dynamics", "arm_model", "bias", "christoffel", "coriolis_coefficients", "coriolis_matrix",
           "gravity_torque", "lumped_bodies", "mass_matrix", "rnea"]
