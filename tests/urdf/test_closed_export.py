"""URDF export of a closed chain: the spanning tree with mimic joints (designer/urdf/closed_export.py).

Independent side: Pinocchio reads the exported file as a tree (every joint free); the mimic elements
are read from the file with lxml into W, and W^T M_pin W, W^T G_pin must equal the closed chain's
M_a, G_a (designer/numeric/closed.py) at random actuated poses.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from designer.numeric.closed import ClosedDynamics
from designer.project.io import load_project
from designer.urdf.exporter import urdf_document

pin = pytest.importorskip("pinocchio")
ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def file_dynamics(text: str):
    """(M_a(q), G_a(q)) of the exported file's independent joints, through Pinocchio and the file's mimics."""
    pm = pin.buildModelFromXML(text)
    pd = pm.createData()
    root = etree.fromstring(text.encode())
    names = list(pm.names[1:])
    moving = [j for j in root.findall("joint") if j.get("type") != "fixed"]
    indep = [j.get("name") for j in moving if j.find("mimic") is None]
    W = np.zeros((pm.nv, len(indep)))
    for j in moving:
        mimic = j.find("mimic")
        row = names.index(j.get("name"))
        if mimic is None:
            W[row, indep.index(j.get("name"))] = 1.0
        else:
            W[row, indep.index(mimic.get("joint"))] += float(mimic.get("multiplier", "1"))

    def config(q):
        v = W @ q
        out: list[float] = []
        for k, jm in enumerate(pm.joints[1:]):
            out += [np.cos(v[k]), np.sin(v[k])] if jm.nq == 2 else [v[k]]
        return np.array(out)

    def M(q):
        Mt = pin.crba(pm, pd, config(q))
        Mt = np.triu(Mt) + np.triu(Mt, 1).T
        return W.T @ Mt @ W

    def G(q):
        return W.T @ pin.computeGeneralizedGravity(pm, pd, config(q))
    return indep, M, G


@pytest.mark.parametrize("name", ["palletizer_parallelogram", "acma_sr400"])
def test_exported_tree_with_mimics_has_the_closed_chain_dynamics(name):
    model = load_project(ROBOTS / f"{name}.json")
    text, notes = urdf_document(model)
    assert any("coaxial mimic joints" in n for n in notes) and any("dropped" in n for n in notes)
    indep, M, G = file_dynamics(text)
    closed = ClosedDynamics(model)
    names = [model.links[i].joint_name or f"joint{i + 1}" for i in closed.closure.act]
    assert sorted(indep) == sorted(names)
    order = [indep.index(n) for n in names]
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.uniform(-0.6, 0.6, len(names))
        qf = np.zeros(len(indep))
        qf[order] = q
        Ma = M(qf)[np.ix_(order, order)]
        np.testing.assert_allclose(Ma, closed.M(q), atol=1e-9 * np.abs(Ma).max())
        np.testing.assert_allclose(G(qf)[order], closed.G(q), atol=1e-9 * np.abs(closed.G(q)).max() + 1e-9)


def test_four_bar_export_says_what_it_dropped():
    model = load_project(ROBOTS / "four_bar.json")
    text, notes = urdf_document(model)
    assert any("non-linear" in n for n in notes) and any("dropped" in n for n in notes)
    assert "<mimic" not in text
    assert text.splitlines()[1].startswith("<!--")   # where the CLI and the window read notes
    pin.buildModelFromXML(text)


def test_exported_closed_chain_parses_with_yourdfpy(tmp_path):
    import yourdfpy
    model = load_project(ROBOTS / "palletizer_parallelogram.json")
    path = tmp_path / "p.urdf"
    path.write_text(urdf_document(model)[0])
    robot = yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=False)
    mimic = {j.name: j.mimic.joint for j in robot.robot.joints if j.mimic is not None}
    assert set(mimic.values()) == {"joint2", "joint4"} and len(mimic) == 4
    assert len(robot.actuated_joint_names) == 4   # yourdfpy's own count of free joints


def test_a_loop_that_cannot_close_is_refused_in_one_line():
    from dataclasses import replace
    from designer.model.extras import Pose
    from designer.urdf.source import UrdfError
    model = load_project(ROBOTS / "four_bar.json")
    # 100 mm out of the four-bar's plane: no turn of its joints closes it
    broken = replace(model, loops=(replace(model.loops[0], frame_i=Pose((0, 0, 0.1), (0, 0, 0))),))
    with pytest.raises(UrdfError, match="cannot export: .*cannot be assembled.*100 mm apart at best") as info:
        urdf_document(broken)
    assert "\n" not in str(info.value)


def test_a_loop_assembled_from_an_open_nominal_pose_is_exported_with_a_note():
    """100 mm along the rocker (in the plane): the closure assembles the four-bar; the URDF (no loops) is its tree
    at the nominal pose, and the notes say the loop is open there."""
    from dataclasses import replace
    from designer.model.extras import Pose
    from designer.urdf.closed_export import mimic_plan
    model = load_project(ROBOTS / "four_bar.json")
    moved = replace(model, loops=(replace(model.loops[0], frame_i=Pose((0.1, 0, 0), (0, 0, 0))),))
    mimics, notes = mimic_plan(moved, [f"joint{k}" for k in range(1, 4)])
    assert not mimics and any("do(es) not close at the nominal pose" in n for n in notes), notes
    text, written = urdf_document(moved)
    assert "<robot" in text and written == notes


def test_a_parallelogram_assembled_with_an_offset_writes_that_joint_without_a_mimic():
    """The palletizer's passive q3 with 0.1 rad more theta offset: the loop still closes linearly, q3 = q4 - q2 - 0.1
    (the parallelogram's angle, the offset undone), which a mimic without offset would not say: q3 is written as an
    independent joint and the note gives its value; q5 keeps its mimic."""
    from dataclasses import replace
    import sympy as sp
    from designer.urdf.closed_export import mimic_plan
    model = load_project(ROBOTS / "palletizer_parallelogram.json")
    links = list(model.links)
    links[2] = replace(links[2], theta=sp.sympify(links[2].theta) + sp.Rational(1, 10))
    mimics, notes = mimic_plan(replace(model, links=tuple(links)), [f"j{k}" for k in range(1, 7)])
    assert 2 not in mimics and mimics[4] == [(1, 1.0), (3, -1.0)]
    assert any(n.startswith("passive joint j3 is -0.1 at the reference pose") for n in notes), notes
