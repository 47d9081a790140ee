"""Frames per second of the 3D view while a joint slider is dragged on the PUMA 560 (or a vendor arm with meshes).

Run: ``xvfb-run -a -s "-screen 0 1600x1000x24" python -m benchmarks.bench_view3d [--size 1000x700]``
``--meshes ur5`` (or ``panda``): the arm of example-robot-data imported with its visual meshes,
drawn with them (thinned to designer.gui.meshes.FACE_BUDGET triangles) and, as a second peer,
with the stick figure (Show > Meshes off).
(prints figures; not a test). Needs Xvfb and QT_QPA_PLATFORM=xcb (Mesa's software OpenGL).

A JointSliders widget drives an ArmView, as in the main window. Each step
moves the slider of joint 2 by one notch and runs the event loop until the
view has painted a new frame (paintGL counted), so the figure is frames that
were actually drawn, not slider events. The peer is the same window showing
an empty scene (the base grid only): the ratio says what the arm costs on
top of what the platform's software OpenGL gives anyway. Goal: >= 30 fps.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

from PySide6.QtCore import QCoreApplication, Qt  # noqa: E402

QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
from PySide6.QtWidgets import QApplication, QHBoxLayout, QWidget  # noqa: E402

GOAL_FPS = 30.0


def _vendor(name: str):
    """A vendor arm of example-robot-data with its visual meshes (designer.urdf.pipeline)."""
    from importlib import metadata
    from designer.urdf.pipeline import import_file
    robots = Path(str(metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots")))
    path, tip = {"ur5": ("ur_description/urdf/ur5_robot.urdf", None),
                 "panda": ("panda_description/urdf/panda.urdf", "panda_link8")}[name]
    return import_file(robots / path, tip=tip).model


def _model():
    from designer.project import load_project
    path = ROOT / "robots" / "puma560.json"
    if path.exists():
        return load_project(path)
    from tests.support.arms import puma560
    return puma560()


def measure(app: QApplication, window: QWidget, view, sliders, steps: int, with_arm: bool) -> tuple[float, float]:
    """(frames per second, mean ms of Python work per step) over ``steps`` slider notches."""
    frames = [0]
    original = view.view.paintGL

    def counting_paint(*args):
        frames[0] += 1
        return original(*args)

    view.view.paintGL = counting_paint
    slider = sliders.sliders[1] if with_arm else None   # joint 2: the shoulder, which moves most of the arm
    work = 0.0
    start = time.perf_counter()
    for k in range(steps):
        before = frames[0]
        t0 = time.perf_counter()
        if with_arm:
            slider.setValue(200 + (k * 3) % 600)  # drag back and forth over the middle of the range
        else:
            view.view.update()
        work += time.perf_counter() - t0
        deadline = time.perf_counter() + 2.0
        while frames[0] == before and time.perf_counter() < deadline:
            app.processEvents()
    elapsed = time.perf_counter() - start
    view.view.paintGL = original
    return frames[0] / elapsed, 1000 * work / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1000x700", help="3D view size WxH (default 1000x700)")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--no-native", dest="native", action="store_false",
                        help="leave the view inside the window's backing store (Qt composites the whole window)")
    parser.add_argument("--meshes", choices=["ur5", "panda"], help="a vendor arm with its meshes instead of the PUMA")
    parser.add_argument("--faces", type=int,
                        help="triangle budget of the meshes (default: designer.gui.meshes.FACE_BUDGET)")
    args = parser.parse_args()
    if args.faces:
        from designer.gui import meshes
        meshes.FACE_BUDGET = args.faces
    width, height = (int(v) for v in args.size.split("x"))
    app = QApplication.instance() or QApplication([])
    from designer.gui.joint_sliders import JointSliders
    from designer.gui.view3d import ArmView

    results = {}
    runs: list = [False, True] + (["sticks"] if args.meshes else [])
    faces = 0
    for run in runs:
        with_arm = run is not False
        window = QWidget()
        layout = QHBoxLayout(window)
        view, sliders = ArmView(), JointSliders()
        if args.native:  # what the main window does: the GL view in its own native window
            view.view.setAttribute(Qt.WidgetAttribute.WA_DontCreateNativeAncestors)
            view.view.setAttribute(Qt.WidgetAttribute.WA_NativeWindow)
        layout.addWidget(view, 1)
        layout.addWidget(sliders)
        view.setMinimumSize(width, height)
        window.show()
        if with_arm:
            model = _vendor(args.meshes) if args.meshes else _model()
            view.set_option("show_meshes", run is True)
            view.set_model(model)
            deadline = time.perf_counter() + 120
            while view.meshes.pending and time.perf_counter() < deadline:   # loading runs on a thread
                app.processEvents()
                time.sleep(0.01)
            faces = max(faces, view.meshes.face_count())
            view.show_frames = view.show_com = True
            sliders.set_model(model)
            sliders.valuesChanged.connect(view.set_joint_values)
        for _ in range(20):
            app.processEvents()
        measure(app, window, view, sliders, 20, with_arm)  # warm up shaders and buffers
        results[run] = measure(app, window, view, sliders, args.steps, with_arm)
        window.close()
        window.deleteLater()
        app.processEvents()
    fps, work = results[True]
    peer, _ = results[False]
    where = "own native window, as in the main window" if args.native else "composited with the window"
    what = (f"{args.meshes} with its meshes ({faces} triangles)" if args.meshes else "PUMA 560") + \
        " with frames and COM markers"
    print(f"3D view {width}x{height} ({where}), {what}, {args.steps} slider steps")
    print(f"  dragging a joint slider: {fps:6.1f} frames/s  (Python work per step {work:.2f} ms)")
    print(f"  peer, empty scene:       {peer:6.1f} frames/s  (ratio arm/empty {fps / peer:.2f})")
    if args.meshes:
        sticks, _ = results["sticks"]
        print(f"  peer, same arm as sticks: {sticks:6.1f} frames/s  (ratio meshes/sticks {fps / sticks:.2f})")
    print(f"  goal >= {GOAL_FPS:.0f} frames/s: {'met' if fps >= GOAL_FPS else 'NOT met'}")


if __name__ == "__main__":
    main()
