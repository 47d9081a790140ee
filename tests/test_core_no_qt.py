"""The headless core never imports Qt: every module outside designer.gui, in a fresh interpreter."""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import designer

ROOT = Path(__file__).resolve().parent.parent
QT_PREFIXES = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6")


def core_modules() -> list[str]:
    """Every module and package under designer/ except designer.gui, found without importing any."""
    names = ["designer"]

    def walk(path: list[str], prefix: str) -> None:
        for info in pkgutil.iter_modules(path, prefix):
            if info.name in ("designer.gui", "designer.__main__"):  # __main__ parses argv and exits
                continue
            names.append(info.name)
            if info.ispkg:
                walk([str(Path(path[0]) / info.name.rsplit(".", 1)[1])], info.name + ".")

    walk(list(designer.__path__), "designer.")
    return names


PROBE = r"""
import importlib, json, sys
names = json.loads(sys.argv[1])
prefixes = tuple(json.loads(sys.argv[2]))
found = {}
failed = {}
for name in names:
    before = set(sys.modules)
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
        continue
    qt = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in prefixes)
    if qt:
        found[name] = qt
print(json.dumps({"qt": found, "failed": failed,
                  "all_qt": sorted(m for m in sys.modules if m.split(".")[0] in prefixes)}))
"""


def test_discovery_finds_the_core():
    names = core_modules()
    for expected in ("designer.model.expr", "designer.project.io", "designer.kinematics.numeric",
                     "designer.cli.model_commands"):
        assert expected in names
    assert not any(n.startswith("designer.gui") for n in names)


@pytest.mark.slow  # imports every module in a new interpreter
def test_core_imports_no_qt():
    names = core_modules()
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(names), json.dumps(QT_PREFIXES)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["failed"] == {}, report["failed"]
    assert report["qt"] == {}, f"modules that pull in Qt: {report['qt']}"
    assert report["all_qt"] == []
