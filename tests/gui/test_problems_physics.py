"""The Problems panel lists the checks of the numbers (designer/numeric/checks.py) besides validate:
a mass matrix that is not positive definite, and an inertia whose principal moments break the
triangle inequality though its diagonal does not."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from designer.gui.document import Document
from designer.gui.problems import ProblemsPanel
from designer.model import Inertia, Link, Manipulator

pytestmark = pytest.mark.usefixtures("no_dialogs")


def _texts(panel) -> list[str]:
    return [panel.item(k).text() for k in range(panel.count())]


def test_the_panel_shows_the_checks_of_the_numbers(qtbot, monkeypatch):
    """A model validate passes but whose M is not positive definite (numbers that cancel) is hard to
    write down; the check itself is tested in tests/model/test_physical_checks.py. Here: the panel
    lists what the check finds, counted as an error."""
    from designer.model import Problem, Severity
    from designer.numeric import checks
    good = Manipulator(links=(Link(mass=1, com=(0.1, 0, 0), inertia=Inertia(0.01, 0.01, 0.01)),),
                       gravity=(0, 0, -9.81))
    doc = Document(good)
    panel = ProblemsPanel(doc)
    qtbot.addWidget(panel)
    counts = []
    panel.countChanged.connect(lambda e, w: counts.append((e, w)))
    assert not any("positive definite" in t for t in _texts(panel))
    found = Problem(Severity.ERROR, "links", "the mass matrix is not positive definite at q = (0.1)")
    monkeypatch.setattr(checks, "mass_matrix_problems", lambda model: [found])
    doc.apply(good.with_link(0, replace(good.links[0], mass=2)), "heavier")
    assert any("error: links: the mass matrix is not positive definite at q = (" in t for t in _texts(panel))
    assert counts[-1] == (1, 0)


def test_the_panel_shows_an_impossible_inertia_in_turned_axes(qtbot):
    def turned(seed):
        Q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))
        return Q @ np.diag([0.01, 0.02, 0.05]) @ Q.T

    def plausible(I):   # the diagonal alone obeys the triangle inequality
        d = np.diag(I)
        return d[0] + d[1] >= d[2] and d[1] + d[2] >= d[0] and d[0] + d[2] >= d[1]
    inertia = next(I for I in map(turned, range(100)) if plausible(I))
    model = Manipulator(links=(Link(mass=1, inertia=Inertia.from_matrix(inertia.tolist())),), gravity=(0, 0, -9.81))
    panel = ProblemsPanel(Document(model))
    qtbot.addWidget(panel)
    assert any("link 1, inertia: breaks the triangle inequality" in t for t in _texts(panel))
