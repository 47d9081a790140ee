"""The random projects' generator (tests/support/random_models.py: random_project) makes each shape it is asked
for, the writer saves it as the version the format asks for, and reading it back gives the same model with no
validation error: the other random-shape tests (tests/numeric, tests/cli) rest on this."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.model import Convention, validate
from designer.model.validation import Severity
from designer.project.io import load_project, save_project
from tests.support import examples
from tests.support.random_models import SHAPE_NAMES, Shapes, random_project

pytest.importorskip("pinocchio")   # the loops are closed with Pinocchio's frames


def _holds(model, name: str) -> bool:
    """Whether ``model`` has the shape ``name`` (SHAPE_NAMES), read off the model itself."""
    links = model.links
    drives = [link.drive for link in links if link.drive is not None]
    return {
        "modified": model.convention is Convention.MODIFIED,
        "prismatic": any(not link.is_revolute for link in links),
        "degenerate": any(link.a == 0 and link.d == 0 for link in links) and any(link.alpha == 0 for link in links),
        "offsets": any(link.theta != 0 for link in links),
        "named": bool(model.parameters) and bool(model.free_symbols()),
        "frames": model.base is not None and model.tool is not None,
        "limits": any(link.limits is not None for link in links),
        "drives": any(d.gear_ratio and d.viscous is not None for d in drives),
        "elastic": any(d.stiffness is not None for d in drives),
        "parts": any(link.part is not None for link in links),
        "loads": bool(model.point_masses),
        "branches": any(link.parent is not None for link in links),
        "loops": bool(model.loops),
        "requirements": bool(model.requirements.items),
    }[name]


FLAGS = {"modified": {"convention": Convention.MODIFIED}, "prismatic": {"joints": "PRPP"},
         "degenerate": {"degenerate": True, "joints": "RRRRRR"}, "offsets": {"offsets": True}, "named": {"named": True},
         "frames": {"frames": True}, "limits": {"limits": True}, "drives": {"drives": True},
         "elastic": {"elastic": True}, "parts": {"parts": True, "joints": "RRR"}, "loads": {"loads": True},
         "branches": {"branches": 2}, "loops": {"loops": ("R", "S", "F")}, "requirements": {"requirements": True}}


def test_every_shape_has_a_flag():
    assert set(FLAGS) == set(SHAPE_NAMES)


@pytest.mark.parametrize("name", SHAPE_NAMES)
def test_each_flag_makes_its_shape(name):
    made = [_holds(random_project(np.random.default_rng(seed), Shapes(**FLAGS[name])), name) for seed in range(3)]
    assert any(made)


@settings(max_examples=examples(20), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_projects_save_read_back_and_validate(tmp_path_factory, seed):
    rng = np.random.default_rng(seed)
    model = random_project(rng, Shapes.every(rng))
    path = tmp_path_factory.mktemp("shape") / "p.json"
    save_project(model, path)
    doc = json.loads(path.read_text())
    wants = 4 if model.requirements.items else 3 if (not model.is_serial or any(
        link.part is not None or (link.drive is not None and link.drive.stiffness is not None)
        for link in model.links)) else 2
    assert doc["version"] == wants
    again = load_project(path)
    assert again == model and again.requirements == model.requirements
    assert not [p for p in validate(again) if p.severity is Severity.ERROR]


def _closed_doc(tmp_path):
    model = random_project(np.random.default_rng(3), Shapes(joints="RRP", loops=("R",), planar=True, parts=True,
                                                            elastic=True, drives=True))
    path = tmp_path / "ok.json"
    save_project(model, path)
    return model, json.loads(path.read_text())


def _passive_spring(doc, model):
    i = next(k for k, link in enumerate(model.links) if not link.actuated)
    doc["links"][i]["drive"] = {"stiffness": 1e4, "gear_ratio": 10, "motor_inertia": 1e-4}
    return f"links[{i + 1}].drive.stiffness: a passive joint's stiffness"


def _open_loop(doc, model):
    frame = doc["loops"][0]["frame_j"]
    frame["xyz"] = [v + 0.1 for v in frame["xyz"]]
    return "loops[1] (cut R): cannot be assembled with the actuated joints at 0"   # 0.1 m out of its plane


def _all_actuated(doc, model):
    for link in doc["links"]:
        link.pop("actuated", None)
    return "loops: the mechanism has 4 degree(s) of freedom"


def _no_such_link(doc, model):
    doc["loops"][0]["link_j"] = 42
    return "loops[1].link_j: no link 42"


def _fat_wall(doc, model):
    i, part = next((k, link["part"]) for k, link in enumerate(doc["links"]) if "wall" in link.get("part", {}))
    part["wall"] = 1.0
    return f"links[{i + 1}].part.wall: must be less than half"


def _cut_kind(doc, model):
    doc["loops"][0]["joint"] = "Q"
    return 'loops[1].joint: must be "R"'


ILLEGAL = [_passive_spring, _open_loop, _all_actuated, _no_such_link, _fat_wall, _cut_kind]


@pytest.mark.parametrize("edit", ILLEGAL, ids=[f.__name__.strip("_") for f in ILLEGAL])
def test_an_edited_closed_project_gets_one_message_naming_the_field(tmp_path, capsys, edit):
    """A closed chain's project broken by hand in one place: validate says what and where in one line (a passive
    joint's spring is a warning: validate passed it silently, the elastic commands refuse it)."""
    from designer.cli import main
    model, doc = _closed_doc(tmp_path)
    want = edit(doc, model)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    code = main(["validate", str(path)])
    out, err = capsys.readouterr()
    assert want in out + err
    assert code == (0 if edit is _passive_spring else 2)
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("error: ")
