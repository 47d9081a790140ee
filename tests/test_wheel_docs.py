"""The wheel carries the user guide: Help > User guide works from an installed package, not only a checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("wheel")   # the offline build below needs it (the test extra has it)
    out = tmp_path_factory.mktemp("wheel")
    # a copy of what the build reads: pip builds in the source folder, whose build/ would outlive the test
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for folder in ("designer", "docs", "resources"):
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "_docs"))
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(out), str(src)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-2000:]
    wheels = list(out.glob("manipulator_designer-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_wheel_holds_the_readme_and_every_docs_page(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {"designer/_docs/README.md"} | {f"designer/_docs/docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert len(expected) > 3 and expected <= names, sorted(expected - names)
    # the images the README shows are there too, at the same relative path
    assert "designer/_docs/docs/screenshot.png" in names
    shipped = zipfile.ZipFile(wheel).read("designer/_docs/docs/metrics.md").decode("utf-8")
    assert shipped == (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")


def test_help_finds_the_guide_in_the_installed_package(wheel, tmp_path):
    """Unpacked away from the checkout, the Help code reads the guide through importlib.resources."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = ("import designer.gui.help as h; r = h.guide_root(); pages = h.doc_pages();"
             "print(r); print('|'.join(p.name for _, p in pages)); print(h.ROOT)")
    env = {"PYTHONPATH": str(site), "QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    root, names, checkout = run.stdout.strip().splitlines()
    assert Path(root) == site / "designer" / "_docs"
    assert not (Path(checkout) / "docs").exists()   # no docs/ beside the installed package: the shipped copy is used
    assert names.split("|")[0] == "README.md" and "metrics.md" in names.split("|")


def test_the_wheel_carries_the_bundled_catalogs(wheel, tmp_path):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"designer/_catalogs/{p.name}" for p in (ROOT / "resources" / "catalogs").glob("*.json")}
    assert expected and expected <= names, sorted(expected - names)
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = "from designer.catalog import load_catalog; c = load_catalog(); print(len(c.gearboxes), len(c.motors))"
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    from designer.catalog import load_catalog
    here = load_catalog()
    assert run.stdout.split() == [str(len(here.gearboxes)), str(len(here.motors))]
