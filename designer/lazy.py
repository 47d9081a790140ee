"""Names of a package loaded with their module on first use (PEP 562), for packages whose ``__init__``
would otherwise import sympy for everyone who imports one sympy-free module of theirs (issue 29: the
window draws the arm before sympy is imported). The standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str,
               homes: Mapping[str, Sequence[str]]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """(``__getattr__``, ``__dir__``) for ``package``: ``homes`` maps each of its submodules (relative
    name) to the names it exports. A name's module is imported when the name is first asked for, and the
    name is stored in the package then (later look-ups do not come here)."""
    home = {name: module for module, names in homes.items() for name in names}
    namespace = import_module(package).__dict__

    def get(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f".{module}", package), name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted(set(namespace) | set(home))

    return get, names
