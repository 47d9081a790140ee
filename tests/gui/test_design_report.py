"""File > Export > Design report: the 3D view at the current pose and the coupling plots (and a
current Explore map) grabbed from the window into HTML and PDF files."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QImage

from designer.project import load_project
from tests.report.test_design_report import pdf_pages

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


def shown_window(qtbot, tmp_path, robot: str):
    """A main window on ``robots/ROBOT.json`` with private settings, shown at 1366 x 768."""
    from designer.gui.main_window import MainWindow
    w = MainWindow(load_project(ROBOTS / f"{robot}.json"),
                   settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                   recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.fixture
def window(qtbot, tmp_path):
    return shown_window(qtbot, tmp_path, "planar_two_link")


def images(html: str) -> list[QImage]:
    out = []
    for data in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html):
        image = QImage()
        assert image.loadFromData(base64.b64decode(data), "PNG")
        out.append(image)
    return out


def distinct_colours(image: QImage) -> int:
    small = image.scaled(64, 48)
    return len({small.pixel(x, y) for x in range(small.width()) for y in range(small.height())})


def test_html_report_holds_the_3d_view_and_coupling_plots(qtbot, window, tmp_path):
    from designer.gui.design_export import export_design_report
    window.sliders.set_values(np.array([0.6, -1.1]))
    target = tmp_path / "report.html"
    with qtbot.waitSignal(window.exported, timeout=120_000):
        assert export_design_report(window, "html", target)
    html = target.read_text(encoding="utf-8")
    shots = images(html)
    assert len(shots) == 2                                  # 3D view, coupling (no map computed)
    view = window.arm_view.view
    assert shots[0].width() == round(view.width() * view.devicePixelRatioF()) and shots[0].height() > 100
    assert distinct_colours(shots[0]) > 5                   # the arm drawn, not a blank frame
    assert distinct_colours(shots[1]) > 5
    assert "q1 = 34.4°, q2 = -63.0°" in html               # the pose the view shows
    for link in window.document.model.links:
        assert f"<td>{link.name}</td>" in html


def test_pdf_report_with_equations_and_the_explore_map(qtbot, window, tmp_path):
    from designer.gui.design_export import export_design_report, grab_figures
    with qtbot.waitSignal(window.derivation.derivationFinished, timeout=120_000):
        window.derivation.start()
    mv = window.explore.map_view
    mv.steps.setValue(8)
    mv.samples.setValue(0)
    mv.compute()
    qtbot.waitUntil(lambda: mv.result is not None, timeout=120_000)
    figures, notes = grab_figures(window)
    assert [f.title for f in figures] == ["The arm in the 3D view", "Coupling plots", "Explore map"]
    window.simulate.duration.setValue(0.4)
    with qtbot.waitSignal(window.simulate.finished, timeout=120_000):
        window.simulate.run()
    figures, notes = grab_figures(window)
    assert [f.title for f in figures] == ["The arm in the 3D view", "Coupling plots", "Simulation", "Explore map"]
    target = tmp_path / "report.pdf"
    with qtbot.waitSignal(window.exported, timeout=120_000):
        assert export_design_report(window, "pdf", target)
    data = target.read_bytes()
    assert data.startswith(b"%PDF")
    assert pdf_pages(data) >= 1 + 4 + 1                     # tables, four figures, equations
    # after an edit the map is out of date: left out, and said so
    window.document.apply(window.document.model.with_parameter("m2", 3.0), "Set m2")
    figures, notes = grab_figures(window)
    assert "Explore map" not in [f.title for f in figures]
    assert any("Explore map is out of date" in n for n in notes)
    assert "Simulation" not in [f.title for f in figures] and any("simulation is out of date" in n for n in notes)


def test_figure_captions_count_joints_from_one_as_the_window_does(qtbot, window):
    from designer.gui.design_export import grab_figures
    window.coupling.set_pair(0, 1)
    figures, _notes = grab_figures(window)
    coupling = next(f for f in figures if f.title == "Coupling plots")
    assert coupling.caption.startswith("joints q1 and q2,")   # named as the window names them (q4 of a closed chain)
    assert window.coupling.joint_i.value() == 1 and window.coupling.joint_j.value() == 2


def test_the_coupling_figure_sweeps_a_joint_the_pair_varies_with(qtbot, tmp_path):
    """M of a serial arm whose first joint turns about gravity never depends on q1: a PUMA's M_12 swept
    over q1 is a flat line. The report sweeps a joint M_12 varies with instead, and its curve is not flat."""
    from designer.gui.design_export import grab_figures
    w = shown_window(qtbot, tmp_path, "puma560")
    coupling = w.coupling
    coupling.set_pair(0, 1)
    coupling.set_swept_joint(0)
    coupling.refresh()
    flat = np.ptp(coupling.plot_coupling.listDataItems()[0].getData()[1])   # the window's own q1 sweep
    figures, _notes = grab_figures(w)
    figure = next(f for f in figures if f.title == "Coupling plots")
    assert figure.caption.startswith("joints q1 and q2,") and not figure.caption.endswith("q1")
    x, y = coupling.plot_coupling.listDataItems()[0].getData()
    assert np.ptp(y) > 0.05 * np.abs(y).max() and np.ptp(y) > 1e6 * max(flat, 1e-300)
