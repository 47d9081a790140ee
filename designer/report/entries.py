"""The entries of a derivation's matrices, in display order, with labels and sizes.

One helper for every consumer that shows equations entry by entry (the
LaTeX, Markdown and HTML reports, the GUI's equation viewer), so labels,
order and operation counts agree everywhere.

Labels: ``M_11``, ``B_1,12`` (row 1, column of the velocity product
q1'q2'), ``C_12`` (row 1, column of q2'^2), ``G_1``, ``tau_1``,
``D_rot_11``, ``H_tra_1``. With ten or more joints the indices are
separated by commas (``M_1,10``, ``B_1,(2,10)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast
from functools import cached_property
from collections.abc import Iterator, Sequence

import sympy as sp

from ..dynamics.results import Equations, Method

if TYPE_CHECKING:
    from ..dynamics.recursive_form import RecursiveForm

__all__ = ["Entry", "MATRIX_INFO", "MatrixInfo", "iter_entries", "matrix_names", "matrix_info",
           "velocity_pairs", "operation_count"]


@dataclass(frozen=True)
class MatrixInfo:
    """How a named matrix is shown: its LaTeX symbol, a description, whether it is symmetric."""

    latex: str
    description: str
    symmetric: bool = False
    vector: bool | None = None  # None: a column vector when it has one column


MATRIX_INFO = {
    "M": MatrixInfo("M", "mass matrix", True, vector=False),
    "B": MatrixInfo("B", "Coriolis coefficients, one column per velocity product", vector=False),
    "C": MatrixInfo("C", "centrifugal coefficients, one column per squared velocity", vector=False),
    "G": MatrixInfo("G", "gravity torques", vector=True),
    "tau": MatrixInfo(r"\tau", "joint torques and forces", vector=True),
    "D_rot": MatrixInfo(r"D^{\mathrm{rot}}", "inertia matrix, contribution of the links' rotation", True, vector=False),
    "D_tra": MatrixInfo(r"D^{\mathrm{tra}}", "inertia matrix, contribution of the links' translation", True,
                        vector=False),
    "H_rot": MatrixInfo(r"H^{\mathrm{rot}}", "Coriolis and centrifugal torques from the links' rotation",
                        vector=True),
    "H_tra": MatrixInfo(r"H^{\mathrm{tra}}", "Coriolis and centrifugal torques from the links' translation",
                        vector=True),
    "h": MatrixInfo("h", "Coriolis and centrifugal torques", vector=True),
    "T": MatrixInfo("T", "per-link torques: at joint i, to move link j", vector=False),
}


def matrix_info(name: str) -> MatrixInfo:
    """Display information of a matrix name; unknown names are shown upright."""
    info = MATRIX_INFO.get(name)
    if info is not None:
        return info
    from .printing import latex_escape
    return MatrixInfo(r"\mathrm{" + latex_escape(name) + "}", name)


def velocity_pairs(n: int) -> list[tuple[int, int]]:
    """The 1-based joint pairs (j, k), j < k, in the order of ``velocity_products``."""
    return [(j, k) for j in range(1, n + 1) for k in range(j + 1, n + 1)]


def operation_count(expr) -> int:
    """Additions, multiplications, functions ... as ``sympy.count_ops`` counts them."""
    return int(sp.count_ops(expr))


@dataclass(frozen=True)
class Entry:
    """One entry of one matrix.

    Attributes
    ----------
    matrix:
        The matrix name (a key of ``Equations.matrices``).
    indices:
        1-based (row, column), or (row,) for a column vector.
    label, latex_label:
        ``"B_1,12"`` and ``"B_{1,12}"``.
    expr:
        The entry.
    factor:
        What the entry multiplies in the equation (``qd1*qd2`` for a B entry,
        ``qdd2`` for an M entry), or None for vectors.
    mirror:
        For an entry below the diagonal of a symmetric matrix that equals its
        partner above it: the partner's indices as its label names them (the joint
        numbers: a closed chain's actuated joints keep the sliders' numbers); else None.
    """

    matrix: str
    indices: tuple[int, ...]
    label: str
    latex_label: str
    expr: sp.Expr
    factor: sp.Expr | None = None
    mirror: tuple[int, ...] | None = None

    @property
    def is_zero(self) -> bool:
        return self.expr == 0

    @cached_property
    def ops(self) -> int:
        """Operation count of the entry (``sympy.count_ops``)."""
        return operation_count(self.expr)


def matrix_names(eq: Equations, include_extras: bool = True) -> list[str]:
    """The names to show, in display order: the method's matrices, then matrix-valued extras."""
    names = list(eq.matrices)
    if include_extras:
        names += [k for k, v in eq.extras.items() if isinstance(v, sp.MatrixBase) and k not in eq.matrices]
    return names


def _get(eq: Equations, name: str) -> sp.Matrix:
    return eq.matrices[name] if name in eq.matrices else eq.extras[name]


def _index_text(parts: Sequence, wide: bool) -> str:
    return ",".join(map(str, parts)) if wide else "".join(map(str, parts))


def iter_entries(eq: Equations, names: Sequence[str] | None = None,
                 numbers: Sequence[int] | None = None) -> Iterator[Entry]:
    """Every entry of the named matrices (default :func:`matrix_names`), row by row.

    Parameters
    ----------
    eq:
        A derivation's result.
    names:
        Matrix names to list, looked up in ``eq.matrices`` and then ``eq.extras``.
    numbers:
        The joints' numbers in the labels when not 1..n (a closed chain's actuated joints by the tree's
        numbers: the palletizer's M_24 is the entry of q2 and q4); ``indices`` stay the matrix's.
    """
    n = eq.n
    joint = list(numbers) if numbers is not None else list(range(1, n + 1))   # label number of joint k: joint[k-1]
    recursive = cast("RecursiveForm | None", eq.extras.get("recursive"))
    if recursive is not None and not eq.matrices and names is None:
        # the compact form: the named assignments of the recursion (the GUI's "recursive form" view)
        for step in recursive.assignments:
            base, _, axes = step.symbol.name.partition("_")
            tex = rf"\mathrm{{{base}}}" + (rf"_{{{axes}}}" if axes else "")
            yield Entry(step.kind, (step.link,), step.symbol.name, tex, step.value)
        for j, t in enumerate(recursive.tau, start=1):
            k = joint[j - 1] if j <= len(joint) else j
            yield Entry("tau", (j,), f"tau_{k}", rf"\tau_{{{k}}}", t)
        return
    wide = max(joint, default=0) >= 10
    qd, qdd = eq.model.qd, eq.model.qdd
    pairs = velocity_pairs(n)
    for name in names if names is not None else matrix_names(eq):
        mat = _get(eq, name)
        info = matrix_info(name)
        tex = info.latex
        vector = mat.shape[1] == 1 if info.vector is None else info.vector
        for i in range(mat.shape[0]):
            for j in range(mat.shape[1]):
                expr = mat[i, j]
                if name == "B" and mat.shape[1] == len(pairs) and eq.method is Method.LAGRANGE:
                    a, b = pairs[j]
                    idx: tuple[int, ...] = (i + 1, j + 1)
                    pair = f"({joint[a - 1]},{joint[b - 1]})" if wide else f"{joint[a - 1]}{joint[b - 1]}"
                    col_text = pair
                    factor = qd[a - 1] * qd[b - 1]
                elif vector:
                    idx, col_text, factor = (i + 1,), "", None
                elif name == "C" and eq.method is Method.LAGRANGE:
                    idx, col_text, factor = (i + 1, j + 1), str(joint[j]), qd[j] ** 2
                else:
                    idx, col_text = (i + 1, j + 1), str(joint[j]) if j < len(joint) else str(j + 1)
                    factor = qdd[j] if mat.shape == (n, n) and info.symmetric else None
                row = joint[i] if i < len(joint) else i + 1
                if vector:
                    sub = str(row)
                elif name == "B":
                    sub = f"{row},{col_text}"
                else:
                    sub = _index_text((row, col_text), wide)
                mirror = None
                if info.symmetric and j < i and mat.shape[0] == mat.shape[1] and expr == mat[j, i]:
                    # as the labels name it: a closed chain's M_42 is the partner of M_24, not of its row 2, column 3
                    mirror = (joint[j] if j < len(joint) else j + 1, joint[i] if i < len(joint) else i + 1)
                yield Entry(name, idx, f"{name}_{sub}", f"{tex}_{{{sub}}}", expr, factor, mirror)
