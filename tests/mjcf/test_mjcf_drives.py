"""MJCF's armature, damping, friction loss and actuators into the drive data, checked against what
MuJoCo itself does with them: the armature it adds to M, the joint force its motors give at the
end of their control range (qfrc_actuator, force limits applied), its passive damping force."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.mjcf import import_mjcf
from designer.model.extras import Drive

mujoco = pytest.importorskip("mujoco")
FILES = Path(__file__).parent / "files"


@pytest.mark.parametrize("name", ["iiwa14.xml", "defaults.xml", "ur5e.xml", "frames.xml"])
def test_drive_data_is_what_mujoco_does(name):
    report = import_mjcf(FILES / name)
    mj = mujoco.MjModel.from_xml_path(str(FILES / name))
    data = mujoco.MjData(mj)
    for link in report.model.links:
        j = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, link.joint_name)
        dof = mj.jnt_dofadr[j]
        drive = link.drive or Drive()
        assert drive.reflected_inertia == pytest.approx(mj.dof_armature[dof], rel=1e-12, abs=0)
        assert (drive.viscous or 0.0) == pytest.approx(mj.dof_damping[dof], rel=1e-12)
        assert (drive.coulomb or 0.0) == pytest.approx(mj.dof_frictionloss[dof], rel=1e-12)
        # a torque motor at the end of its control range: the joint torque MuJoCo applies
        motors = [a for a in range(mj.nu) if mj.actuator_trnid[a, 0] == j and mj.actuator_biastype[a] == 0
                  and mj.actuator_trntype[a] == mujoco.mjtTrn.mjTRN_JOINT]
        if motors and mj.actuator_ctrllimited[motors[0]]:
            data.ctrl[:] = 0
            data.ctrl[motors[0]] = mj.actuator_ctrlrange[motors[0], 1]
            mujoco.mj_forward(mj, data)
            assert drive.rated_torque == pytest.approx(abs(data.qfrc_actuator[dof]), rel=1e-12)
            assert drive.gear_ratio == pytest.approx(abs(mj.actuator_gear[motors[0], 0]), rel=1e-12)


def test_ur5e_armature_and_torques():
    """Menagerie's UR5e: armature 0.1 kg m^2 on every joint, 150 / 28 N m force ranges."""
    links = import_mjcf(FILES / "ur5e.xml").model.links
    assert [l.drive.reflected_inertia for l in links] == pytest.approx([0.1] * 6)
    assert [l.drive.rated_torque for l in links] == pytest.approx([150, 150, 150, 28, 28, 28])
    assert float(links[2].limits[1]) == pytest.approx(3.1415)


def test_damping_is_mujocos_passive_force():
    report = import_mjcf(FILES / "iiwa14.xml")
    mj = mujoco.MjModel.from_xml_path(str(FILES / "iiwa14.xml"))
    data = mujoco.MjData(mj)
    data.qvel[:] = np.linspace(-1, 1, mj.nv)
    mujoco.mj_forward(mj, data)
    viscous = np.array([l.drive.viscous for l in report.model.links])
    np.testing.assert_allclose(-viscous * data.qvel, data.qfrc_damper, rtol=1e-12)


def test_what_a_project_cannot_hold_is_named(tmp_path):
    """A joint spring and MuJoCo's gravity compensation have no place in a project: warned, not dropped
    silently."""
    path = tmp_path / "spring.xml"
    path.write_text('<mujoco><worldbody><body name="a" gravcomp="1"><joint name="j" axis="0 0 1" stiffness="5"/>'
                    '<geom type="box" size=".1 .2 .05"/><body name="b" pos="0.3 0 0"><joint name="k" axis="0 1 0"/>'
                    '<geom type="sphere" size="0.05"/></body></body></worldbody></mujoco>')
    text = import_mjcf(path).text()
    assert "warning: joint 'j': stiffness 5" in text and "gravcomp" in text and "for a" in text


@pytest.mark.parametrize("name", ["ur5e.xml", "iiwa14.xml"])
def test_eval_with_drives_gives_mujocos_mass_matrix(name, tmp_path, capsys):
    """The armature through the whole path: import-mjcf, then `eval --drives` (M + N^2 Jm), against
    MuJoCo's mj_fullM, armature included."""
    import json
    from designer.cli import main
    project, states = tmp_path / "arm.json", tmp_path / "states.json"
    assert main(["import-mjcf", str(FILES / name), "--out", str(project)]) == 0
    mj = mujoco.MjModel.from_xml_path(str(FILES / name))
    rng = np.random.default_rng(4)
    qs = [rng.uniform(-2, 2, mj.nv) for _ in range(3)]
    states.write_text(json.dumps({"states": [{"q": q.tolist(), "qd": [0.0] * mj.nv, "qdd": [0.0] * mj.nv}
                                             for q in qs]}))
    capsys.readouterr()
    assert main(["eval", str(project), "--states", str(states), "--drives", "--method", "newton-euler"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    data = mujoco.MjData(mj)
    for q, result in zip(qs, results):
        data.qpos[:] = q
        mujoco.mj_forward(mj, data)
        M = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, data, M)
        np.testing.assert_allclose(np.array(result["M"], dtype=float), M, rtol=1e-9, atol=1e-9 * np.abs(M).max())
