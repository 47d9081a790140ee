"""Machine code for one state: traced functions emitted as C, built at run time, cached on disk.

The numeric algorithms traced on a :class:`~designer.trace.Tape` are written out a second
time as C (:meth:`~designer.trace.Tape.c_source`), wrapped in a small CPython extension
module and built with the C compiler found on the machine (``$CC``, else ``cc``:
``cc -O2 -shared -fPIC``). The module is cached under the user's cache folder
(``$XDG_CACHE_HOME/designer/native``, else ``~/.cache/designer/native``) by a hash of its source,
the Python version and the compiler command, written to a temporary name and renamed into place,
so that two processes never load half a file; a cached file that does not load is built again.
Without a compiler, Python headers, or when the build fails, :func:`load` prints one line saying
why and returns None: callers keep the generated Python, which gives the same numbers.

Each entry point takes its input vectors and an output vector, all contiguous float64 buffers
(numpy arrays), checks their lengths, and returns True, or False when the result is doubtful (for
forward dynamics: a pivot of M that is not positive, a pivot ratio above the engine's bound or a
value that is not finite; the caller then takes its checked path).

Why this route (measured on this machine, loaded by other jobs, medians; Pinocchio's ``aba`` of a
6-joint arm called from Python as the yardstick, 7.5 us at that moment):

- ctypes over a plain C library (no Python headers needed) costs 16.6 us for a call that adds
  six numbers (the argument conversion, ``array.ctypes.data``): twice ``aba`` before any dynamics;
  it cannot meet the target;
- a CPython extension with ``METH_FASTCALL`` taking numpy arrays through the buffer protocol
  costs well under a microsecond a call, and the PUMA's whole forward dynamics fits in it: it is
  the route taken (it needs the Python headers beside the compiler: ``python3-dev`` on Debian);
- numba and symengine's LLVM lambdify (no compiler on the user's machine) are not installed here
  and were not measured: each is a large new runtime dependency, and both would still pay a
  dispatch of their own per call.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

__all__ = ["CFunction", "load", "cache_folder", "cached_path", "module_source", "COMPILER_FLAGS", "pivots_check",
           "rhs_function", "LazyNative", "HOT_CALLS"]

#: -ffp-contract=off: no fused multiply-adds, so the C rounds as the generated Python does
COMPILER_FLAGS = ("-O2", "-shared", "-fPIC", "-ffp-contract=off")
#: seconds a build may take before it counts as failed
BUILD_TIMEOUT = 600.0

_MEMO: dict[str, ModuleType] = {}     # hash -> loaded module, for this process
_NOTICED: set[str] = set()            # the notices already printed


@dataclass(frozen=True)
class CFunction:
    """One entry point: ``int name(const double *in0, ..., double *out)`` returning 1 (good) or 0 (doubtful).

    ``inputs`` are the lengths of the input vectors, ``width`` the length of the output; ``body`` is the
    C function's definition (static helpers it calls go in the module's ``support``).
    """

    name: str
    inputs: tuple[int, ...]
    width: int
    body: str


def pivots_check(n: int, ratio: float) -> str:
    """C of ``static int good(const double *w)``: whether a forward dynamics' output w = (q'' (n), the n LDL
    pivots of M) can be trusted (pivots positive, largest / smallest at most ``ratio``, q'' finite)."""
    return f"""static int good(const double *w)
{{
    double lo = w[{n}], hi = w[{n}];
    for (int i = {n}; i < {2 * n}; i++) {{
        if (!(w[i] > 0.0)) return 0;
        if (w[i] < lo) lo = w[i];
        if (w[i] > hi) hi = w[i];
    }}
    if (!(hi <= {ratio!r} * lo)) return 0;
    for (int i = 0; i < {n}; i++)
        if (!isfinite(w[i])) return 0;
    return 1;
}}
"""


def rhs_function(name: str, forward: str, n: int) -> CFunction:
    """A simulation's right-hand side ``[qd, q'']`` of y = [q, qd] in one call: ``forward(q, qd, tau, w)`` (a
    traced function filling q'' and the pivots, checked by :func:`pivots_check`'s ``good``) under the torque law
    tau = tau0 + Kp (target - q) - Kd qd of the parameters par = [Kp, Kd, target, tau0]."""
    body = (f"    double tau[{n}], w[{2 * n}];\n"
            f"    for (int i = 0; i < {n}; i++)\n"
            f"        tau[i] = par[{3 * n} + i] + par[i] * (par[{2 * n} + i] - y[i]) - par[{n} + i] * y[{n} + i];\n"
            f"    {forward}(y, y + {n}, tau, w);\n    if (!good(w)) return 0;\n"
            f"    memcpy(dy, y + {n}, {n} * sizeof(double));\n"
            f"    memcpy(dy + {n}, w, {n} * sizeof(double));\n    return 1;\n")
    return CFunction(name, (2 * n, 4 * n), 2 * n,
                     f"static int {name}(const double *y, const double *par, double *dy)\n{{\n{body}}}\n")


def cache_folder() -> Path:
    """Where built modules are kept: ``$XDG_CACHE_HOME/designer/native`` (default ``~/.cache``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "designer" / "native"


_PRELUDE = r"""#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

static int take(PyObject *o, Py_buffer *v, Py_ssize_t n, int writable, const char *fn, int k)
{
    if (PyObject_GetBuffer(o, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    const char *f = v->format;
    if (f && (f[0] == '<' || f[0] == '=' || f[0] == '@'))
        f++;
    if (v->itemsize != 8 || !f || strcmp(f, "d") != 0 || v->len != n * 8) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_TypeError, "%s: argument %d must be %zd contiguous float64 values", fn, k, n);
        return -1;
    }
    return 0;
}
"""


def _wrapper(f: CFunction) -> str:
    k = len(f.inputs)
    lengths = ", ".join(str(n) for n in (*f.inputs, f.width))
    pointers = ", ".join([f"(const double *)b[{i}].buf" for i in range(k)] + [f"(double *)b[{k}].buf"])
    return f"""
static PyObject *w_{f.name}(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{{
    static const Py_ssize_t len[{k + 1}] = {{{lengths}}};
    Py_buffer b[{k + 1}];
    int got = 0;
    PyObject *res = NULL;
    if (nargs != {k + 1}) {{
        PyErr_SetString(PyExc_TypeError, "{f.name}: expected {k + 1} arguments");
        return NULL;
    }}
    for (; got < {k + 1}; got++)
        if (take(args[got], &b[got], len[got], got == {k}, "{f.name}", got) < 0)
            goto done;
    res = PyBool_FromLong({f.name}({pointers}));
done:
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
    return res;
}}
"""


def module_source(module: str, functions: Sequence[CFunction], support: str = "") -> str:
    """The C source of extension module ``module`` exporting ``functions`` (``support``: shared helpers)."""
    parts = [_PRELUDE, support]
    parts += [f.body for f in functions]
    parts += [_wrapper(f) for f in functions]
    table = "".join(f'    {{"{f.name}", (PyCFunction)(void (*)(void))w_{f.name}, METH_FASTCALL, NULL}},\n'
                    for f in functions)
    parts.append(f"""
static PyMethodDef methods[] = {{
{table}    {{NULL, NULL, 0, NULL}}
}};

static struct PyModuleDef definition = {{PyModuleDef_HEAD_INIT, "{module}", NULL, -1, methods}};

PyMODINIT_FUNC PyInit_{module}(void) {{ return PyModule_Create(&definition); }}
""")
    return "\n".join(parts)


def _notice(reason: str) -> None:
    """One line on stderr per reason and process: why the generated Python runs instead of machine code."""
    if reason not in _NOTICED:
        _NOTICED.add(reason)
        print(f"designer: {reason}; the dynamics run as generated Python (same results, slower)", file=sys.stderr)


def _compiler() -> list[str] | None:
    command = shlex.split(os.environ.get("CC") or "cc")
    if not command or shutil.which(command[0]) is None:
        _notice(f"no C compiler ('{command[0] if command else ''}' not found; install gcc for compiled code)")
        return None
    return command


def _import(name: str, path: Path) -> ModuleType:
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _path(functions: Sequence[CFunction], support: str, command: list[str]) -> Path:
    """The cache file of a module: named by a hash of its source, the compiler command and Python."""
    key_text = module_source("M", functions, support) + repr((command, COMPILER_FLAGS, sys.version, sys.platform))
    digest = hashlib.sha256(key_text.encode()).hexdigest()[:24]
    return cache_folder() / (f"designer_native_{digest}" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))


#: single-state calls after which the machine code is built (a build takes a second or two, once per
#: arm and machine: the disk cache keeps it); :attr:`LazyNative.native` builds it at once
HOT_CALLS = 1000
_UNBUILT = object()


class LazyNative:
    """Machine code of an engine's one-state calls, built on first use of :attr:`native` or once the engine
    is hot (:meth:`native_if_hot`), from the C source :meth:`_c_code` gives."""

    _native: ModuleType | None | object = _UNBUILT
    _calls = 0

    def _c_code(self) -> tuple[Sequence[CFunction], str]:
        raise NotImplementedError

    @property
    def native(self) -> ModuleType | None:
        """The C module (built on first use; None without a compiler or with DESIGNER_NATIVE=0)."""
        if self._native is _UNBUILT:
            self._native = load(*self._c_code())
        return self._native  # type: ignore[return-value]

    def native_if_hot(self) -> ModuleType | None:
        """The C module once this engine has had :data:`HOT_CALLS` single-state calls, else None."""
        if self._native is _UNBUILT:
            self._calls += 1
            if self._calls < HOT_CALLS:
                return None
        return self.native


def cached_path(functions: Sequence[CFunction], support: str = "") -> Path:
    """Where :func:`load` keeps (or will keep) the module of ``functions`` with the current compiler."""
    return _path(functions, support, shlex.split(os.environ.get("CC") or "cc"))


def load(functions: Sequence[CFunction], support: str = "") -> ModuleType | None:
    """The built module exporting ``functions``, from this process, the disk cache or a fresh build.

    None (after one line of notice) when machine code is not available: ``DESIGNER_NATIVE=0`` in the
    environment, no C compiler, no Python headers, or a failed build.
    """
    if os.environ.get("DESIGNER_NATIVE", "1") == "0":
        return None
    command = _compiler()
    if command is None:
        return None
    path = _path(functions, support, command)
    name, folder = path.name.split(".", 1)[0], path.parent
    digest = name.rsplit("_", 1)[1]
    if digest in _MEMO:
        return _MEMO[digest]
    if path.exists():
        try:
            module = _import(name, path)
        except (ImportError, OSError):     # a damaged file: built again below
            path.unlink(missing_ok=True)
        else:
            _MEMO[digest] = module
            return module
    include = sysconfig.get_paths()["include"]
    if not os.path.exists(os.path.join(include, "Python.h")):
        _notice(f"no Python headers in {include} (install python3-dev for compiled code)")
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as work:
            source = Path(work) / f"{name}.c"
            source.write_text(module_source(name, functions, support))
            built = Path(work) / path.name
            done = subprocess.run([*command, *COMPILER_FLAGS, f"-I{include}", "-o", str(built), str(source), "-lm"],
                                  capture_output=True, text=True, timeout=BUILD_TIMEOUT)
            if done.returncode != 0:
                first = next((line for line in done.stderr.splitlines() if line.strip()), f"exit {done.returncode}")
                _notice(f"the C build failed ({first.strip()[:200]})")
                return None
            os.replace(built, path)      # atomic: another process sees the old file or the whole new one
        module = _import(name, path)
    except (OSError, ImportError, subprocess.SubprocessError) as exc:
        _notice(f"the C build failed ({type(exc).__name__}: {exc})")
        return None
    _MEMO[digest] = module
    return module
