"""export-mjcf writes the project's visual meshes: MuJoCo loads them and places them where the
project's own kinematics put them, at random poses."""

from __future__ import annotations

import numpy as np
import pytest

from designer.kinematics.numeric import NumericArm
from designer.mjcf.exporter import mjcf_text
from designer.model import Inertia, Link, Manipulator
from designer.model.manipulator import Convention
from designer.model.visual import Visual

mujoco = pytest.importorskip("mujoco")
trimesh = pytest.importorskip("trimesh")


@pytest.mark.parametrize("convention", [Convention.STANDARD, Convention.MODIFIED])
def test_exported_meshes_sit_where_the_project_puts_them(tmp_path, convention):
    # boxes centred on their origin: MuJoCo puts a mesh geom's frame at the mesh's centre
    trimesh.creation.box((0.2, 0.05, 0.03)).export(tmp_path / "bar.stl")
    trimesh.creation.box((0.1, 0.1, 0.1)).export(tmp_path / "foot.obj")
    bar = Visual(str(tmp_path / "bar.stl"), xyz=(-0.1, 0.02, 0.01), rpy=(0.3, -0.2, 0.5), color=(0.2, 0.4, 0.8, 1))
    foot = Visual(str(tmp_path / "foot.obj"), xyz=(0, 0, -0.05))
    collada = Visual(str(tmp_path / "cover.dae"))
    links = (Link(a=0.3, alpha=0.4, d=0.1, mass=2, inertia=Inertia(0.1, 0.1, 0.1), visuals=(bar,)),
             Link(a=0.25, alpha=-1.1, mass=1, inertia=Inertia(0.05, 0.05, 0.05), visuals=(bar, collada)),
             Link(a=0.1, d=0.05, mass=0.5, inertia=Inertia(0.01, 0.01, 0.01)))
    model = Manipulator(links=links, convention=convention, gravity=(0, 0, -9.81), base_visuals=(foot,))
    text = mjcf_text(model)
    # the COLLADA mesh is named in a comment and not written (MuJoCo reads STL, OBJ and MSH)
    assert "cannot read left out" in text and f'file="{tmp_path / "cover.dae"}"' not in text
    m = mujoco.MjModel.from_xml_string(text)
    assert m.nmesh == 3
    d = mujoco.MjData(m)
    arm = NumericArm.from_model(model)
    placed = [(0, foot), (1, bar), (2, bar)]   # (frame, visual), in the order the geoms were written
    mesh_geoms = [g for g in range(m.ngeom) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH]
    assert len(mesh_geoms) == len(placed)
    rng = np.random.default_rng(1)
    for _ in range(5):
        q = rng.uniform(-2, 2, 3)
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        frames = arm.base @ arm.frames(q)
        for g, (k, visual) in zip(mesh_geoms, placed):
            expected = frames[k] @ visual.matrix()
            assert np.allclose(d.geom_xpos[g], expected[:3, 3], atol=1e-9)

