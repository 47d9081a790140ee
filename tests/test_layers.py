"""The layer order is written down once (pyproject.toml's [tool.importlinter], checked by `lint-imports`
in `make lint`); these tests keep that contract complete as packages are added, and the module graph
free of circles, which import-linter's layers do not see inside one package."""

from __future__ import annotations

import pkgutil
import sys
import tomllib
from pathlib import Path

import designer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import import_edges  # noqa: E402

CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def _top_level() -> set[str]:
    return {info.name for info in pkgutil.iter_modules(designer.__path__)}


def test_every_package_of_designer_has_its_place_in_the_layers():
    layers, _ = import_edges.contract_layers()
    placed = {name for layer in layers for name in layer}
    missing = _top_level() - placed
    assert not missing, f"add {sorted(missing)} to the layers contract in pyproject.toml (docs/architecture.md)"
    layers_contract = next(c for c in CONTRACTS if c["type"] == "layers")
    optional = {name.strip()[1:-1] for layer in layers_contract["layers"] for name in layer.split("|")
                if name.strip().startswith("(")}   # "(name)": an optional layer, may not exist yet
    assert placed - optional <= _top_level() | {"__main__"}, "the contract names a package that does not exist"


def test_every_core_package_is_checked_for_qt():
    qt = next(c for c in CONTRACTS if c["name"].startswith("No Qt in the core"))
    checked = {m.removeprefix("designer.") for m in qt["source_modules"]}
    missing = _top_level() - checked - {"gui", "__main__"}
    assert not missing, f"add designer.{sorted(missing)} to the 'No Qt in the core' contract in pyproject.toml"


def test_no_two_modules_import_each_other(capsys):
    import_edges.main([])
    out = capsys.readouterr().out
    assert "edges against the layer order: 0 " in out, out
    pairs = sorted(line.strip() for line in out.splitlines() if " <-> " in line)
    assert "modules importing each other: 0" in out, f"modules importing each other: {pairs}"
