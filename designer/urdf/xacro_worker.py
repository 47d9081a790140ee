"""Runs the ``xacro`` package on one file in a process of its own (started by :mod:`designer.urdf.xacro_run`).

Not imported by the program: run as ``python -I xacro_worker.py`` with a JSON request on
standard input (file, args, packages, package_paths, packages_module, eval_module, max_bytes,
max_depth, tmp). Writes the URDF text to standard output; on failure one line on standard error
and exit status 2. The parent limits its memory, CPU time and wall time.

What it changes in xacro, and why:

- No Python ``eval`` of anything the file holds: xacro's ``safe_eval`` (every ``${...}``: attributes,
  text, property values, conditions, macro arguments and defaults, include names, YAML unit tags)
  and ``$(eval ...)`` go to our evaluator (:mod:`designer.urdf.xacro_eval`); then the builtins
  ``eval`` and ``exec`` raise, and ``compile`` only parses (:func:`harden`), so a place in xacro we
  did not replace fails instead of running code.
- ``$(find pkg)`` asks our package resolver, limited to the folders the user named and the file's
  own package; ``$(env ...)`` and ``$(optenv ...)`` are refused (the environment is not the file's).
- Every file xacro opens (the main file, includes, ``load_yaml``) must lie below the main file's
  folder, its package, a folder the user named, or a package found there; at most ``max_bytes``
  each; no ``<!DOCTYPE``/``<!ENTITY`` (entity expansion); includes nested at most ``max_depth``
  deep (an include loop would otherwise recurse until the memory limit); at most :data:`MAX_ELEMENTS`
  elements expanded (a macro calling itself twice per level doubles them each level).
- Where the kernel has Landlock, the process then can read only below those folders, write only
  its own temporary folder ``tmp``, run no program and open no network connection
  (:func:`sandbox`); a line ``sandbox: ...`` on standard error says when it could not.
"""

from __future__ import annotations

import builtins
import importlib.util
import json
import os
import re
import sys

SANDBOX_PREFIX = "sandbox: "
#: the most elements xacro may expand (macro calls and the elements they make; a robot's description expands
#: a few thousand)
MAX_ELEMENTS = 20_000


def _fail(message: str) -> None:
    sys.stderr.write(message.strip().replace("\n", " ") + "\n")
    sys.exit(2)


def _load(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        _fail(f"cannot load {path}")
        raise SystemExit(2)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class CodeRefused(RuntimeError):
    """A call of ``eval``, ``exec`` or a compiling ``compile`` after :func:`harden`."""


def harden() -> None:
    """Make the builtins that run Python text fail for everything in this process from now on:
    ``eval`` and ``exec`` raise, ``compile`` only makes syntax trees (``ast.parse``)."""
    import ast
    real_compile = builtins.compile

    def no_eval(*_args, **_kwargs):
        raise CodeRefused("eval/exec of text is switched off in the xacro process")

    def parse_only(source, filename, mode, flags=0, *args, **kwargs):
        if not flags & ast.PyCF_ONLY_AST:
            raise CodeRefused("compile() is switched off in the xacro process (only parsing)")
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    builtins.eval = no_eval
    builtins.exec = no_eval
    builtins.compile = parse_only


def sandbox(read_roots, write_root: str) -> str | None:
    """Landlock: from now on this process reads only below ``read_roots``, writes only below
    ``write_root``, executes nothing and (kernel ABI 4 on) binds or connects no TCP port. None when
    done, else why not (one line)."""
    try:
        import landlockpy
    except ImportError:
        return "the landlockpy package is not installed"
    try:
        abi = landlockpy.abi_version()
    except Exception as exc:  # noqa: BLE001 - any failure means no sandbox, said in one line
        return f"Landlock could not be queried ({exc})"
    if abi < 1:
        return "this kernel has no Landlock (Linux 5.13 or newer with Landlock enabled is needed)"
    fs = landlockpy.AccessFS
    read = fs.READ_FILE | fs.READ_DIR
    try:
        with landlockpy.Ruleset(scoped=landlockpy.Scope(landlockpy.scope_for_abi(abi))) as rules:
            for root in dict.fromkeys(read_roots):
                if os.path.exists(root):
                    rules.allow_path(root, read)
            rules.allow_path(write_root, rules.handled_fs & ~fs.EXECUTE)
            rules.restrict()
    except Exception as exc:  # noqa: BLE001
        return f"Landlock could not be applied ({exc})"
    return None


def _expression_location(exc: BaseException, files) -> str:
    """``FILE line N: `` of the expression that failed: the file among ``files`` (the one processed, the
    macros' definitions, every file read) whose text holds it."""
    original = None
    outer: BaseException | None = exc
    while outer is not None:
        inner = getattr(outer, "exc", None)
        if inner is not None and not getattr(inner, "exc", None):
            suffix = str(getattr(outer, "suffix", "") or "")
            match = re.search(r"when evaluating expression '(.*)'\s*$", suffix, re.S)
            original = match.group(1) if match else None
            break
        outer = inner
    inner_exc = exc
    while getattr(inner_exc, "exc", None) is not None:
        inner_exc = inner_exc.exc  # type: ignore[attr-defined]
    texts = [t for t in (original, getattr(inner_exc, "expression", None)) if t]
    for name in dict.fromkeys(f for f in files if f):
        try:
            with open(name, encoding="utf-8", errors="replace") as fh:
                content = fh.read()
        except OSError:
            continue
        # the file's text as the XML parser gave it to xacro (entities hold no line break)
        content = re.sub(r"&(?:lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);", _entity, content)
        for text in texts:
            for needle in ("${" + text + "}", "$(eval " + text + ")", text):
                at = content.find(needle)
                if at >= 0:
                    return f"{name} line {content.count(chr(10), 0, at) + 1}: "
    return f"{files[0]}: " if files and files[0] else ""


def _entity(match) -> str:
    name = match.group(0)[1:-1]
    named = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
    if name in named:
        return named[name]
    try:
        return chr(int(name[2:], 16) if name.startswith("#x") else int(name[1:]))
    except (ValueError, OverflowError):
        return match.group(0)


def main() -> None:
    request = json.loads(sys.stdin.read())
    packages = _load("_designer_packages", request["packages_module"])
    expressions = _load("_designer_xacro_eval", request["eval_module"])
    main_file = os.path.realpath(request["file"])
    resolver = packages.PackageResolver(main_file, request["package_paths"], request["packages"], own_only=True)
    max_bytes, max_depth = int(request["max_bytes"]), int(request["max_depth"])

    try:
        # imported now: minidom imports expatbuilder on first use, xacro yaml in load_yaml, and once
        # the sandbox is on the Python library is not readable
        for name in ("xml.dom.expatbuilder", "xml.dom.minidom", "yaml"):
            importlib.import_module(name)
        import xacro
        from xacro import substitution_args
    except ImportError:
        _fail("the xacro package is not installed (pip install xacro)")
        return

    class Ours(xacro.XacroException):
        """Our refusals: shown as they are, not wrapped in xacro's words."""

    def find(name: str) -> str:
        folder = resolver.find(str(name))
        if folder is None:
            raise Ours(f"$(find {name}): package {str(name)!r} not found (give --package-path DIR "
                       f"or --package-path {name}=DIR)")
        return str(folder)

    def no_env(resolved, a, args, context):
        raise Ours(f"$({a}): environment variables are not read (pass values with --xacro-arg NAME:=VALUE "
                   "and $(arg NAME))")

    def env_function(*args):
        raise Ours("env()/optenv(): environment variables are not read (pass values with --xacro-arg)")

    substitution_args._eval_find = find
    substitution_args._env = no_env
    substitution_args._optenv = no_env

    # the file's folder, its own package, the folders named (packages found later lie below them)
    roots = [os.path.dirname(main_file), *map(str, resolver.roots())]

    def allowed(path: str) -> bool:
        real = os.path.realpath(path)
        return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)

    original_abs = xacro.abs_filename_spec

    def checked_abs(filename_spec):
        path = original_abs(filename_spec)
        pattern = re.search(r"[*?\[]", path)   # a glob: the folder it lists must be allowed
        if not allowed(os.path.dirname(path[:pattern.start()] + "x") if pattern else path):
            raise Ours(f"{path}: outside the file's folder and the package folders; refused "
                       "(name its folder with --package-path)")
        return path

    xacro.abs_filename_spec = checked_abs

    def checked_parse(inp, filename=None):
        if inp is None:
            path = os.path.join(xacro.root_dir, filename)
            if not allowed(path):
                raise Ours(f"{path}: outside the file's folder and the package folders; refused")
            if len(xacro.filestack) > max_depth:
                raise Ours(f"includes nested more than {max_depth} deep (an include loop?) at {path}")
            try:
                with open(path, "rb") as fh:
                    raw = fh.read(max_bytes + 1)
            except OSError as exc:
                xacro.filestack.pop()
                raise xacro.XacroException(f"{exc.strerror}: {path}", exc=exc) from None
            if len(raw) > max_bytes:
                raise Ours(f"{path}: larger than {max_bytes} bytes")
            if re.search(rb"<!\s*(DOCTYPE|ENTITY)", raw, re.IGNORECASE):
                raise Ours(f"{path}: holds a document type declaration (<!DOCTYPE or <!ENTITY), refused for safety")
            inp = raw.decode("utf-8", "replace")
        return original_parse(inp, filename)

    original_parse = xacro.parse
    xacro.parse = checked_parse

    original_load_yaml = xacro.load_yaml

    def load_yaml(filename):
        path = checked_abs(str(filename))
        try:
            size = os.path.getsize(path)
        except OSError as exc:
            raise Ours(f"load_yaml: {exc.strerror}: {path}") from None
        if size > max_bytes:
            raise Ours(f"load_yaml: {path}: larger than {max_bytes} bytes")
        return original_load_yaml(path)

    ns = xacro._global_symbols["xacro"]
    own_functions = {"xacro.load_yaml": load_yaml, "load_yaml": load_yaml,
                     "xacro.abs_filename": checked_abs, "abs_filename": checked_abs,
                     "xacro.dotify": xacro.YamlDictWrapper, "dotify": xacro.YamlDictWrapper,
                     "xacro.tokenize": xacro.tokenize,
                     **{f"xacro.{name}": ns[name] for name in ("arg", "fatal", "message", "warning", "error")}}
    functions, namespaces = expressions.standard_functions(own_functions)

    def files_now() -> list[str]:
        stack = [f for f in (xacro.filestack or []) if f]
        defined = [m.history[-1][-1] for m in reversed(xacro.macrostack or []) if m.history and m.history[-1]]
        return [*reversed(stack), *defined, *xacro.all_includes, main_file]

    def evaluate(*args, **kwargs):
        """Our evaluator, its error naming the files xacro had open."""
        try:
            return expressions.evaluate(*args, **kwargs)
        except expressions.ExpressionError as exc:
            if not hasattr(exc, "files"):
                exc.files = files_now()
            raise

    def safe_eval(expr, globals, locals=None):
        return evaluate(expr, globals.__getitem__, functions, namespaces)

    constants = {"true": True, "false": False, "True": True, "False": False,
                 **{k: v for k, v in expressions.MATH.items() if not callable(v)}}

    def eval_substitution(s, context):
        args = context.setdefault("arg", {})

        def lookup(name):
            if name in constants:
                return constants[name]
            return substitution_args.convert_value(args[name], "auto")

        extra = {"arg": lambda name: substitution_args.convert_value(substitution_args._eval_arg(name, args), "auto"),
                 "dirname": lambda: substitution_args._eval_dirname(context.get("filename")),
                 "find": find, "env": env_function, "optenv": env_function}
        subs_functions, subs_namespaces = expressions.standard_functions(extra)
        return str(evaluate(s, lookup, subs_functions, subs_namespaces, shown="$(eval {})"))

    xacro.safe_eval = safe_eval
    substitution_args._eval = eval_substitution

    # xacro asks handle_macro_call about every element it expands: counting those bounds a macro that calls
    # itself twice per level (2^40 elements ran into the wall-clock limit) in element work, not seconds
    expanded = [0]
    handle_macro_call = xacro.handle_macro_call

    def counted_macro_call(node, macros, symbols):
        expanded[0] += 1
        if expanded[0] > MAX_ELEMENTS:
            raise Ours(f"more than {MAX_ELEMENTS} elements expanded (a macro that expands without end?)")
        return handle_macro_call(node, macros, symbols)

    xacro.handle_macro_call = counted_macro_call

    write_root = request["tmp"]
    off = sandbox(roots, write_root)
    harden()
    if off is not None:
        sys.stderr.write(f"{SANDBOX_PREFIX}{off}\n")
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
        if isinstance(inner, expressions.ExpressionError):
            _fail(f"xacro: {_expression_location(exc, getattr(inner, 'files', [main_file]))}{inner}")
        ours = [e for e in _chain(exc) if isinstance(e, (Ours, CodeRefused))]
        message = str(ours[-1]) if ours else str(exc) or type(exc).__name__
        missing = re.search(r"Undefined substitution argument (\S+)", message)
        if missing:
            name = missing.group(1)
            message = f"undefined argument {name!r} (set it with --xacro-arg {name}:=VALUE)"
        else:   # xacro's "No such file or directory: F" is followed by the OSError saying it again
            message = re.sub(r" \[Errno \d+\] .*$", "", message, flags=re.S)
            # a wrapped exception: "<class 'x.y.E'>: text text" -> "E: text"
            message = re.sub(r"^<class '(?:[\w.]+\.)?(\w+)'>: ", r"\1: ", message)
            if len(message) <= 2000:   # the back-reference costs the square of the length: a message said twice
                message = re.sub(r"^(.*?)(\S.*) \2$", r"\1\2", message, flags=re.S)
            message += _where(xacro, main_file)
        _fail(f"xacro: {message}")
    if len(text.encode("utf-8")) > max_bytes:
        _fail(f"xacro: the URDF it made is larger than {max_bytes} bytes")
    sys.stdout.write(text)


def _where(xacro, main_file: str) -> str:
    """`` (in macro 'm' of FILE, in FILE included from FILE)``: where xacro was when it failed, as its own
    command prints it below the message (its stacks of macros and files still hold the place); empty in
    the main file outside macros."""
    files = [f for f in (getattr(xacro, "filestack", None) or []) if f]
    macros = list(getattr(xacro, "macrostack", None) or [])
    parts = []
    if macros:
        history = getattr(macros[-1], "history", None) or [[None]]
        defined = history[-1][-1] if history[-1] else None
        parts.append(f"in macro {macros[-1].body.getAttribute('name')!r}" + (f" of {defined}" if defined else ""))
    if files and files[-1] != main_file:   # the main file the message names already
        parts.append(f"in {files[-1]}" + (f" included from {files[-2]}" if len(files) > 1 else ""))
    return f" ({', '.join(parts)})" if parts else ""


def _chain(exc: BaseException | None):
    """``exc``, what it wraps (xacro's ``.exc``) and what it was raised from or during."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        item = todo.pop(0)
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        todo += [getattr(item, "exc", None), item.__cause__, item.__context__]


if __name__ == "__main__":
    main()
