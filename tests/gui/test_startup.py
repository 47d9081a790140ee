"""The window shows before the heavy libraries load (issue 29): what each step of the start imports, read
from ``sys.modules`` of a fresh process (not timing tests; benchmarks/bench_startup.py has the times)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.support.no_sympy import run_script

ROOT = Path(__file__).resolve().parents[2]


def _probe(code: str, tmp_path: Path) -> dict:
    return run_script(code, tmp_path, "PROBE")


_LOADED = "sorted({m.split('.')[0] for m in sys.modules} & {'sympy', 'scipy', 'matplotlib', 'numpy', 'pyqtgraph'})"


def test_importing_the_window_loads_neither_scipy_nor_matplotlib(tmp_path):
    # they load on first use (a simulation, a typeset equation), after the window's first paint
    loaded = _probe(f"import sys, json\nimport designer.gui.main_window\nprint('PROBE', json.dumps({_LOADED}))",
                    tmp_path)
    assert "scipy" not in loaded and "matplotlib" not in loaded, loaded
    assert "sympy" in loaded   # the probe sees the window's imports (the model layer is sympy)


# the Help windows, the URDF package and the base-parameter code's plan: imported when a command first needs them
FIRST_USE = ("designer.gui.help", "designer.urdf", "designer.identification.code_plan")


def test_the_later_tabs_and_the_commands_modules_load_after_the_window(tmp_path):
    # the Coupling, Explore, Simulate and Requirements tabs are built when first shown, the MJCF import and the
    # design report when first used: their modules are no part of the window's start
    later = ("designer.gui.coupling_plots", "designer.gui.explore_panel", "designer.gui.simulate",
             "designer.gui.requirements", "designer.explore", "designer.mjcf", "designer.review",
             "designer.optimize", *FIRST_USE)
    code = ("import sys, json\nimport designer.gui.main_window as w\n"
            f"print('PROBE', json.dumps({{'later': list(w.LATER_MODULES), 'loaded': sorted(m for m in sys.modules "
            f"if m.startswith({later!r}))}}))")
    seen = _probe(code, tmp_path)
    assert seen["loaded"] == [], seen["loaded"]
    assert sorted(seen["later"]) == sorted(later[:4])   # what the start imports on a thread once the project shows


def test_the_placeholder_paints_first_then_the_window_opens_the_example(tmp_path):
    code = f"""
import json, sys
from PySide6.QtCore import Qt
from designer.gui.app import start
app, opening = start([])
seen = {{}}
paint = opening.paintEvent
def painted(event):
    seen.setdefault("first paint", {_LOADED})
    paint(event)
opening.paintEvent = painted
def opened(window):
    seen["opened"] = {{"name": window.document.model.name, "links": window.document.model.n,
                      "window shown": window.isVisible(), "placeholder shown": opening.isVisible(),
                      "same window": opening.main_window is window,
                      "3D view shown": window.arm_view.view.isVisible(),
                      "view keeps no place when hidden": not window.arm_view.view.sizePolicy().retainSizeWhenHidden(),
                      "first-use modules loaded": sorted(m for m in sys.modules if m.startswith({FIRST_USE!r}))}}
    window.document.undo_stack.setClean()
    window.close()
    app.quit()
opening.opened.connect(opened)
app.exec()
print("PROBE", json.dumps(seen))
"""
    seen = _probe(code, tmp_path)
    # the placeholder needs Qt's widgets only: it paints while the first look's modules (numpy, pyqtgraph) load on
    # a thread, and long before the model's (sympy)
    assert not set(seen["first paint"]) & {"sympy", "scipy", "matplotlib"}, seen
    assert seen["opened"] == {"name": json.loads((ROOT / "robots" / "puma560.json").read_text())["name"],
                              "links": 6, "window shown": True, "placeholder shown": False, "same window": True,
                              "3D view shown": True, "view keeps no place when hidden": True,
                              "first-use modules loaded": []}


def test_a_window_built_step_by_step_is_the_window_built_at_once(qtbot, tmp_path):
    """The start builds the main window in parts, a turn of the event loop each (MainWindow(stepwise=True),
    build_next): once whole it has the same menus, tabs and views as one built at once, and follows an edit."""
    from PySide6.QtCore import QSettings

    from designer.gui.main_window import MainWindow
    from designer.project import load_project

    def made(name: str, stepwise: bool) -> MainWindow:
        w = MainWindow(settings=QSettings(str(tmp_path / f"{name}.ini"), QSettings.Format.IniFormat),
                       recovery_dir=tmp_path / name, stepwise=stepwise)
        qtbot.addWidget(w, before_close_func=lambda win: win.document.undo_stack.setClean())
        return w

    whole, parts = made("whole", False), made("parts", True)
    # only the editors' panels so far; then the views, the layout, the wiring, the model shown
    assert not hasattr(parts, "arm_view") and not hasattr(parts, "result_tabs") and not parts.menuBar().actions()
    calls = [parts.build_next() for _ in range(3)]
    assert calls == [True, True, False] and parts.build_next() is False
    assert parts.sliders.values() == [] and parts.arm_view.arm is None   # no arm shown until asked (or opened)
    parts.show_model()

    def shape(w: MainWindow) -> dict:
        return {"menus": [a.text() for a in w.menuBar().actions()],
                "menu items": [[b.text() for b in a.menu().actions()] for a in w.menuBar().actions()],
                "results": [w.result_tabs.tabText(k) for k in range(w.result_tabs.count())],
                "editors": [w.editor_tabs.tabText(k) for k in range(w.editor_tabs.count())],
                "sliders": list(w.sliders.values()), "title": w.windowTitle()}
    assert shape(parts) == shape(whole)
    for w in (whole, parts):   # wired: an opened project reaches the table, the sliders, the 3D view, the title
        w.document.reset(load_project(ROOT / "robots" / "puma560.json"), ROOT / "robots" / "puma560.json")
        assert w.dh_table.table_model.rowCount() == 6 and len(w.sliders.values()) == 6
        assert w.arm_view.arm is w.design.arm and "puma560" in w.windowTitle()
    assert shape(parts) == shape(whole)


_FIRST_LOOK = """
import json, sys
from PySide6.QtCore import Qt
from designer.gui.app import start
{prelude}
app, opening = start({args!r})
seen = {{}}
def parts(view):
    return {{kind: [[round(float(v), 9) for v in m.ravel()] for m in matrices]
            for kind, matrices in view.parts.items()}}
def looked(arm_view):
    look = arm_view.window()   # the first look's own window, in the placeholder's place
    seen["looked"] = {{"loaded": {loaded}, "parts": parts(arm_view), "rows": opening.table.rowCount(),
                      "shown": arm_view.isVisible() and look.isVisible() and opening.front() is look,
                      "placeholder hidden": opening.isHidden(), "title": look.windowTitle(),
                      "same place": look.geometry().getRect() == opening.geometry().getRect(),
                      "headers": [opening.table.horizontalHeaderItem(k).text() for k in range(7)]}}
def opened(window):
    seen["opened"] = {{"parts": parts(window.arm_view), "first look gone": opening.arm_view is None
                       and opening.look is None and opening.front() is opening and opening.isHidden(),
                      "headers": [window.dh_table.table_model.headerData(k, Qt.Orientation.Horizontal)
                                  for k in range(7)],
                      "links": window.document.model.n}}
    window.document.undo_stack.setClean()
    window.close()
    app.quit()
opening.looked.connect(looked)
opening.opened.connect(opened)
app.exec()
print("PROBE", json.dumps(seen))
"""


def _look_probe(tmp_path: Path, args: list[str] | None = None, prelude: str = "") -> dict:
    """What a start with ``args`` saw at its first look and once opened (_FIRST_LOOK), ``prelude`` run first."""
    return _probe(_FIRST_LOOK.format(args=args or [], loaded=_LOADED, prelude=prelude), tmp_path)


def test_the_first_look_draws_the_arm_before_sympy_loads_as_the_window_then_draws_it(tmp_path):
    """The example opens with a first look: the PUMA 560 drawn from its file's numbers (designer/glance.py) and
    its DH table, shown before sympy is imported; the whole window then draws the same arm from its model (its
    own reading, sympy's): every link, joint, COM marker and frame placed where the first look placed it."""
    seen = _look_probe(tmp_path)
    look, opened = seen["looked"], seen["opened"]
    assert "sympy" not in look["loaded"] and "pyqtgraph" in look["loaded"], look["loaded"]
    assert look["rows"] == 6 and look["shown"] and opened["links"] == 6 and opened["first look gone"]
    # in a window of its own where the placeholder stood, the placeholder hidden (test_first_look_window)
    assert look["placeholder hidden"] and look["same place"] and "opening" in look["title"]
    assert look["headers"] == opened["headers"] and "α_i" in look["headers"]
    assert sorted(look["parts"]) == sorted(opened["parts"]) and look["parts"]
    for kind, matrices in look["parts"].items():
        np.testing.assert_allclose(np.array(matrices), np.array(opened["parts"][kind]), atol=1e-8, err_msg=kind)


def test_a_closed_chain_opens_without_a_first_look(tmp_path):
    # the glance reads serial arms only: the four-bar's window opens as it did, from the placeholder
    seen = _look_probe(tmp_path, [str(ROOT / "robots" / "four_bar.json")])
    assert "looked" not in seen and seen["opened"]["links"] == 3 and seen["opened"]["parts"]


def test_the_window_opens_when_the_first_looks_frame_never_comes(tmp_path):
    # a minimised placeholder paints nothing: the start waits for the first look's first frame a while, not forever
    prelude = ("import designer.gui.app\nfrom designer.gui.opening import Opening\n"
               "designer.gui.app.LOOK_PAINT_WAIT = 0.2\n"
               "Opening.show_first_look_arm = lambda self: self.looked.emit(self.arm_view)")   # never shown: no frame
    seen = _look_probe(tmp_path, prelude=prelude)
    assert "sympy" not in seen["looked"]["loaded"] and seen["opened"]["links"] == 6


def test_closing_the_first_look_stops_the_start(tmp_path):
    """The first look stands in a window of its own (made with its 3D view in it: adding the view to the
    placeholder on screen made Qt remake the placeholder's X window); closing it while the window loads ends the
    start as closing the placeholder does: no main window is built and the program ends."""
    prelude = ("import designer.gui.app as start_module\nbuilt = []\n"
               "build = start_module._build\n"
               "start_module._build = lambda state: (built.append(True), build(state))[1]")
    code = _FIRST_LOOK.format(args=[], loaded=_LOADED, prelude=prelude).replace(
        "opening.looked.connect(looked)",
        "opening.looked.connect(lambda view: (looked(view), view.window().close()))").replace(
        'print("PROBE", json.dumps(seen))',
        'seen["built"] = bool(built)\nseen["closed"] = opening.closed\nprint("PROBE", json.dumps(seen))')
    seen = _probe(code, tmp_path)
    assert seen["looked"]["shown"] and seen["closed"]
    assert "opened" not in seen and not seen["built"]


def test_the_windows_3d_view_is_drawn_off_screen_at_the_size_it_shows(tmp_path):
    """The main window's 3D view is drawn off screen (its OpenGL and shaders set up in steps of their own) once the
    window shows with the view hidden in its place: at the size it then shows at. Drawn before the window showed,
    it was drawn at its size hint (640 x 480) and drawn again when shown."""
    prelude = ("import designer.gui.app as start_module\nsizes = []\n"
               "draw = start_module._draw_3d\n"
               "start_module._draw_3d = lambda state: (sizes.append((state['arm_view'].view.width(), "
               "state['arm_view'].view.height(), 'window' in state)), draw(state))[1]")
    code = _FIRST_LOOK.format(args=[], loaded=_LOADED, prelude=prelude).replace(
        "    window.document.undo_stack.setClean()",
        "    seen['shown at'] = [window.arm_view.view.width(), window.arm_view.view.height()]\n"
        "    seen['drawn at'] = [s[:2] for s in sizes if s[2]]\n"
        "    window.document.undo_stack.setClean()")
    seen = _probe(code, tmp_path)
    assert len(seen["drawn at"]) == 3 and seen["shown at"] != [640, 480], seen
    assert all(size == seen["shown at"] for size in seen["drawn at"]), seen


def test_the_camera_turned_in_the_first_look_is_the_windows(tmp_path):
    """A user who turns the first look's 3D view (a press, then a drag) finds the window's view looking from
    there; untouched, the window's view fits the arm itself, as before."""
    turn = ("from PySide6.QtTest import QTest\n"
            "def turn_once(view):\n"   # once its first frame is on screen, as a user would
            "    view.view.frameSwapped.connect(lambda: 'look camera' in seen or turn(view))\n"
            "def turn(view):\n"
            "    QTest.mousePress(view.view, Qt.MouseButton.LeftButton)\n"
            "    QTest.mouseRelease(view.view, Qt.MouseButton.LeftButton)\n"
            "    view.view.setCameraPosition(distance=7.5, elevation=62.0, azimuth=-33.0)\n"
            "    seen['look camera'] = [float(v) for k, v in view.camera().items() if k != 'center']\n")
    camera = ("    seen['camera'] = [float(v) for k, v in window.arm_view.camera().items() if k != 'center']\n"
              "    window.document.undo_stack.setClean()")
    moved = _FIRST_LOOK.format(args=[], loaded=_LOADED, prelude=turn).replace(
        "opening.looked.connect(looked)", "opening.looked.connect(lambda view: (looked(view), turn_once(view)))")
    moved = moved.replace("    window.document.undo_stack.setClean()", camera)
    seen = _probe(moved, tmp_path)
    assert seen["camera"] == seen["look camera"] == [7.5, 62.0, -33.0]
    untouched = _FIRST_LOOK.format(args=[], loaded=_LOADED, prelude="").replace(
        "    window.document.undo_stack.setClean()", camera)
    assert _probe(untouched, tmp_path)["camera"][1:] != [62.0, -33.0]
