"""Simulate's passive fall of a closed-chain project (issue 22), through the core's closed-chain
integration (:func:`designer.numeric.closed_simulate.simulate_closed_job`): the actuated joints are
integrated, the passive ones follow the loops, and the result carries the whole tree's pose per
frame (what the 3D view plays back) and the largest loop residual along the way."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..jobs import CancelToken, Job, Progress
from ..model import Manipulator
from ..numeric.motion import MotionResult

__all__ = ["ClosedMotionResult", "closed_passive_job", "DRIVEN_REFUSAL", "STOPS_REFUSAL"]

DRIVEN_REFUSAL = ("A closed chain is simulated let go only (passive fall) in the window yet: "
                  "`python -m designer torques` drives one along a trajectory.")
STOPS_REFUSAL = ("A closed chain falls without end stops in the window yet: choose the limits' other mode "
                 "(the joints that pass their limits are named).")


@dataclass(frozen=True)
class ClosedMotionResult(MotionResult):
    """A :class:`MotionResult` whose ``q`` is the tree's pose (every joint, the passive ones closed)."""

    residual: float = 0.0   # the largest loop residual over the frames (m)


def closed_passive_job(model: Manipulator, q0_tree, duration: float, frames: int,
                       token: CancelToken) -> Job[ClosedMotionResult]:
    """The mechanism released at rest from the actuated values of ``q0_tree`` under gravity alone."""
    from ..numeric.closed import closed_dynamics
    from ..numeric.closed_simulate import simulate_closed_job
    cd = closed_dynamics(model)
    t = np.linspace(0.0, duration, frames)
    q0 = np.asarray(q0_tree, float)[cd.act]
    traj = yield from simulate_closed_job(cd, q0, np.zeros(cd.n), (0.0, duration), t_eval=t, token=token)
    yield Progress("energy", None, f"{len(traj.t)} states")
    return ClosedMotionResult(np.asarray(traj.t), np.asarray(traj.q_tree), traj.kinetic + traj.potential,
                              kind="passive fall (closed chain)",
                              residual=float(np.max(traj.residual, initial=0.0)))
