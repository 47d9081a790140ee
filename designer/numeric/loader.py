"""Python source written at run time, loaded as a module: the one exec for both code writers of the
numeric layer (the tape of :mod:`.trace` and the compiled equations of :mod:`.compiled`).

The text is registered with :mod:`linecache` under a unique file name, so that ``inspect.getsource``
and tracebacks show the generated lines.
"""

from __future__ import annotations

import itertools
import linecache
from collections.abc import Mapping
from types import ModuleType
from typing import Any

__all__ = ["load_source"]

_counter = itertools.count()


def load_source(source: str, tag: str, namespace: Mapping[str, Any] | None = None) -> ModuleType:
    """A module made by running ``source`` (file name ``<designer-TAG-k>``), with ``namespace``'s
    names defined before it runs."""
    filename = f"<designer-{tag}-{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = ModuleType(filename)
    module.__file__ = filename
    module.__dict__.update(namespace or {})
    exec(compile(source, filename, "exec"), module.__dict__)
    return module
