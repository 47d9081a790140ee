"""The base class of Manipulator Designer's own errors.

Every error the core raises for a bad model, file, expression or request derives from
``DesignerError``, so a caller can catch ours apart from Python's. It is a ``ValueError``,
as each of them was before it existed, so ``except ValueError`` still catches them all.
"""

from __future__ import annotations

__all__ = ["DesignerError"]


class DesignerError(ValueError):
    """A mistake in what Manipulator Designer was given: its message is one line naming what and where."""
