"""Shared helpers of the URDF tests: Pinocchio on the original file as the reference, our numeric
dynamics on the imported model, the example-robot-data folder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.numeric.recursive import gravity_torque, mass_matrix, rnea

pin = pytest.importorskip("pinocchio")


def erd_folder() -> Path:
    """The robots/ folder of the example-robot-data package (skips when it is not installed)."""
    from importlib import metadata
    try:
        dist = metadata.distribution("example-robot-data")
    except metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    folder = Path(str(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")))
    if not folder.is_dir():
        pytest.skip(f"example-robot-data: no folder {folder}")
    return folder


def shipped_xacro(path: Path, args: dict, folder: Path) -> str:
    """The URDF the ``xacro`` package makes of ``path`` as its authors ship it, ``$(find NAME)`` giving
    the folders of ``folder`` that hold a package.xml (tests/support/xacro_reference.py, a child process)."""
    import json
    import subprocess
    import sys
    packages = {p.parent.name: str(p.parent) for p in Path(folder).glob("*/package.xml")}
    script = Path(__file__).parent / "xacro_reference.py"
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                         input=json.dumps({"file": str(path), "args": args, "packages": packages}))
    assert run.returncode == 0, run.stderr
    return run.stdout


def erd(relative: str) -> Path:
    return erd_folder() / relative


class PinChain:
    """Pinocchio's model of a URDF with every joint off ``joints`` locked at zero."""

    def __init__(self, path: Path, joints: list[str]):
        full = pin.buildModelFromUrdf(str(path))
        lock = [full.getJointId(name) for name in full.names[1:] if name not in joints]
        self.model = pin.buildReducedModel(full, lock, pin.neutral(full)) if lock else full
        self.data = self.model.createData()
        self.ids = [self.model.getJointId(name) for name in joints]
        assert all(i < self.model.njoints for i in self.ids), "a chain joint is missing in Pinocchio's model"

    def _q(self, q) -> np.ndarray:
        out = pin.neutral(self.model)
        for i, value in zip(self.ids, q):
            joint = self.model.joints[i]
            if joint.nq == 2:  # continuous: (cos, sin)
                out[joint.idx_q:joint.idx_q + 2] = np.cos(value), np.sin(value)
            else:
                out[joint.idx_q] = value
        return out

    def _v(self, v) -> np.ndarray:
        out = np.zeros(self.model.nv)
        for i, value in zip(self.ids, v):
            out[self.model.joints[i].idx_v] = value
        return out

    def _pick(self, vec) -> np.ndarray:
        return np.array([vec[self.model.joints[i].idx_v] for i in self.ids])

    def M(self, q) -> np.ndarray:
        M = pin.crba(self.model, self.data, self._q(q))
        M = np.triu(M) + np.triu(M, 1).T
        idx = [self.model.joints[i].idx_v for i in self.ids]
        return M[np.ix_(idx, idx)]

    def G(self, q) -> np.ndarray:
        return self._pick(pin.computeGeneralizedGravity(self.model, self.data, self._q(q)))

    def tau(self, q, qd, qdd) -> np.ndarray:
        return self._pick(pin.rnea(self.model, self.data, self._q(q), self._v(qd), self._v(qdd)))

    def frame(self, name: str, q) -> np.ndarray:
        pin.framesForwardKinematics(self.model, self.data, self._q(q))
        return self.data.oMf[self.model.getFrameId(name)].homogeneous


def rel_err(ours: np.ndarray, ref: np.ndarray) -> float:
    return float(np.abs(ours - ref).max() / max(1.0, np.abs(ref).max()))


def compare_with_pinocchio(arm: NumericArm, pin_chain: PinChain, tip: str | None, states: int = 100,
                           seed: int = 0) -> tuple[float, float]:
    """(largest relative error of M, G, tau; largest tool-pose error) over random states."""
    rng = np.random.default_rng(seed)
    worst, worst_pose = 0.0, 0.0
    for _ in range(states):
        q, qd, qdd = rng.uniform(-np.pi, np.pi, arm.n), rng.normal(size=arm.n), rng.normal(size=arm.n)
        worst = max(worst, rel_err(mass_matrix(arm, q), pin_chain.M(q)),
                    rel_err(gravity_torque(arm, q), pin_chain.G(q)),
                    rel_err(rnea(arm, q, qd, qdd), pin_chain.tau(q, qd, qdd)))
        if tip is not None:
            worst_pose = max(worst_pose, float(np.abs(arm.tool_pose(q) - pin_chain.frame(tip, q)).max()))
    return worst, worst_pose


def mujoco_errors(text: str, arm: NumericArm, folder: Path, states: int = 100) -> float:
    """Largest relative error of MuJoCo's qM and qfrc_bias (from the URDF ``text``) against ours."""
    mujoco = pytest.importorskip("mujoco")
    path = Path(folder) / "arm.urdf"
    path.write_text(text)
    model = mujoco.MjModel.from_xml_path(str(path))
    # MuJoCo reads no armature, damping or friction into qM and qfrc_bias; make sure nothing crept in
    assert model.nv == arm.n and not model.dof_armature.any()
    model.opt.gravity[:] = [0, 0, -float(np.linalg.norm(arm.gravity))]
    data = mujoco.MjData(model)
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(states):
        q, qd = rng.uniform(-np.pi, np.pi, arm.n), rng.normal(size=arm.n)
        data.qpos[:], data.qvel[:] = q, qd
        mujoco.mj_forward(model, data)
        M = np.zeros((arm.n, arm.n))
        mujoco.mj_fullM(model, data, M)
        worst = max(worst, rel_err(mass_matrix(arm, q), M), rel_err(rnea(arm, q, qd, np.zeros(arm.n)), data.qfrc_bias))
    return worst
