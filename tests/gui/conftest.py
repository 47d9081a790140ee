"""Fixtures of the GUI tests."""

import pytest
from PySide6.QtWidgets import QMessageBox


@pytest.fixture
def no_dialogs(monkeypatch):
    """Fail on any message box instead of blocking on a modal one."""
    def unexpected(*args, **kwargs):
        raise AssertionError(f"unexpected message box: {args[1:3]}")
    for name in ("question", "warning", "critical", "information"):
        monkeypatch.setattr(QMessageBox, name, unexpected)
