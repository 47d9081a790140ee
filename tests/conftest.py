"""Test set-up shared by every test module."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROBOTS = ROOT / "robots"
sys.path.insert(0, str(ROOT))
# shared test helpers (pin_reference: the Pinocchio model of a DH table) import by name
sys.path.insert(0, str(ROOT / "tests"))

# The 3D view needs a real X server (Xvfb via pytest-xvfb); see docs and spec/headless-qt.md.
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")


def pytest_configure(config):
    # must happen before any QApplication exists (pyqtgraph shares shader programs across contexts)
    try:
        from PySide6.QtCore import QCoreApplication, Qt
    except ImportError:
        return
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)


@pytest.fixture
def robots_dir() -> Path:
    return ROBOTS


def robot_path(name: str) -> Path:
    return ROBOTS / f"{name}.json"


@pytest.fixture
def no_dialogs(monkeypatch):
    """Fail on any message box instead of blocking on a modal one (GUI tests opt in)."""
    from PySide6.QtWidgets import QMessageBox

    def unexpected(*args, **kwargs):
        raise AssertionError(f"unexpected message box: {args[1:3]}")
    for name in ("question", "warning", "critical", "information"):
        monkeypatch.setattr(QMessageBox, name, unexpected)
