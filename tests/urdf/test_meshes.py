"""Mesh files: where package:// and relative names lead, loading refused with a message, mass
properties against the textbook formulas, inertia from meshes against a URDF that states the same
inertias, visuals placed where yourdfpy's own forward kinematics puts them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from designer.kinematics import display_arm
from designer.project import load_project, loads_project, save_project
from designer.urdf import UrdfError, import_urdf
from designer.urdf import meshes as meshes_module
from designer.urdf.geometry import UrdfGeometry
from designer.urdf.mesh_inertia import geometry_body
from designer.urdf.meshes import MeshError, load_mesh, mesh_arrays, resolve_mesh
from designer.urdf.packages import PackageResolver
from designer.urdf.pipeline import FileOptions, import_file
from tests.support.urdf_reference import erd

trimesh = pytest.importorskip("trimesh")


def _package(tmp_path, name="arm_description", folder=None):
    root = tmp_path / (folder or name)
    (root / "meshes").mkdir(parents=True)
    (root / "urdf").mkdir()
    (root / "package.xml").write_text(f"<package><name>{name}</name></package>")
    return root


def test_mesh_names_resolve_as_ros_tools_do(tmp_path):
    root = _package(tmp_path, "arm_description", folder="arm_description_ros2")
    urdf_folder = root / "urdf"
    resolver = PackageResolver(urdf_folder / "arm.urdf")
    assert resolve_mesh("package://arm_description/meshes/a.stl", urdf_folder, resolver) == root / "meshes/a.stl"
    assert resolve_mesh("../meshes/b.stl", urdf_folder) == root / "meshes/b.stl"
    assert resolve_mesh("meshes/c.stl", root) == root / "meshes/c.stl"
    assert resolve_mesh(f"file://{root}/meshes/d%20e.stl", urdf_folder) == root / "meshes/d e.stl"
    # a folder named like the package counts when no package.xml names it (example-robot-data's case)
    other = tmp_path / "some-pkg"
    other.mkdir()
    assert resolve_mesh("package://some-pkg/x.obj", urdf_folder, PackageResolver(urdf_folder)) == other / "x.obj"
    with pytest.raises(MeshError, match="package 'missing_pkg' not found"):
        resolve_mesh("package://missing_pkg/x.stl", urdf_folder, resolver)
    with pytest.raises(MeshError, match="only package://"):
        resolve_mesh("http://example.com/x.stl", urdf_folder)
    named = PackageResolver(None, packages={"missing_pkg": str(other)})
    assert resolve_mesh("package://missing_pkg/x.stl", urdf_folder, named) == other / "x.stl"


def test_bad_meshes_give_one_line_messages(tmp_path, monkeypatch):
    (tmp_path / "junk.stl").write_bytes(b"solid x\nfacet normal nonsense\n" * 3)
    (tmp_path / "empty.obj").write_text("# nothing\n")
    (tmp_path / "evil.dae").write_text('<?xml version="1.0"?><!DOCTYPE c [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                                       '<COLLADA>&e;</COLLADA>')
    (tmp_path / "model.step").write_text("ISO-10303-21;")
    trimesh.creation.box().export(tmp_path / "box.stl")
    for name, message in [("junk.stl", "junk.stl"), ("empty.obj", "empty.obj"), ("evil.dae", "DOCTYPE"),
                          ("model.step", "not a mesh file"), ("gone.stl", "no such file")]:
        with pytest.raises(MeshError) as info:
            load_mesh(tmp_path / name)
        assert message in str(info.value) and "\n" not in str(info.value)
    monkeypatch.setattr(meshes_module, "MAX_MESH_BYTES", 100)
    with pytest.raises(MeshError, match="larger than the 100"):
        load_mesh(tmp_path / "box.stl")


def test_decimation_keeps_the_shape_within_budget(tmp_path):
    sphere = trimesh.creation.icosphere(subdivisions=5, radius=0.2)   # 20480 triangles
    sphere.export(tmp_path / "s.stl")
    data = mesh_arrays(tmp_path / "s.stl", max_faces=2000)
    assert data.original_faces == 20480 and len(data.faces) <= 2100
    radii = np.linalg.norm(data.vertices, axis=1)
    assert np.allclose(radii, 0.2, rtol=0.02)


def _geom(tmp_path, mesh, name, origin=None):
    mesh.export(tmp_path / name)
    return UrdfGeometry("mesh", np.eye(4) if origin is None else origin, filename=name)


def test_box_and_cylinder_mass_properties_match_the_formulas(tmp_path):
    rho, (a, b, c) = 2700.0, (0.3, 0.1, 0.05)
    body, note = geometry_body(_geom(tmp_path, trimesh.creation.box((a, b, c)), "box.stl"), rho, tmp_path)
    m = rho * a * b * c
    # STL stores float32 coordinates: 6e-8 relative per coordinate
    assert note is None and body.mass == pytest.approx(m, rel=1e-6)
    assert np.allclose(np.diag(body.inertia), [m * (b * b + c * c) / 12, m * (a * a + c * c) / 12,
                                               m * (a * a + b * b) / 12], rtol=1e-6)
    r, h = 0.04, 0.25
    cyl = trimesh.creation.cylinder(radius=r, height=h, sections=512)
    body, _ = geometry_body(_geom(tmp_path, cyl, "cyl.stl"), rho, tmp_path)
    m = rho * np.pi * r * r * h
    assert body.mass == pytest.approx(m, rel=1e-4)   # a 512-gon loses 2.5e-5 of the area
    assert np.allclose(np.diag(body.inertia), [m * (3 * r * r + h * h) / 12] * 2 + [m * r * r / 2], rtol=2e-4)
    # placed by an origin: the COM moves and the tensor turns (a box turned 90 deg about z swaps Ixx and Iyy)
    T = np.eye(4)
    T[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    T[:3, 3] = [0.1, 0.2, 0.3]
    moved, _ = geometry_body(_geom(tmp_path, trimesh.creation.box((a, b, c)), "box2.stl", T), rho, tmp_path)
    m = rho * a * b * c
    assert np.allclose(moved.com, [0.1, 0.2, 0.3], atol=1e-9)
    assert np.allclose(np.diag(moved.inertia), [m * (a * a + c * c) / 12, m * (b * b + c * c) / 12,
                                                m * (a * a + b * b) / 12], rtol=1e-6)


def test_open_mesh_uses_its_convex_hull_with_a_warning(tmp_path):
    box = trimesh.creation.box((0.2, 0.2, 0.2))
    open_box = trimesh.Trimesh(box.vertices, box.faces[:-2])   # one side missing
    body, note = geometry_body(_geom(tmp_path, open_box, "open.stl"), 1000.0, tmp_path)
    assert "not watertight" in note and "convex hull" in note
    assert body.mass == pytest.approx(8.0, rel=1e-6)


BOXES = [((0.1, 0.1, 0.4), (0, 0, 0.2)), ((0.08, 0.08, 0.3), (0, 0, 0.15)), ((0.05, 0.05, 0.1), (0.02, 0, 0.05))]
JOINTS = [("base", "l1", "0 0 0.1", "0 0 1"), ("l1", "l2", "0 0 0.4", "0 1 0"), ("l2", "l3", "0.03 0 0.3", "0 1 0")]


def _arm(tmp_path, explicit: bool, rho: float) -> str:
    links = ['<link name="base"/>']
    for k, (size, xyz) in enumerate(BOXES, start=1):
        trimesh.creation.box(size).export(tmp_path / f"l{k}.stl")
        xyz_text = " ".join(map(str, xyz))
        if explicit:   # the textbook box, stated in the file
            a, b, c = size
            m = rho * a * b * c
            inertial = (f'<inertial><origin xyz="{xyz_text}"/><mass value="{m!r}"/>'
                        f'<inertia ixx="{m * (b*b + c*c) / 12!r}" iyy="{m * (a*a + c*c) / 12!r}" '
                        f'izz="{m * (a*a + b*b) / 12!r}" ixy="0" ixz="0" iyz="0"/></inertial>')
        else:
            inertial = ""
        geometry = f'<origin xyz="{xyz_text}"/><geometry><mesh filename="l{k}.stl"/></geometry>'
        links.append(f'<link name="l{k}">{inertial}<visual>{geometry}</visual><collision>{geometry}</collision></link>')
    joints = [f'<joint name="j{k}" type="revolute"><parent link="{p}"/><child link="{c}"/><origin xyz="{o}"/>'
              f'<axis xyz="{a}"/><limit lower="-3" upper="3" effort="10" velocity="1"/></joint>'
              for k, (p, c, o, a) in enumerate(JOINTS, start=1)]
    return '<robot name="boxes">' + "".join(links + joints) + "</robot>"


def test_inertia_from_meshes_equals_the_file_that_states_it(tmp_path):
    rho = 2700.0
    (tmp_path / "bare.urdf").write_text(_arm(tmp_path, False, rho))
    (tmp_path / "stated.urdf").write_text(_arm(tmp_path, True, rho))
    with pytest.raises(UrdfError, match="no <inertial>"):
        import_file(tmp_path / "bare.urdf")
    got = import_file(tmp_path / "bare.urdf", FileOptions(density=rho))
    want = import_urdf(tmp_path / "stated.urdf").model
    a, b = display_arm(got.model), display_arm(want)
    # STL's float32 coordinates: 6e-8 relative per coordinate
    assert np.allclose(a.mass, b.mass, rtol=1e-6) and np.allclose(a.com, b.com, atol=1e-8)
    assert np.allclose(a.inertia, b.inertia, rtol=1e-6, atol=1e-9)
    text = got.text()
    assert "inertia of 'l1' from its collision geometry at 2700 kg/m^3: mass 10.8 kg" in text
    with pytest.raises(UrdfError, match="density 2.7e\\+06"):
        import_file(tmp_path / "bare.urdf", FileOptions(density=2.7e6))


def test_missing_mesh_is_a_warning_at_import_and_an_error_for_the_density(tmp_path):
    text = _arm(tmp_path, False, 1.0)
    (tmp_path / "l2.stl").unlink()
    (tmp_path / "bare.urdf").write_text(text)
    with pytest.raises(UrdfError, match=r"link 'l2'.*l2.stl: no such file"):
        import_file(tmp_path / "bare.urdf", FileOptions(density=1000))
    (tmp_path / "stated.urdf").write_text(_arm(tmp_path, True, 1000.0))
    (tmp_path / "l2.stl").unlink()
    report = import_file(tmp_path / "stated.urdf")
    assert any("l2.stl: no such mesh file" in w and "stick" in w for w in report.warnings)
    assert [len(l.visuals) for l in report.model.links] == [1, 0, 1]


@pytest.mark.parametrize("relative", ["ur_description/urdf/ur5_robot.urdf", "panda_description/urdf/panda.urdf"])
def test_visuals_sit_where_yourdfpy_puts_them(relative):
    yourdfpy = pytest.importorskip("yourdfpy")
    path = erd(relative)
    tip = "panda_link8" if "panda" in relative else None
    report = import_file(path, tip=tip)
    model = report.model
    urdf = yourdfpy.URDF.load(str(path), load_meshes=False, build_collision_scene_graph=False)
    arm = display_arm(model)
    rng = np.random.default_rng(5)
    movable = [j for j in urdf.actuated_joint_names]
    for _ in range(5):
        q = rng.uniform(-2, 2, arm.n)
        cfg = dict.fromkeys(movable, 0.0)
        cfg.update({link.joint_name: v for link, v in zip(model.links, q)})
        urdf.update_cfg(cfg)
        frames = arm.base @ arm.frames(q)
        for i, link in enumerate(model.links, start=1):
            ours = [frames[i] @ v.matrix() for v in link.visuals]
            names = report.chain.bodies[i - 1]
            theirs = [urdf.get_transform(n, urdf.base_link) @ (np.eye(4) if vis.origin is None else vis.origin)
                      for n in names for vis in urdf.link_map[n].visuals if vis.geometry.mesh is not None]
            assert len(ours) == len(theirs) > 0
            for T in ours:   # each of ours is one of theirs
                assert min(np.abs(T - U).max() for U in theirs) < 1e-9


def test_project_keeps_visuals_relative_beside_it(tmp_path):
    (tmp_path / "arm.urdf").write_text(_arm(tmp_path, True, 1000.0))
    model = import_file(tmp_path / "arm.urdf").model
    assert all(v.mesh.startswith(str(tmp_path)) for l in model.links for v in l.visuals)
    save_project(model, tmp_path / "arm.json")
    doc = json.loads((tmp_path / "arm.json").read_text())
    assert doc["version"] == 3 and doc["links"][0]["visual"][0]["mesh"] == "l1.stl"
    assert load_project(tmp_path / "arm.json") == model
    # moved together with its meshes, it still finds them
    (tmp_path / "moved").mkdir()
    for name in ("arm.json", "l1.stl", "l2.stl", "l3.stl"):
        (tmp_path / name).rename(tmp_path / "moved" / name)
    moved = load_project(tmp_path / "moved" / "arm.json")
    assert moved.links[0].visuals[0].mesh == str(tmp_path / "moved" / "l1.stl")
    # without meshes a project stays version 2; a version-2 file with a visual is refused by name
    from dataclasses import replace
    bare = replace(model, links=tuple(replace(l, visuals=()) for l in model.links))
    save_project(bare, tmp_path / "bare.json")
    assert json.loads((tmp_path / "bare.json").read_text())["version"] == 2
    doc["version"] = 2
    with pytest.raises(Exception, match=r"links\[1\]: field\(s\) visual need format version 3"):
        loads_project(json.dumps(doc))
    doc["version"] = 3
    doc["links"][0]["visual"][0]["scale"] = [1, 1]
    doc["links"][1]["visual"] = "x.stl"
    with pytest.raises(Exception) as info:
        loads_project(json.dumps(doc))
    assert "links[1].visual[0].scale" in str(info.value) and "links[2].visual: must be a list" in str(info.value)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_converting_the_convention_keeps_the_meshes_in_place(convention):
    """Switching the DH convention (the window's offer) moves each mesh with the frames: the world
    pose of every mesh at random joint values is the same before and after."""
    from designer.kinematics.convention import convert_convention
    from designer.model import Convention
    model = import_file(erd("ur_description/urdf/ur5_robot.urdf"), convention=convention).model
    other, _ = convert_convention(model, Convention("modified" if convention == "standard" else "standard"))
    a, b = display_arm(model), display_arm(other)
    q = np.random.default_rng(2).uniform(-2, 2, a.n)
    Fa, Fb = a.base @ a.frames(q), b.base @ b.frames(q)
    for i in range(1, a.n + 1):
        for va, vb in zip(model.links[i - 1].visuals, other.links[i - 1].visuals, strict=True):
            assert np.allclose(Fa[i] @ va.matrix(), Fb[i] @ vb.matrix(), atol=1e-9)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_exported_urdf_carries_the_meshes_where_they_were(tmp_path, convention):
    """UR5 -> project -> URDF -> project: every mesh at the same world pose at random joint values."""
    from designer.urdf import export_urdf
    model = import_file(erd("ur_description/urdf/ur5_robot.urdf"), tip="tool0", convention=convention).model
    export_urdf(model, tmp_path / "back.urdf")
    back = import_file(tmp_path / "back.urdf", tip="tool", convention=convention).model
    a, b = display_arm(model), display_arm(back)
    q = np.random.default_rng(4).uniform(-2, 2, a.n)
    Fa, Fb = a.base @ a.frames(q), b.base @ b.frames(q)
    for i in range(a.n + 1):
        ours = model.base_visuals if i == 0 else model.links[i - 1].visuals
        theirs = back.base_visuals if i == 0 else back.links[i - 1].visuals
        assert [v.mesh for v in ours] == [v.mesh for v in theirs]
        for va, vb in zip(ours, theirs):
            assert np.allclose(Fa[i] @ va.matrix(), Fb[i] @ vb.matrix(), atol=1e-9)


def _cli_import(path, out, *extra):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "designer", "import-urdf", str(path), "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=300)


def test_package_mesh_outside_the_named_folders_is_not_searched_upward(tmp_path):
    """package://etc/... must not find a folder called etc above the file (as $(find)): only the file's
    own package and the folders named (--package-path) count; the import goes on without that mesh."""
    secret = tmp_path / "etc"
    secret.mkdir()
    trimesh.creation.box((0.1, 0.2, 0.3)).export(secret / "SECRET.stl")
    root = _package(tmp_path / "ws", "arm")
    (root / "urdf" / "arm.urdf").write_text(
        '<robot name="r"><link name="base"/><link name="l1"><inertial><mass value="1"/>'
        '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
        '<visual><geometry><mesh filename="package://etc/SECRET.stl"/></geometry></visual></link>'
        '<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>')
    out = tmp_path / "out.json"
    run = _cli_import(root / "urdf" / "arm.urdf", out)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert "package 'etc' not found (give --package-path)" in run.stdout + run.stderr
    assert "SECRET" not in out.read_text()
    # named, the same mesh is found: the refusal above is the rule, not a broken reader
    out.unlink()
    run = _cli_import(root / "urdf" / "arm.urdf", out, "--package-path", str(secret))
    assert run.returncode == 0, run.stderr
    assert "SECRET.stl" in out.read_text()
