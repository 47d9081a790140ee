"""The Requirements tab's Name column: a requirement's name typed in its cell is one undoable edit, saved with the
project; a bad or duplicate name is refused with the message opening such a file gives (the file reader's own,
checked here by opening a file with that name), and nothing is lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from designer.project.io import ProjectError
from designer.gui.requirements import NAME
from designer.project import load_project, save_project
from tests.gui.test_requirements_edit import ROBOTS, wait_reviewed
from tests.support.windows import open_window

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, ROBOTS / "tube_arm_requirements.json")


def _file_message(tmp_path: Path, row: int, name: str) -> str:
    """What opening the tube arm's file with requirement ``row``'s name set to ``name`` says (the reader's own)."""
    doc = json.loads((ROBOTS / "tube_arm_requirements.json").read_text())
    doc["requirements"][row]["name"] = name
    path = tmp_path / "named.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ProjectError) as exc:
        load_project(path)
    return str(exc.value)


def test_a_name_is_one_undoable_edit_and_is_saved(qtbot, window, tmp_path):
    panel, doc = window.requirements, window.document
    assert panel.table.item(1, NAME).text() == "stiff enough"
    before = doc.model.requirements
    depth = doc.undo_stack.count()
    panel.table.item(1, NAME).setText("  first mode above 8 Hz ")
    assert doc.model.requirements.items[1].name == "first mode above 8 Hz"
    assert doc.model.requirements.items[0] == before.items[0] and doc.undo_stack.count() == depth + 1
    assert panel.table.item(1, NAME).text() == "first mode above 8 Hz"
    wait_reviewed(qtbot, panel, doc.model)
    assert panel.outcomes[1].as_dict()["name"] == "first mode above 8 Hz"
    save_project(doc.model, tmp_path / "saved.json")
    saved = json.loads((tmp_path / "saved.json").read_text())
    assert saved["requirements"][1]["name"] == "first mode above 8 Hz"
    # an empty name: the requirement unnamed (no "name" in the file)
    panel.table.item(1, NAME).setText("")
    assert doc.model.requirements.items[1].name == ""
    save_project(doc.model, tmp_path / "saved.json")
    assert "name" not in json.loads((tmp_path / "saved.json").read_text())["requirements"][1]
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.model.requirements == before


@pytest.mark.parametrize("name", ["tool sag at home", "two\nlines", "x" * 201])
def test_a_bad_or_duplicate_name_is_refused_with_the_file_readers_message(qtbot, window, tmp_path, name):
    panel, doc = window.requirements, window.document
    before = doc.model.requirements
    depth = doc.undo_stack.count()
    panel.table.item(1, NAME).setText(name)
    assert doc.model.requirements == before and doc.undo_stack.count() == depth
    assert panel.table.item(1, NAME).text() == "stiff enough"   # shown as it was
    message = panel.summary.text()
    assert message.startswith("requirements[2].name: ")
    assert message in _file_message(tmp_path, 1, name)           # the same words opening such a file gives
    if name == "tool sag at home":
        assert "names requirements[1] already" in message
