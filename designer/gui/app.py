"""Start the application: ``python main.py [PROJECT]``."""

from __future__ import annotations

import gc
import importlib
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import cast

from PySide6.QtCore import QCoreApplication, QEventLoop, Qt, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from .collector import collect_in_gui_thread

__all__ = ["main", "start", "open_window", "create_application", "settle_memory", "share_the_gil"]



def create_application(argv: list[str]) -> QApplication:
    """The QApplication (created once), with the attributes the 3D view needs."""
    # the window's process only ever creates a QApplication (here), never a bare QCoreApplication
    app = cast("QApplication | None", QApplication.instance())
    if app is None:
        # before the QApplication exists: pyqtgraph shares shader programs across GL contexts
        QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
        app = QApplication([sys.argv[0] if sys.argv else "designer", *argv])
    app.setOrganizationName("ManipulatorDesigner")
    app.setApplicationName("Manipulator Designer")
    icon = Path(__file__).resolve().parents[2] / "resources" / "icon.svg"
    if icon.exists():  # a source checkout or editable install; a wheel has no resources/
        app.setWindowIcon(QIcon(str(icon)))
    return app


def settle_memory() -> None:
    """Move everything alive after start-up (modules, sympy's tables, widgets) out of the collector's way.

    A full pass of the cyclic garbage collector runs in whichever thread
    allocates, holding the GIL: during a derivation it stopped the GUI thread
    for 200-600 ms, most of it spent walking the ~150,000 objects that exist
    from start-up on and never die. Frozen, they are skipped (``gc.freeze``).
    Nothing is collected first: a full pass here found 35 unreachable objects
    among 145,000 and stopped the window for 70 ms (250 ms on a loaded machine)
    just after it opened (issue 29); with collection off during the start
    (:func:`start`), a pass of the young generations would walk all of them too.
    """
    gc.freeze()


GIL_SWITCH_INTERVAL = 0.001


def share_the_gil() -> None:
    """Let the GUI thread take the GIL back from a worker after 1 ms instead of Python's 5 ms.

    Derivations run in pool threads that hold the GIL while they compute; the
    shorter interval halved the GUI thread's typical wait (99th percentile of
    its blocks 18 ms -> 9 ms while the PUMA 560 is derived, benchmarks/bench_gui.py)
    for a few percent of the worker's speed.
    """
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)


def _excepthook(window):
    """Show an unexpected error in the window instead of losing it on stderr."""
    def hook(kind, value, tb):
        details = "".join(traceback.format_exception(kind, value, tb))
        sys.stderr.write(details)
        if window is not None:
            window.show_message(f"Internal error: {kind.__name__}: {value}")
    return hook


def start(argv: list[str]):
    """Create the application and show a light placeholder at once (:class:`~designer.gui.opening.Opening`),
    then, after its first paint, the window with its project (``argv``: options for Qt and at most one project
    file, as :func:`designer.launch.main` checked them); (app, opening). ``opening.opened`` brings the window
    once its project is loaded (``opening.main_window``), when the event loop runs."""
    args = [a for a in argv if not a.startswith("-")]
    # No automatic collection while the modules load and the window is built: importing sympy and the panels
    # ran two full passes over the growing heap (importing the main window: 2.2 s with them, 1.8 s without, at
    # load 7; the start makes almost no garbage). After the project shows, the GUI thread's collector takes over.
    gc.disable()
    # from the start the modules load on threads while the GUI thread answers: it takes the GIL back after 1 ms
    share_the_gil()
    # the first look's modules (pyqtgraph, PyOpenGL) imported and the project's numbers read on a thread from here,
    # while Qt starts and the placeholder paints (it began after that paint: 0.2 s later)
    look = _read_first_look(args)
    app = create_application([a for a in argv if a.startswith("-")])
    from .opening import Opening

    opening = Opening(Path(args[0]).name if args else "the example PUMA 560")
    opening.show()
    opening.after_first_paint(lambda: open_window(opening, args, look))
    return app, opening


# what the main window needs, imported on a thread while the placeholder answers: its modules, and PyOpenGL's
# array handlers, which PyOpenGL imports at the 3D view's first draw (20-25 ms of the window's first paint, in
# the GUI thread, most of it shiboken's import hook reading their sources)
GL_ARRAYS = ("OpenGL.arrays.numpymodule", "OpenGL.arrays.ctypesarrays", "OpenGL.arrays.ctypespointers",
             "OpenGL.arrays.nones", "OpenGL.arrays.strings")
WINDOW_MODULES = ("designer.gui.main_window", *GL_ARRAYS)
# what the first look needs: the 3D view (pyqtgraph, PyOpenGL) and the project's numbers without sympy
FIRST_LOOK_MODULES = ("designer.gui.view3d", "designer.glance", *GL_ARRAYS)


def _import_answering(opening, modules: tuple[str, ...] = WINDOW_MODULES) -> None:
    """Import ``modules`` (the main window's: sympy, the panels, about a second) on a thread while the
    placeholder goes on answering (it repaints, moves, closes); an import that fails there is imported again by
    the caller, in the GUI thread, and raises its error there. The modules define classes only: no widget and no
    Qt object is made on the thread."""
    _wait_answering(_import_on_thread(modules))


def _wait_answering(done: threading.Event) -> None:
    """Wait for ``done``, the event loop running meanwhile (the placeholder answers)."""
    while not done.wait(0.01):
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)


def _import_on_thread(modules: tuple[str, ...], then=None) -> threading.Event:
    """Import ``modules`` on a thread of their own, then call ``then`` (which makes no Qt object); the event is
    set when it ends (a failed import is left to the GUI thread's own import, which raises it)."""
    done = threading.Event()

    def run() -> None:
        try:
            for module in modules:
                importlib.import_module(module)
            if then is not None:
                then()
        except BaseException:  # noqa: BLE001 - imported again in the GUI thread, which raises it
            pass
        finally:
            done.set()

    threading.Thread(target=run, name="designer-window-import", daemon=True).start()
    return done


def _warm_gl() -> tuple:
    """An OpenGL context made current once, while the placeholder shows: the system's OpenGL driver loaded and
    set up here (35-45 ms, in the GUI thread: Qt needs an off-screen surface made there), not in the window's
    :func:`_native` step, which made the 3D view's native window 40 ms later (issue 29: that step was the longest
    block of the start). The (surface, context) are kept until the window shows; nothing is drawn with them."""
    from PySide6.QtGui import QOffscreenSurface, QOpenGLContext
    surface = QOffscreenSurface()
    surface.create()
    context = QOpenGLContext()
    if context.create() and context.makeCurrent(surface):   # no OpenGL: the 3D view says so when it is made
        context.doneCurrent()
    return surface, context


def open_window(opening, args: list[str], look: tuple | None = None) -> None:
    """Show the project's first look, then build the main window in the placeholder's place and open its
    project (or the example, or the recovered work); the heavy modules load here, after the placeholder's first
    paint. Each step returns to the event loop before the next (the placeholder answers between them: issue 29,
    no block over 100 ms); ``opening.opened`` says when the window shows its project.

    The first look (issue 29: the arm on screen before sympy loads): the project's arm, drawn from its numbers
    (:mod:`designer.glance`), and its DH table in the placeholder, while the main window's modules load;
    none for recovered work or a file the glance does not read (a closed chain, a link made of a part). ``look``:
    its reading as :func:`_read_first_look` started it (None: no first look)."""
    if opening.closed:
        return
    state: dict = {"opening": opening, "args": args}
    look = _first_look(opening, look)
    if opening.closed:
        return
    # the main window's 3D view is drawn once the window shows, hidden in its place: at its size (drawn before,
    # it was drawn at its size hint and made again when shown: blocks of 63-92 ms after it, 49-67 ms now); the first
    # look's before its window shows: drawn in a window on screen, the arm came later (1.27-1.40x against 1.13x)
    first_look = [_look_build, _draw_3d, _look_show, _look_show_3d, _look_painted] if look is not None else []
    steps = [_warm, *first_look,
             _import_window, _build, _build_next, _open_project, _native, _show, _draw_3d, _show_3d, _opened]
    state["look"] = look

    def next_step() -> None:   # a step returns True for the next, AGAIN to run once more, False to stop
        if not steps or opening.closed:
            return
        result = steps[0](state)
        if result is not AGAIN:
            steps.pop(0)
        if result:
            QTimer.singleShot(0, next_step)
    QTimer.singleShot(0, next_step)


def _read_first_look(args: list[str]) -> tuple[threading.Event, list]:
    """Start reading the first look on a thread: its modules imported, then the project's glance
    (:func:`designer.glance.glance`: the file given or the example) read; (the event set when done, a list
    holding the glance or None)."""
    from .projects import default_project
    path = Path(args[0]) if args else default_project()
    result: list = [None]

    def read() -> None:
        from ..glance import glance
        result[0] = glance(path)
    return _import_on_thread(FIRST_LOOK_MODULES, then=read), result


def _first_look(opening, look: tuple | None):
    """The glance that :func:`_read_first_look` reads, once read (the placeholder answering meanwhile); None
    without one, or when unsaved work of an earlier session is waiting to be offered (it opens instead)."""
    from .projects import Recovery
    if look is None or Recovery().orphan_files():
        return None
    done, result = look
    _wait_answering(done)
    return result[0]


AGAIN = "again"   # a step of open_window that is not done: it runs again in the next turn of the event loop


def _warm(state: dict) -> bool:
    """The system's OpenGL set up (:func:`_warm_gl`) in a step of its own, before any 3D view is made."""
    state["warm_gl"] = _warm_gl()
    return True


def _look_build(state: dict) -> bool:
    """The first look's table and 3D view, hidden: the view is drawn off screen (:func:`_draw_3d`), then shown."""
    state["arm_view"] = state["opening"].first_look(state["look"])
    state["arm_view"].view.winId()   # its native window (see _native)
    return True


def _look_show(state: dict) -> bool:
    """The first look's window shown in the placeholder's place, its 3D view the next step (as :func:`_show`)."""
    state["opening"].show_first_look()
    return True


def _look_show_3d(state: dict) -> bool:
    """The first look's 3D view shown; the next steps wait for its first frame on screen (:func:`_look_painted`)."""
    view = state["arm_view"].view
    state["look painted"] = painted = []
    state["look shown at"] = time.monotonic()
    view.frameSwapped.connect(lambda: painted.append(True))
    state["opening"].show_first_look_arm()
    return True


LOOK_PAINT_WAIT = 1.0   # seconds the start waits at most for the first look's first frame (a minimised window has none)


def _look_painted(state: dict) -> bool | str:
    """AGAIN until the first look's 3D view has put its first frame on screen: the main window's modules then
    load on a thread (:func:`_import_window`) without that frame in the GUI thread waiting on them for the GIL
    (a block of 70-110 ms with them, 50 ms without). A window that is not painted (minimised, hidden) waits
    LOOK_PAINT_WAIT at most."""
    if state["look painted"] or state["opening"].front().isHidden() \
            or time.monotonic() - state["look shown at"] > LOOK_PAINT_WAIT:
        return True
    return AGAIN


def _import_window(state: dict) -> bool:
    """The main window's modules, on a thread while the placeholder answers."""
    opening = state["opening"]
    _import_answering(opening)
    if opening.closed:   # closed while loading
        return False
    opening.say("Building the window…")
    return True


def _build(state: dict) -> bool:
    """The main window's panels; its other parts follow, each in a step of its own (:func:`_build_next`)."""
    from .main_window import MainWindow
    state["window"] = window = MainWindow(stepwise=True)
    sys.excepthook = _excepthook(window)
    return True


def _build_next(state: dict) -> bool | str:
    """One more part of the main window (laid out, wired, showing its model), AGAIN until it is whole."""
    if state["window"].build_next():
        return AGAIN
    state["arm_view"] = state["window"].arm_view   # the view _draw_3d draws from now on
    return True


def _native(state: dict) -> bool:
    """The window's X windows (its own and the 3D view's) made before it shows: a step of its own, for show()
    made them, laid out and painted the window in one block of 150-300 ms (issue 29: half of it here)."""
    state["window"].winId()
    return True


def _draw_3d(state: dict) -> bool | str:
    """The 3D view drawn off screen before it shows (the main window's hidden in its place once the window shows,
    the first look's before its window shows): its OpenGL set up and pyqtgraph's shaders compiled in steps of
    their own, which the window's first paint did in the block of show(). One draw was 35-45 ms on
    a quiet machine and up to 160 ms on a loaded one (issue 29); in three it is the view with nothing shown
    (the view's OpenGL set up), then its first item (the grid: the first draw), then all (the arm's shaders),
    AGAIN until the last, each item as it was."""
    view = state["arm_view"].view
    if "drawn" not in state:   # the first call: every item hidden, the items shown kept to show them again
        state["drawn"] = [item for item in view.items if item.visible()]
        for item in state["drawn"]:
            item.hide()
    elif len(state["drawn"]) > 1 and not state.get("first drawn"):
        state["first drawn"] = True
        state["drawn"][0].show()
    else:
        state.pop("first drawn", None)   # for the next view drawn (the first look's, then the window's)
        for item in state.pop("drawn"):
            item.show()
    view.grabFramebuffer()
    return AGAIN if "drawn" in state else True


def _show(state: dict) -> bool:
    """The window shown, its 3D view hidden until it is drawn (:func:`_draw_3d`) and shown (:func:`_show_3d`): the
    window's first paint with it was one block of 90-150 ms (issue 29), some 45 ms the widgets and the rest the
    3D view's first frame on screen (Qt sets up how it composes the view's native window then). The view keeps
    its place meanwhile, so it is drawn at its size, and nothing moves when it comes."""
    view = state["window"].arm_view.view
    policy = view.sizePolicy()
    state["retained"] = policy.retainSizeWhenHidden()
    policy.setRetainSizeWhenHidden(True)
    view.setSizePolicy(policy)
    view.hide()
    if state["opening"].arm_view is not None:   # the camera the user turned in the first look, if any
        state["window"].arm_view.follow_camera(state["opening"].arm_view)
    state["window"].show()
    state["opening"].leave()
    return True


def _show_3d(state: dict) -> bool:
    """The 3D view shown in the window (see :func:`_show`)."""
    view = state["window"].arm_view.view
    view.show()
    policy = view.sizePolicy()
    policy.setRetainSizeWhenHidden(state.pop("retained"))
    view.setSizePolicy(policy)
    return True


def _open_project(state: dict) -> bool:
    """The project: read and prepared off the GUI thread (a refusal is said in a box over the placeholder), or
    the recovered work."""
    from .projects import default_project
    window, args = state["window"], state["args"]
    state["opening"].say("Opening the project…")
    opened = window.offer_recovery() or (window.open_file(Path(args[0])) if args
                                         else window.open_example(default_project()))
    if not opened:   # refused: the window shows the new arm it was built with
        window.show_model()
    return True


def _opened(state: dict) -> bool:
    """The project is on screen; then, in the event loop's idle time, what only later work needs: the memory
    settled, the collector moved to the GUI thread, and the result tabs' modules imported on a
    thread (each tab is built when first shown)."""
    from .main_window import LATER_MODULES
    state.pop("warm_gl", None)   # the window has its own OpenGL context now
    state["opening"].finish(state["window"])

    def settle() -> None:
        settle_memory()
        collect_in_gui_thread()
        _import_on_thread(LATER_MODULES)
    QTimer.singleShot(0, settle)
    return False


def main(argv: list[str]) -> int:
    """Open PROJECT (or the PUMA 560 example), show the window, run the event loop."""
    app, _opening = start(argv)
    return app.exec()
