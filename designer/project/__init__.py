"""The project file: load, save (atomic), version and migrations.

The names below load with their module on first use (:mod:`designer.lazy`): :mod:`.source`, a file's first
reading (its bounds, JSON, format and version), imports without sympy, for the window's first look
(:mod:`designer.glance`); :mod:`.io`, which makes the model, with it (issue 29).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names

if TYPE_CHECKING:
    from .io import dumps_project, from_dict, load_project, loads_project, save_project, to_dict
    from .source import FORMAT, VERSION, ProjectError

__all__ = ["FORMAT", "VERSION", "ProjectError", "dumps_project", "from_dict", "load_project",
           "loads_project", "save_project", "to_dict"]

if not TYPE_CHECKING:   # mypy reads the imports above; a module __getattr__ would make any name pass
    __getattr__, __dir__ = lazy_names(__name__, {
        "source": ("FORMAT", "VERSION", "ProjectError"),
        "io": ("dumps_project", "from_dict", "load_project", "loads_project", "save_project", "to_dict"),
    })
