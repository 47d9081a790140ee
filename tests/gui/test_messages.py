"""Messages that told the user something untrue (issue 20, items 5 and 11): a filter kept from an earlier
model hid every entry without saying so; "kept the equations on display" when none were shown; a bad
DH cell missing from Problems; the status bar naming a cell differently from the table."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from designer.dynamics import derive_job
from designer.gui.derivation import DerivationPanel
from designer.gui.dh_table import COLUMNS
from designer.gui.document import Document
from designer.project import load_project
from tests.gui.test_equations_view import robmat_double_pendulum
from tests.support.anyarm_arms import symbolic_arm
from tests.support.windows import open_window
from tests.support.questions import answer_question

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, ROBOTS / "double_pendulum.json")


def test_a_filter_that_hides_every_entry_of_new_equations_says_so(qtbot):
    from designer.gui.equations_view import EquationsView
    view = EquationsView()
    qtbot.addWidget(view)
    view.show()
    view.search.setText("Ixx5")              # typed for another arm: no entry of the pendulum has it
    eq = robmat_double_pendulum()
    view.set_equations(eq)
    total = len(view.model.entries)
    assert view.entry_count() == 0
    assert view.count_label.text() == f"0 of {total} shown" and view.count_label.isVisible()
    assert "0 of" in view.math.text() and "Ixx5" in view.math.text()
    view.search.setText("m2")                 # some match: the count says how many
    shown = view.entry_count()
    assert 0 < shown < total and view.count_label.text() == f"{shown} of {total} shown"
    view.search.clear()
    view.hide_zero.setChecked(False)
    assert view.entry_count() == total and view.count_label.text() == ""


def test_a_new_project_clears_the_filter(qtbot, window):
    window.derivation.view.search.setText("m2")
    window.document.reset(load_project(ROBOTS / "puma560.json"), None)
    assert window.derivation.view.search.text() == ""


@pytest.mark.usefixtures("no_dialogs")
def test_declining_the_recursive_form_with_nothing_shown_does_not_claim_equations_are_kept(qtbot):
    doc = Document(symbolic_arm(6))      # about 5e10 terms expanded: the derivation offers the recursive form
    panel = DerivationPanel(doc, lambda model, method, simplify, token: derive_job(model, method, simplify, token))
    qtbot.addWidget(panel)
    panel.show()
    messages: list[str] = []
    panel.message.connect(messages.append)
    answer_question(panel, QMessageBox.StandardButton.No, "show the recursive form instead?")
    panel.start()
    qtbot.waitUntil(lambda: not panel.busy and bool(messages), timeout=120_000)
    assert panel.shown is None
    assert "kept" not in panel.progress.format() and "no equations shown" in panel.progress.format()
    assert "kept" not in messages[-1]


def test_a_bad_dh_cell_counts_under_problems_in_the_tables_words(window):
    tab = window.result_tabs.indexOf(window.problems)
    before_count = window.problems.count()
    model = window.document.model
    window.dh_table.table_model.set_text(1, COLUMNS.index("a"), "0.3 +")
    assert window.document.model == model                         # the model keeps its value
    message = window.statusBar().currentMessage()
    assert message.startswith("link 2, a:") and "links[" not in message
    texts = [window.problems.item(k).text() for k in range(window.problems.count())]
    refused = [t for t in texts if "link 2, a" in t]
    assert len(refused) == 1 and refused[0].startswith("error")
    assert window.result_tabs.tabText(tab).startswith("Problems (")
    # the Problems entry leads to the link, like the model's own problems
    item = next(window.problems.item(k) for k in range(window.problems.count())
                if "link 2, a" in window.problems.item(k).text())
    chosen: list[int] = []
    window.problems.linkChosen.connect(chosen.append)
    window.problems.itemClicked.emit(item)
    assert chosen == [1]
    # a good entry removes it
    window.dh_table.table_model.set_text(1, COLUMNS.index("a"), "0.3")
    texts = [window.problems.item(k).text() for k in range(window.problems.count())]
    assert not any("link 2, a" in t for t in texts) and window.problems.count() <= max(before_count, 1)


def test_inspector_fields_are_named_as_the_window_names_them(window):
    window.inspector.com[2].submit("1 +")
    message = window.statusBar().currentMessage()
    assert message.startswith("link 1, centre of mass z:"), message


def test_a_bad_editor_field_counts_under_problems_until_replaced_or_left(window):
    def refused() -> list[str]:
        return [window.problems.item(k).text() for k in range(window.problems.count())
                if "entry refused" in window.problems.item(k).text()]
    window.inspector.com[2].submit("1 +")
    assert len(refused()) == 1 and "link 1, centre of mass z" in refused()[0] and "(the model keeps 0)" in refused()[0]
    window.loads.gravity[0].submit("g/")
    assert len(refused()) == 2
    window.inspector.com[2].submit("0.1")                 # a good entry replaces it
    assert len(refused()) == 1
    window.loads.gravity[0].submit("0")
    window.inspector.com[1].submit("bad(")
    window.dh_table.select_link(1)                         # another link: the entry no longer applies
    assert refused() == []
