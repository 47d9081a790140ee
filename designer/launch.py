"""Start the window, or say in one line why it cannot start (no Qt is imported before the checks).

Qt reports a missing system library as an ``ImportError`` that names a ``.so`` file, and a
missing display or platform plugin by aborting the process from C++. Both are checked here
first, so that ``main.py`` and ``python -m designer gui`` never report success for a window
that did not open: the message names what is missing, the Debian package that provides it,
and ``make run`` as the fix; the exit status is 1.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["USAGE", "DEBIAN_PACKAGES", "debian_package", "display_problem", "missing_libraries",
           "diagnose_import_error", "main"]

# The shared libraries Qt's widgets, its xcb platform plugin and OpenGL link against that a bare Debian 12
# lacks (found with ldd in a debootstrap minbase chroot), and the package of each.
DEBIAN_PACKAGES = {
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libGLX.so.0": "libglx0",
    "libEGL.so.1": "libegl1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb.so.1": "libxcb1",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libdbus-1.so.3": "libdbus-1-3",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libgomp.so.1": "libgomp1",
}

USAGE = "usage: python main.py [PROJECT.json]   (or: python -m designer gui [PROJECT.json])"

_SO_NAME = re.compile(r"(lib[\w.+-]+?\.so(?:\.\d+)*)")


def debian_package(library: str) -> str | None:
    """The Debian package that provides ``library`` (a file name such as libGL.so.1), if known."""
    return DEBIAN_PACKAGES.get(library)


def display_problem(environ: os._Environ[str] | dict[str, str] | None = None) -> str | None:
    """Why no window can be shown here (no X or Wayland display), or None."""
    env = os.environ if environ is None else environ
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform.split(":")[0] in ("offscreen", "minimal", "vnc", "eglfs", "linuxfb"):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    if sys.platform != "linux":
        return None
    return ("no display: DISPLAY is not set, so the window has nowhere to open; on a machine without a "
            "screen run it under Xvfb: xvfb-run -a -s '-screen 0 1600x1000x24' make run")


def _qt_binaries() -> list[Path]:
    """Qt's widget, OpenGL and xcb plugin libraries inside the installed PySide6, found without importing it."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(next(iter(spec.submodule_search_locations)))
    names = ["QtWidgets.abi3.so", "QtOpenGL.abi3.so", "QtOpenGLWidgets.abi3.so",
             "Qt/plugins/platforms/libqxcb.so", "Qt/plugins/xcbglintegrations/libqxcb-glx-integration.so"]
    return [root / n for n in names if (root / n).exists()]


def missing_libraries(binaries: list[Path] | None = None) -> list[str]:
    """Shared libraries that the Qt binaries need and the dynamic linker cannot find (by ldd)."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return []
    missing: list[str] = []
    for binary in _qt_binaries() if binaries is None else binaries:
        try:
            out = subprocess.run([ldd, str(binary)], capture_output=True, text=True, timeout=20, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        for line in out.splitlines():
            if "not found" in line:
                name = line.split("=>")[0].strip()
                if name and name not in missing:
                    missing.append(name)
    return missing


def _missing_message(libraries: list[str]) -> str:
    packages = sorted({p for p in (debian_package(lib) for lib in libraries) if p})
    unknown = [lib for lib in libraries if debian_package(lib) is None]
    what = ", ".join(libraries)
    fix = f"the Debian package{'s' if len(packages) > 1 else ''} {' '.join(packages)}" if packages else ""
    if unknown:
        fix += (" and " if fix else "") + "the package that provides " + ", ".join(unknown)
    return (f"the window cannot start: the system library {what} is missing; install {fix} "
            f"(`make run` installs them: it runs apt-get, through sudo when you are not root)")


def diagnose_import_error(exc: ImportError) -> str:
    """One line for an ImportError raised while loading Qt: the missing library and its package."""
    text = str(exc)
    if isinstance(exc, ModuleNotFoundError) and exc.name and exc.name.split(".")[0] in ("PySide6", "pyqtgraph",
                                                                                        "OpenGL", "shiboken6"):
        return (f"the window cannot start: the Python package {exc.name.split('.')[0]} is not installed "
                f"in this environment; `make run` sets up .venv with everything the window needs")
    match = _SO_NAME.search(text)
    if match:
        return _missing_message([match.group(1)])
    return f"the window cannot start: {text}"


def main(argv: list[str]) -> int:
    """Check the arguments, the display and Qt's system libraries, then run the window; 1 with one message
    if it cannot open, 2 (and the usage) for more than one project."""
    if any(a in ("-h", "--help") for a in argv):
        print(USAGE)
        return 0
    if len([a for a in argv if not a.startswith("-")]) > 1:   # one project at most
        print(USAGE, file=sys.stderr)
        return 2
    problem = display_problem()
    if problem is None:
        libraries = missing_libraries()
        if libraries:
            problem = _missing_message(libraries)
    if problem is None:
        try:
            from .gui.app import main as gui_main
        except ImportError as exc:
            problem = diagnose_import_error(exc)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    return int(gui_main(argv) or 0)
