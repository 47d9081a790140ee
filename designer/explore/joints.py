"""The joints Explore numbers, and the arm its metrics take, for a serial arm or a closed chain.

A serial arm's metrics number every joint; a closed chain's (:class:`~designer.numeric.actuated_arm.ActuatedArm`)
its actuated joints, 1..n_a in order, named by their links as ``eval`` names them (the palletizer's
``q1, q2, q4, q6``). :class:`ExploreJoints` maps between the tree's pose (every joint, as the window's
sliders hold it) and the metrics' pose (the actuated joints), and picks the actuated joints' entries of
per-joint data (drive ratings given for every tree joint).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.manipulator import Manipulator
from ..model.mechanism import actuated_indices
from ..numeric.mechanism import load_dynamics

__all__ = ["ExploreJoints", "explore_joints", "explore_arm"]


@dataclass(frozen=True)
class ExploreJoints:
    """The metrics' joints of a model: ``index[k]`` is the tree joint (0-based) of metric joint k."""

    index: tuple[int, ...]
    names: tuple[str, ...]
    revolute: tuple[bool, ...]
    n_tree: int
    closed: bool   # some joints are passive (a closed chain's, which its loops close)

    @property
    def n(self) -> int:
        return len(self.index)

    @property
    def numbers(self) -> tuple[int, ...]:
        """The joints' names in metric texts and maps (:mod:`designer.explore.joint_names`): 1..n, a
        closed chain's actuated joints by their links."""
        return tuple(i + 1 for i in self.index)

    def name(self, k: int) -> str:
        """The name of metric joint ``k`` (1-based, as the metrics and maps number them)."""
        return self.names[k - 1]

    def pose(self, q_tree) -> np.ndarray:
        """The metrics' pose of a tree pose (every joint); a pose of the metrics' size passes."""
        q = np.asarray(q_tree, float).ravel()
        return q[list(self.index)] if len(q) == self.n_tree else q

    def tree_pose(self, q, q_tree) -> np.ndarray:
        """``q_tree`` (every joint) with the metric joints at ``q``: the passive joints keep their
        values until the loop closure (the window's) moves them."""
        out = np.array(q_tree, float).ravel()
        if len(out) != self.n_tree:
            out = np.zeros(self.n_tree)
        out[list(self.index)] = np.asarray(q, float).ravel()
        return out

    def per_joint(self, values):
        """Per tree joint data (drive ratings) cut to the metric joints; None and data of the metrics'
        size pass unchanged."""
        if values is None:
            return None
        values = np.asarray(values, float)
        return values[list(self.index)] if values.shape[:1] == (self.n_tree,) else values


def explore_joints(model: Manipulator) -> ExploreJoints:
    """Every joint of a serial arm; the actuated ones of a closed chain."""
    index = tuple(int(i) for i in actuated_indices(model))
    return ExploreJoints(index, tuple(f"q{i + 1}" for i in index),
                         tuple(model.links[i].is_revolute for i in index), model.n, len(index) < model.n)


def explore_arm(model: Manipulator, overrides=None):
    """The arm the metrics take: the rigid dynamics' ``arm`` (:func:`~designer.numeric.mechanism.load_dynamics`;
    over the actuated joints, a serial arm's every joint); ClosureError when its loops cannot be assembled
    (kinematics/closure.py: a nominal pose that does not close is assembled), MissingParameterError for a symbol
    without a value."""
    dynamics: Any = load_dynamics(model, overrides, springs=False)   # rigid: a serial or closed engine, both with .arm
    return dynamics.arm
