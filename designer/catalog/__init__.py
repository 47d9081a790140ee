"""Catalogs of gearboxes and servo motors (docs/catalogs.md).

The bundled catalogs (``resources/catalogs/*.json``) hold figures from public datasheets, each item with
its source and date; user catalogs are plain files of the same format beside a project
(``*.catalog.json``), merged after the bundled ones. Reading is strict: every bad field is named.
This package knows only the items; sizing along a cycle and the optimizer use them
(:mod:`designer.optimize`), and a project's drive may name them (docs/project-format.md).
"""

from .items import Catalog, CatalogError, Gearbox, MaterialPrice, Motor, StiffnessCurve
from .read import bundled_catalog_files, load_catalog, read_catalog, user_catalog_files

__all__ = ["Catalog", "CatalogError", "Gearbox", "MaterialPrice", "Motor", "StiffnessCurve", "load_catalog",
           "read_catalog", "bundled_catalog_files", "user_catalog_files"]
