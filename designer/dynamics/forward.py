"""Former home of forward dynamics and simulation, kept so that old imports keep working.

They live in the numeric layer now: :mod:`designer.numeric.forward` and
:mod:`designer.numeric.simulate`. Nothing in ``designer`` imports this module
(``designer.dynamics`` does not load it), so the symbolic package does not
depend on the numeric one; new code imports from ``designer.numeric``.
"""

from ..numeric.forward import MAX_CONDITION, SingularConfigurationError, forward_dynamics
from ..numeric.simulate import SimulationError, Trajectory, energy, simulate, simulate_job

__all__ = ["SingularConfigurationError", "SimulationError", "Trajectory", "forward_dynamics", "simulate",
           "simulate_job", "energy", "MAX_CONDITION"]
