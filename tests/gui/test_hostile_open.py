"""The hostile project and MJCF files of tests/project/test_hostile_projects.py and tests/cli/test_hostile_readers.py
opened and imported in the window: each refused in one message box of one line naming the file, the
project it had kept (a part shape that is a list raised TypeError in the reader before, a replicate of 1e8
elements kept MuJoCo busy for minutes)."""

from __future__ import annotations

import json

from designer.gui import mjcf_dialogs
from tests.cli.test_hostile_readers import _mjcf
from tests.gui.test_urdf_dialogs import ScriptedDialog, open_file_returns
from tests.project.test_hostile_projects import _everything


def _cases() -> dict[str, dict]:
    shape, tool, key = _everything(), _everything(), _everything()
    shape["links"][1]["part"]["shape"] = ["tube"]
    tool["tool"] = [[1e308, 0, 0, 0], [0, 1e308, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    key["links"][0]["two\nlines" + "k" * 5000] = 1
    return {"shape": shape, "tool": tool, "key": key}


def test_a_hostile_project_is_one_line_in_one_box_and_the_project_is_kept(window, boxes, tmp_path):
    before, title = window.document.model, window.windowTitle()
    for case, doc in _cases().items():
        path = tmp_path / f"{case}.json"
        path.write_text(json.dumps(doc))
        boxes.shown.clear()
        assert not window.open_file(path), case
        (text,) = boxes.of("critical")
        assert len(boxes.shown) == 1 and str(path) in text and "\n" not in text and len(text) < 1500, (case, text)
        assert window.document.model is before and window.windowTitle() == title, case


def test_an_mjcf_import_asking_for_too_much_is_one_box_and_the_project_is_kept(window, boxes, monkeypatch, tmp_path):
    before = window.document.model
    path = _mjcf(tmp_path, world='<replicate count="100000000"><geom type="sphere" size="0.01"/></replicate>')
    open_file_returns(monkeypatch, path)
    ScriptedDialog(monkeypatch)   # the dialog must not open
    assert mjcf_dialogs.import_mjcf_file(window) is None
    (error,) = boxes.of("critical")
    assert str(path.name) in error and "<replicate" in error and "\n" not in error
    assert window.document.model is before
