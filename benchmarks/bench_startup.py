"""How soon the window shows, against a bare PySide6 window with a pyqtgraph GL view, and how long
``python -m designer --help`` takes (issue 29).

Run: ``xvfb-run -a -s "-screen 0 1600x1000x24" python -m benchmarks.bench_startup [--runs 7]``
(prints figures; not a test). Needs a display for the GL views: Xvfb, QT_QPA_PLATFORM=xcb.

Every figure is a fresh process, timed from just before it is started to the moment it prints, medians of
``--runs`` runs, the peers measured in the same run, alternating with the window:

- ``bare``: the peer. A QApplication, a 1560 x 960 window whose centre is a pyqtgraph ``GLViewWidget``
  with a grid; done when the GL view has painted and the event loop is idle again.
- ``window, first paint``: ``designer.gui.app.start`` as ``main.py`` runs it; done when the first window
  (the light placeholder, ``gui/opening.py``) has painted and the event loop is idle.
- ``window, arm shown``: the same process, on to the first look (``Opening.looked``): the PUMA 560's arm drawn
  from the file's numbers in the 3D view and its DH table, before sympy and the main window's modules load; done
  when that view has painted and the event loop is idle: the arm the user sees first. Goal: within 1.3x of the
  bare window.
- ``window, project shown``: the same process, on to the main window with the PUMA 560 loaded
  (``Opening.opened``) and its 3D view painted, the event loop idle: the window ready for edits.
- the longest block of the event loop (a 5 ms heartbeat): while the main window's modules load (on a
  thread, the placeholder answering), and while the window is built, the project opened and for a second
  after it is shown (the GUI thread's own work, and what the start leaves to after: settling the memory,
  importing the later tabs' modules on a thread).
- the longest call of each step of ``designer.gui.app.open_window`` (which step makes the longest block;
  ``open_project`` includes the wait for the file, read on a thread while the event loop runs).
- the CPU time of each process until it is done (``time.process_time``, every thread of it; the X server's
  is not counted), which a loaded machine changes less than the wall-clock figures.
- ``--help``: ``python -m designer --help`` (goal under 0.2 s), beside ``python -c pass``.
- with ``--without-sympy``, also ``window, sympy free``: the same start in a process that imported sympy before it
  and takes that import's time off its clock: what taking sympy out of the start altogether would give, the
  rest of the start being as it is (what is left is the window's own work: its modules, pyqtgraph's, the window
  built and the project shown).
- with ``--floor``, also ``the floor``: a window laid out as ours (menus, tabs with the PUMA 560's DH table as
  its file writes it, the GL view with the grid and the arm, a slider a joint), the arm's frames computed from the
  file's numbers, with no sympy and no module of the designer: what any start that shows this much pays over
  the bare window, and so how near 1.3x a start that leaves sympy and the rest of the window to after its first
  paint could come.

Byte-code is written (PYTHONDONTWRITEBYTECODE is removed from the children's environment) and one
unmeasured run of each comes first, as a user's second start; settings and recovery files go to a
temporary folder.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTLE_MS = 1000   # how long the heartbeat goes on after the project is shown
# designer.gui.app's steps of open_window, each timed (the GUI thread's block in it: which step is the longest)
STEPS = ("_warm", "_look_build", "_look_show", "_look_show_3d", "_look_painted", "_import_window", "_build",
         "_build_next", "_open_project", "_native", "_draw_3d", "_show", "_show_3d", "_opened")


def _child(kind: str, started: float) -> None:
    """In the child process: build ``kind``, print 'first <s>' and 'ready <s>' since ``started``, exit."""
    if kind == "window-sympy-free":   # sympy imported first, its time taken off the clock
        before = time.time()
        import sympy  # noqa: F401
        started += time.time() - before
        kind = "window"
    from PySide6.QtCore import QCoreApplication, Qt, QTimer

    marks: dict[str, float] = {}

    def mark(name: str) -> None:
        if name not in marks:
            marks[name] = time.time() - started
            print(f"{name} {marks[name]:.4f}", flush=True)
            print(f"cpu-{name} {time.process_time():.4f}", flush=True)   # the process's CPU time, every thread

    def when_idle(name: str, then=None):
        def fire():
            mark(name)
            if then is not None:
                then()
        QTimer.singleShot(0, fire)

    def watch_gl(view, name: str, then=None) -> None:
        paint = view.paintGL

        def counting(*args):
            result = paint(*args)
            view.paintGL = paint
            when_idle(name, then)
            return result
        view.paintGL = counting   # the instance attribute is what Qt's virtual call finds

    if kind == "floor":
        _floor(watch_gl, mark)
        return
    if kind == "bare":
        QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
        import pyqtgraph.opengl as gl
        from PySide6.QtWidgets import QApplication, QMainWindow
        app = QApplication([])
        window = QMainWindow()
        view = gl.GLViewWidget()
        view.addItem(gl.GLGridItem())
        window.setCentralWidget(view)
        window.resize(1560, 960)
        watch_gl(view, "first", lambda: (mark("ready"), app.quit()))
        window.show()
        app.exec()
        return
    from PySide6.QtCore import QElapsedTimer

    from designer.gui import app as app_module
    steps: dict[str, float] = {}   # each step of open_window: its longest call (a block of the GUI thread)
    where = ["modules"]   # the step running, or the last one ended ("after ..."): where a block falls

    def timed(name: str, step):
        def run(state):
            t0 = time.perf_counter()
            where[0] = name.lstrip("_")
            try:
                return step(state)
            finally:
                where[0] = f"after {name.lstrip('_')}"
                steps[name] = max(steps.get(name, 0.0), time.perf_counter() - t0)
        return run
    for name in STEPS:
        setattr(app_module, name, timed(name, getattr(app_module, name)))
    settle = app_module.settle_memory

    def settling() -> None:   # what the start does once the window shows: from here the later modules load
        where[0] = "settled (later modules loading)"
        settle()
    app_module.settle_memory = settling
    app, opening = app_module.start([])
    original = opening.paintEvent
    clock, ticks = QElapsedTimer(), []   # a 5 ms heartbeat from the first paint: the placeholder's blocks
    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(5)
    heartbeat.timeout.connect(lambda: ticks.append((clock.nsecsElapsed() / 1e6, opening.step.text(), where[0])))

    def painted(event):
        if not clock.isValid():
            clock.start()
            heartbeat.start()
        when_idle("first")   # queued before the window's build, which the placeholder's paint queues
        original(event)
    opening.paintEvent = painted

    def blocks() -> None:
        """The longest gap between heartbeats (less 5 ms) while the modules load, and after (the build)."""
        heartbeat.stop()
        ticks.append((clock.nsecsElapsed() / 1e6, opening.step.text(), where[0]))   # up to now: one block
        worst: dict[str, tuple[float, str]] = {}
        for (t0, _, _), (t1, step, at) in zip(ticks, ticks[1:]):
            phase = "import" if step.startswith("Loading") else "build"
            if t1 - t0 - 5 > worst.get(phase, (0.0, ""))[0]:
                worst[phase] = (t1 - t0 - 5, at)
        for phase, (ms, at) in worst.items():
            print(f"block-{phase} {ms / 1000:.4f}", flush=True)
            print(f"where-{phase} {at.replace(' ', '_')}", flush=True)
        for name, seconds in steps.items():
            print(f"step{name} {seconds:.4f}", flush=True)

    def settled(window):
        blocks()
        window.close()
        app.quit()

    def opened(window):
        window.document.undo_stack.setClean()
        # the heartbeat goes on for SETTLE_MS after the arm is drawn: what the start does after (settling the
        # memory, importing the later tabs' modules on a thread) counts among the blocks too
        watch_gl(window.arm_view.view, "ready", lambda: QTimer.singleShot(SETTLE_MS, lambda: settled(window)))
        window.arm_view.view.update()
    opening.opened.connect(opened)
    opening.looked.connect(lambda arm_view: watch_gl(arm_view.view, "arm"))
    app.exec()


def _floor(watch_gl, mark) -> None:
    """The floor: a window laid out as the designer's (menus, tabs with the PUMA 560's DH table as the file
    writes it, the GL view with its grid and the arm, a slider a joint), the arm's frames computed from the
    file's numbers (standard DH, its parameters put in by a few lines here), with no sympy and no module of the
    designer: what any start that shows this much pays over the bare window."""
    import ast
    import json
    import math

    import numpy as np
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtWidgets import (QApplication, QHBoxLayout, QLabel, QMainWindow, QSlider, QSplitter, QTableWidget,
                                   QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    import pyqtgraph.opengl as gl
    app = QApplication([])
    project = json.loads((ROOT / "robots" / "puma560.json").read_text())
    values = {**project["parameters"], "pi": math.pi}
    operations = {ast.Add: float.__add__, ast.Sub: float.__sub__, ast.Mult: float.__mul__, ast.Div: float.__truediv__}

    def number(node) -> float:   # the PUMA's cells: numbers, names, pi, + - * / and a sign
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.Name):
            return float(values[node.id])
        if isinstance(node, ast.UnaryOp):
            return -number(node.operand)
        return operations[type(node.op)](number(node.left), number(node.right))

    def cell(value) -> float:
        return number(ast.parse(value, mode="eval").body) if isinstance(value, str) else float(value)
    keys = ("joint", "a", "alpha", "d", "theta", "mass", "com", "inertia")
    frame, origins = np.eye(4), [np.zeros(3)]
    for link in project["links"]:
        a, alpha, d, theta = (cell(link.get(k, 0)) for k in ("a", "alpha", "d", "theta"))
        ct, st, ca, sa = math.cos(theta), math.sin(theta), math.cos(alpha), math.sin(alpha)
        frame = frame @ np.array([[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st], [0, sa, ca, d],
                                  [0, 0, 0, 1]])
        origins.append(frame[:3, 3].copy())
    window = QMainWindow()
    for menu in ("File", "Edit", "View", "Examples", "Derive", "Export", "Help"):
        window.menuBar().addMenu(menu)
    table = QTableWidget(len(project["links"]), len(keys))
    table.setHorizontalHeaderLabels(list(keys))
    for row, link in enumerate(project["links"]):
        for column, key in enumerate(keys):
            table.setItem(row, column, QTableWidgetItem(str(link.get(key, ""))))
    tabs = QTabWidget()
    for title, page in (("DH table", table), ("Parameters", QWidget()), ("Drives & frames", QWidget())):
        tabs.addTab(page, title)
    view = gl.GLViewWidget()
    view.addItem(gl.GLGridItem())
    view.addItem(gl.GLLinePlotItem(pos=np.array(origins), width=6, color=(0.9, 0.6, 0.2, 1)))
    for origin in origins:
        joint = gl.GLMeshItem(meshdata=gl.MeshData.sphere(rows=8, cols=12, radius=0.03), smooth=True, shader="shaded")
        joint.translate(*origin)
        view.addItem(joint)
    right = QWidget()
    column = QVBoxLayout(right)
    column.addWidget(view, 1)
    for number_ in range(1, len(project["links"]) + 1):
        line = QHBoxLayout()
        line.addWidget(QLabel(f"q{number_}"))
        line.addWidget(QSlider(Qt.Orientation.Horizontal))
        column.addLayout(line)
    splitter = QSplitter()
    splitter.addWidget(tabs)
    splitter.addWidget(right)
    window.setCentralWidget(splitter)
    window.resize(1560, 960)
    watch_gl(view, "first", lambda: (mark("ready"), app.quit()))
    window.show()
    app.exec()


def _run(argv: list[str], env: dict[str, str]) -> dict:
    started = time.time()
    out = subprocess.run([*argv, f"{started!r}"], capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=300).stdout
    marks: dict = {}
    for line in out.splitlines():
        name, _, value = line.partition(" ")
        if name.startswith("where-"):
            marks[name] = value.replace("_", " ")
        elif name in ("first", "arm", "ready", "block-import", "block-build", "cpu-ready") or name.startswith("step_"):
            marks[name] = float(value)
    return marks


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, capture_output=True, env=env, cwd=ROOT, timeout=120, check=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--child", choices=["bare", "floor", "window", "window-sympy-free"], help=argparse.SUPPRESS)
    parser.add_argument("--without-sympy", action="store_true",
                        help="also time the start with sympy's import taken off its clock (what it costs)")
    parser.add_argument("--floor", action="store_true",
                        help="also time the floor: a window laid out as ours, the arm drawn from the file's numbers, "
                             "no sympy and no designer module")
    parser.add_argument("started", nargs="?", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.started)
        return 0

    home = tempfile.mkdtemp(prefix="bench_startup_")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(QT_QPA_PLATFORM=env.get("QT_QPA_PLATFORM", "xcb"), XDG_CONFIG_HOME=f"{home}/config",
               XDG_DATA_HOME=f"{home}/data", XDG_CACHE_HOME=env.get("XDG_CACHE_HOME", f"{Path.home()}/.cache"))
    me = [sys.executable, "-m", "benchmarks.bench_startup", "--child"]
    rows: dict[str, list[float]] = {"bare": [], "first": [], "ready": [], "help": [], "pass": [], "block-import": [],
                                    "block-build": [], "cpu-bare": [], "cpu-ready": []}
    print(f"load average {os.getloadavg()[0]:.1f} at the start; {args.runs} runs (and one unmeasured)", flush=True)
    for run in range(args.runs + 1):
        bare = _run([*me, "bare"], env)
        window = _run([*me, "window"], env)
        free = _run([*me, "window-sympy-free"], env) if args.without_sympy else {}
        floor = _run([*me, "floor"], env) if args.floor else {}
        helped = _timed([sys.executable, "-m", "designer", "--help"], env)
        plain = _timed([sys.executable, "-c", "pass"], env)
        if run == 0:
            continue
        rows["bare"].append(bare["ready"])
        rows["first"].append(window["first"])
        rows.setdefault("arm", []).append(window.get("arm", float("nan")))
        rows["ready"].append(window["ready"])
        if free:
            rows.setdefault("free", []).append(free["ready"])
        if floor:
            rows.setdefault("floor", []).append(floor["ready"])
        rows["cpu-bare"].append(bare["cpu-ready"])
        rows["cpu-ready"].append(window["cpu-ready"])
        rows["help"].append(helped)
        rows["block-import"].append(window.get("block-import", 0.0))
        rows["block-build"].append(window.get("block-build", 0.0))
        rows["pass"].append(plain)
        for name in STEPS:
            rows.setdefault(f"step{name}", []).append(window.get(f"step{name}", 0.0))
        print(f"run {run}: bare window {bare['ready']:.2f} s; window first paint {window['first']:.2f} s, arm shown "
              f"{window.get('arm', float('nan')):.2f} s, project "
              f"shown {window['ready']:.2f} s (placeholder's longest block while the modules load "
              f"{1000 * rows['block-import'][-1]:.0f} ms, while the window is built "
              f"{1000 * rows['block-build'][-1]:.0f} ms, {window.get('where-build', '?')}"
              f"); --help {helped:.3f} s, python -c pass {plain:.3f} s; load {os.getloadavg()[0]:.1f}", flush=True)
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"medians of {args.runs}: bare PySide6 + pyqtgraph GL window {med['bare']:.2f} s")
    print(f"  window, first paint    {med['first']:.2f} s = {med['first'] / med['bare']:.2f}x the bare window")
    print(f"  window, arm shown      {med['arm']:.2f} s = {med['arm'] / med['bare']:.2f}x the bare window "
          f"(the first look: the arm and its DH table from the file's numbers; goal <= 1.3x)")
    print(f"  window, project shown  {med['ready']:.2f} s = {med['ready'] / med['bare']:.2f}x the bare window "
          f"(the whole window, ready for edits)")
    if "free" in med:
        print(f"  window, sympy free     {med['free']:.2f} s = {med['free'] / med['bare']:.2f}x the bare window "
              f"(sympy's import taken off the clock: what it costs the start, {med['ready'] - med['free']:.2f} s)")
    if "floor" in med:
        print(f"  the floor              {med['floor']:.2f} s = {med['floor'] / med['bare']:.2f}x the bare window "
              f"(a window laid out as ours, the PUMA's table and arm from its numbers, no sympy, no designer module)")
    print(f"  CPU time of the process until then (less sensitive to a loaded machine): bare window "
          f"{med['cpu-bare']:.2f} s, window with its project {med['cpu-ready']:.2f} s = "
          f"{med['cpu-ready'] / med['cpu-bare']:.2f}x")
    print(f"  the placeholder's longest block: while the modules load {1000 * max(rows['block-import']):.0f} ms, "
          f"while the window is built and the project opened, and the second after "
          f"{1000 * max(rows['block-build']):.0f} ms (worst of the runs; goal: none over 100 ms)")
    print("  the longest call of each step of the start (a block of the GUI thread; worst of the runs): " + ", ".join(
        f"{name.lstrip('_')} {1000 * max(rows[f'step{name}']):.0f} ms" for name in STEPS))
    print(f"  python -m designer --help {med['help']:.3f} s (goal < 0.2 s); python -c pass {med['pass']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
