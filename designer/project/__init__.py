"""The project file: load, save (atomic), version and migrations."""

from .io import (FORMAT, VERSION, ProjectError, dumps_project, from_dict, load_project, loads_project,
                 save_project, to_dict)

__all__ = ["FORMAT", "VERSION", "ProjectError", "dumps_project", "from_dict", "load_project",
           "loads_project", "save_project", "to_dict"]
