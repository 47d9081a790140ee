"""How long the GUI thread is blocked while six-link derivations run and their results are shown,
how soon the first progress message arrives, and what the worker process costs in time.

Run: ``xvfb-run -a -s "-screen 0 1600x1000x24" python -m benchmarks.bench_gui [--runs 10]
[--configs lagrange:fast,lagrange:full,newton-euler:full] [--runner process|thread] [--drag]``
(prints figures; not a test). Needs a display for the 3D view: Xvfb, QT_QPA_PLATFORM=xcb.

The full main window shows the PUMA 560 (3D view, sliders, plots). A QTimer
ticks every 5 ms on the GUI thread; the longest gap between ticks minus 5 ms
is the longest time the GUI thread could not react. Measured while the window
is idle (the peer: what the platform gives with nothing running) and, in each
run, for each configuration, from pressing Derive to one second after the
result is on display. Goals: no block over 50 ms in any run; the first
progress message within 200 ms of pressing Derive; the time from Derive to the
result within 10 % of the same derivation called in this process (sympy's
cache cleared before it, as a worker process starts with an empty one).
``--actions N`` measures instead the longest block of N runs of each of four actions that stopped the window
(issue 29): opening the tube arm (from the PUMA 560), importing a two-link arm from MJCF and from URDF (both
written by the project's exporters; file dialog, import dialog and report box answered at once), and opening
the mode-shape dialog of the tube arm (cancelled once filled); each from the action to one second after it.
Goal: no block over 100 ms in any run. ``--runner thread`` runs derivations on the thread pool, as before worker
processes (the "before" figures). The window is tuned as the application
tunes it (``settle_memory``, ``share_the_gil``, ``collect_in_gui_thread``); PLAIN_PYTHON=1 in the
environment leaves all three out. ``--drag`` also measures the 3D view's frames per
second while a joint slider is dragged.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEventLoop, QSettings, Qt, QTimer  # noqa: E402

QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
from PySide6.QtWidgets import QApplication  # noqa: E402

TICK_MS = 5
GOAL_MS = 50.0


class GapMeter:
    """Records the gaps between ticks of a 5 ms timer on the GUI thread."""

    def __init__(self):
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.clock = QElapsedTimer()
        self.gaps: list[float] = []
        self.times: list[float] = []
        self.blocks: list[tuple[int, str]] = []   # (ms, what was on display just after)
        self.label = None
        self.last = 0.0

    def start(self) -> None:
        self.gaps.clear()
        self.times.clear()
        self.blocks.clear()
        self.clock.start()
        self.last = 0.0
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _tick(self) -> None:
        now = self.clock.nsecsElapsed() / 1e6
        if self.label is not None and now - self.last > TICK_MS + GOAL_MS:
            self.blocks.append((round(now - self.last), self.label()))
        self.gaps.append(now - self.last)
        self.times.append(now)
        self.last = now

    def now(self) -> float:
        return self.clock.nsecsElapsed() / 1e6

    def summary(self, start: float = 0.0, end: float = float("inf")) -> tuple[float, float, int]:
        """(longest block in ms, 99th percentile block in ms, blocks over the goal) of ticks in [start, end)."""
        blocks = sorted(max(0.0, g - TICK_MS) for g, t in zip(self.gaps, self.times) if start <= t < end)
        if not blocks:
            return 0.0, 0.0, 0
        p99 = blocks[min(len(blocks) - 1, int(0.99 * len(blocks)))]
        return blocks[-1], p99, sum(b > GOAL_MS for b in blocks)


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def measure_drag(app, window, steps: int = 150) -> tuple[float, float]:
    """(frames per second of the 3D view, ms per frame) while joint 2's slider is dragged.

    Each step moves the slider one notch and waits for the 3D view's next frame,
    as a drag does; everything that follows the sliders (coupling plots,
    explore panel) runs too.
    """
    view = window.arm_view.view
    frames = [0]
    paint = view.paintGL

    def counting(*args):
        frames[0] += 1
        return paint(*args)

    view.paintGL = counting  # the instance attribute is what Qt's virtual call finds
    slider = window.sliders.sliders[1]
    try:
        started = time.perf_counter()
        for k in range(steps):
            before = frames[0]
            slider.setValue(200 + (k * 3) % 600)
            deadline = time.perf_counter() + 2.0
            while frames[0] == before and time.perf_counter() < deadline:
                app.processEvents()
        elapsed = time.perf_counter() - started
    finally:
        view.paintGL = paint
    return frames[0] / elapsed, 1000 * elapsed / max(frames[0], 1)


def derive_once(app, window, meter, method: str, simplify: str) -> dict:
    """Press Derive for (method, simplify); block, first-progress and total times of that run."""
    panel = window.derivation
    panel.cache.clear()
    panel.set_method(method, simplify)
    wait(1500)   # the equations on display re-render as out of date: the view's work, not the derivation's
    done: dict = {}
    first: list[float] = []
    hooks = [(panel.derivationFinished, lambda eq: done.setdefault("result", time.perf_counter())),
             (panel.derivationFailed, lambda m, d: done.setdefault("error", m)),
             (panel.progressed, lambda p: first.append(time.perf_counter()) if not first else None)]
    for signal, slot in hooks:
        signal.connect(slot)
    meter.label = panel.progress.format
    meter.start()
    started = time.perf_counter()
    panel.start()
    while not done:
        wait(20)
    arrived = meter.now()
    wait(1000)  # the result is on display; keep measuring while it renders
    meter.stop()
    for signal, slot in hooks:
        signal.disconnect(slot)
    if "error" in done:
        raise RuntimeError(f"derivation failed: {done['error']}")
    block, p99, over = meter.summary()
    return {"block": block, "p99": p99, "over": over, "first": 1000 * (first[0] - started),
            "total": done["result"] - started, "running": meter.summary(0, arrived - 150)[0],
            "where": list(meter.blocks[:3])}


ACTION_GOAL_MS = 100.0


def _answered_dialogs(window, tmp: Path) -> dict[str, Path]:
    """Files for the import actions, and the dialogs they open answered at once (the benchmark's patches:
    a file dialog returns the file, the import dialog accepts its proposal, the report box and the mode
    dialog close). Returns {kind: file}."""
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from designer.gui import mode_dialog, urdf_dialogs
    from designer.mjcf.exporter import mjcf_text
    from designer.project import load_project
    from designer.urdf.exporter import urdf_text

    two = load_project(ROOT / "robots" / "planar_two_link.json")
    tmp.mkdir(parents=True, exist_ok=True)
    files = {"MJCF": tmp / "two_link.xml", "URDF": tmp / "two_link.urdf"}
    files["MJCF"].write_text(mjcf_text(two), encoding="utf-8")
    files["URDF"].write_text(urdf_text(two), encoding="utf-8")
    chosen: list[Path] = []
    QFileDialog.getOpenFileName = staticmethod(lambda *a, **k: (str(chosen[-1]), ""))
    QMessageBox.information = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Ok)
    urdf_dialogs.ImportDialog.exec = lambda self: 1
    listed: list[int] = []   # the modes each mode dialog listed: the action ran and computed them
    mode_dialog.ModeDialog.exec = lambda self: (listed.append(self.modes.count()), 0)[1]
    files["chosen"] = chosen   # type: ignore[assignment]
    files["listed"] = listed   # type: ignore[assignment]
    return files


def measure_actions(window, meter, runs: int, tmp: Path) -> list[dict]:
    """Worst GUI block of each action in each of ``runs`` runs (see the module's docstring)."""
    from designer.gui.mjcf_dialogs import import_mjcf_file
    from designer.gui.urdf_dialogs import import_urdf_file

    files = _answered_dialogs(window, tmp)
    chosen = files.pop("chosen")
    listed = files.pop("listed")
    animate = next(a for _menu, a in window.menu_actions() if "mode shape" in a.text().replace("&", "").lower())

    def clean():
        window.document.undo_stack.setClean()

    def importing(kind, function):
        def act():
            clean()
            chosen.append(files[kind])
            function(window)
        return act

    tube = ROOT / "robots" / "tube_arm.json"
    puma = ROOT / "robots" / "puma560.json"
    actions = [("open the tube arm", lambda: window.open_example(puma), lambda: window.open_example(tube)),
               ("import MJCF", lambda: window.open_example(tube), importing("MJCF", import_mjcf_file)),
               ("import URDF", lambda: window.open_example(tube), importing("URDF", import_urdf_file)),
               ("mode-shape dialog", lambda: window.open_example(tube), animate.trigger)]
    rows = []
    for run in range(1, runs + 1):
        for name, before, act in actions:
            clean()
            before()
            clean()
            wait(1500)   # the previous project's views settle
            gc.collect()
            done = []
            meter.label = lambda: window.statusBar().currentMessage()[:60]
            meter.start()
            wait(50)
            QTimer.singleShot(0, lambda act=act, done=done: (act(), done.append(meter.now())))
            while not done:
                wait(20)
            wait(1000)
            meter.stop()
            block, p99, over = meter.summary()
            rows.append({"run": run, "action": name, "block": block, "p99": p99, "over": over,
                         "where": list(meter.blocks[:3])})
            shown = (f"{window.document.model.n} links, {window.document.model.name}" if "dialog" not in name
                     else f"{listed[-1] if listed else 'no'} modes listed")
            print(f"run {run:2d} {name:18s}: longest GUI block {block:7.1f} ms, 99th pct {p99:6.1f} ms ({shown}); "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
    clean()
    return rows


def in_process(model, method: str, simplify: str) -> float:
    """The same derivation called here, with sympy's cache emptied first (a worker starts without one)."""
    from sympy.core.cache import clear_cache

    from designer.dynamics import derive
    clear_cache()
    started = time.perf_counter()
    derive(model, method, simplify)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="lagrange:fast,lagrange:full,newton-euler:full",
                        help="method:simplify pairs, comma-separated")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--runner", default="process", choices=["process", "thread"])
    parser.add_argument("--project", default=str(ROOT / "robots" / "puma560.json"))
    parser.add_argument("--drag", action="store_true", help="also measure the 3D view during a slider drag")
    parser.add_argument("--actions", type=int, default=0, metavar="N",
                        help="measure N runs of the four actions of issue 29 instead of derivations")
    args = parser.parse_args()
    configs = [tuple(c.split(":")) for c in args.configs.split(",")]

    app = QApplication([])
    app.setApplicationName("bench_gui")

    from designer.gui.derivation import default_derive
    from designer.gui.main_window import MainWindow
    from designer.project import load_project

    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_gui_{os.getpid()}"
    model = load_project(args.project)
    window = MainWindow(model, settings=QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat),
                        recovery_dir=tmp / "recovery", derive=default_derive if args.runner == "thread" else None)
    window.show()
    wait(1500)  # first paint, GL set-up
    if not os.environ.get("PLAIN_PYTHON"):  # set it to see what the two settings buy
        from designer.gui.app import settle_memory, share_the_gil
        from designer.gui.collector import collect_in_gui_thread
        settle_memory()  # as the application does after start-up
        share_the_gil()
        collect_in_gui_thread()
    wait(3000)  # the worker process server starts in the background when the window opens

    meter = GapMeter()
    meter.start()
    wait(3000)
    meter.stop()
    idle = meter.summary()
    print(f"project: {model.name} ({model.n} links); runner: {args.runner}; {args.runs} runs of "
          f"{', '.join(':'.join(c) for c in configs)}; load average {os.getloadavg()[0]:.1f} at the start")
    print(f"idle window     : longest GUI block {idle[0]:6.1f} ms, 99th percentile {idle[1]:5.1f} ms")
    if args.drag:
        fps, frame_ms = measure_drag(app, window)
        print(f"slider drag     : {fps:.1f} frames/s of the 3D view in the full window ({frame_ms:.1f} ms a frame; "
              f"goal >= 30)")

    if args.actions:
        found = measure_actions(window, meter, args.actions, tmp / "files")
        print(f"worst of {args.actions} runs (goal: no block over {ACTION_GOAL_MS:.0f} ms):")
        for name in dict.fromkeys(r["action"] for r in found):
            mine = [r for r in found if r["action"] == name]
            worst = max(mine, key=lambda r: r["block"])
            print(f"  {name:18s}: longest GUI block {worst['block']:7.1f} ms (run {worst['run']}), median "
                  f"{sorted(r['block'] for r in mine)[len(mine) // 2]:7.1f} ms; "
                  f"{sum(r['block'] > ACTION_GOAL_MS for r in mine)} of {len(mine)} over {ACTION_GOAL_MS:.0f} ms")
        window.document.undo_stack.setClean()
        window.close()
        return 0

    rows = []
    for run in range(1, args.runs + 1):
        for method, simplify in configs:
            peer = in_process(model, method, simplify)
            gc.collect()   # the peer's garbage is not the window's doing
            r = derive_once(app, window, meter, method, simplify)
            r.update(run=run, config=f"{method}:{simplify}", peer=peer, ratio=r["total"] / peer)
            rows.append(r)
            print(f"run {run:2d} {r['config']:18s}: longest block {r['block']:6.1f} ms (while running "
                  f"{r['running']:6.1f}), 99th pct {r['p99']:5.1f} ms; first progress {r['first']:6.1f} ms; "
                  f"Derive to result {r['total']:6.2f} s, in-process {peer:6.2f} s ({r['ratio']:.2f}x); "
                  f"load {os.getloadavg()[0]:.1f}" + (f"; blocks over {GOAL_MS:.0f} ms: {r['where']}"
                                                       if r["over"] else ""), flush=True)

    worst = max(rows, key=lambda r: r["block"])
    slow = max(rows, key=lambda r: r["first"])
    ratios = sorted(r["ratio"] for r in rows)
    print(f"worst of {len(rows)} derivations: longest GUI block {worst['block']:.1f} ms ({worst['config']}, run "
          f"{worst['run']}); {sum(r['block'] > GOAL_MS for r in rows)} of {len(rows)} over {GOAL_MS:.0f} ms")
    print(f"first progress: worst {slow['first']:.1f} ms ({slow['config']}, run {slow['run']}); "
          f"{sum(r['first'] > 200 for r in rows)} of {len(rows)} over 200 ms")
    print(f"Derive to result / in-process: median {ratios[len(ratios) // 2]:.2f}, worst {ratios[-1]:.2f}; "
          f"{sum(x > 1.10 for x in ratios)} of {len(ratios)} over 1.10")
    for config in dict.fromkeys(r["config"] for r in rows):
        mine = [r for r in rows if r["config"] == config]
        med = sorted(r["ratio"] for r in mine)[len(mine) // 2]
        print(f"  {config:18s}: worst block {max(r['block'] for r in mine):6.1f} ms, worst first progress "
              f"{max(r['first'] for r in mine):6.1f} ms, median ratio {med:.2f}")
    window.document.undo_stack.setClean()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
