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


# ---------------------------------------------------------------------------------------------------------------
# The section model: a report is a list of typed blocks built once from the equations (:func:`equations_document`);
# html_report, markdown_report and latex_report each only render blocks. Inline text is a tuple of spans.

@dataclass(frozen=True)
class Var:   # an italic one-letter variable in running text (*i*)
    name: str


@dataclass(frozen=True)
class Sym:   # a symbol: a letter or a Greek letter's name ("alpha"), upright sub- and superscripts (a_{i-1}, D^rot)
    base: str
    sub: str = ""
    sup: str = ""


@dataclass(frozen=True)
class Math:   # a sympy expression inline
    expr: Any


@dataclass(frozen=True)
class Vec:   # (x, y, z) of sympy expressions, transposed when a column
    items: tuple
    transposed: bool = False


@dataclass(frozen=True)
class InertiaCell:   # an inertia tensor with products of inertia (xx yy zz xy xz yz): the full matrix
    entries: tuple


@dataclass(frozen=True)
class Dims:   # a matrix's size, rows x columns
    rows: int
    cols: int


@dataclass(frozen=True)
class Code:   # a program's name, in a fixed-width font
    text: str


@dataclass(frozen=True)
class EntryLabel:   # an entry's name (M_11, tau_2); with ``equals`` "M_21 = M_12" (a symmetric matrix's mirror)
    entry: Entry
    equals: Entry | None = None


Span = str | Var | Sym | Math | Vec | InertiaCell | Dims | Code | EntryLabel
Text = tuple[Span, ...]


@dataclass(frozen=True)
class Heading:   # level 2 a section, 3 a subsection; ``anchor`` an id to link to; LaTeX: \section or \section*
    level: int
    text: Text
    anchor: str = ""
    numbered: bool = True


@dataclass(frozen=True)
class Para:   # ``compact``: the short lines under a matrix's entries
    text: Text
    compact: bool = False


@dataclass(frozen=True)
class Table:   # ``align`` a letter a column (l, r); ``cls`` the HTML class styles and tests find it by
    header: tuple[Text, ...]
    rows: tuple[tuple[Text, ...], ...]
    align: str
    cls: str = ""


@dataclass(frozen=True)
class Bullets:
    items: tuple[Text, ...]


@dataclass(frozen=True)
class Formula:   # the form of the equations: LaTeX, Unicode text (HTML), the LaTeX rows defining its vectors
    latex: str
    text: str
    definitions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Entries:   # the non-zero entries of one matrix, each broken into lines, with its operation count
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class Definitions:   # quantities defined in order (a nonlinear loop's): (symbol, value or None: numeric, what)
    items: tuple[tuple[Any, Any, str], ...]


@dataclass(frozen=True)
class Formulas:   # (name, LaTeX name, formula, its text, value): LaTeX aligns them as equations, the others write
    header: tuple[str, ...]   # the text in a table of this header (name, formula, value), or without one as lines
    rows: tuple[tuple[str, str, Any, str, str], ...]


Block = Heading | Para | Table | Bullets | Formula | Entries | Definitions | Formulas


@dataclass(frozen=True)
class Document:   # title, what made it (method, simplification; empty for other reports), description, blocks
    title: str
    method: str
    simplify: str
    description: str
    blocks: tuple[Block, ...]


def _t(*spans: Span) -> Text:
    return tuple(spans)


def _inertia(entries) -> Text:
    """An inertia as a table cell: 0, diag (xx, yy, zz) or the full matrix."""
    from .tables import inertia_cells
    kind, cells = inertia_cells(entries)
    if kind == "full":
        return _t(InertiaCell(tuple(cells)))
    return _t("diag ", Vec(tuple(cells))) if cells else _t("0")


def _arm_blocks(eq: Equations) -> list[Block]:
    from ..model.expr import symbol
    from ..model.manipulator import Convention
    from .tables import dh_rows, mass_rows, parameter_rows
    model = eq.model
    modified = model.convention is Convention.MODIFIED
    i = Var("i")
    a, alpha = (Sym("a", "i-1"), Sym("alpha", "i-1")) if modified else (Sym("a", "i"), Sym("alpha", "i"))
    conv = (_t("modified (Craig): frame ", i, " at joint ", i, "; row ", i, " holds ", a, " and ", alpha) if modified
            else _t("standard: frame ", i, " at the distal end of link ", i))
    out: list[Block] = [
        Heading(2, _t("The arm")),
        Para(_t(f"{model.n} links, Denavit–Hartenberg convention ", *conv, ". Joint variables ", Sym("q", "i"),
                " appear in ", Sym("theta", "i"), " (revolute) or ", Sym("d", "i"), " (prismatic).")),
        Heading(3, _t("Denavit–Hartenberg parameters")),
        Table((_t(i), _t("link"), _t("joint"), _t(a), _t(alpha), _t(Sym("d", "i")), _t(Sym("theta", "i"))),
              tuple((_t(str(r.index)), _t(r.name), _t("revolute" if r.joint == "R" else "prismatic"),
                     _t(Math(r.a)), _t(Math(r.alpha)), _t(Math(r.d)), _t(Math(r.theta))) for r in dh_rows(model)),
              "rllllll", "dh"),
        Heading(3, _t("Masses")),
        Para(_t("Centre of mass and inertia about it, in the axes of link frame ", i, ".")),
        Table((_t(i), _t("mass"), _t("centre of mass"), _t("inertia")),
              tuple((_t(str(r.index)), _t(Math(r.mass)), _t(Vec(tuple(r.com))), _inertia(r.inertia))
                    for r in mass_rows(model)), "rlll")]
    if model.point_masses:
        out += [Heading(3, _t("Point masses")),
                Bullets(tuple(_t(Math(p.mass), f" on link {p.link} at ", Vec(tuple(p.position)))
                              for p in model.point_masses))]
    out += [Heading(3, _t("Gravity")),
            Para(_t("Gravitational acceleration in the base frame: ", Vec(tuple(model.gravity_frame0), True), "."))]
    params = parameter_rows(model)
    if params:
        out += [Heading(3, _t("Parameters")),
                Table((_t("symbol"), _t("name"), _t("default value")),
                      tuple((_t(Math(symbol(name))), _t(Code(name)),
                             _t(f"{value:g}" if value is not None else "symbolic")) for name, value in params),
                      "lll")]
    return out


def _loop_blocks(eq: Equations) -> list[Block]:
    from .loop_section import LOOP_INTRO, loop_items
    items = loop_items(eq)
    if not items:
        return []
    return [Heading(2, _t("Loop quantities")), Para(_t(LOOP_INTRO)), Definitions(tuple(items))]


#: a matrix's symbol by name (others upright, by their name)
MATRIX_SYMBOL = {"tau": Sym("tau"), "D_rot": Sym("D", sup="rot"), "D_tra": Sym("D", sup="tra"),
                 "H_rot": Sym("H", sup="rot"), "H_tra": Sym("H", sup="tra")}


def matrix_symbol(name: str) -> Sym:
    return MATRIX_SYMBOL.get(name, Sym(name))


def _equation_blocks(eq: Equations) -> list[Block]:
    secs = sections(eq)
    out: list[Block] = [
        Heading(2, _t("Equations of motion")),
        Formula(form_latex(eq), form_text(eq), tuple(vector_definitions_latex(eq))),
        Para(_t("Joint positions ", Sym("q", "i"), ", velocities ", Sym("qd", "i"), ", accelerations ",
                Sym("qdd", "i"), ".")),
        Table((_t("matrix"), _t("size"), _t("non-zero entries"), _t("operations")),
              tuple((_t(matrix_symbol(s.name)), _t(Dims(*s.shape)), _t(str(len(s.shown) + len(s.mirrors))),
                     _t(str(s.ops))) for s in secs), "lrrr"),
        Para(_t("Operations: ", Code("sympy.count_ops"), " of the distinct entries, before common-subexpression "
                "elimination. Numbers are shown to 6 significant digits (the JSON export keeps full precision)."))]
    for sec in secs:
        out += [Heading(3, _t(matrix_symbol(sec.name), ": " + sec.info.description), f"matrix-{sec.name}"),
                Para(_t("Size ", Dims(*sec.shape), "." + (" Symmetric." if sec.info.symmetric else "")))]
        if sec.shown:
            out.append(Entries(tuple(sec.shown)))
        if sec.mirrors:
            out.append(Para(_t("By symmetry: ", *_comma_list([EntryLabel(e, p) for e, p in sec.mirrors]), "."),
                            compact=True))
        if sec.zeros:
            if sec.shown or sec.mirrors:
                out.append(Para(_t("Zero: ", *_comma_list([EntryLabel(e) for e in sec.zeros]), "."), compact=True))
            else:
                out.append(Para(_t("All entries are zero."), compact=True))
    return out


def _comma_list(spans: list[Span]) -> list[Span]:
    """``spans`` separated by ", "."""
    out: list[Span] = []
    for k, span in enumerate(spans):
        out += ([", "] if k else []) + [span]
    return out


def equations_document(eq: Equations, title: str | None = None) -> Document:
    """The readable report of ``eq`` (closed form) as blocks: the arm, a nonlinear loop's quantities, the
    equations matrix by matrix."""
    model = eq.model
    return Document(title or f"Equations of motion: {model.name or 'unnamed arm'}",
                    METHOD_TITLE.get(eq.method, eq.method.value),
                    SIMPLIFY_TEXT.get(eq.simplify.value, eq.simplify.value), model.description or "",
                    tuple(_arm_blocks(eq) + _loop_blocks(eq) + _equation_blocks(eq)))
