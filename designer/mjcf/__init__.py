"""MJCF (MuJoCo's model format) import and export (docs/mjcf.md).

Import reads the file with MuJoCo itself into the kinematic tree of the URDF import
(designer/urdf/source.py) and goes on by the same pipeline: chain choice, DH frames by common
normals, lumping, the report, the check against the file's own model.
"""

from .importer import import_mjcf, read_mjcf
from .source import MjcfError, prescan

__all__ = ["MjcfError", "import_mjcf", "prescan", "read_mjcf"]
