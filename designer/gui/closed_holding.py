"""The read-out's cut-joint forces of a closed chain (issue 22): what each loop's bearing carries while the
actuated joints hold the slider pose against gravity, the figure a designer sizes a parallelogram's bearings
from (the core's :meth:`~designer.numeric.closed.ClosedDynamics.cut_forces` at rest, as the design report
gives it; the tests hold that to Pinocchio's constraint forces).

The mechanism's dynamics are built once per model (a few ms) and kept; one pose then costs about 1 ms, so
the words follow the sliders on the GUI thread.
"""

from __future__ import annotations

import numpy as np

from ..errors import DesignerError
from ..numeric.closed import closed_dynamics
from .closed_elastic import per_model

__all__ = ["holding_summary"]

#: the model's ClosedDynamics, or the message where it cannot be built (the Problems panel and the 3D view
#: already say why)
_dynamics = per_model(closed_dynamics)


def holding_summary(model, q_tree) -> str:
    """"cut joint holds 3,530 N" (one loop) or "cut joints hold 327, 80.5 N" at the tree pose ``q_tree``; "" where
    the mechanism cannot be built or the pose does not close."""
    cd = _dynamics(model)
    q = np.asarray(q_tree, dtype=float).ravel()
    if isinstance(cd, str) or len(q) != cd.n_tree or not len(cd.tree.loops):
        return ""
    rest = np.zeros(cd.n)
    try:
        force = cd.following(q).cut_forces(q[list(cd.act)], rest, rest).force
    except DesignerError:
        return ""
    sizes = np.linalg.norm(force, axis=1)
    if not np.isfinite(sizes).all():
        return ""
    if len(sizes) == 1:
        return f"cut joint holds {_newtons(sizes[0])} N"
    return "cut joints hold " + ", ".join(_newtons(v) for v in sizes) + " N"


def _newtons(value: float) -> str:
    """3,530 rather than 3.53e+03: a bearing's load read at a glance."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
