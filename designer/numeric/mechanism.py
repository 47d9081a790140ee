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

from ..kinematics import NumericArm
from ..model.manipulator import Manipulator
from .protocol import Dynamics

__all__ = ["load_dynamics", "has_springs"]


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
