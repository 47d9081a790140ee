"""xacro files: the ``xacro`` package's macro language in a separate, limited process (docs/urdf.md).

Nothing a xacro file holds is run: its expressions (``${...}``, ``$(eval ...)``) go to our own
evaluator (:mod:`designer.urdf.xacro_eval`), not Python's ``eval``. The child process
(:mod:`designer.urdf.xacro_worker`) besides:

- has at most :data:`MEMORY_BYTES` of address space and :data:`CPU_SECONDS` of CPU time, and is
  killed after :data:`WALL_SECONDS` (macros that expand without end);
- sees no environment variables of ours, and refuses ``$(env ...)`` and ``$(optenv ...)``;
- opens only files below the xacro file's folder, its own package and the folders the user named
  (an include of /etc/passwd is refused), each at most :data:`~designer.urdf.source.MAX_URDF_BYTES`,
  with no ``<!DOCTYPE``/``<!ENTITY``, includes nested at most :data:`MAX_DEPTH` deep; where the
  kernel has Landlock, the kernel holds it to that (reads below those folders, writes only its own
  temporary folder, runs no program), else the import report says so in one line;
- switches Python's ``eval``/``exec`` off and lets ``compile`` only parse.

``$(find pkg)`` is answered by :class:`~designer.urdf.packages.PackageResolver` without ROS, from the
folders the user named and the file's own package only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .source import MAX_URDF_BYTES, UrdfError

__all__ = ["MEMORY_BYTES", "CPU_SECONDS", "WALL_SECONDS", "MAX_DEPTH", "is_xacro", "parse_package_options",
           "run_xacro"]

MEMORY_BYTES = 1 << 30   # xacro on the UR or Panda descriptions peaks below 60 MB
CPU_SECONDS = 15   # the UR5 description takes 0.5 s
WALL_SECONDS = 30
MAX_DEPTH = 30           # the deepest include nesting in the ROS descriptions tried is 4
_WORKER = Path(__file__).with_name("xacro_worker.py")
_PACKAGES = Path(__file__).with_name("packages.py")
_EVAL = Path(__file__).with_name("xacro_eval.py")
#: the start of the worker's line saying the Landlock sandbox is off, and why
_SANDBOX = "sandbox: "


def is_xacro(path: str | os.PathLike) -> bool:
    return str(path).endswith(".xacro")


def parse_package_options(items) -> tuple[list[str], dict[str, str]]:
    """``--package-path`` values: ``DIR`` (a package, or a folder of packages) or ``NAME=DIR``."""
    paths, named = [], {}
    for item in items or ():
        name, eq, folder = str(item).partition("=")
        if eq and name and os.sep not in name and "/" not in name:
            named[name] = folder
            item = folder
        else:
            paths.append(str(item))
        if not Path(item).is_dir():
            raise UrdfError(f"package folder {item!r}: no such folder")
    return paths, named


def parse_xacro_args(items) -> dict[str, str]:
    """``--xacro-arg name:=value`` values as a dict."""
    out = {}
    for item in items or ():
        name, sep, value = str(item).partition(":=")
        if not sep or not name.strip():
            raise UrdfError(f"xacro argument {item!r}: write it as name:=value")
        out[name.strip()] = value
    return out


def _limits() -> None:  # pragma: no cover - runs in the child
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


def run_xacro(path: str | os.PathLike, args: dict[str, str] | None = None, package_paths=(),
              packages: dict[str, str] | None = None, notes: list[str] | None = None) -> bytes:
    """The URDF that xacro makes of ``path`` (bytes); a :class:`UrdfError` naming the file otherwise.
    ``notes`` (when given) gets one line when the child ran without the Landlock sandbox."""
    path = Path(path)
    if not path.is_file():
        what = "is a folder, not a xacro file" if path.is_dir() else \
            "not a regular file (a device or a pipe)" if path.exists() else "no such file"
        raise UrdfError(f"{path}: {what}")
    with tempfile.TemporaryDirectory(prefix="designer-xacro-") as tmp:
        request = {"file": str(path.resolve()), "args": dict(args or {}),
                   # the child runs in ``tmp``: folders named relative to ours must reach it whole
                   "package_paths": [str(Path(p).resolve()) for p in package_paths],
                   "packages": {name: str(Path(folder).resolve()) for name, folder in (packages or {}).items()},
                   "packages_module": str(_PACKAGES), "eval_module": str(_EVAL), "max_bytes": MAX_URDF_BYTES,
                   "max_depth": MAX_DEPTH, "tmp": tmp}
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "TMPDIR": tmp}
        try:
            done = subprocess.run([sys.executable, "-I", str(_WORKER)], input=json.dumps(request).encode(),
                                  capture_output=True, timeout=WALL_SECONDS, env=env, cwd=tmp,
                                  preexec_fn=_limits if os.name == "posix" else None, check=False)
        except subprocess.TimeoutExpired:
            raise UrdfError(f"{path}: xacro took longer than {WALL_SECONDS} s; stopped (an expansion without "
                            "end?)") from None
    lines = [l for l in done.stderr.decode("utf-8", "replace").splitlines() if l.strip()]
    off = [l[len(_SANDBOX):] for l in lines if l.startswith(_SANDBOX)]
    lines = [l for l in lines if not l.startswith(_SANDBOX)]
    if off and notes is not None:
        notes.append(f"xacro ran without the Landlock file sandbox: {off[0]} (expressions are still "
                     "evaluated without running code)")
    if done.returncode != 0:
        if done.returncode < 0 or not lines:
            # killed by a signal: SIGXCPU at the CPU limit, SIGKILL/SIGSEGV when memory ran out
            raise UrdfError(f"{path}: xacro stopped (signal {-done.returncode}) at the limit of "
                            f"{CPU_SECONDS} s CPU or {MEMORY_BYTES >> 20} MB memory")
        message = lines[-1]
        if "MemoryError" in message or "Cannot allocate memory" in message:
            message = f"xacro ran out of memory (limit {MEMORY_BYTES >> 20} MB): an expansion too large"
        raise UrdfError(f"{path}: {message}")
    return done.stdout


