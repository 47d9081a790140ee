"""File > Export > Design report: the window's figures (3D view at the current pose, coupling plots,
the Simulate tab's plots and the Explore map when computed and current) beside the DH table and the equations, as one
self-contained HTML file or a PDF (:mod:`designer.report.design_report`, run in a worker process). A closed
chain's report adds its tree, loops, M_a, G_a and cut-joint forces at the pose (report/tables.py closed_chain_tables).
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QBuffer, QEventLoop, QIODevice
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from typing import TYPE_CHECKING

from ..jobs.process import ProcessJob, call_job
from .folders import remember_folder, safe_file_name

if TYPE_CHECKING:
    from ..report.design_report import Figure

# the explore and report modules are imported when a report is written: 60 ms of the window's start (issue 29)

__all__ = ["build_menu", "grab_figures", "export_design_report", "FORMATS", "png_bytes"]

MESH_WAIT = 30.0   # seconds the report waits for meshes still loading (a Panda's take about 3 s)

FORMATS = {"html": ("Design report with figures as &HTML…", "HTML (*.html)", ".html"),
           "pdf": ("Design report with figures as &PDF…", "PDF (*.pdf)", ".pdf")}


def build_menu(window, menu) -> None:
    for fmt, (text, _filter, _suffix) in FORMATS.items():
        window._action(menu, text, lambda f=fmt: export_design_report(window, f))


def png_bytes(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # the stubs type the format as bytes, but PySide6 6.x accepts only str for it at run time
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]
        raise ValueError("could not encode the image as PNG")
    return bytes(buffer.data().data())


def _plot_png(layout_widget) -> bytes:
    from pyqtgraph import exporters
    exporter = exporters.ImageExporter(layout_widget.ci)
    exporter.parameters()["width"] = max(layout_widget.width(), 900)
    return png_bytes(exporter.export(toBytes=True))


def _pose_text(window) -> str:
    q = window.sliders.values()
    model = window.document.model
    parts = [(f"q{i} = {v * 57.29577951308232:.1f}°" if link.is_revolute else f"q{i} = {v:.3f} m")
             + ("" if link.actuated else " (passive)")   # a closed chain's passive joints follow its loops
             for i, (v, link) in enumerate(zip(q, model.links), start=1)]
    return "pose " + ", ".join(parts)


def grab_figures(window) -> tuple[list[Figure], list[str]]:
    """The figures the window can give now, and a note for each one left out."""
    from ..explore.coupling import joint_moving_entry
    from ..report.design_report import Figure
    figures: list[Figure] = []
    notes: list[str] = []
    view = window.arm_view
    deadline = time.monotonic() + MESH_WAIT
    while view.meshes.pending and time.monotonic() < deadline:   # the report shows the meshes, not the sticks
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    if view.arm is not None:
        image = view.view.grabFramebuffer()
        if image.isNull() or image.width() < 2:
            notes.append("the 3D view could not be grabbed")
        else:
            meshes = " (with the vendor's meshes)" if view.meshes.drawn_frames() else ""
            figures.append(Figure("The arm in the 3D view" + meshes, png_bytes(image), _pose_text(window)))
    else:
        notes.append("no 3D view (the model lacks parameter values)")
    coupling = window.coupling
    if coupling.arm is not None and coupling.arm.n >= 2:
        chosen = coupling.swept_joint.currentIndex()
        i, j = coupling.pair()
        if i != j:   # sweep a joint the pair's M_ij varies with (never q1 of a serial arm: a flat curve)
            swept = joint_moving_entry(coupling.arm, i, j, chosen if chosen >= 0 else None)
            if swept != chosen:
                coupling.set_swept_joint(swept)   # redraws
        if not coupling.curve_data():
            coupling.refresh()
        # a closed chain's curves come from a worker job (coupling_jobs.py): wait for the one running
        while coupling.runner.busy and time.monotonic() < deadline + MESH_WAIT:
            QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        if coupling.curve_data():
            i, j = coupling.pair()
            names = [coupling.swept_joint.itemText(k) for k in range(coupling.swept_joint.count())]
            figures.append(Figure("Coupling plots", _plot_png(coupling.joint_plots),
                                  f"joints {names[i]} and {names[j]}, swept over "   # as the window names them
                                  f"{coupling.swept_joint.currentText()}"))
    simulate = window.simulate
    if simulate.result is not None:
        if not simulate.stale_banner.isHidden():
            notes.append("the simulation is out of date and was left out")
        else:
            r = simulate.result
            plotted = ("q, the tool's deviation from the rigid arm, the springs' deflection and energy"
                       if getattr(r, "deviation", None) is not None else "q, joint torques and energy")
            figures.append(Figure("Simulation", _plot_png(simulate.plots), f"{r.kind}, {r.t[-1]:.3g} s: {plotted}"))
    map_view = window.explore.map_view
    if map_view.result is not None:
        if map_view.stale:
            notes.append("the Explore map is out of date and was left out")
        else:
            figures.append(Figure("Explore map", _plot_png(map_view.box.layout_widget), map_view.result.grid.label))
    return figures, notes


def _equations(window):
    eq, stale = window.derivation.current_equations()
    if eq is None:
        return None, "no equations (not derived yet)"
    if stale:
        return None, "the equations on display are out of date and were left out"
    return eq, ""


def export_design_report(window, fmt: str, path=None) -> bool:
    """Grab the figures and write the report (``fmt`` "html" or "pdf") to ``path`` (asked when None)."""
    from ..report.design_report import write_design_report
    from .export import export_busy
    if export_busy(window):
        return False
    text, file_filter, suffix = FORMATS[fmt]
    if path is None:
        doc = window.document
        stem = doc.path.stem if doc.path else safe_file_name((doc.model.name or "arm").split(" (")[0])
        chosen, _ = QFileDialog.getSaveFileName(window, "Export design report",
                                                str(window._folder() / (stem + "-report" + suffix)), file_filter)
        if not chosen:
            return False
        remember_folder(chosen, window.settings)
        path = chosen
    target = Path(path)
    target = target if target.suffix else target.with_suffix(suffix)
    try:
        figures, notes = grab_figures(window)
    except ValueError as exc:
        QMessageBox.critical(window, "Export", f"Design report: {exc}")
        return False
    eq, note = _equations(window)
    if note:
        notes.append(note)
    model = window.document.model
    # a closed chain's M_a, G_a and cut-joint forces at the pose on display (report/tables.py closed_chain_tables)
    pose = [float(v) for v in window.design.q]
    review = window.requirements.report_rows(model)   # the Requirements tab's review of this model, if any
    if model.requirements.items and review is None:
        notes.append("the design review of the requirements is still running: not included")
    job = ProcessJob(call_job, (write_design_report, (target, model, figures, eq, None, pose, review),
                                "Writing the design report", target.name))

    def done(summary: str) -> None:
        window.show_message(summary + ("; " + "; ".join(notes) if notes else ""))
        window.exported.emit(str(target))

    def fail(message: str, _details: str) -> None:
        QMessageBox.critical(window, "Export", f"Design report failed: {message}")

    window.show_message("Writing the design report…")
    window.export_jobs.start("Writing the design report", job, done, on_failed=fail)
    return True
