"""The Equations tab: one out-of-date banner naming the right reason, no finished-looking progress bar
for a model that has no equations yet."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel

from designer.dynamics import derive
from designer.dynamics.results import Method, SimplifyMode
from designer.gui.derivation import DerivationPanel
from designer.gui.document import Document
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def panel(qtbot):
    doc = Document(load_project(ROBOTS / "double_pendulum.json"))
    p = DerivationPanel(doc, lambda model, method, simplify, token: _job(model, method, simplify))
    qtbot.addWidget(p)
    p.show()
    qtbot.waitExposed(p)
    return p


def _job(model, method, simplify):
    return derive(model, method, simplify)
    yield  # a generator job


def _banners(panel) -> list[QLabel]:
    return [w for w in panel.findChildren(QLabel) if w.isVisible() and "out of date" in w.text().lower()]


def test_a_fresh_model_shows_no_finished_progress(panel):
    assert panel.progress.value() == 0 and panel.progress.format() != "done"
    assert panel.view.title.text().startswith("No equations")


def test_one_banner_and_the_reason_for_it(qtbot, panel):
    with qtbot.waitSignal(panel.derivationFinished, timeout=120_000):
        panel.start()
    assert panel.progress.format() == "done" and not _banners(panel)
    panel.set_method(Method.NEWTON_EULER)          # only the method changes
    banners = _banners(panel)
    assert len(banners) == 1
    assert "model changed" not in banners[0].text() and "Newton-Euler" in banners[0].text()
    assert panel.progress.format() != "done"
    panel.set_method(Method.LAGRANGE, SimplifyMode.FULL)
    assert "full simplification" in _banners(panel)[0].text()
    panel.set_method(Method.LAGRANGE, SimplifyMode.FAST)
    assert not _banners(panel)
    doc = panel.document
    doc.apply(doc.model.with_parameter("m1", 5.0), "Set m1")   # an edit
    banners = _banners(panel)
    assert len(banners) == 1 and "model changed" in banners[0].text()
