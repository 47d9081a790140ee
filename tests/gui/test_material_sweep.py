"""Issue 29 item 8: the Sweep tab sweeps a part-made link's material (the README's design story needed the
command line): the window's designs are the command line's, and their masses follow the densities."""

from __future__ import annotations

import math

import numpy as np
import pytest

from designer.explore.sweep import SweepAxis, SweepSpec, sweep
from designer.jobs import run
from designer.model.parts import MATERIALS
from designer.project import load_project
from tests.support import robot_path

pytestmark = pytest.mark.usefixtures("no_dialogs")


def test_the_sweep_tab_sweeps_a_links_material(qtbot):
    from designer.gui.explore_panel import ExplorePanel
    model = load_project(robot_path("tube_arm"))
    panel = ExplorePanel()
    qtbot.addWidget(panel)
    panel.set_model(model)
    panel.set_joint_values(np.array([0.0, -0.5, 0.8]))
    panel.picker.set_metric("gravity[2]")
    view = panel.sweep_view
    combo = view.params[0]
    offered = [combo.itemData(k) for k in range(combo.count())]
    assert {"material[1]", "material[2]", "material[3]"} <= set(offered)   # the tube arm's three part-made links
    combo.setCurrentIndex(offered.index("material[2]"))
    assert combo.currentText() == "material of link 2 (upper arm)"
    assert view.materials[0].isVisibleTo(view) and not view.starts[0].isVisibleTo(view)
    assert "steel" in view.materials[0].text() and "CFRP" in view.materials[0].text()
    view.materials[0].setText("steel, CFRP, aluminium 6061-T6")
    view.samples.setValue(20)
    with qtbot.waitSignal(panel.jobEnded, timeout=120_000):
        view.run()
    result = view.result
    assert result is not None and result.spec.axes[0].labels == ("steel", "CFRP", "aluminium 6061-T6")
    # the command line's sweep of the same axis gives the same designs (its --material LINK NAMES)
    spec = SweepSpec((SweepAxis.materials(2, ["steel", "CFRP", "aluminium 6061-T6"]),), result.spec.metrics,
                     result.spec.stats, 20, ratings=result.spec.ratings)
    cli = run(sweep(model, spec))
    for key in result.values:
        np.testing.assert_allclose(result.values[key], cli.values[key], rtol=1e-12, equal_nan=True)
    # physics: the masses differ by the tube's volume times the densities' difference
    p = model.parameter_values
    D, t, L = p["D2"], p["t2"], p["L2"]
    volume = math.pi / 4 * (D**2 - (D - 2 * t) ** 2) * L
    mass = result.values["total_mass"]
    assert mass[0] - mass[1] == pytest.approx(volume * (MATERIALS["steel"].density - MATERIALS["CFRP"].density),
                                              rel=1e-6)
    assert mass[2] == pytest.approx(model_mass(model), rel=1e-9)   # aluminium 6061-T6: the project's own
    # read by name: the axis' ticks, title and the CSV
    ticks = view.curves.plot.getAxis("bottom")._tickLevels
    assert ticks and [name for _, name in ticks[0]] == ["steel", "CFRP", "aluminium 6061-T6"]
    assert view.curves.plot.getAxis("bottom").labelText == "material of link 2"
    header, rows = view.csv_data()
    assert header[0] == "material of link 2" and [r[0] for r in rows] == ["steel", "CFRP", "aluminium 6061-T6"]
    # the Pareto view loads a design with its material (not a parameter named "material[2]")
    loaded = []
    panel.loadDesignRequested.connect(loaded.append)
    panel.pareto_view.load_design(1)
    assert loaded and loaded[0].links[1].part.material.name == "CFRP"
    assert loaded[0].parameter_values == model.parameter_values


def model_mass(model) -> float:
    """The links' and point masses' sum, from the model's own expressions at its parameter values."""
    import sympy as sp
    values = {sp.Symbol(k): v for k, v in model.parameter_values.items()}
    exprs = [link.mass for link in model.links] + [pm.mass for pm in model.point_masses]
    return sum(float(sp.sympify(e).subs({s: values[sp.Symbol(s.name)] for s in sp.sympify(e).free_symbols}))
               for e in exprs)
