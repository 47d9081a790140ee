"""URDF import and export (docs/urdf.md)."""

from .exporter import export_urdf, urdf_text
from .chain import chain_ends, default_tip
from .importer import ImportReport, import_tree, import_urdf
from .source import UrdfError, parse_urdf, read_urdf

__all__ = ["ImportReport", "UrdfError", "chain_ends", "default_tip", "export_urdf", "import_tree", "import_urdf",
           "parse_urdf", "read_urdf", "urdf_text"]
