"""Project format version 3, closed chains: trees, passive joints, loops (docs/project-format.md)."""

from __future__ import annotations

import copy
import json

import pytest

from designer.model import CutJoint, Link, Loop, Manipulator, Pose
from designer.project import ProjectError, dumps_project, loads_project
from designer.project.io import to_dict


def four_bar_doc() -> dict:
    link = {"joint": "R", "alpha": 0, "d": 0, "theta": 0, "mass": 1}
    return {
        "format": "manipulator-designer", "version": 3, "name": "four-bar",
        "parameters": {"L1": 0.3, "L2": 0.5, "L3": 0.4, "g": 9.81},
        "links": [dict(link, a="L1"), dict(link, a="L2", actuated=False),
                  dict(link, a="L3", parent=0, actuated=False, theta=1.0)],
        "loops": [{"name": "coupler", "joint": "R", "link_i": 2, "link_j": 3,
                   "frame_i": {"xyz": [0, 0, 0], "rpy": [0, 0, 0]}}],
    }


def test_round_trip_keeps_every_closed_chain_field():
    m = loads_project(json.dumps(four_bar_doc()))
    assert [l.parent for l in m.links] == [None, None, 0]
    assert [l.actuated for l in m.links] == [True, False, False]
    assert m.loops == (Loop(2, 3, Pose(), Pose(), CutJoint.REVOLUTE, "coupler"),)
    again = loads_project(dumps_project(m))
    assert again == m and hash(again) == hash(m)
    assert json.loads(dumps_project(m))["version"] == 3


def test_a_serial_arm_is_still_written_as_version_2():
    m = Manipulator(links=(Link(a=1, mass=1), Link(a=1, mass=1)))
    assert to_dict(m)["version"] == 2 and "loops" not in to_dict(m)
    assert "parent" not in to_dict(m)["links"][1]


@pytest.mark.parametrize("edit, expected", [
    (lambda d: d["links"][2].update(parent=3), "links[3].parent: must be an earlier link"),
    (lambda d: d["links"][1].update(parent=-1), "links[2].parent: must be an earlier link"),
    (lambda d: d["links"][2].update(parent="1"), "links[3].parent: must be a link number"),
    (lambda d: d["links"][2].update(actuated="no"), "links[3].actuated: must be true or false"),
    (lambda d: d["loops"][0].update(link_j=9), "loops[1].link_j: no link 9"),
    (lambda d: d["loops"][0].update(link_j=2), "loops[1]: closes link 2 on itself"),
    (lambda d: d["loops"][0].update(joint="Q"), "loops[1].joint: must be"),
    (lambda d: d["loops"][0].update(frame_i={"xyz": [1, 2]}), "loops[1].frame_i.xyz: must be a list of three"),
    (lambda d: d.update(loops=[]), "links[2].actuated: a passive joint on no loop"),
    (lambda d: d.update(version=2), "needs format version 3"),
    (lambda d: d["links"][0].update(gamma="sin("), "links[1].gamma"),
])
def test_bad_closed_chain_fields_are_named(edit, expected):
    doc = copy.deepcopy(four_bar_doc())
    edit(doc)
    with pytest.raises(ProjectError) as info:
        loads_project(json.dumps(doc))
    assert expected in str(info.value)


def test_every_problem_is_reported_at_once():
    doc = four_bar_doc()
    doc["links"][2]["parent"] = 7
    doc["loops"][0].update(link_j=9, joint="Q")
    with pytest.raises(ProjectError) as info:
        loads_project(json.dumps(doc))
    text = str(info.value)
    assert "links[3].parent" in text and "loops[1].link_j" in text and "loops[1].joint" in text


def test_parameters_reach_the_loop_frames():
    doc = four_bar_doc()
    doc["loops"][0]["frame_j"] = {"xyz": ["L3", 0, 0]}
    m = loads_project(json.dumps(doc)).numeric()
    assert float(m.loops[0].frame_j.xyz[0]) == 0.4
    assert m.is_serial is False
