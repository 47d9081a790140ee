"""A closed form too large to expand: the window asks before it shows the recursive form instead
(Yes shows it, No keeps the equations on display), with the size estimate in the question."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from designer.dynamics import derive_job
from designer.dynamics.results import Form
from designer.gui.derivation import DerivationPanel
from designer.gui.document import Document
from designer.gui.equations_view import about
from designer.project import load_project

from designer.dynamics.engine import AUTO_LIMIT

from tests.support.anyarm_arms import generic_arm, symbolic_arm
from tests.support.questions import answer_question

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


def _answer(owner, button: QMessageBox.StandardButton) -> list[str]:
    """Click ``button`` of the next closed-form question (a look owned by ``owner``: it ends with it)."""
    return answer_question(owner, button, "show the recursive form instead?")


@pytest.fixture
def panel(qtbot):
    doc = Document(load_project(ROBOTS / "double_pendulum.json"))
    p = DerivationPanel(doc, lambda model, method, simplify, token: derive_job(model, method, simplify, token))
    qtbot.addWidget(p)
    p.show()
    qtbot.waitExposed(p)
    with qtbot.waitSignal(p.derivationFinished, timeout=120_000):
        p.start()                      # a closed form on display, no question asked
    assert p.shown[1].form is Form.CLOSED
    # every parameter a symbol: 5e10 terms estimated, far too large (a numeric 5-joint arm is derived in seconds)
    p.document.apply(symbolic_arm(6), "Open a generic six-joint arm")
    return p


def _question(seen: list[str]) -> None:
    assert len(seen) == 1
    match = re.fullmatch(r"The expanded tau_(\d) has about ([\d,]+) terms; show the recursive form instead\?", seen[0])
    assert match, seen[0]
    assert int(match.group(2).replace(",", "")) > AUTO_LIMIT


def test_yes_shows_the_recursive_form(qtbot, panel):
    seen = _answer(panel, QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(panel.derivationFinished, timeout=120_000):
        panel.start()
    _question(seen)
    eq, stale = panel.current_equations()
    assert eq.form is Form.COMPACT and not stale and eq.model.n == 6
    assert panel.view.equations is eq and "w2_x" in panel.view.visible_labels()
    assert not panel.view.banner.isVisible()


def test_no_keeps_the_equations_on_display(qtbot, panel):
    before = panel.shown[1]
    seen = _answer(panel, QMessageBox.StandardButton.No)
    messages: list[str] = []
    panel.message.connect(messages.append)
    panel.start()
    # the state it needs: the question answered, the job's end handled and its message out (not "idle" alone)
    qtbot.waitUntil(lambda: bool(seen) and not panel.busy and bool(messages), timeout=300_000)
    assert messages[-1] == "The closed form is too large to expand: kept the equations on display"
    _question(seen)
    assert panel.shown[1] is before and panel.view.equations is before
    assert panel.view.banner.isVisible()            # still the pendulum's: out of date for this model
    assert panel.key() not in panel.cache           # Derive asks again next time
    assert panel.derive_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_a_closed_form_past_its_time_budget_asks_too(qtbot):
    """The other reason for the recursive form: the expansion did not finish within its time budget
    (here none at all: the budget is spent before the first step)."""
    doc = Document(generic_arm(4))
    p = DerivationPanel(doc, lambda model, method, simplify, token: derive_job(model, method, simplify, token,
                                                                              time_limit=0.0))
    qtbot.addWidget(p)
    seen = _answer(p, QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(p.derivationFinished, timeout=120_000):
        p.start()
    assert len(seen) == 1 and re.fullmatch(r"The closed form did not finish within 0 s \(it had reached .*\); "
                                           r"show the recursive form instead\?", seen[0]), seen
    assert p.shown[1].form is Form.COMPACT and p.shown[1].extras["too_slow"][0] == 0.0


@pytest.mark.parametrize("terms, text", [(7, "7"), (183, "180"), (534_871_022, "530,000,000")])
def test_term_counts_read_as_a_person_reads_them(terms, text):
    assert about(terms) == text
