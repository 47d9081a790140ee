"""Runs the ``xacro`` package on one file in a process of its own (started by :mod:`designer.urdf.xacro`).

Not imported by the program: run as ``python -I xacro_worker.py`` with a JSON request on
standard input (file, args, packages, package_paths, packages_module, max_bytes, max_depth).
Writes the URDF text to standard output; on failure one line on standard error and exit
status 2. The parent limits its memory, CPU time and wall time.

What it changes in xacro, and why:

- ``$(find pkg)`` (and ``find()`` inside ``${...}``) asks our package resolver instead of a ROS
  installation.
- Every file xacro opens (the main file, includes, ``load_yaml``) must lie below the main
  file's folder, a folder the user named, or a package found; at most ``max_bytes`` each; no
  ``<!DOCTYPE``/``<!ENTITY`` (entity expansion); includes nested at most ``max_depth`` deep (an
  include loop would otherwise recurse until the memory limit).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys


def _fail(message: str) -> None:
    sys.stderr.write(message.strip().replace("\n", " ") + "\n")
    sys.exit(2)


def main() -> None:
    request = json.loads(sys.stdin.read())
    spec = importlib.util.spec_from_file_location("_designer_packages", request["packages_module"])
    if spec is None or spec.loader is None:
        _fail(f"cannot load {request['packages_module']}")
        return
    packages = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(packages)
    main_file = os.path.realpath(request["file"])
    resolver = packages.PackageResolver(main_file, request["package_paths"], request["packages"])
    max_bytes, max_depth = int(request["max_bytes"]), int(request["max_depth"])

    try:
        import xacro
        from xacro import substitution_args
    except ImportError:
        _fail("the xacro package is not installed (pip install xacro)")

    own: list[str] = []   # our messages: xacro wraps them in its own, twice over

    def find(name: str) -> str:
        folder = resolver.find(str(name))
        if folder is None:
            own.append(f"$(find {name}): package {name!r} not found near the file; name its folder "
                       f"(--package-path DIR or --package-path {name}=DIR)")
            raise xacro.XacroException(own[-1])
        return str(folder)

    substitution_args._eval_find = find
    substitution_args._eval_dict["find"] = find

    def allowed(path: str) -> bool:
        real = os.path.realpath(path)
        roots = [os.path.dirname(main_file), *map(str, resolver.roots())]
        return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)

    original_abs = xacro.abs_filename_spec

    def checked_abs(filename_spec):
        path = original_abs(filename_spec)
        if not re.search(r"[*?\[]", path) and not allowed(path):
            raise xacro.XacroException(f"{path}: outside the file's folder and the package folders; refused "
                                       "(name its folder with --package-path)")
        return path

    xacro.abs_filename_spec = checked_abs

    def checked_parse(inp, filename=None):
        if inp is None:
            path = os.path.join(xacro.root_dir, filename)
            if not allowed(path):
                raise xacro.XacroException(f"{path}: outside the file's folder and the package folders; refused")
            if len(xacro.filestack) > max_depth:
                raise xacro.XacroException(f"includes nested more than {max_depth} deep (an include loop?) at {path}")
            try:
                with open(path, "rb") as fh:
                    raw = fh.read(max_bytes + 1)
            except OSError as exc:
                xacro.filestack.pop()
                raise xacro.XacroException(f"{exc.strerror}: {path}", exc=exc) from None
            if len(raw) > max_bytes:
                raise xacro.XacroException(f"{path}: larger than {max_bytes} bytes")
            if re.search(rb"<!\s*(DOCTYPE|ENTITY)", raw, re.IGNORECASE):
                raise xacro.XacroException(f"{path}: holds a document type declaration (<!DOCTYPE or <!ENTITY), "
                                           "refused for safety")
            inp = raw.decode("utf-8", "replace")
        return original_parse(inp, filename)

    original_parse = xacro.parse
    xacro.parse = checked_parse
    try:
        doc = xacro.process_file(main_file, mappings=dict(request["args"]))
        text = doc.toprettyxml(indent="  ")
    except RecursionError:
        _fail("xacro: macros or includes nested too deeply (a loop?)")
    except MemoryError:
        _fail("xacro: ran out of memory (an expansion too large)")
    except Exception as exc:  # noqa: BLE001 - xacro raises many kinds; each becomes one line
        inner: BaseException | None = exc
        while getattr(inner, "exc", None) is not None:
            inner = inner.exc  # type: ignore[union-attr]
        if isinstance(inner, MemoryError):
            _fail("xacro: ran out of memory (an expansion too large)")
        message = own[-1] if own else str(exc) or type(exc).__name__
        missing = re.search(r"Undefined substitution argument (\S+)", message)
        if missing:
            name = missing.group(1)
            message = f"undefined argument {name!r} (set it with --xacro-arg {name}:=VALUE)"
        _fail(f"xacro: {message}")
    if len(text.encode("utf-8")) > max_bytes:
        _fail(f"xacro: the URDF it made is larger than {max_bytes} bytes")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
