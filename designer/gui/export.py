"""The Export menu: the equations report (LaTeX, Markdown, HTML) and generated code."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

__all__ = ["build_menu", "export_report", "REPORT_FORMATS"]

# format -> (menu text, file suffix, file filter)
REPORT_FORMATS = {
    "latex": ("Equations report as &LaTeX…", ".tex", "LaTeX (*.tex)"),
    "markdown": ("Equations report as &Markdown…", ".md", "Markdown (*.md)"),
    "html": ("Equations report as &HTML…", ".html", "HTML (*.html)"),
}


def build_menu(window, menu) -> None:
    for fmt, (text, _suffix, _filter) in REPORT_FORMATS.items():
        window._action(menu, text, lambda f=fmt: export_report(window, f))


def _equations(window):
    """The equations on display, after asking about out-of-date ones; None to stop."""
    eq, stale = window.derivation.current_equations()
    if eq is None:
        QMessageBox.information(window, "Export", "Derive the equations first (Equations tab, Derive).")
        return None
    if stale:
        answer = QMessageBox.question(window, "Export", "The equations on display are out of date "
                                      "(the model or settings changed). Export them anyway?")
        if answer != QMessageBox.StandardButton.Yes:
            return None
    return eq


def _target(window, title: str, suffix: str, file_filter: str, path) -> Path | None:
    if path is None:
        base = window.document.path.with_suffix(suffix) if window.document.path else \
            Path.cwd() / ((window.document.model.name or "arm").replace(" ", "_") + suffix)
        path, _ = QFileDialog.getSaveFileName(window, title, str(base), file_filter)
        if not path:
            return None
    path = Path(path)
    return path if path.suffix else path.with_suffix(suffix)


def _write(window, path: Path, text: str) -> bool:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        QMessageBox.critical(window, "Export", f"{path}: {exc.strerror or exc}")
        return False
    window.show_message(f"Wrote {path}")
    return True


def export_report(window, fmt: str, path=None) -> bool:
    """Write the equations report in ``fmt`` (latex, markdown, html)."""
    eq = _equations(window)
    if eq is None:
        return False
    _text, suffix, file_filter = REPORT_FORMATS[fmt]
    target = _target(window, "Export equations report", suffix, file_filter, path)
    if target is None:
        return False
    try:
        from ..report import render
    except ImportError:
        QMessageBox.information(window, "Export", "The report writer is not available in this version.")
        return False
    return _write(window, target, render(eq, fmt))
