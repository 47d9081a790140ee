"""The numeric dynamics of any model: callers never choose the engine.

A serial arm gets its generated recursive engine (:class:`~designer.numeric.engine.ArmDynamics`, one per
arm object); a closed chain its dynamics in the actuated coordinates
(:class:`~designer.numeric.closed.ClosedDynamics`). Both answer :class:`~designer.numeric.protocol.Dynamics`,
the closed chain's extras included (a serial arm answers them as the mechanism without loops). A model whose
drive data give joints a stiffness gets Spong's elastic-joint model over that link side,
(:class:`~designer.numeric.elastic.ElasticDynamics`, n + m coordinates: the links', then the elastic joints'
motor angles); a rigid joint is the case without a spring, so a model without springs gets its link side.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..kinematics import NumericArm
from ..model.manipulator import Manipulator
from .protocol import Dynamics

if TYPE_CHECKING:
    from .end_stops import EndStops

__all__ = ["load_dynamics", "has_springs", "with_drive_torques", "with_drive_parts", "mechanism_end_stops",
           "forward_kinematics"]


def load_dynamics(model: Manipulator, overrides: Mapping[str, float] | None = None, springs: bool = True) -> Dynamics:
    """The :class:`Dynamics` of ``model`` at its parameter values (``overrides`` for some of them);
    MissingParameterError for a symbol without a value, ClosureError for loops that cannot close at the
    nominal pose. With ``springs`` (the default) and drive data giving some joint a stiffness: the elastic-joint
    model (ElasticModelError names a joint whose drive data cannot make one); without: the rigid link side."""
    link: Dynamics
    if model.is_serial:
        from .engine import arm_dynamics
        link = arm_dynamics(NumericArm.from_model(model, overrides))
    else:
        from .closed import ClosedDynamics
        link = ClosedDynamics(model, overrides)
    if not springs or not has_springs(model):
        return link
    from .elastic import ElasticDynamics, elastic_joints
    return ElasticDynamics(link, elastic_joints(model))


def has_springs(model: Manipulator) -> bool:
    """Whether the model's drive data give some joint a stiffness (the elastic-joint model applies)."""
    return any(link.drive is not None and link.drive.stiffness is not None for link in model.links)



def with_drive_torques(dyn: Dynamics, model: Manipulator, tau, q, qd, qdd):
    """``tau`` (N, n), the rigid ``dyn``'s torques over a run's rows, with what the project's drive data add: the
    reflected rotor inertia N^2 Jm qdd and the friction b qd + fc sign(qd) of every tree joint, in ``dyn``'s
    coordinates (a closed chain's through its loops, W^T (...), row by row on ``dyn``'s branch)."""
    import numpy as np
    from ..model.drives import drive_arrays, friction_torque
    from .closed import ClosedDynamics
    if isinstance(dyn, ClosedDynamics):
        return tau + np.array([dyn.drive_terms(*row)[1] for row in zip(q, qd, qdd)]).reshape(np.shape(tau))
    return tau + drive_arrays(model)[0] * qdd + friction_torque(model, qd)


def with_drive_parts(dyn: Dynamics, model: Manipulator, parts: dict, q, qd, qdd) -> dict:
    """One state's {tau, M, G, h} of the rigid ``dyn`` (its coordinates) with the project's drive data added as
    for a serial arm: N^2 Jm on M's diagonal and N^2 Jm qdd + friction in tau, h Coriolis and centrifugal (a
    closed chain's: W^T (...), and a passive rotor's W' qd in h), and the friction itself as ``friction``
    (tau = M qdd + h + G + friction)."""
    from ..model.drives import friction_torque, with_drives
    from .closed import ClosedDynamics
    if isinstance(dyn, ClosedDynamics):
        d = dyn.drive_parts(q, qd, qdd)
        return {**parts, "M": parts["M"] + d["M"], "tau": parts["tau"] + d["tau"],
                "h": parts["h"] + d["h"] - d["friction"], "friction": d["friction"]}
    M, tau = with_drives(model, parts["M"], parts["tau"], qd, qdd)
    return {**parts, "M": M, "tau": tau, "friction": friction_torque(model, qd)}


def mechanism_end_stops(dyn, q0) -> EndStops:
    """End stops at the tree joints' limits of any mechanism's rigid Dynamics, started at its coordinates ``q0``:
    a serial arm's tuned on M_ii (:func:`end_stops_for`), a closed chain's on the inertia each tree joint shows
    (:func:`~designer.numeric.closed_drive.closed_end_stops_for`); a ValueError names a joint starting past its
    limit."""
    from .closed import ClosedDynamics
    from .end_stops import end_stops_for, tree_arm
    if isinstance(dyn, ClosedDynamics):
        from .closed_drive import closed_end_stops_for
        return closed_end_stops_for(dyn, q0)
    return end_stops_for(tree_arm(dyn), q0)


def forward_kinematics(model: Manipulator, q) -> dict:
    """The forward kinematics of any mechanism at its coordinates ``q`` (a closed chain's actuated joints) as
    ``fk`` prints them: every link frame (the base first), the joints' origins and axes, the tool point and pose
    in the world; a closed chain's also its passive joints' values, the tool's link (:mod:`.actuated_arm`: the
    deepest leaf) and the loops' residual. MissingParameterError, ClosureError where the loops cannot close."""
    import numpy as np
    if model.is_serial:   # the arm's own chain of frames
        arm = NumericArm.from_model(model)
        T = arm.frames(q)
        origins, axes = arm.joint_axes(q, T)
        return {"q": list(q), "frames": [np.round(t, 12).tolist() for t in T], "joint_origins": origins.tolist(),
                "joint_axes": axes.tolist(),
                "tool_position": arm.tool_in_base(q, T)[:3, 3].tolist(),   # the tool point, frame 0
                "tool_pose": np.round(arm.tool_pose(q), 12).tolist()}      # the tool frame in the world (base)
    rigid: Any = load_dynamics(model, springs=False)   # a closed chain's engine, its .arm the actuated joints'
    arm = rigid.arm
    q_tree = arm.cd.positions(q)
    tree = arm.cd.tree
    T = tree.frames(q_tree)
    origins, axes = tree.joint_axes(T)
    tool = T[arm.tool_link + 1] @ arm.tool
    return {"q": {f"q{k + 1}": float(q_tree[k]) for k in tree.actuated},
            "passive": {f"q{k + 1}": float(q_tree[k]) for k in tree.passive},
            "frames": [np.round(t, 12).tolist() for t in T], "joint_origins": origins.tolist(),
            "joint_axes": axes.tolist(), "tool_link": arm.tool_link + 1, "tool_position": tool[:3, 3].tolist(),
            "tool_pose": np.round(tree.arm.base @ tool, 12).tolist(), "loop_residual": float(arm.cd.residual(q))}
