"""The base class of Manipulator Designer's own errors.

Every error the core raises for a bad model, file, expression or request derives from
``DesignerError``, so a caller can catch ours apart from Python's. It is a ``ValueError``,
as each of them was before it existed, so ``except ValueError`` still catches them all.
"""

from __future__ import annotations

__all__ = ["DesignerError", "UserError", "one_line"]


class DesignerError(ValueError):
    """A mistake in what Manipulator Designer was given: its message is one line naming what and where."""


class UserError(DesignerError):
    """A mistake in what the user typed or chose (a command-line argument, an input file): the command
    line prints it as one line with exit status 2, the window shows it where the user acted."""


def one_line(text: str) -> str:
    """``text`` as one printable line: a line break, tab or control character (an escape sequence a hostile
    file put in a name, which a terminal would act on) written as its Python escape (``\\n``, ``\\x1b``)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
