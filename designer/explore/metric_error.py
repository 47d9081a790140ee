"""The explore metrics' error, apart from :mod:`designer.explore.metrics` so that the modules whose
metrics it registers (:mod:`designer.explore.metrics`) raise it without importing it back."""

from __future__ import annotations

from ..errors import DesignerError

__all__ = ["MetricError"]


class MetricError(DesignerError):
    """A metric text that names no metric, a bad index, or a rating the metric needs but lacks."""
