"""How long the GUI thread is blocked while a six-link derivation runs in the worker,
and how fast the 3D view follows a dragged joint slider in the full window.

Run: ``xvfb-run -a -s "-screen 0 1600x1000x24" python -m benchmarks.bench_gui [--method M] [--simplify S]``
(prints figures; not a test). Needs a display for the 3D view: Xvfb, QT_QPA_PLATFORM=xcb.

The full main window shows the PUMA 560 (3D view, sliders, plots). A QTimer
ticks every 5 ms on the GUI thread; the longest gap between ticks minus 5 ms
is the longest time the GUI thread could not react. Measured while the window
is idle (the peer: what the platform gives with nothing running) and while
the derivation runs, up to and including showing its result. Goal: < 50 ms.
The window is tuned as the application tunes it (``settle_memory``,
``share_the_gil``); PLAIN_PYTHON=1 in the environment leaves both out.
"""

from __future__ import annotations

import argparse
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="lagrange", choices=["lagrange", "newton-euler", "dalembert"])
    parser.add_argument("--simplify", default="fast", choices=["off", "fast", "full"])
    parser.add_argument("--project", default=str(ROOT / "robots" / "puma560.json"))
    args = parser.parse_args()

    app = QApplication([])
    app.setApplicationName("bench_gui")

    from designer.gui.main_window import MainWindow
    from designer.project import load_project

    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_gui_{os.getpid()}"
    model = load_project(args.project)
    window = MainWindow(model, settings=QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat),
                        recovery_dir=tmp / "recovery")
    window.show()
    wait(1500)  # first paint, GL set-up
    if not os.environ.get("PLAIN_PYTHON"):  # set it to see what the two settings buy
        from designer.gui.app import settle_memory, share_the_gil
        settle_memory()  # as the application does after start-up
        share_the_gil()

    meter = GapMeter()
    meter.start()
    wait(3000)
    meter.stop()
    idle = meter.summary()
    fps, frame_ms = measure_drag(app, window)

    panel = window.derivation
    panel.set_method(args.method, args.simplify)
    done = {}
    panel.derivationFinished.connect(lambda eq: done.setdefault("result", eq))
    panel.worker_done_at = None
    panel.derivationFailed.connect(lambda m, d: done.setdefault("error", m))
    meter.label = panel.progress.format
    meter.start()
    started = time.perf_counter()
    panel.start()
    while not done:
        wait(100)
    elapsed = time.perf_counter() - started
    arrived = meter.now()
    wait(1000)  # the result is on display; keep measuring while it renders
    meter.stop()
    # the tick that ends the block in which the result was shown comes after `arrived`
    running = meter.summary(0, arrived - 150)
    busy = meter.summary()
    if "error" in done:
        print(f"derivation failed: {done['error']}")
        return 1

    print(f"project: {model.name} ({model.n} links); derivation: {args.method}, {args.simplify} "
          f"simplification, {elapsed:.1f} s in the worker")
    print(f"slider drag     : {fps:.1f} frames/s of the 3D view in the full window ({frame_ms:.1f} ms a frame; "
          f"goal >= 30)")
    print(f"idle window     : longest GUI block {idle[0]:6.1f} ms, 99th percentile {idle[1]:5.1f} ms")
    print(f"worker running  : longest GUI block {running[0]:6.1f} ms, 99th percentile {running[1]:5.1f} ms")
    print(f"incl. showing   : longest GUI block {busy[0]:6.1f} ms, 99th percentile {busy[1]:5.1f} ms, "
          f"{busy[2]} blocks over {GOAL_MS:.0f} ms in {len(meter.gaps)} ticks")
    if meter.blocks:
        print("blocks over the goal (ms, progress shown after):", meter.blocks[:10])
    print(f"longest block / goal ({GOAL_MS:.0f} ms): {busy[0] / GOAL_MS:.2f}; "
          f"/ idle peer: {busy[0] / max(idle[0], 1e-3):.1f}x")
    window.document.undo_stack.setClean()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
