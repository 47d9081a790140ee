"""The window fits a laptop screen, the Explore panel fits its column, long equations scroll."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import sympy as sp
from PySide6.QtCore import QPoint, QRect, QSettings

from designer.gui.main_window import MainWindow
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    w = MainWindow(load_project(ROBOTS / "puma560.json"), settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    return w


def _inside(widget, window) -> bool:
    """Whether ``widget`` is shown and lies wholly inside the window's client area."""
    top_left = widget.mapTo(window, QPoint(0, 0))
    rect = QRect(top_left, widget.size())
    return widget.isVisible() and not widget.visibleRegion().isEmpty() and window.rect().contains(rect)


@pytest.mark.parametrize("size", [(1366, 768), (1600, 1000)])
def test_the_window_fits_the_screen_with_its_panels_and_sliders(qtbot, window, size):
    screen = QRect(0, 0, size[0], size[1] - 30)   # less a task bar
    window.fit_to_screen(screen)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(50)
    assert window.width() <= screen.width() and window.height() <= screen.height()
    assert window.minimumSizeHint().width() <= screen.width()
    assert window.minimumSizeHint().height() <= screen.height()
    assert _inside(window.result_tabs, window) and _inside(window.derivation.derive_button, window)
    assert len(window.sliders.sliders) == 6
    for slider, spin in zip(window.sliders.sliders, window.sliders.spins):
        assert _inside(slider, window) and _inside(spin, window)
    assert _inside(window.arm_view, window) and window.arm_view.height() >= 200


def test_the_explore_panel_fits_its_column_at_1600(qtbot, window):
    window.fit_to_screen(QRect(0, 0, 1600, 970))
    window.show()
    qtbot.waitExposed(window)
    window.result_tabs.setCurrentIndex(window.result_tabs.indexOf(window.explore_scroll))
    qtbot.wait(50)
    scroll = window.explore_scroll
    assert scroll.isVisible()
    for view in window.explore.views():   # every tab, not only the first
        window.explore.tabs.setCurrentWidget(view)
        qtbot.wait(10)
        assert not scroll.horizontalScrollBar().isVisible(), type(view).__name__
        assert window.explore.minimumSizeHint().width() <= scroll.viewport().width()


def _typeset(qtbot, view, expr):
    from designer.gui.equations_view import EquationsView
    from tests.support.report_equations import robmat_double_pendulum
    eq = robmat_double_pendulum()
    view.set_equations(replace(eq, matrices={"M": sp.Matrix([[expr]])}))
    view.select_row(0)
    count = view.rendered_count
    qtbot.waitUntil(lambda: view.rendered_count > count, timeout=120_000)
    EquationsView.wait_for_background()
    qtbot.wait(50)
    return view.math_scroll


def test_a_long_sum_is_typeset_in_lines_as_wide_as_the_pane_and_a_long_term_scrolls(qtbot):
    from designer.gui.equations_view import EquationsView
    view = EquationsView()
    qtbot.addWidget(view)
    view.resize(420, 500)
    view.show()
    qtbot.waitExposed(view)
    q = sp.symbols("q1:7")
    long_sum = sum(sp.Symbol(f"L{k}") * sp.sin(q[k % 6]) * sp.cos(q[(k + 1) % 6]) for k in range(40))
    scroll = _typeset(qtbot, view, long_sum)
    # broken into lines that fit the pane (70-character lines were about 600 px, wider than it)
    assert view.math.pixmap().height() > 6 * view.fontMetrics().height()    # many lines
    assert view.math.pixmap().width() <= scroll.viewport().width()
    assert not scroll.horizontalScrollBar().isVisible()
    # one product that cannot be broken: the pane scrolls sideways, all of it reachable
    long_term = sp.Mul(*[sp.sin(sp.Symbol(f"x{k}")) for k in range(30)])
    scroll = _typeset(qtbot, view, long_term)
    assert view.math.pixmap().width() > scroll.viewport().width()
    bar = scroll.horizontalScrollBar()
    assert bar.maximum() >= view.math.pixmap().width() - scroll.viewport().width() > 0


# -- a laptop and a desktop screen: every panel whole (issue 20, items 4 and 7) -------------------------
SCREENS = [(1366, 768), (1920, 1080)]


def _show_at(qtbot, window, size):
    """The window as it opens on a screen of ``size`` (less a task bar), then maximised there."""
    screen = QRect(0, 0, size[0], size[1] - 30)
    window.fit_to_screen(screen)
    window.show()
    qtbot.waitExposed(window)
    window.setGeometry(screen)   # maximised: the columns share the extra width
    qtbot.waitUntil(lambda: window.width() == screen.width(), timeout=120_000)
    qtbot.wait(50)
    return screen


def _text_fits(widget, text: str, width: int, padding: int = 6) -> bool:
    return widget.fontMetrics().horizontalAdvance(text) + padding <= width


@pytest.mark.parametrize("size", SCREENS)
def test_the_dh_table_shows_every_row_and_whole_cells(qtbot, window, size):
    _show_at(qtbot, window, size)
    view = window.dh_table.view
    model = view.model()
    assert model.rowCount() == 6
    assert _inside(view, window)
    for row in range(6):   # every row whole in the viewport, no scrolling needed
        top = view.rowViewportPosition(row)
        assert top >= 0 and top + view.rowHeight(row) <= view.viewport().height(), row
    assert not view.verticalScrollBar().isVisible() and not view.horizontalScrollBar().isVisible()
    for row in range(6):   # and no cell elided ("shou…"): its text fits its column
        for col in range(model.columnCount()):
            text = str(model.index(row, col).data() or "")
            assert _text_fits(view, text, view.columnWidth(col)), (row, col, text, view.columnWidth(col))
    # numbers as an imported arm has them ("0.08…" was cut) fit too
    for row, col, text in ((1, 2, "0.425"), (0, 4, "0.089159"), (3, 4, "0.10915"), (2, 2, "0.39225")):
        assert model.setData(model.index(row, col), text)
    qtbot.wait(50)
    for row in range(6):
        for col in range(model.columnCount()):
            text = str(model.index(row, col).data() or "")
            assert _text_fits(view, text, view.columnWidth(col)), (row, col, text, view.columnWidth(col))
    assert _inside(view, window) and not view.horizontalScrollBar().isVisible()


@pytest.mark.parametrize("size", SCREENS)
def test_the_readout_shows_its_text_inside_its_label(qtbot, window, size):
    from designer.gui.message_line import shown_lines
    _show_at(qtbot, window, size)
    readout = window.readout
    window.sliders.set_values([0.0] * 6)   # the PUMA's zero pose is singular: the longest read-out
    assert readout.near_singular and _inside(readout, window)
    lines = readout.text().split("\n")
    assert shown_lines(readout) == lines   # nothing cut at either size
    metrics = readout.fontMetrics()
    assert len(lines) * metrics.lineSpacing() <= readout.contentsRect().height()
    assert all(metrics.horizontalAdvance(line) <= readout.contentsRect().width() for line in lines)
    # a narrow centre column elides (the tooltip has it all) instead of growing or clipping the box
    height = readout.height()
    window.splitters["main"].setSizes([700, 300, 700])
    qtbot.wait(20)
    assert readout.height() == height and "singularity" in readout.toolTip()


@pytest.mark.parametrize("size", SCREENS)
@pytest.mark.parametrize("robot", ["tube_arm", "palletizer_parallelogram"])
def test_the_elastic_readout_is_whole_at_both_sizes(qtbot, tmp_path, size, robot):
    """The tube arm's lowest frequency (with the links' bending), its rigid-link figure and the sag, and the
    palletizer's cut-joint force and elastic lines, each whole on its own line (they were cut after "30.3...",
    the rigid-link figure and the sag only in the tooltip)."""
    from designer.gui.message_line import shown_lines
    from tests.gui.test_closed_modes import with_stiffness
    model = load_project(ROBOTS / f"{robot}.json")
    model = with_stiffness(model) if robot.startswith("palletizer") else model
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    window = MainWindow(model, settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    _show_at(qtbot, window, size)
    readout = window.readout
    text = readout.text()
    lines = text.split("\n")
    assert "lowest natural frequency" in text and "tool sag" in text and len(lines) == readout.rows
    assert ("with rigid links" in text) == (robot == "tube_arm")
    assert ("cut joint holds" in text) == (robot != "tube_arm")
    assert shown_lines(readout) == lines and _inside(readout, window)   # nothing elided
    assert len(lines) * readout.fontMetrics().lineSpacing() <= readout.contentsRect().height()


@pytest.mark.parametrize("size", SCREENS)
def test_the_drive_tables_stiffness_and_damping_show_without_scrolling(qtbot, tmp_path, size):
    """The tube arm's Drives tab: the gear ratio, stiffness and damping columns lie whole inside the table's view
    (the stiffness was beyond a horizontal scroll, issue 29 item 10)."""
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    window = MainWindow(load_project(ROBOTS / "tube_arm.json"), settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.editor_tabs.setCurrentWidget(window.drives)
    _show_at(qtbot, window, size)
    view, model = window.drives.drive_view, window.drives.drive_model
    qtbot.waitUntil(lambda: view.isVisible() and view.viewport().width() > 0, timeout=60_000)
    for name in ("gear_ratio", "stiffness", "damping"):
        col = model.fields.index(name)
        rect = view.visualRect(model.index(0, col))
        assert view.viewport().rect().contains(rect), (name, rect, view.viewport().rect())
        assert view.horizontalHeader().sectionSize(col) >= view.sizeHintForColumn(col)   # the numbers whole


@pytest.mark.parametrize("robot", ["puma560", "palletizer_parallelogram", "tube_arm"])
def test_the_window_stays_usable_at_1024_by_700(qtbot, tmp_path, robot):
    """Issue 29 item 9: at 1024 px the window was wider than the screen (its minimum 1195 px), "Hide zeros" lay over
    the filter field and the filtered count was cut. Every result tab's page fits the right column, and the
    equations' filter row and buttons lie side by side, whole, inside the window."""
    from designer.gui.main_window import FRAME
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    window = MainWindow(load_project(ROBOTS / f"{robot}.json"), settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    screen = QRect(0, 0, 1024, 700 - 30)
    window.fit_to_screen(screen)
    window.show()
    qtbot.waitExposed(window)
    assert window.minimumSizeHint().width() <= screen.width() - FRAME[0]
    assert window.width() <= screen.width() and window.height() <= screen.height()
    tabs = window.result_tabs
    for k in range(tabs.count()):   # no page asks for more than the column has
        assert tabs.widget(k).minimumSizeHint().width() <= tabs.width(), tabs.tabText(k)
    view = window.derivation.view
    view.count_label.setText("888 of 888 shown")   # the longest count a filter shows
    qtbot.wait(50)
    row = [view.search, view.hide_zero, view.count_label]
    for widget in (*row, view.copy_latex_button, view.copy_text_button, window.derivation.derive_button):
        assert _inside(widget, window), type(widget).__name__
        assert widget.width() >= widget.minimumSizeHint().width(), type(widget).__name__   # nothing squeezed
    for left, right in zip(row, row[1:]):   # side by side, none over another
        assert left.geometry().right() < right.geometry().left(), (left, right)
    assert view.count_label.fontMetrics().horizontalAdvance(view.count_label.text()) <= view.count_label.width()
    for widget in (window.dh_table, window.editor_tabs, window.arm_view, window.readout, window.sliders):
        assert _inside(widget, window), type(widget).__name__
    bar = window.result_tabs.tabBar()   # every result tab there, History not behind scroll arrows
    for k in range(bar.count()):
        assert bar.rect().contains(bar.tabRect(k)) and bar.tabRect(k).width() > 30, bar.tabText(k)
    # the 3D view's Show menu stays on its bar, not in the overflow (it went there after a resize: item 15)
    from PySide6.QtWidgets import QToolButton
    bar = window.arm_view.toolbar
    show = next(b for b in bar.findChildren(QToolButton) if b.text() == "Show")
    qtbot.waitUntil(show.isVisible, timeout=60_000)
    assert _inside(show, window) and bar.rect().contains(show.geometry())


@pytest.mark.parametrize("size", SCREENS)
def test_every_result_tab_title_is_visible_and_the_columns_grow_with_the_window(qtbot, window, size):
    screen = QRect(0, 0, size[0], size[1] - 30)
    window.fit_to_screen(screen)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(20)
    before = window.splitters["main"].sizes()
    _show_at(qtbot, window, size)
    bar = window.result_tabs.tabBar()
    for k in range(bar.count()):   # History was behind scroll arrows, even maximised at 1920 x 1080
        assert bar.rect().contains(bar.tabRect(k)), bar.tabText(k)
    bar = window.editor_tabs.tabBar()   # and the left column's: "Drives & frames" was cut (issue 29 item 10)
    for k in range(bar.count()):
        assert bar.rect().contains(bar.tabRect(k)), bar.tabText(k)
    after = window.splitters["main"].sizes()
    if window.width() > sum(before) + 100:   # the window grew: so did every column
        assert all(a > b for a, b in zip(after, before)), (before, after)
    for widget in (window.dh_table, window.editor_tabs, window.arm_view, window.readout, window.result_tabs):
        assert _inside(widget, window), type(widget).__name__


@pytest.mark.parametrize("size", SCREENS)
def test_the_typeset_pane_gets_a_fair_share_of_the_equations_tab(qtbot, window, size):
    _show_at(qtbot, window, size)
    splitter = window.derivation.view.splitter if hasattr(window.derivation, "view") else None
    if splitter is None:
        from designer.gui.equations_view import EquationsView
        splitter = window.derivation.findChild(EquationsView).splitter
    table, pane = splitter.sizes()
    assert pane >= 0.35 * (table + pane) and pane >= 150, (table, pane)   # it was about 60 px


def _explore_scroll(window):
    return window.explore_scroll


@pytest.mark.parametrize("size", SCREENS)
def test_no_message_widens_the_explore_panel(qtbot, window, size):
    _show_at(qtbot, window, size)
    scroll = _explore_scroll(window)
    window.result_tabs.setCurrentWidget(scroll)
    explore = window.explore
    view = explore.map_view
    view.steps.setValue(7)
    view.samples.setValue(0)
    with qtbot.waitSignal(explore.runner.ended, timeout=120_000):
        assert view.compute() is not None, explore.runner.error.text()
    qtbot.wait(20)
    # a click on the map writes "Pose from the map: q1 = ..., q6 = ..."
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtTest import QTest
    i, j = view.result.grid.joints
    widget = view.box.layout_widget
    point = view.box.plot.vb.mapViewToScene(QPointF(float(view.result.grid.x[2] * 57.2958),
                                                    float(view.result.grid.y[3] * 57.2958)))
    QTest.mouseClick(widget.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     widget.mapFromScene(point))
    qtbot.waitUntil(lambda: "Pose from the map" in explore.runner.status.text(), timeout=120_000)
    long_messages = ["Pose from the map: " + ", ".join(f"q{k} = {k * 11.111:.4g} deg" for k in range(1, 7)),
                     "Wrote /a/very/long/folder/name/that/goes/on/and/on/for/ever/explore-map-of-the-puma.csv",
                     "Loaded design " + ", ".join(f"parameter_{k} = {k / 7:.6g}" for k in range(12))]
    for message in long_messages:
        explore.show_status(message)
        explore.show_error(message.replace(" ", "_"))   # one long word in the error banner
        for tab in (view, explore.sweep_view):
            explore.tabs.setCurrentWidget(tab)
            qtbot.wait(20)
            assert not scroll.horizontalScrollBar().isVisible(), (message, type(tab).__name__)
            assert explore.width() <= scroll.viewport().width()
        assert _inside(explore.sweep_view.run_button, window)
        explore.tabs.setCurrentWidget(view)
        qtbot.wait(20)
        for part in (view.box.layout_widget.viewport(), view.stats, explore.runner.cancel_button):
            assert _inside(part, window), type(part).__name__
        # the colour bar is drawn inside the plot widget, not cut off at its right edge
        bar = view.heat.colorbar.sceneBoundingRect()
        assert bar.right() <= widget.width()
    assert explore.runner.status.toolTip().startswith("Loaded design")   # the full text a hover away


def test_a_message_on_the_job_line_expires_and_a_new_project_clears_the_job_line(qtbot, window):
    explore = window.explore
    explore.runner._message_timer.setInterval(50)
    explore.show_status("Loaded design a2 = 0.6477, m3 = 3.36")
    assert "Loaded design" in explore.runner.status.text()
    qtbot.waitUntil(lambda: explore.runner.status.text() == "Ready", timeout=120_000)
    explore.runner._message_timer.setInterval(60_000)
    explore.show_status("Loaded design a2 = 0.6477, m3 = 3.36")
    explore.show_error("Sweep: something about the old arm")
    window.document.reset(load_project(ROBOTS / "scara.json"))
    assert explore.runner.status.text() == "Ready" and not explore.runner.error_box.isVisibleTo(explore)


def test_a_layout_saved_by_an_older_version_still_shows_every_dh_row(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "old.ini"), QSettings.Format.IniFormat)
    screen = QRect(0, 0, 1350, 720)
    old = MainWindow(load_project(ROBOTS / "puma560.json"), settings=settings, recovery_dir=tmp_path / "r1")
    qtbot.addWidget(old, before_close_func=lambda w: w.document.undo_stack.setClean())
    old.setGeometry(screen)
    old.show()
    qtbot.waitExposed(old)
    qtbot.wait(50)
    height = sum(old.splitters["left"].sizes())
    old.splitters["left"].setSizes([120, height - 120])   # what an older version's 25 % split could leave
    old._save_layout()
    settings.remove("window/geometry")   # the test screen is smaller than the window: keep the splitters
    window = MainWindow(load_project(ROBOTS / "puma560.json"), settings=settings, recovery_dir=tmp_path / "r2")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    assert window.splitters["left"].sizes()[0] <= 130   # restored as saved
    window.setGeometry(screen)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(100)
    view = window.dh_table.view
    assert view.rowViewportPosition(5) + view.rowHeight(5) <= view.viewport().height()
    assert not view.horizontalScrollBar().isVisible()


@pytest.mark.parametrize("size", SCREENS)
def test_the_arm_keeps_its_column_when_the_project_opens_before_the_window_shows(qtbot, tmp_path, size):
    """The start builds the window, opens the project (its DH table's columns size themselves) and only then shows
    it: the table's room was taken from splitter sizes not laid out yet (about 30 px each) and replaced the shares
    asked for, leaving the arm 21 % of the window at both sizes. It keeps the share the window was laid out with."""
    from PySide6.QtWidgets import QApplication
    w = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                   recovery_dir=tmp_path / "recovery", stepwise=True)
    qtbot.addWidget(w, before_close_func=lambda win: win.document.undo_stack.setClean())
    while w.build_next():
        pass
    screen = QRect(0, 0, size[0], size[1] - 30)
    w.fit_to_screen(screen)
    w.document.reset(load_project(ROBOTS / "tube_arm.json"), ROBOTS / "tube_arm.json")
    for _ in range(5):   # the start's steps: turns of the event loop before show (the table's columns resize)
        QApplication.processEvents()
    w.show()
    qtbot.waitExposed(w)
    main = w.splitters["main"]
    qtbot.waitUntil(lambda: main.sizes()[1] > 100, timeout=60_000)
    QApplication.processEvents()
    sizes = main.sizes()
    assert sizes[1] >= 0.3 * sum(sizes), sizes   # the arm's column: 21 % before
    assert sizes[0] >= w.dh_table.full_width() or sizes[1] <= 0.3 * sum(sizes) + 2, sizes   # the table whole


@pytest.mark.parametrize("size", [(1024, 700), (1366, 768)])
def test_explores_tabs_read_whole_and_the_panel_fits_its_column(qtbot, window, size):
    """Explore's eight tabs: at 1366 every title whole ("Sizing" was behind scroll arrows), at 1024 the short ones
    (Cond., Signif.) with scroll arrows rather than a panel wider than its column; each tab's tooltip names it."""
    screen = QRect(0, 0, size[0], size[1] - 30)
    window.fit_to_screen(screen)
    window.show()
    qtbot.waitExposed(window)
    scroll = _explore_scroll(window)
    window.result_tabs.setCurrentWidget(scroll)
    explore = window.explore
    qtbot.waitUntil(lambda: explore.isVisible() and explore.tabs.tabBar().width() > 0, timeout=60_000)
    qtbot.wait(20)
    bar = explore.tabs.tabBar()
    assert not scroll.horizontalScrollBar().isVisible() and explore.width() <= scroll.viewport().width()
    titles = [bar.tabText(k) for k in range(bar.count())]
    assert all(bar.tabToolTip(k).startswith(full) for k, full in enumerate(
        ("Map", "Workspace", "Sweep", "Pareto", "A/B", "Conditions", "Significance", "Sizing")))
    if size[0] >= 1366:
        assert "Conditions" in titles and "Sizing" in titles
        for k in range(bar.count()):
            assert bar.rect().contains(bar.tabRect(k)), bar.tabText(k)
    else:
        assert "Cond." in titles and "Signif." in titles
