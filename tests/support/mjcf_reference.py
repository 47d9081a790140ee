"""MuJoCo as the reference for the MJCF tests: its compiled model of a file, restricted to a chain
(every other hinge and slide at zero, dropped bodies without mass), against our numeric dynamics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.mjcf.importer import _mass_and_bias
from designer.numeric.recursive import mass_matrix, rnea

mujoco = pytest.importorskip("mujoco")


class MujocoChain:
    def __init__(self, path: Path | str, joints: list[str], dropped: list[str] = ()):
        self.model = mujoco.MjModel.from_xml_path(str(path))
        for name in dropped:
            b = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, name)
            if b >= 0:
                self.model.body_mass[b], self.model.body_inertia[b] = 0.0, 0.0
        self.data = mujoco.MjData(self.model)
        self.dropped = bool(dropped)
        ids = [mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in joints]
        assert min(ids) >= 0
        self.qadr = [int(self.model.jnt_qposadr[j]) for j in ids]
        self.dofs = [int(self.model.jnt_dofadr[j]) for j in ids]
        self.q0 = self.model.qpos0.copy()
        for j in range(self.model.njnt):
            if self.model.jnt_type[j] in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
                self.q0[self.model.jnt_qposadr[j]] = 0.0

    def forward(self, q, qd) -> None:
        self.data.qpos[:], self.data.qvel[:] = self.q0, 0.0
        self.data.qpos[self.qadr], self.data.qvel[self.dofs] = q, qd
        if self.dropped:   # mj_forward would factorise M, singular for the dofs of massless bodies: warnings
            _mass_and_bias(self.model, self.data)
        else:
            mujoco.mj_forward(self.model, self.data)

    def M(self) -> np.ndarray:
        full = np.zeros((self.model.nv, self.model.nv))
        mujoco.mj_fullM(self.model, self.data, full)
        return full[np.ix_(self.dofs, self.dofs)]

    def armature(self) -> np.ndarray:
        return self.model.dof_armature[self.dofs]

    def bias(self) -> np.ndarray:
        return self.data.qfrc_bias[self.dofs].copy()

    def pose(self, name: str) -> np.ndarray:
        """The world pose of the body, else the site, called ``name``."""
        b = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, name)
        T = np.eye(4)
        if b >= 0:
            T[:3, :3], T[:3, 3] = self.data.xmat[b].reshape(3, 3), self.data.xpos[b]
        else:
            s = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_SITE, name)
            assert s >= 0, name
            T[:3, :3], T[:3, 3] = self.data.site_xmat[s].reshape(3, 3), self.data.site_xpos[s]
        return T


def rel_err(ours, ref) -> float:
    return float(np.abs(np.asarray(ours) - ref).max() / max(1e-12, np.abs(ref).max()))


def compare_with_mujoco(model, ref: MujocoChain, tip: str | None, states: int = 30, seed: int = 0):
    """(largest relative error of M with the drives' N^2 Jm and of the bias forces, largest tool-pose
    error) over random states; the reflected inertia comes from the imported drive data."""
    arm = NumericArm.from_model(model)
    reflected = np.array([l.drive.reflected_inertia if l.drive else 0.0 for l in model.links])
    rng = np.random.default_rng(seed)
    worst, pose = 0.0, 0.0
    for _ in range(states):
        q, qd = rng.uniform(-np.pi, np.pi, arm.n), rng.normal(size=arm.n)
        q[~arm.revolute] = rng.uniform(-0.1, 0.1, int((~arm.revolute).sum()))
        ref.forward(q, qd)
        worst = max(worst, rel_err(mass_matrix(arm, q) + np.diag(reflected), ref.M()),
                    rel_err(rnea(arm, q, qd, np.zeros(arm.n)), ref.bias()))
        if tip is not None:
            pose = max(pose, float(np.abs(arm.tool_pose(q) - ref.pose(tip)).max()))
    return worst, pose
