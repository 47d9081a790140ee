"""URDF import and export (docs/urdf.md).

``import_urdf`` is the whole import (:func:`designer.urdf.pipeline.import_file`): xacro, the chain,
inertia from meshes on request, the visual meshes; :func:`designer.urdf.importer.import_tree` is
the chain alone, from a parsed tree.
"""

from .exporter import export_urdf, urdf_text
from .chain import chain_ends, default_tip
from .importer import ImportReport, import_tree
from .pipeline import FileOptions, import_file, import_file as import_urdf
from .source import UrdfError, parse_urdf, read_urdf

__all__ = ["FileOptions", "ImportReport", "UrdfError", "chain_ends", "default_tip", "export_urdf", "import_file",
           "import_tree", "import_urdf", "parse_urdf", "read_urdf", "urdf_text"]
