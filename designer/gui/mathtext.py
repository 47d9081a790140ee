"""Offline rendering of sympy expressions as mathematics, with matplotlib's mathtext.

mathtext handles one line of a LaTeX subset, so a long sum is broken into
lines of a few terms each (every line a valid formula on its own); for an
expression mathtext cannot parse :func:`typeset` returns None and the caller
shows text. This module does not import Qt: the equation viewer runs it in a
separate process, because typesetting a long entry is seconds of pure Python
and, in a thread, would starve the GUI thread of the GIL.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
import sympy as sp
from matplotlib.font_manager import FontProperties
from matplotlib.mathtext import MathTextParser
__all__ = ["latex_of", "latex_lines", "render_lines", "typeset", "entry_stats", "typeset_many", "stats_many",
           "MAX_LINES"]

MAX_LINES = 16       # beyond this a rendering says how much it left out (mathtext needs ~0.1 s a line)
LINE_CHARS = 80      # visible characters per rendered line (about one screen width at 12 pt)
_parser = MathTextParser("agg")


def _symbol_names(expr) -> dict:
    """qd1 -> \\dot{q}_{1}, qdd1 -> \\ddot{q}_{1}; other names as sympy writes them."""
    names = {}
    for s in expr.free_symbols:
        for prefix, accent in (("qdd", r"\ddot{q}"), ("qd", r"\dot{q}")):
            if s.name.startswith(prefix) and s.name[len(prefix):].isdigit():
                names[s] = f"{accent}_{{{s.name[len(prefix):]}}}"
                break
    return names


def latex_of(expr) -> str:
    """sympy's LaTeX with joint rates written as dotted q."""
    expr = sp.sympify(expr)
    return sp.latex(expr, symbol_names=_symbol_names(expr))


def visible_length(latex: str) -> int:
    """Rough printed width of LaTeX in characters: commands count as one, braces and scripts as none."""
    text = re.sub(r"\\(left|right)\b", "", latex)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", lambda m: max(m[1], m[2], key=len), text)
    text = re.sub(r"\\[a-zA-Z]+", "x", text)
    return len(re.sub(r"[{}^_\s]", "", text))


def latex_lines(label: str, expr, width: int = LINE_CHARS, max_lines: int | None = None) -> list[str]:
    """``label = expr`` as one or more LaTeX lines; a sum is broken between its terms.

    Parameters
    ----------
    max_lines : int, optional
        Stop after this many lines and end with a line saying how many terms
        were left out (the LaTeX of a long entry takes seconds to write).

    Returns
    -------
    list of str
        The first line starts with ``label =``; later ones with ``\\quad +`` or ``\\quad -``.
    """
    expr = sp.sympify(expr)
    terms = expr.as_ordered_terms() if isinstance(expr, sp.Add) else [expr]
    if len(terms) <= 3:
        whole = latex_of(expr)
        if visible_length(whole) <= width or len(terms) == 1:
            return [f"{label} = {whole}"]
    names = _symbol_names(expr)
    lines, current, used = [], f"{label} =", visible_length(label) + 2
    for k, term in enumerate(terms):
        negative = term.could_extract_minus_sign()
        body = sp.latex(-term if negative else term, symbol_names=names)
        piece = ("- " if negative else ("" if k == 0 else "+ ")) + body
        size = visible_length(piece) + 1
        if k and used + size > width:
            lines.append(current)
            if max_lines is not None and len(lines) >= max_lines:
                left = len(terms) - k
                lines.append(rf"\quad \ldots\ \mathrm{{and\ {left}\ more\ terms}}")
                return lines
            current, used = r"\quad ", 4
        current += " " + piece
        used += size
    lines.append(current)
    return lines


@lru_cache(maxsize=512)
def _render_line(line: str, size: float, dpi: int) -> np.ndarray:
    return np.asarray(_parser.parse(f"${line}$", dpi=dpi, prop=FontProperties(size=size)).image)


def render_lines(lines: list[str], size: float = 12.0, dpi: int = 100, gap: int = 6) -> np.ndarray:
    """LaTeX lines one below the other as an RGBA array (black on transparent).

    Raises
    ------
    ValueError
        mathtext cannot parse a line.
    """
    images = [_render_line(line, size, dpi) for line in lines]
    width = max(im.shape[1] for im in images) + 8
    height = sum(im.shape[0] for im in images) + gap * (len(images) - 1) + 8
    rgba = np.zeros((height, width, 4), np.uint8)
    y = 4
    for im in images:
        h, w = im.shape
        rgba[y:y + h, 4:4 + w, 3] = im  # black text: colour 0, alpha from the glyph coverage
        y += h + gap
    return rgba


def typeset(latex_label: str, expr, size: float = 12.0) -> np.ndarray | None:
    """``label = expr`` as an RGBA array, or None when mathtext cannot typeset it."""
    try:
        return render_lines(latex_lines(latex_label, expr, max_lines=MAX_LINES), size)
    except (ValueError, RuntimeError, KeyError, IndexError):
        return None


def entry_stats(expr, preview_chars: int = 160) -> tuple[int, str]:
    """(sympy.count_ops, the start of sympy.sstr) of an entry."""
    text = sp.sstr(expr)
    return int(sp.count_ops(expr)), text if len(text) <= preview_chars else text[:preview_chars] + " …"


def typeset_many(items: list) -> list:
    """[(latex label, expr)] -> [RGBA array or None] (one call per worker round trip)."""
    return [typeset(label, expr) for label, expr in items]


def stats_many(items: list, preview_chars: int = 160) -> dict:
    """[(key, expr)] -> {key: (operation count, preview)}."""
    return {key: entry_stats(expr, preview_chars) for key, expr in items}
