"""Printers shared by the reports: text sympy reads back, LaTeX and MathML with q, q-dot, q-double-dot.

The joint symbols are named ``q1``, ``qd1``, ``qdd1`` (project-format.md); in
mathematics they are shown as q_1, \\dot q_1 and \\ddot q_1.
"""

from __future__ import annotations

import html
import re
import unicodedata
from html.entities import html5

import sympy as sp
from sympy.printing.mathml import MathMLPresentationPrinter
from sympy.printing.str import StrPrinter

__all__ = ["to_text", "to_latex", "to_mathml", "for_display", "DISPLAY_DIGITS", "joint_latex", "latex_escape",
           "JOINT_RE"]

JOINT_RE = re.compile(r"^q(d|dd)?([0-9]+)$")
_ACCENT = {None: "", "d": "\\dot", "dd": "\\ddot"}
_MATHML_ACCENT = {"d": "\u02d9", "dd": "\u00a8"}  # dot above, diaeresis


class _TextPrinter(StrPrinter):
    """``str()`` as sympy prints it, but floats as Python prints them (shortest exact form)."""

    def _print_Float(self, expr):
        if expr._prec <= 53:
            return repr(float(expr))
        return super()._print_Float(expr)


def to_text(expr, ordered: bool = True) -> str:
    """Text that ``sympy.sympify`` parses back to ``expr`` (with the model's symbols as locals).

    ``ordered=False`` keeps the terms in the expression's own order, much faster on large ones.
    """
    return _TextPrinter({} if ordered else {"order": "none"}).doprint(sp.sympify(expr))


def joint_latex(name: str) -> str | None:
    """LaTeX of a joint symbol name (``qd2`` -> ``\\dot{q}_{2}``), None for other names."""
    m = JOINT_RE.match(name)
    if not m:
        return None
    accent = _ACCENT[m.group(1)]
    base = f"{accent}{{q}}" if accent else "q"
    return f"{base}_{{{m.group(2)}}}"


DISPLAY_DIGITS = 6


def for_display(expr, digits: int = DISPLAY_DIGITS):
    """``expr`` with floats rounded to ``digits`` significant digits, integral ones as integers.

    For documents people read; JSON and generated code keep full precision.
    """
    expr = sp.sympify(expr)
    floats = expr.atoms(sp.Float)
    if not floats:
        return expr
    subs = {}
    for f in floats:
        value = float(f)
        subs[f] = sp.Integer(int(value)) if value.is_integer() and abs(value) < 1e6 else sp.Float(f, digits)
    return expr.xreplace(subs)


def to_latex(expr) -> str:
    """LaTeX of an expression, joint symbols as q_i, \\dot q_i, \\ddot q_i; floats to 6 digits."""
    expr = for_display(expr)
    names = {s: joint_latex(s.name) for s in expr.free_symbols if isinstance(s, sp.Symbol)}
    names = {s: v for s, v in names.items() if v}
    return sp.latex(expr, symbol_names=names)


# math-mode glyphs for the symbols OT1 text fonts lack (no companion fonts needed)
_LATEX_SPECIAL = {
    "\\": r"$\backslash$", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"$\{$", "}": r"$\}$", "~": r"$\sim$", "^": r"\^{}", "<": r"$<$", ">": r"$>$", "|": r"$|$",
    "\u2013": "--",
}


def _ascii(ch: str) -> str:
    # The default OT1 fonts of a basic TeX install know accented Latin letters, little else.
    if ord(ch) < 256:
        return ch
    plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return plain or "?"


def latex_escape(text: str) -> str:
    """Plain text safe in a LaTeX document; characters beyond Latin-1 become ASCII look-alikes or '?'."""
    return "".join(_LATEX_SPECIAL.get(ch) or _ascii(ch) for ch in text)


class _MathMLPrinter(MathMLPresentationPrinter):
    """Presentation MathML with dotted joint symbols."""

    def _print_Symbol(self, sym, style="plain"):
        m = JOINT_RE.match(sym.name)
        if not m:
            return super()._print_Symbol(sym, style)
        base = self.dom.createElement("mi")
        base.appendChild(self.dom.createTextNode("q"))
        if m.group(1):
            over = self.dom.createElement("mover")
            over.setAttribute("accent", "true")
            mark = self.dom.createElement("mo")
            mark.appendChild(self.dom.createTextNode(_MATHML_ACCENT[m.group(1)]))
            over.appendChild(base)
            over.appendChild(mark)
            base = over
        sub = self.dom.createElement("msub")
        index = self.dom.createElement("mn")
        index.appendChild(self.dom.createTextNode(m.group(2)))
        sub.appendChild(base)
        sub.appendChild(index)
        return sub


_FUNCTION_AFTER_PRODUCT = re.compile(r"(<mo>&#x2062;</mo>)(<mrow><mi>(?:sin|cos|tan|exp|log)</mi>)")
_ENTITY_RE = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")


def _numeric_entities(text: str) -> str:
    # Named entities such as &InvisibleTimes; are HTML-only; numeric ones are valid XML too.
    def repl(m):
        if m.group(1) in ("amp", "lt", "gt", "quot", "apos"):
            return m.group(0)
        chars = html5.get(m.group(1) + ";")
        return "".join(f"&#x{ord(c):x};" for c in chars) if chars else html.escape(m.group(0))
    return _ENTITY_RE.sub(repl, text)


def to_mathml(expr) -> str:
    """Presentation MathML (the content of a ``<math>`` element) of an expression; floats to 6 digits."""
    text = _numeric_entities(_MathMLPrinter().doprint(for_display(expr)))
    text = text.replace("<mo>-</mo>", "<mo>&#x2212;</mo>")  # a minus sign, not a hyphen
    # browsers put no space between a factor and a function name (TeX does): I2yy cos(q2), not I2yycos
    return _FUNCTION_AFTER_PRODUCT.sub(r'\1<mspace width="0.17em"></mspace>\2', text)
