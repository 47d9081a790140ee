"""What every readable report says, whatever its format: titles, the form, entries by matrix."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..dynamics.results import Equations, Method
from .entries import Entry, MatrixInfo, iter_entries, matrix_info, matrix_names

__all__ = ["METHOD_TITLE", "SIMPLIFY_TEXT", "MatrixSection", "sections", "form_latex", "form_text",
           "vector_definitions_latex"]

METHOD_TITLE = {
    Method.LAGRANGE: "Lagrange-Euler, configuration-space form",
    Method.NEWTON_EULER: "recursive Newton-Euler",
    Method.DALEMBERT: "generalized d'Alembert",
}
SIMPLIFY_TEXT = {"off": "not simplified", "fast": "fast simplification", "full": "full simplification"}


@dataclass
class MatrixSection:
    """One matrix's entries split the way the reports show them."""

    name: str
    info: MatrixInfo
    shape: tuple[int, int]
    shown: list[Entry] = field(default_factory=list)    # non-zero, not a mirror
    mirrors: list[tuple[Entry, Entry]] = field(default_factory=list)  # (entry, equal entry above the diagonal)
    zeros: list[Entry] = field(default_factory=list)

    @property
    def ops(self) -> int:
        """Operations of the shown entries (mirrors are not computed twice)."""
        return sum(e.ops for e in self.shown)


def sections(eq: Equations) -> list[MatrixSection]:
    out: dict[str, MatrixSection] = {}
    for name in matrix_names(eq):
        mat: Any = eq.matrices[name] if name in eq.matrices else eq.extras[name]  # a sympy Matrix
        out[name] = MatrixSection(name, matrix_info(name), tuple(mat.shape))
    seen: dict[tuple, Entry] = {}
    for entry in iter_entries(eq):
        sec = out[entry.matrix]
        seen[entry.matrix, entry.indices] = entry
        if entry.is_zero:
            sec.zeros.append(entry)
        elif entry.mirror is not None:
            sec.mirrors.append((entry, seen[entry.matrix, entry.mirror]))
        else:
            sec.shown.append(entry)
    return list(out.values())


def vector_definitions_latex(eq: Equations, per_line: int = 8) -> list[str]:
    """Rows of an ``aligned``/``align*`` block defining [q'q'] and [q'^2] (Lagrange form only).

    Long vectors continue on further rows, ``per_line`` items each.
    """
    if eq.method is not Method.LAGRANGE:
        return []
    n = eq.n
    pairs = [rf"\dot{{q}}_{{{j}}}\dot{{q}}_{{{k}}}" for j in range(1, n + 1) for k in range(j + 1, n + 1)]
    squares = [rf"\dot{{q}}_{{{j}}}^{{2}}" for j in range(1, n + 1)]
    rows = []
    for name, items in ((r"[\dot{q}\dot{q}]", pairs), (r"[\dot{q}^{2}]", squares)):
        if not items:
            continue
        chunks = [", ".join(items[k:k + per_line]) for k in range(0, len(items), per_line)]
        lines = [f"{name} &= \\bigl({chunks[0]}"] + [r"&\qquad " + c for c in chunks[1:]]
        lines = [line + "," for line in lines[:-1]] + [lines[-1] + r"\bigr)^{T}"]
        rows += lines
    return rows


def form_latex(eq: Equations) -> str:
    if eq.method is Method.LAGRANGE:
        return (r"\tau = M(q)\,\ddot{q} + 2\,B(q)\,[\dot{q}\dot{q}] + C(q)\,[\dot{q}^{2}] + G(q)"
                if eq.n > 1 else r"\tau = M(q)\,\ddot{q} + C(q)\,[\dot{q}^{2}] + G(q)")
    if eq.method is Method.DALEMBERT:
        return (r"\tau = \bigl(D^{\mathrm{rot}}(q) + D^{\mathrm{tra}}(q)\bigr)\,\ddot{q}"
                r" + H^{\mathrm{rot}}(q, \dot{q}) + H^{\mathrm{tra}}(q, \dot{q}) + G(q)")
    return r"\tau = \tau(q, \dot{q}, \ddot{q})"


def form_text(eq: Equations) -> str:
    """The form in plain Unicode (for HTML headings and text output)."""
    if eq.method is Method.LAGRANGE:
        return "τ = M(q) q̈ + 2 B(q) [q̇q̇] + C(q) [q̇²] + G(q)"
    if eq.method is Method.DALEMBERT:
        return "τ = (Dʳᵒᵗ(q) + Dᵗʳᵃ(q)) q̈ + Hʳᵒᵗ(q, q̇) + Hᵗʳᵃ(q, q̇) + G(q)"
    return "τ = τ(q, q̇, q̈)"
