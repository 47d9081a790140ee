"""Elastic joints of a closed chain on the command line: ``simulate``, ``linearize`` and ``eval --elastic``.

The elastic joints are the actuated ones (the gearboxes sit at the motors), named by their links like
every closed-chain command (the palletizer's q1, q2, q4, q6; theta4 the crank motor's angle); the link
side is M_a, h_a, G_a with the loops closed at every state (numeric/closed_elastic.py). A passive joint
with a stiffness, a project without any, or a pose where a loop cannot close is one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import DesignerError
from .common import UserError

__all__ = ["ElasticSetup", "closed_elastic_setup", "closed_elastic_linear_model", "closed_eval_elastic"]


@dataclass(frozen=True)
class ElasticSetup:
    """What ``simulate --elastic`` needs of an arm: the serial arm (None for a closed chain), its elastic
    joints, a fresh link side per run (None: the serial arm's), the joints' names (by link), the tool
    points of link states (T, n) -> (T, 3), and the loop residual of a state (None for a serial arm)."""

    arm: Any
    joints: Any
    side: Any
    names: list[str]
    tool_points: Any
    residual: Any = None


def _joints(model, where: str):
    from ..model import MissingParameterError
    from ..numeric.elastic import elastic_joints
    try:
        joints = elastic_joints(model)
    except (DesignerError, MissingParameterError, ValueError) as exc:
        raise UserError(f"{where}: {exc}") from None
    if joints.m == 0:
        raise UserError(f"{where}: no actuated joint has a drive stiffness (drive data 'stiffness', N m/rad)")
    return joints


def closed_elastic_setup(model, where: str) -> ElasticSetup:
    from ..model import MissingParameterError
    from ..explore.closed import ClosedArm
    from ..kinematics.closure import ClosureError
    joints = _joints(model, where)
    try:
        arm = ClosedArm(model)
    except (ClosureError, MissingParameterError, ValueError) as exc:
        raise UserError(f"{where}: {exc}") from None
    names = [f"q{j}" for j in arm.joint_numbers]
    follow = arm.cd.following()   # the rows of a trajectory, one branch
    return ElasticSetup(None, joints, arm.cd.following, names, arm.tool_points, follow.residual)


def closed_elastic_linear_model(model, q, qd, qdd, where: str):
    """(the linear model, its state names) of ``linearize --elastic`` for a closed chain."""
    import numpy as np
    from ..control.linearize import elastic_linearize_closed
    from .closed_commands import _dynamics
    joints = _joints(model, where)
    cd = _dynamics(model, where)
    names = [f"q{j + 1}" for j in cd.act]
    motors = [f"theta{names[i][1:]}" for i in joints.elastic]
    state = names + motors + ["qd" + v[1:] for v in names] + ["thetad" + v[5:] for v in motors]
    try:
        return elastic_linearize_closed(cd, joints, np.asarray(q), np.asarray(qd), np.asarray(qdd)), state
    except DesignerError as exc:
        raise UserError(f"{where}: {exc}") from None


def closed_eval_elastic(args, model, read_states) -> int:
    """``eval --elastic`` of a closed chain: q'' and theta'' (and the springs' torques) of the actuated joints at
    each state, over M_a, h_a, G_a (``read_states(path, n, m)``: elastic_commands' reader)."""
    import numpy as np
    import json
    import sys
    from ..numeric.elastic import ElasticArm
    from .closed_commands import _dynamics
    if args.method != "lagrange":
        raise UserError(f"{args.project}: eval --elastic of a closed chain evaluates its numeric projected dynamics "
                        "(no --method)")
    joints = _joints(model, args.project)
    cd = _dynamics(model, args.project)
    try:
        ea = ElasticArm(None, joints, cd)
    except DesignerError as exc:
        raise UserError(f"{args.project}: {exc}") from None
    states = read_states(args.states, ea.n, ea.m)
    results = []
    for i, s in enumerate(states):
        y = np.concatenate([s["q"], s["theta"], s["qd"], s["thetad"]])
        try:
            qdd, thetadd = ea.accelerations(y, s["tau_m"])
        except DesignerError as exc:
            raise UserError(f"{args.states}: states[{i}]: {exc}") from None
        if not (np.all(np.isfinite(qdd)) and np.all(np.isfinite(thetadd))):
            raise UserError(f"{args.states}: states[{i}]: the accelerations are not finite there (numbers too large?)")
        spring = ea.spring(s["q"], s["theta"], s["qd"], s["thetad"])
        results.append({"qdd": qdd.tolist(), "thetadd": thetadd.tolist(), "spring": spring.tolist()})
    names = [f"q{j + 1}" for j in cd.act]
    json.dump({"method": "closed-chain numeric", "elastic": True, "actuated": names,
               "joints": [int(cd.act[i]) + 1 for i in joints.elastic], "results": results}, sys.stdout)
    sys.stdout.write("\n")
    return 0
