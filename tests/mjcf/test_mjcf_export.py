"""export-mjcf read back by MuJoCo (mj_fullM, qfrc_bias, the tool body's pose) and by Pinocchio's
MJCF reader (crba, rnea), on random arms of both conventions with loads, base and tool poses,
gravity in any direction and drive data; the drive data read back by import-mjcf."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.mjcf import import_mjcf
from designer.mjcf.exporter import mjcf_text
from designer.model import Convention
from designer.model.extras import Drive, Pose
from designer.numeric.recursive import mass_matrix, rnea

from tests.support.random_models import random_model

mujoco = pytest.importorskip("mujoco")
pin = pytest.importorskip("pinocchio")


def _with_drives(model, rng):
    links = []
    for link in model.links:
        drive = Drive(gear_ratio=float(rng.uniform(10, 120)), motor_inertia=float(rng.uniform(1e-6, 1e-4)),
                      viscous=float(rng.uniform(0, 2)), coulomb=float(rng.uniform(0, 1)),
                      rated_torque=float(rng.uniform(5, 100)))
        limits = (-2.5, 2.0) if link.is_revolute else (-0.3, 0.4)
        links.append(replace(link, drive=drive, limits=limits))
    return replace(model, links=tuple(links), base=Pose((0.1, -0.2, 0.3), (0.2, -0.1, 0.4)),
                   tool=Pose((0.05, 0.0, 0.12), (0.0, 0.3, 0.1)))


def _rel(a, b) -> float:
    return float(np.abs(a - b).max() / max(1.0, np.abs(b).max()))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("convention", list(Convention), ids=lambda c: c.value)
def test_export_read_back_by_mujoco_and_pinocchio(seed, convention, tmp_path):
    rng = np.random.default_rng(seed)
    model = _with_drives(random_model(rng, int(rng.integers(2, 7)), convention), rng)
    arm = NumericArm.from_model(model)
    path = tmp_path / "arm.xml"
    path.write_text(mjcf_text(model))
    mj = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(mj)
    pm = pin.buildModelFromMJCF(str(path))
    pm.gravity = pin.Motion(mj.opt.gravity.copy(), np.zeros(3))
    pd = pm.createData()
    assert mj.nv == pm.nv == arm.n
    reflected = np.array([l.drive.reflected_inertia for l in model.links])
    tool = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, "tool")
    for _ in range(20):
        q, qd = rng.uniform(-np.pi, np.pi, arm.n), rng.normal(size=arm.n)
        data.qpos[:], data.qvel[:] = q, qd
        mujoco.mj_forward(mj, data)
        M = np.zeros((arm.n, arm.n))
        mujoco.mj_fullM(mj, data, M)
        ours_M, ours_h = mass_matrix(arm, q), rnea(arm, q, qd, np.zeros(arm.n))
        # MuJoCo's armature is the drive's N^2 Jm on the diagonal
        assert _rel(ours_M + np.diag(reflected), M) < 1e-9
        assert _rel(ours_h, data.qfrc_bias) < 1e-9
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = data.xmat[tool].reshape(3, 3), data.xpos[tool]
        assert np.abs(arm.tool_pose(q) - T).max() < 1e-12
        Mp = pin.crba(pm, pd, q)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T - np.diag(pm.armature)
        assert _rel(ours_M, Mp) < 1e-9
        assert _rel(ours_h, pin.rnea(pm, pd, q, qd, np.zeros(arm.n))) < 1e-9
    assert np.allclose(pm.armature, reflected) and np.allclose(mj.dof_armature, reflected)


def test_drive_data_come_back_through_import(tmp_path):
    rng = np.random.default_rng(3)
    model = _with_drives(random_model(rng, 4, Convention.STANDARD, right_angles=True), rng)
    path = tmp_path / "arm.xml"
    path.write_text(mjcf_text(model))
    back = import_mjcf(path, tip="tool").model
    for before, after in zip(model.links, back.links):
        d, e = before.drive, after.drive
        assert e.gear_ratio == pytest.approx(d.gear_ratio, rel=1e-12)
        assert e.reflected_inertia == pytest.approx(d.reflected_inertia, rel=1e-12)
        assert e.viscous == pytest.approx(d.viscous, rel=1e-12) and e.coulomb == pytest.approx(d.coulomb, rel=1e-12)
        assert e.rated_torque == pytest.approx(d.rated_torque, rel=1e-12)
        assert [float(v) for v in after.limits] == pytest.approx([float(v) for v in before.limits], rel=1e-12)


def test_massless_links_are_exported_with_a_floor_mujoco_accepts(tmp_path):
    rng = np.random.default_rng(8)
    model = random_model(rng, 5, Convention.MODIFIED, right_angles=True)
    zero = replace(model, point_masses=(), links=tuple(
        replace(l, mass=0, inertia=type(l.inertia)()) if i == 2 else l for i, l in enumerate(model.links)))
    text = mjcf_text(zero)
    assert "raised to" in text
    mj = mujoco.MjModel.from_xml_string(text)
    arm = NumericArm.from_model(zero)
    data = mujoco.MjData(mj)
    q = np.linspace(-1, 1, arm.n)
    data.qpos[:] = q
    mujoco.mj_forward(mj, data)
    M = np.zeros((arm.n, arm.n))
    mujoco.mj_fullM(mj, data, M)
    assert _rel(mass_matrix(arm, q), M) < 1e-9


def test_an_impossible_inertia_is_made_possible_and_said_so():
    """The PUMA 560's link 3 (Armstrong's figures: 0.066 + 0.0125 < 0.086) breaks the triangle
    inequality; MuJoCo refuses it as written. The export raises the smallest moment and says so."""
    from pathlib import Path
    from designer.project import load_project
    text = mjcf_text(load_project(Path(__file__).parents[2] / "robots" / "puma560.json"))
    assert "triangle inequality" in text and "elbow (smallest principal moment raised by 0.0075" in text
    mj = mujoco.MjModel.from_xml_string(text)
    for b in range(mj.nbody):
        A, B, C = sorted(mj.body_inertia[b])
        assert A + B >= C * (1 - 1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_random_exports_import_back_as_mujoco_reads_them(seed, tmp_path):
    """Random arms written as MJCF, then imported (the other convention half the time): the imported
    model against MuJoCo's model of that file, with the drive data as its armature."""
    from tests.support.mjcf_reference import MujocoChain, compare_with_mujoco
    rng = np.random.default_rng(100 + seed)
    convention = list(Convention)[seed % 2]
    model = _with_drives(random_model(rng, int(rng.integers(2, 7)), convention), rng)
    path = tmp_path / "arm.xml"
    path.write_text(mjcf_text(model))
    report = import_mjcf(path, tip="tool", convention=list(Convention)[(seed // 2) % 2])
    worst, pose = compare_with_mujoco(report.model, MujocoChain(path, report.chain.joints), "tool")
    assert worst < 1e-9 + 10 * report.moved and pose < 1e-12 + 10 * report.moved, (worst, pose, report.text())
