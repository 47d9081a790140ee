"""Project files with links as parts (format version 3): read, write, and every bad entry named."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from designer.project.io import ProjectError, dumps_project, from_dict, loads_project, to_dict

DOC = {
    "format": "manipulator-designer", "version": 3, "name": "tube arm", "convention": "standard",
    "gravity": [0, 0, "-g"], "parameters": {"g": 9.81, "L1": 0.5, "D": 0.08},
    "materials": {"my alloy": {"density": 2800, "young": 72e9, "shear": 27e9}},
    "links": [
        {"joint": "R", "a": "L1", "alpha": 0, "d": 0, "theta": 0,
         "part": {"shape": "tube", "material": "my alloy", "outer_diameter": "D", "wall": 0.004}},
        {"joint": "R", "a": 0.4, "alpha": 0, "d": 0, "theta": 0,
         "part": {"shape": "box_section", "material": "CFRP", "width": 0.05, "height": 0.06, "wall": 0.003}},
        {"joint": "R", "a": 0, "alpha": 0, "d": 0, "theta": 0, "mass": 1.5},
    ],
}


def _problems(doc) -> str:
    with pytest.raises(ProjectError) as info:
        from_dict(doc)
    return str(info.value)


def test_parts_round_trip_and_make_the_mass():
    model = from_dict(copy.deepcopy(DOC))
    R, r = 0.04, 0.036
    assert float(model.numeric().links[0].mass) == pytest.approx(2800 * np.pi * (R**2 - r**2) * 0.5)
    again = loads_project(dumps_project(model))
    assert again == model
    doc = to_dict(model)
    assert doc["version"] == 3 and doc["materials"] == {"my alloy": {"density": 2800.0, "young": 72e9, "shear": 27e9}}
    assert "mass" not in doc["links"][0] and doc["links"][0]["part"]["outer_diameter"] == "D"


def test_a_project_without_parts_is_still_written_as_version_2():
    doc = copy.deepcopy(DOC)
    del doc["materials"]
    doc["version"] = 2
    doc["links"] = [doc["links"][2]]
    assert to_dict(from_dict(doc))["version"] == 2


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["links"][0]["part"].update(material="unobtainium"), "links[1].part.material: unknown material"),
    (lambda d: d["links"][0].update(mass=3), "links[1]: give either part or mass"),
    (lambda d: d["links"][0]["part"].update(wall=0.05), "links[1].part.wall: must be less than half"),
    (lambda d: d["links"][0]["part"].update(shape="sphere"), "links[1].part.shape: must be one of"),
    (lambda d: d["links"][0]["part"].pop("wall"), "links[1].part.wall: missing"),
    (lambda d: d["links"][0]["part"].update(width=1), "links[1].part: unknown field(s) width"),
    (lambda d: d["links"][1]["part"].update(height=-0.06), "links[2].part.height: must be positive"),
    (lambda d: d["materials"]["my alloy"].update(density=0), "materials.my alloy.density: must be positive"),
    (lambda d: d["materials"]["my alloy"].pop("shear"), "materials.my alloy: missing shear"),
    (lambda d: d.update(version=2), "need format version 3"),
    (lambda d: d["links"][0].update(a=0), "links[1].part: the link's DH segment has zero length"),
])
def test_every_bad_part_entry_is_named(edit, message):
    doc = copy.deepcopy(DOC)
    edit(doc)
    assert message in _problems(doc)


def test_several_problems_at_once():
    doc = copy.deepcopy(DOC)
    doc["links"][0]["part"]["material"] = "wood"
    doc["links"][1]["part"]["wall"] = "1/0"
    text = _problems(doc)
    assert "links[1].part.material" in text and "links[2].part.wall" in text


def test_the_bundled_example_reads():
    from tests.support import robot_path
    model = json.loads(robot_path("tube_arm").read_text())
    assert model["version"] == 3
    from designer.project.io import load_project
    arm = load_project(robot_path("tube_arm"))
    assert any(link.part is not None for link in arm.links)
