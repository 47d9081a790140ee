"""The linearized model of a closed-chain mechanism in its actuated coordinates.

The same state-space model as :func:`designer.control.linearize.linearize` with x = (q_a, qd_a),
M_a, and the derivatives of the projected inverse dynamics tau_a (numeric/closed.py) by central
differences (step 1e-6 rad: the loops are closed again at every shifted state, so the complex step
of the serial arms does not carry through the closure; about 1e-9 relative accuracy).
"""

from __future__ import annotations

import numpy as np

from ..numeric.closed import ClosedDynamics
from .linearize import LinearModel, _vector, state_space

__all__ = ["linearize_closed", "STEP"]

STEP = 1e-6


def linearize_closed(cd: ClosedDynamics, q0, qd0=None, qdd0=None) -> LinearModel:
    """The model at (q0, qd0, qdd0) of the actuated joints; a pose where a loop cannot close is a
    ClosureError."""
    n = cd.n
    q0, qd0, qdd0 = _vector(q0, n, "q"), _vector(qd0, n, "qd"), _vector(qdd0, n, "qdd")
    guess = cd.positions(q0)
    tau0 = cd.tau(q0, qd0, qdd0, guess)
    dq, dqd = np.empty((n, n)), np.empty((n, n))
    for k, e in enumerate(np.eye(n) * STEP):
        dq[:, k] = (cd.tau(q0 + e, qd0, qdd0, guess) - cd.tau(q0 - e, qd0, qdd0, guess)) / (2 * STEP)
        dqd[:, k] = (cd.tau(q0, qd0 + e, qdd0, guess) - cd.tau(q0, qd0 - e, qdd0, guess)) / (2 * STEP)
    return state_space(q0, qd0, qdd0, tau0, dq, dqd, cd.M(q0, guess))
