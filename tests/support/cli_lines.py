"""The command line called in-process: exit 0, or exit 2 with one line on standard error, never a
traceback (an exception out of main fails the test)."""

from __future__ import annotations

from designer.cli import main

__all__ = ["run_message_or_success"]


def run_message_or_success(argv: list[str], capsys) -> int:
    code = main(argv)
    out = capsys.readouterr()
    assert code in (0, 2), code
    if code == 2:
        assert out.err.count("\n") == 1 and out.err.startswith("error: "), out.err
    return code
