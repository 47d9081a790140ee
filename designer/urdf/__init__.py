"""URDF import and export (docs/urdf.md)."""

from .importer import ImportReport, import_tree, import_urdf
from .source import UrdfError, parse_urdf, read_urdf

__all__ = ["ImportReport", "UrdfError", "import_tree", "import_urdf", "parse_urdf", "read_urdf"]
