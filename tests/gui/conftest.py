"""GUI tests keep their QSettings (last folder, 3D view options, window layout) in a temporary folder
under a test organisation name, so nothing leaks into the user's settings or from one test to another."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QSettings


@pytest.fixture(autouse=True)
def private_settings(tmp_path):
    old = (QSettings.defaultFormat(), QCoreApplication.organizationName(), QCoreApplication.applicationName())
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "qsettings"))
    QCoreApplication.setOrganizationName("DesignerTests")
    QCoreApplication.setApplicationName("designer-tests")
    yield tmp_path / "qsettings"
    QSettings.setDefaultFormat(old[0])
    QCoreApplication.setOrganizationName(old[1])
    QCoreApplication.setApplicationName(old[2])
