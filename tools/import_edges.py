"""Count the core's internal imports and the ones that run against the layer order.

    python tools/import_edges.py            # counts, then every edge against the order
    python tools/import_edges.py --quiet    # counts only

Reads designer/ with ``ast`` (nothing is imported, so it runs on any checkout). An internal import
is one ``import``/``from`` statement naming a designer module; it is *top-level* when it runs at
module import (module body, including ``if``/``try`` blocks and ``TYPE_CHECKING`` guards) and
*function-level* when it sits inside a ``def``. An edge runs *against the order* when a package
imports a package of a higher layer (or of the same layer, for the packages that must not know each
other). The order is the one in pyproject.toml's [tool.importlinter] contracts (docs/architecture.md).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

# Lowest first; packages in one tuple are one layer. Same order as the import-linter contract.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "jobs"),
    ("model",),
    ("project", "kinematics"),
    ("dynamics",),
    ("codegen",),
    ("numeric",),
    ("identification", "explore", "control", "report", "urdf", "mjcf", "meshes", "design_state"),
    ("cli", "gui", "launch", "__main__"),
)
# Layers whose packages must not import each other (independence), by layer index.
INDEPENDENT = {6}
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}


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
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent / "designer")
    parser.add_argument("--quiet", action="store_true", help="print the counts only")
    args = parser.parse_args(argv)
    root: Path = args.root
    total = Counter()
    per_package = Counter()
    against: list[tuple[str, int, str, str, bool]] = []
    unknown: set[str] = set()
    for path in sorted(root.rglob("*.py")):
        here = module_name(path, root)
        source_pkg = package_of(here) or ""
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for target, line, in_function in imports(tree, here, path.name == "__init__.py"):
            target_pkg = package_of(target)
            if target_pkg is None or target_pkg == source_pkg:
                total["within a package", in_function] += 1
                continue
            total["between packages", in_function] += 1
            if source_pkg == "gui":
                continue  # the window may use all of the core; only the core's order is counted below
            per_package[source_pkg, in_function] += 1
            if source_pkg not in RANK or target_pkg not in RANK:
                unknown.update(p for p in (source_pkg, target_pkg) if p not in RANK)
                continue
            up = RANK[target_pkg] > RANK[source_pkg]
            sideways = RANK[target_pkg] == RANK[source_pkg] and RANK[source_pkg] in INDEPENDENT
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
    if unknown:
        print(f"packages not in the layer list (add them to LAYERS): {', '.join(sorted(unknown))}")
    if not args.quiet:
        for rel, line, src, dst, fn in against:
            print(f"  {rel}:{line}: {src} -> {dst}{' (in a function)' if fn else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
