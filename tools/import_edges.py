"""Count the core's internal imports and the ones that run against the layer order.

    python tools/import_edges.py            # counts, then every edge against the order
    python tools/import_edges.py --quiet    # counts only
    python tools/import_edges.py --root OTHER/designer   # another checkout (layers from this one)

Reads designer/ with ``ast`` (nothing is imported, so it runs on any checkout). An internal import
is one ``import``/``from`` statement naming a designer module; it is *top-level* when it runs at
module import (module body, including ``if``/``try`` blocks and ``TYPE_CHECKING`` guards) and
*function-level* when it sits inside a ``def``. An edge runs *against the order* when a package
imports a package of a higher layer (or of the same layer, for the packages that must not know each
other). The order is read from the layers contract in pyproject.toml's [tool.importlinter]
(docs/architecture.md), so the script works on older checkouts only with the layer list of today.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def contract_layers(pyproject: Path = ROOT / "pyproject.toml") -> tuple[list[tuple[str, ...]], set[int]]:
    """(layers lowest first, each a tuple of packages; the indices of layers whose packages must not
    know each other) from the layers contract of pyproject.toml's [tool.importlinter]."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["importlinter"]
    contract = next(c for c in config["contracts"] if c["type"] == "layers")
    layers, independent = [], set()
    for k, layer in enumerate(reversed(contract["layers"])):
        sep = "|" if "|" in layer else ":"
        layers.append(tuple(name.strip().strip("()") for name in layer.split(sep)))   # (x): optional
        if sep == "|" and len(layers[-1]) > 1:
            independent.add(k)
    return layers, independent


def package_of(module: str) -> str | None:
    """``designer.numeric.batch`` -> ``numeric``; None for ``designer`` itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "designer" else None


def module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve(node: ast.ImportFrom, here: str, is_package: bool) -> list[str]:
    """The absolute designer modules a ``from`` import names (the module, or module.name for submodules)."""
    if node.level:
        base = here.split(".") if is_package else here.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if not target.startswith("designer"):
        return []
    if node.module is None or target == "designer":  # from . import x / from designer import x
        return [f"{target}.{a.name}" for a in node.names]
    return [target]


def imports(tree: ast.Module, here: str, is_package: bool):
    """(target module, lineno, function_level) for every designer import in one file."""
    def walk(node: ast.AST, in_function: bool):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.startswith("designer"):
                        yield alias.name, child.lineno, in_function
            elif isinstance(child, ast.ImportFrom):
                for target in resolve(child, here, is_package):
                    yield target, child.lineno, in_function
            yield from walk(child, inner)
    yield from walk(tree, False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT / "designer")
    parser.add_argument("--quiet", action="store_true", help="print the counts only")
    args = parser.parse_args(argv)
    root: Path = args.root
    layers, independent = contract_layers()
    rank = {name: i for i, layer in enumerate(layers) for name in layer}
    total = Counter()
    per_package = Counter()
    against: list[tuple[str, int, str, str, bool]] = []
    unknown: set[str] = set()
    module_edges: set[tuple[str, str]] = set()
    for path in sorted(root.rglob("*.py")):
        here = module_name(path, root)
        source_pkg = package_of(here) or ""
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for target, line, in_function in imports(tree, here, path.name == "__init__.py"):
            module_edges.add((here, target))
            target_pkg = package_of(target)
            if target_pkg is None or target_pkg == source_pkg:
                total["within a package", in_function] += 1
                continue
            total["between packages", in_function] += 1
            if source_pkg == "gui":
                continue  # the window may use all of the core; only the core's order is counted below
            per_package[source_pkg, in_function] += 1
            if source_pkg not in rank or target_pkg not in rank:
                unknown.update(p for p in (source_pkg, target_pkg) if p not in rank)
                continue
            up = rank[target_pkg] > rank[source_pkg]
            sideways = rank[target_pkg] == rank[source_pkg] and rank[source_pkg] in independent
            if up or sideways:
                rel = path.relative_to(root.parent)
                against.append((str(rel), line, source_pkg, target_pkg, in_function))
    internal = sum(total.values())
    function_level = total["within a package", True] + total["between packages", True]
    print(f"internal imports: {internal} ({function_level} function-level, {internal - function_level} top-level)")
    for kind in ("within a package", "between packages"):
        print(f"  {kind}: {total[kind, False]} top-level, {total[kind, True]} function-level")
    core_fn = sum(n for (pkg, fn), n in per_package.items() if fn)
    cli_fn = per_package["cli", True]
    print(f"core imports between packages (gui excluded): {sum(per_package.values())}, "
          f"function-level {core_fn} (of them in cli: {cli_fn})")
    fn_against = sum(1 for e in against if e[4])
    print(f"edges against the layer order: {len(against)} ({fn_against} function-level)")
    # two modules that import each other (at any level): a circle held together by import order
    mutual = sorted((a, b) for a, b in module_edges if a < b and (b, a) in module_edges)
    print(f"modules importing each other: {len(mutual)}")
    if unknown:
        print(f"packages not in the layers contract (add them to pyproject.toml): {', '.join(sorted(unknown))}")
    if not args.quiet:
        for rel, line, src, dst, fn in against:
            print(f"  {rel}:{line}: {src} -> {dst}{' (in a function)' if fn else ''}")
        for a, b in mutual:
            print(f"  {a} <-> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
