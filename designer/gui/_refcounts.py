"""Work around reference-count bugs of PySide6 6.12.0 on Python 3.11.

Measured with PySide6-Essentials 6.12.0 / shiboken6 6.12.0 on CPython 3.11.7:
every ``SignalInstance.emit()`` called from Python drops one reference to
``True``, and every ``QCoreApplication.processEvents()`` call and every
``QRunnable.run()`` override run by a ``QThreadPool`` drops one to ``None``.
``True`` starts with a few hundred references, so a few hundred emits
(dragging a slider) end in ``Fatal Python error: bool_dealloc`` and the
process aborts; the same shows as a crash at interpreter exit. Python 3.12
made these singletons immortal, which hides the bug there. On 3.11 we give
them a reference count no session can exhaust.
"""

from __future__ import annotations

import ctypes
import sys

__all__ = ["pin_singletons"]

_EXTRA = 1 << 40


def pin_singletons() -> None:
    """Add 2**40 references to True, False and None once, under shiboken6 6.12.x on Python < 3.12."""
    if sys.version_info >= (3, 12) or getattr(pin_singletons, "done", False):
        return
    import shiboken6  # the bug is in 6.12.0 (later 6.12.x unchecked); pyproject excludes 6.12, but an
    # existing install may have it

    if not shiboken6.__version__.startswith("6.12."):
        return
    for obj in (True, False, None):
        # ob_refcnt is the first field of every CPython object
        ctypes.c_ssize_t.from_address(id(obj)).value += _EXTRA
    pin_singletons.done = True  # type: ignore[attr-defined]  # a flag on the function: once per process
