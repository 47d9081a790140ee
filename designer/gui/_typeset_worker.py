"""The worker process of :mod:`designer.gui.background`: ``python -m designer.gui._typeset_worker``.

Reads pickled ``(function name, args)`` requests from stdin and writes pickled
``(ok, result or message)`` answers to stdout, one per request, until stdin
closes. Only the functions in :data:`FUNCTIONS` can be called. No Qt here.
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Callable

from designer.report import typeset as mathtext

FUNCTIONS: dict[str, Callable[..., object]] = {"typeset_many": mathtext.typeset_many, "stats_many": mathtext.stats_many}


def main() -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            name, args = pickle.load(stdin)
        except EOFError:
            return
        try:
            answer = (True, FUNCTIONS[name](*args))
        except Exception as exc:  # noqa: BLE001 - reported to the GUI, which shows text instead
            answer = (False, f"{type(exc).__name__}: {exc}")
        pickle.dump(answer, stdout, protocol=pickle.HIGHEST_PROTOCOL)
        stdout.flush()


if __name__ == "__main__":
    main()
