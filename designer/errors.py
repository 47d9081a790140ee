"""The base class of Manipulator Designer's own errors.

Every error the core raises for a bad model, file, expression or request derives from
``DesignerError``, so a caller can catch ours apart from Python's. It is a ``ValueError``,
as each of them was before it existed, so ``except ValueError`` still catches them all.
"""

from __future__ import annotations

import re

__all__ = ["DesignerError", "UserError", "one_line"]


class DesignerError(ValueError):
    """A mistake in what Manipulator Designer was given: its message is one line naming what and where.

    The message is made one line here (:func:`one_line`): a name or value it repeats from a file may hold a
    line break (``&#10;`` in an XML attribute, ``\\n`` in a JSON key, a file's name) or a terminal's escape
    sequence, which the command line would print and the window would show as they are."""

    def __init__(self, *args):
        if args and isinstance(args[0], str):
            args = (one_line(args[0]), *args[1:])
        super().__init__(*args)


class UserError(DesignerError):
    """A mistake in what the user typed or chose (a command-line argument, an input file): the command
    line prints it as one line with exit status 2, the window shows it where the user acted."""


#: a run of this many characters without a space in a message is a value a file gave (a joint type of
#: 20,000 letters, an unknown key): it keeps its start and end around " ... "
LONG_RUN = 400
#: the longest message; a longer one keeps its start and end
MAX_MESSAGE = 4000
_RUN = re.compile(r"\S{" + str(LONG_RUN + 1) + ",}")


def one_line(text: str) -> str:
    """``text`` as one printable line of bounded length: a line break, tab or control character (an escape
    sequence a hostile file put in a name, which a terminal would act on) written as its Python escape
    (``\\n``, ``\\x1b``), a run of more than LONG_RUN characters without a space and a text of more than
    MAX_MESSAGE characters shortened to their start and end."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    if len(text) > LONG_RUN:
        text = _RUN.sub(lambda m: f"{m.group()[:LONG_RUN // 2]} ... {m.group()[-LONG_RUN // 3:]}", text)
    if len(text) > MAX_MESSAGE:
        text = f"{text[:MAX_MESSAGE - 600]} ... {text[-500:]}"
    return text
