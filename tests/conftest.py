"""Test set-up shared by every test module."""

from __future__ import annotations

import os
from pathlib import Path

import designer  # noqa: F401  (before numpy loads: it sets one BLAS thread, designer/__init__.py)
import pytest

# tests/ is a package (every folder has an __init__.py), so pytest puts the repository root on
# sys.path and the shared helpers import as `from tests.support import robot_path`.
from tests.support import HYPOTHESIS_PROFILE, ROBOTS

try:
    from hypothesis import settings as _hsettings

    _hsettings.register_profile("suite", derandomize=True, database=None, print_blob=True)
    _hsettings.register_profile("fuzz", derandomize=False, print_blob=True)
    _hsettings.load_profile(HYPOTHESIS_PROFILE)
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    pass


# The 3D view needs a real X server (Xvfb via pytest-xvfb): on Qt's offscreen platform it renders
# blank and renderToArray crashes the process; under Xvfb Mesa's llvmpipe draws real pixels.
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")


def pytest_configure(config):
    # must happen before any QApplication exists (pyqtgraph shares shader programs across contexts)
    try:
        from PySide6.QtCore import QCoreApplication, Qt
    except ImportError:
        return
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)


@pytest.fixture(scope="session", autouse=True)
def private_user_folders(tmp_path_factory):
    """The user's data and configuration folders (QStandardPaths' AppDataLocation: the window's default
    recovery folder; QSettings' default place) in this process's own temporary folder: the suite runs in
    parallel processes (`make test`: pytest-xdist), which must not share, nor touch the user's. The cache
    folder stays: matplotlib's font cache there is written under a lock, and rebuilding it in every
    worker costs seconds."""
    base = tmp_path_factory.mktemp("user")
    saved = {k: os.environ.get(k) for k in ("XDG_DATA_HOME", "XDG_CONFIG_HOME")}
    for key in saved:
        os.environ[key] = str(base / key.lower())
    yield base
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def robots_dir() -> Path:
    return ROBOTS


@pytest.fixture
def no_dialogs(monkeypatch):
    """Fail on any message box instead of blocking on a modal one (GUI tests opt in)."""
    from PySide6.QtWidgets import QMessageBox

    def unexpected(*args, **kwargs):
        raise AssertionError(f"unexpected message box: {args[1:3]}")
    for name in ("question", "warning", "critical", "information"):
        monkeypatch.setattr(QMessageBox, name, unexpected)
