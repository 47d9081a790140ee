"""A mechanism's arm in its actuated coordinates: what the explore metrics take of any dynamics.

Every :class:`~designer.numeric.protocol.Dynamics` gives ``.arm``, the arm the metrics read (its joints, their
limits, the total mass, a payload, the links' bending, the tool) and whose ``batch`` the metrics evaluate. A
serial engine's is its :class:`~designer.kinematics.NumericArm` (the mechanism without loops); a closed
chain's (:class:`~designer.numeric.closed.ClosedDynamics`) is :class:`ActuatedArm`, over its actuated joints,
whose batch (:class:`~designer.numeric.closed_batch.ClosedBatch`) has the serial batch's names, so that every
metric and the A/B comparison take either without asking which.
"""

from __future__ import annotations

from dataclasses import replace
import numpy as np

from ..kinematics.closure import ClosureError
from ..model.manipulator import PointMass
from .closed_batch import ClosedBatch

__all__ = ["ActuatedArm"]


class ActuatedArm:
    """A closed chain's dynamics ``cd`` in the metrics' terms; ``n`` is the number of actuated joints."""

    def __init__(self, cd):   # a ClosedDynamics (not imported: closed.py makes its arm here)
        self.cd = cd
        self.model, self.overrides = cd.model_, cd.overrides
        tree = self.cd.tree
        self.n = self.cd.n
        self.revolute = tree.arm.revolute[self.cd.act]
        self.limits = tree.arm.limits[self.cd.act]
        #: the actuated joints' link numbers (1-based), how eval and explore name them (explore/joint_names.py)
        self.joint_numbers = tuple(int(i) + 1 for i in self.cd.act)
        self.tool_link = tree.tool_link
        self.tool = tree.arm.tool
        self.gravity = tree.arm.gravity
        #: the part-made links as beams; their bending through the loops: :meth:`flex` (numeric/closed_flex.py)
        self.beams = tree.arm.beams
        self._flex: dict = {}

    def with_load(self, mass: float, position) -> ActuatedArm:
        """This mechanism with a point mass (kg) at ``position`` (m) in the tool link's frame (a payload)."""
        x, y, z = (float(v) for v in position)
        load = PointMass(self.tool_link + 1, mass, (x, y, z))
        return type(self.cd)(replace(self.model, point_masses=self.model.point_masses + (load,)), self.overrides).arm

    def flex(self, stiffness, segments: int):
        """The virtual-joint model of this mechanism (:class:`~designer.numeric.closed_flex.ClosedFlex`) with the
        actuated joints' gearboxes ``stiffness`` (n,; None or inf: locked) and ``segments`` slices per beam; kept
        per (stiffness, segments), as maps and sweeps ask for it block after block."""
        from .closed_flex import closed_flex
        key = (None if stiffness is None else tuple(np.asarray(stiffness, float).tolist()), int(segments))
        model = self._flex.get(key)
        if model is None:   # worker threads share an arm: each get, clear and set is one step under the GIL
            k = np.full(self.cd.n_tree, np.inf)
            if stiffness is not None:
                k[self.cd.act] = np.asarray(stiffness, float)
            model = closed_flex(self.cd, k, segments)
            if len(self._flex) >= 4:   # a map asks for two or three (the gearboxes with the links, the links alone)
                self._flex.clear()
            self._flex[key] = model
        return model

    def total_mass(self) -> float:
        return self.cd.tree.arm.total_mass()

    # -- one pose, as NumericArm has them (the ISO 9283 cube's inverse kinematics, fk) ---------
    def tool_in_base(self, q) -> np.ndarray:
        """(4, 4) the tool frame in frame 0 at actuated values q, the loops closed on the nominal pose's branch
        (no state kept: worker threads share an arm); NaN where a loop cannot close (so that an
        inverse-kinematics step there is refused as one that does not lower the error)."""
        try:
            T = self.cd.tree.frames(self.cd.positions(q))
        except ClosureError:
            return np.full((4, 4), np.nan)
        return T[self.tool_link + 1] @ self.tool

    def tool_jacobian(self, q) -> np.ndarray:
        """(6, n) [v; w] of the tool point in the actuated rates at q (NaN where a loop cannot close)."""
        return self.batch([q]).tool_jacobian[0]

    def tool_points(self, Q) -> np.ndarray:
        """(N, 3) the tool point in frame 0 at actuated states Q (N, n); NaN where a loop cannot close."""
        out = np.full((len(Q), 3), np.nan)
        follow = self.cd.following()
        for k, qa in enumerate(np.asarray(Q, float)):
            try:
                q = follow.positions(qa)
            except ClosureError:
                follow.last = None
                continue
            out[k] = (self.cd.tree.frames(q)[self.tool_link + 1] @ self.tool)[:3, 3]
        return out

    def batch(self, q) -> ClosedBatch:
        return ClosedBatch(self.cd, np.atleast_2d(np.asarray(q, float)), self)

