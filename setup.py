"""Build hook: ship the user guide (README.md and docs/) inside the package as ``designer/_docs``, and the
bundled catalogs (resources/catalogs/) as ``designer/_catalogs``.

Help > User guide reads it from there through importlib.resources when the application runs from an
installed wheel, which has no docs/ folder beside it; a source checkout reads README.md and docs/
directly. The project's metadata stays in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
GUIDE_PATTERNS = ("*.md", "*.png")   # the pages and the images they show


class BuildWithGuide(build_py):
    """build_py, then a copy of README.md and docs/ into the built package (keeping their relative links)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return   # an editable install runs from the checkout, where the guide already is
        target = Path(self.build_lib) / "designer" / "_docs"
        if target.exists():
            shutil.rmtree(target)
        (target / "docs").mkdir(parents=True)
        shutil.copy2(ROOT / "README.md", target / "README.md")
        for pattern in GUIDE_PATTERNS:
            for page in sorted((ROOT / "docs").glob(pattern)):
                shutil.copy2(page, target / "docs" / page.name)
        # the bundled catalogs of gearboxes and motors (designer/catalog/read.py reads them from there)
        catalogs = Path(self.build_lib) / "designer" / "_catalogs"
        if catalogs.exists():
            shutil.rmtree(catalogs)
        catalogs.mkdir(parents=True)
        for path in sorted((ROOT / "resources" / "catalogs").glob("*.json")):
            shutil.copy2(path, catalogs / path.name)


setup(cmdclass={"build_py": BuildWithGuide})
