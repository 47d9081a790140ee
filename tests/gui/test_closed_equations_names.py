"""A closed chain's closed-form equations in the Equations tab name the actuated joints as the sliders do
(issue 29 item 6): the palletizer's entries read q1, q2, q4, q6, not the renumbered q1..q4."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from designer.model import symbol
from designer.numeric.closed import ClosedDynamics
from designer.project import load_project
from tests.support import robot_path
from tests.support.windows import open_window

pytestmark = pytest.mark.usefixtures("no_dialogs")


def test_the_palletizers_equations_use_the_sliders_names(qtbot, tmp_path):
    window = open_window(qtbot, tmp_path, robot_path("palletizer_parallelogram"))
    panel = window.derivation
    with qtbot.waitSignal(panel.derivationFinished, timeout=300_000):
        panel.start()
    view = panel.view
    view.hide_zero.setChecked(False)
    labels = view.visible_labels()
    # M over the actuated joints 1, 2, 4, 6 by their tree numbers; no q3 or q5 (the passive joints) anywhere
    assert {"M_11", "M_24", "M_46", "M_66", "G_4", "C_64", "B_2,46"} <= set(labels) and "M_23" not in labels
    entries = {view.model.entries[k].label: view.model.entries[k] for k in range(len(view.model.entries))}
    used = set().union(*(sp.sympify(e.expr).free_symbols for e in entries.values()))
    names = {s.name for s in used}
    assert {"q2", "q4"} <= names and not names & {"q3", "q5", "qd3", "qd5", "qdd3", "qdd5"}
    assert "q1, q2, q4, q6 as the sliders name them" in view.title.text()
    # the shown entries are M_a over (q1, q2, q4, q6): the numeric projection W^T M W at a pose, independently
    model = load_project(robot_path("palletizer_parallelogram"))
    cd = ClosedDynamics(model)
    assert [int(i) + 1 for i in cd.act] == [1, 2, 4, 6]
    qa = np.array([0.3, 0.2, -0.4, 0.5])
    Ma = cd.M(qa)
    values = {symbol(k): v for k, v in model.parameter_values.items()}
    values.update({symbol(f"q{j}"): v for j, v in zip((1, 2, 4, 6), qa)})
    for (r, c) in ((0, 0), (1, 2), (2, 3), (1, 1)):
        label = f"M_{(1, 2, 4, 6)[r]}{(1, 2, 4, 6)[c]}"
        shown = float(sp.sympify(entries[label].expr).xreplace(values))
        assert shown == pytest.approx(Ma[r, c], rel=1e-8, abs=1e-9), label
