"""A closed chain's elastic joints in the window (issue 22): the read-out's frequency and sag, the modes the
mode dialog lists and animates, and the compliance ellipsoid, all from the core's
:mod:`designer.explore.closed_elastic` (the same functions ``modes`` calls) at the slider pose's actuated values.

The elastic joints of a closed chain are its actuated ones (the motors' gearboxes), named by their links
(the palletizer's q1, q2, q4, q6). The mechanism and its joints are built once per model (about 13 ms for the
palletizer) and kept; one pose then costs about 0.4 ms, so the read-out follows the sliders on the GUI thread.
"""

from __future__ import annotations

import numpy as np

from ..errors import DesignerError
from ..explore.closed_elastic import ClosedElastic, closed_elastic, closed_elastic_at
from ..numeric.elastic import ElasticJoints

__all__ = ["closed_joints", "closed_at", "closed_problem", "closed_summary", "elastic_lines", "per_model",
           "NO_STIFFNESS"]

NO_STIFFNESS = "no elastic joints: give a drive's stiffness (Edit the drive data) to see the modes"

def per_model(build):
    """``build(model)`` of the last model asked for, kept (one model at a time: the read-out asks at every slider
    step); where the mechanism cannot be built, the message of what it raised (a str)."""
    last: list = [None, None]

    def get(model):
        if last[0] is not model:
            try:
                value = build(model)
            except (DesignerError, ValueError, TypeError, ZeroDivisionError) as exc:
                value = str(exc)
            last[0], last[1] = model, value
        return last[1]
    return get


#: (ClosedArm, ElasticJoints) of a model, or the message
_built = per_model(closed_elastic)


def closed_joints(model) -> ElasticJoints | None:
    """The closed chain's elastic joints (over its actuated joints), None when none has a stiffness or the
    mechanism cannot be built."""
    built = _built(model)
    return None if isinstance(built, str) or not built[1].m else built[1]


def closed_problem(model) -> str:
    """Why the closed chain's elastic joints cannot be built ('' when they can, or none has a stiffness)."""
    built = _built(model)
    return built if isinstance(built, str) else ""


def closed_at(model, q_tree) -> ClosedElastic | str:
    """The elastic quantities at the tree pose ``q_tree``'s actuated values, or a one-line message (no stiffness,
    a passive joint given one, a pose where the loops cannot close)."""
    built = _built(model)
    if isinstance(built, str):
        return built
    arm, joints = built
    if not joints.m:
        return NO_STIFFNESS
    q = np.asarray(q_tree, dtype=float).ravel()
    if len(q) != len(arm.cd.act) + len(arm.cd.pas):
        return f"{len(q)} joint values for a mechanism of {len(arm.cd.act) + len(arm.cd.pas)} joints"
    try:
        return closed_elastic_at(arm, joints, q[arm.cd.act])
    except DesignerError as exc:
        return str(exc)


def elastic_lines(low: float, droop_mm: float, rigid: float | None = None) -> str:
    """The read-out's two elastic lines (each short enough for the centre column at 1366 px; the read-out's
    tooltip says the motors are locked): the lowest natural frequency, then the sag (and, with links that bend,
    the frequency with rigid links)."""
    second = f"tool sag {droop_mm:.3g} mm"
    if rigid is not None:
        second = f"{rigid:.3g} Hz with rigid links; {second}"
    return f"lowest natural frequency {low:.3g} Hz\n{second}"


def closed_summary(model, q_tree) -> str:
    """The read-out's words: the lowest natural frequency and the tool's sag at the pose (the actuated joints'
    gearboxes; the links rigid), two lines, or why not, in one."""
    at = closed_at(model, q_tree)
    if isinstance(at, str):
        return f"elastic joints: {at}\n"
    f = at.locked(shapes=False).frequency
    low = f[0] if len(f) and np.isfinite(f[0]) else float("nan")
    return elastic_lines(low, 1e3 * float(np.linalg.norm(at.sag())))
