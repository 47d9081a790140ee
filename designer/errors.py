"""The base class of Manipulator Designer's own errors.

Every error the core raises for a bad model, file, expression or request derives from
``DesignerError``, so a caller can catch ours apart from Python's. It is a ``ValueError``,
as each of them was before it existed, so ``except ValueError`` still catches them all.
"""

from __future__ import annotations

__all__ = ["DesignerError", "UserError"]


class DesignerError(ValueError):
    """A mistake in what Manipulator Designer was given: its message is one line naming what and where."""


class UserError(DesignerError):
    """A mistake in what the user typed or chose (a command-line argument, an input file): the command
    line prints it as one line with exit status 2, the window shows it where the user acted."""
