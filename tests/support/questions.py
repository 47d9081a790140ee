"""Answering a modal question box in a GUI test, without a loop that outlives the test."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget


def answer_question(owner: QWidget, button: QMessageBox.StandardButton, contains: str) -> list[str]:
    """Click ``button`` of the next modal message box whose text holds ``contains``; returns [its text] once it was
    answered. The look is a timer owned by ``owner`` (the widget under test, which qtbot closes): it stops when it has
    answered or when ``owner`` goes, so it never answers a later test's box."""
    seen: list[str] = []
    timer = QTimer(owner)
    timer.setInterval(20)

    def look() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and contains in box.text():
            timer.stop()
            seen.append(box.text())
            box.button(button).click()
    timer.timeout.connect(look)
    timer.start()
    return seen
