"""The Export menu: the equations report (LaTeX, Markdown, HTML, JSON) and generated code (C source
and header, Python, a folder of MATLAB files: what ``codegen`` writes, :mod:`designer.codegen.files`,
with its choice of standard or base parameters and of the drive terms, :mod:`.export_options`).

Writing a report of large equations takes a while (printing, operation
counts, common subexpressions), so it runs as a job in a worker process, on the
window's export job line (progress and Cancel in the status bar), and the files
are written when their text comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from ..jobs.process import ProcessJob, call_job
from ..project.atomic import write_atomic
from ..report import SUFFIX as REPORT_SUFFIX
from ..report import ReportFormat, render
from .export_options import CodeOptions, ask_code_options
from .folders import remember_folder, safe_file_name

__all__ = ["build_menu", "export_report", "export_code", "export_busy", "REPORT_FORMATS", "CODE_LANGUAGES"]

# what the menu offers: format -> (menu text, file filter)
REPORT_FORMATS = {
    ReportFormat.LATEX: ("Equations report as &LaTeX…", "LaTeX (*.tex)"),
    ReportFormat.MARKDOWN: ("Equations report as &Markdown…", "Markdown (*.md)"),
    ReportFormat.HTML: ("Equations report as &HTML (self-contained)…", "HTML (*.html)"),
    ReportFormat.JSON: ("Equations as &JSON…", "JSON (*.json)"),
}
# language -> (menu text, file filter, suffix); MATLAB writes a folder
CODE_LANGUAGES = {
    "c": ("&C code and header (tau, M, G, h, C, Y)…", "C source (*.c)", ".c"),
    "python": ("&Python/numpy code (tau, M, G, h, C, Y)…", "Python (*.py)", ".py"),
    "matlab": ("&MATLAB/Octave functions (tau, M, G, h, C, Y)…", "", ""),
}

_LANGUAGE_NAMES = {"c": "C", "python": "Python", "matlab": "MATLAB/Octave"}


def build_menu(window, menu) -> None:
    for fmt, (text, _filter) in REPORT_FORMATS.items():
        window._action(menu, text, lambda f=fmt: export_report(window, f))
    menu.addSeparator()
    for lang, (text, *_rest) in CODE_LANGUAGES.items():
        window._action(menu, text, lambda lang=lang: export_code(window, lang))


def export_busy(window) -> bool:
    """True (and a message box saying so) while another export is being written: one at a time, and
    starting a second must not silently cancel the first."""
    if window.export_jobs.busy:
        QMessageBox.information(window, "Export", f"{window.export_jobs.title} is still running: wait for it "
                                "or cancel it (status bar) first.")
        return True
    return False


def _equations(window):
    """The equations on display, after asking about out-of-date ones; None to stop."""
    eq, stale = window.derivation.current_equations()
    if eq is None:
        QMessageBox.information(window, "Export", "Derive the equations first (Equations tab, Derive).")
        return None
    if stale:
        answer = QMessageBox.question(window, "Export", "The equations on display are out of date "
                                      "(the model or the settings changed). Export them anyway?")
        if answer != QMessageBox.StandardButton.Yes:
            return None
    return eq


def _target(window, title: str, suffix: str, file_filter: str, path) -> Path | None:
    if path is None:
        doc = window.document
        stem = doc.path.stem if doc.path else safe_file_name((doc.model.name or "arm").split(" (")[0])
        base = window._folder() / (stem + suffix)
        path, _ = QFileDialog.getSaveFileName(window, title, str(base), file_filter)
        if not path:
            return None
        remember_folder(path, window.settings)
    path = Path(path)
    return path if path.suffix else path.with_suffix(suffix)


def _run(window, what: str, target: Path, make_text, args: tuple) -> None:
    """``make_text(*args)`` in a worker process, then write it (a text, or {path: text}); errors go
    to a message box."""
    job = ProcessJob(call_job, (make_text, args, what, target.name))

    def write(result) -> None:
        files = result if isinstance(result, dict) else {str(target): result}
        for path, text in files.items():
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, text)   # complete under its name or not there at all, as projects
            except OSError as exc:
                QMessageBox.critical(window, "Export", f"{path}: {exc.strerror or exc}")
                return
        window.show_message(f"Wrote {target}" + (f" ({len(files)} files)" if len(files) > 1 else ""))
        window.exported.emit(str(target))

    def fail(message: str, details: str) -> None:
        QMessageBox.critical(window, "Export", f"{what} failed: {message}")

    window.show_message(f"{what}…")
    window.export_jobs.start(what, job, write, on_failed=fail,
                             on_cancelled=lambda: window.show_message(f"{what}: cancelled"))


def export_report(window, fmt: ReportFormat | str, path=None) -> bool:
    """Write the equations report in ``fmt``; False when there is nothing to write or the user stops."""
    fmt = ReportFormat(fmt)
    return _export(window, "Export equations report", REPORT_SUFFIX[fmt], REPORT_FORMATS[fmt][1], path,
                   f"Writing the {fmt.value} report", render, fmt)


def export_code(window, lang: str, path=None, options: CodeOptions | None = None) -> bool:
    """Write generated code: for C the source and its header, for MATLAB a folder of .m files
    (``path``: the folder). ``options``: standard or base parameters, drive terms; asked in a dialog
    when neither they nor ``path`` are given, else the defaults (standard, rigid bodies). Standard
    parameters write the equations on display; base parameters need no derivation and write the arm
    on display, as ``codegen --parameters base`` does."""
    lang = getattr(lang, "value", lang)
    _text, file_filter, suffix = CODE_LANGUAGES[lang]
    if export_busy(window):
        return False
    if options is None:
        derived = window.derivation.current_equations()[0] is not None
        options = ask_code_options(window, _LANGUAGE_NAMES[lang], derived) if path is None else CodeOptions()
        if options is None:
            return False
    # (model, ...) for the base-parameter files, (equations, ...) for the others
    make: Callable[..., dict[str, str]]
    source: object
    if options.parameters == "base":
        from ..identification.code_plan import generate_base_files   # 14 ms of the window's start (issue 29)
        source = window.document.model
        make = generate_base_files
    else:
        source = _equations(window)
        if source is None:
            return False
        from ..window_jobs import window_code_files
        make = window_code_files   # a nonlinear loop's closed form: the compact form's code, saying so
    if lang != "matlab":
        target = _target(window, "Export code", suffix, file_filter, path)
        if target is None:
            return False
    else:
        if path is None:
            path = QFileDialog.getExistingDirectory(window, "Export MATLAB/Octave functions to the folder",
                                                    str(window._folder()))
            if not path:
                return False
            remember_folder(str(Path(path) / "x.m"), window.settings)
        target = Path(path)
    what = f"Generating {lang} code{options.describe()}"
    _run(window, what, target, make, (source, lang, str(target), None, options.drives))
    return True


def _export(window, title: str, suffix: str, file_filter: str, path, what: str, make_text, kind) -> bool:
    if export_busy(window):
        return False
    eq = _equations(window)
    if eq is None:
        return False
    target = _target(window, title, suffix, file_filter, path)
    if target is None:
        return False
    _run(window, what, target, make_text, (eq, kind))
    return True
