"""ArmView.set_arm: the 3D view draws a NumericArm without a model (the window's first picture, before sympy is
imported: issue 29), and draws it as set_model draws the model whose numeric arm it is (pytest-qt under Xvfb),
in a process where sympy cannot be imported too."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from tests.support.arms import ROBOTS, six_link
from tests.support.no_sympy import run_without_sympy
from designer.kinematics import display_arm
from designer.model.parts import MATERIALS, Part
from designer.project import load_project

Q = np.array([0.3, -0.6, 0.4, 0.2, 0.5, 0.1])


def _box_and_tube_arm():
    """robots/tube_arm.json with its second link's tube made a box (its other links stay tubes)."""
    model = load_project(ROBOTS / "tube_arm.json")
    box = Part("box", MATERIALS["aluminium 6061-T6"], (("width", 0.06), ("height", 0.035)))
    return model.with_link(1, replace(model.links[1], part=box))


def _assert_same_drawing(a, b) -> None:
    assert a.parts.keys() == b.parts.keys()
    for kind in a.parts:
        np.testing.assert_array_equal(a.parts[kind], b.parts[kind], err_msg=kind)
    assert a._order == b._order   # the same solids, in the same order
    np.testing.assert_array_equal(a._items["solids"].vertexes, b._items["solids"].vertexes)
    ca, cb = a.camera(), b.camera()
    np.testing.assert_array_equal(ca.pop("center"), cb.pop("center"))
    assert ca == cb


@pytest.mark.parametrize("make", [six_link, _box_and_tube_arm], ids=["puma560", "box_and_tubes"])
def test_set_arm_draws_what_set_model_draws(make_arm_view, make):
    model = make()
    arm = display_arm(model)
    if make is _box_and_tube_arm:   # the arm has both kinds of part: a box is drawn as a box, a tube as a bar
        assert sorted(b.round for b in arm.beams) == [False, True, True]
    by_model, by_arm = make_arm_view(), make_arm_view()
    by_model.set_model(model)
    by_arm.set_arm(arm)
    assert by_arm.model is None and not by_arm.message.isVisible()
    _assert_same_drawing(by_model, by_arm)
    q = Q[:arm.n]
    by_model.set_joint_values(q)
    by_arm.set_arm(arm, q)
    _assert_same_drawing(by_model, by_arm)
    np.testing.assert_array_equal(by_arm.joint_values(), q)


def test_the_model_after_its_arm_keeps_the_items_and_the_camera(make_arm_view):
    """The window's start: the arm first (set_arm), the model once sympy is there (set_model) changes nothing."""
    model = six_link()
    view = make_arm_view()
    view.set_arm(display_arm(model), Q)
    items, camera = list(view.view.items), view.camera()
    parts = {k: v.copy() for k, v in view.parts.items()}
    view.set_model(model)
    assert list(view.view.items) == items
    for kind in parts:
        np.testing.assert_array_equal(view.parts[kind], parts[kind], err_msg=kind)
    assert view.camera()["distance"] == camera["distance"]


def test_set_arm_names_a_wrong_number_of_joint_values(make_arm_view):
    view = make_arm_view()
    with pytest.raises(ValueError, match="set_arm: 2 joint values for an arm of 6 joints"):
        view.set_arm(display_arm(six_link()), [0.1, 0.2])


_DRAW = """
import numpy as np
from PySide6.QtWidgets import QApplication
from designer.gui.view3d import ArmView
from designer.kinematics.numeric import NumericArm
from designer.model import Convention
from designer.model.beam import Beam

app = QApplication([])
given = json.loads({fields!r})
beams = tuple(Beam(**{{k: np.array(v) if isinstance(v, list) and k != "size" else v for k, v in b.items()}})
              for b in given.pop("beams"))
loads = tuple((link, mass, np.array(p)) for link, mass, p in given.pop("point_masses"))
arm = NumericArm(convention=Convention(given.pop("convention")), revolute=np.array(given.pop("revolute"), bool),
                 point_masses=loads, beams=beams, **{{k: np.array(v, float) for k, v in given.items()}})
view = ArmView()
view.resize(480, 360)
view.set_arm(arm, {q})
result({{kind: M.tolist() for kind, M in view.parts.items()}})
"""

_BEAM_FIELDS = ("index", "start", "end", "axes", "ea", "gj", "ei1", "ei2", "mass_per_length", "round", "size")


@pytest.mark.parametrize("make", [six_link, _box_and_tube_arm], ids=["puma560", "box_and_tubes"])
def test_set_arm_draws_in_a_process_without_sympy(make_arm_view, tmp_path, make):
    """The arm's numbers handed over as plain lists (its beams and loads too): the drawing there is its model's here."""
    model = make()
    arm = display_arm(model)
    plain = lambda v: v.tolist() if isinstance(v, np.ndarray) else v  # noqa: E731
    fields = {"convention": arm.convention.value,
              "beams": [{k: plain(getattr(b, k)) for k in _BEAM_FIELDS} for b in arm.beams],
              "point_masses": [(link, mass, p.tolist()) for link, mass, p in arm.point_masses],
              **{k: getattr(arm, k).tolist() for k in ("revolute", "dh", "mass", "com", "inertia", "gravity",
                                                       "limits", "base", "tool")}}
    q = Q[:arm.n]
    parts = run_without_sympy(_DRAW.format(fields=json.dumps(fields), q=q.tolist()), tmp_path)
    here = make_arm_view()
    here.set_model(model)
    here.set_joint_values(q)
    assert parts.keys() == here.parts.keys()
    for kind, M in here.parts.items():
        np.testing.assert_allclose(np.array(parts[kind]).reshape(M.shape), M, rtol=0, atol=1e-12, err_msg=kind)
