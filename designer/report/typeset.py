"""Offline rendering of sympy expressions as mathematics, with matplotlib's mathtext.

mathtext handles one line of a LaTeX subset, so a long sum is broken into
lines of a few terms each (every line a valid formula on its own); for an
expression mathtext cannot parse :func:`typeset` returns None and the caller
shows text. No Qt here (headless core): the equation viewer runs it in a
separate process, because typesetting a long entry is seconds of pure Python
and, in a thread, would starve the GUI thread of the GIL.
"""

from __future__ import annotations

import re
from functools import lru_cache
from collections.abc import Iterator

import numpy as np
import sympy as sp

__all__ = ["PIXELS_PER_CHAR", "LINE_CHARS", "latex_of", "latex_lines", "tidy_floats",
           "render_lines", "typeset", "entry_stats", "typeset_many", "stats_many",
           "MAX_LINES"]

MAX_LINES = 16       # beyond this a rendering says how much it left out (mathtext needs ~0.1 s a line)
LINE_CHARS = 70      # visible characters per rendered line (about 600 px at 12 pt)
PIXELS_PER_CHAR = 600 / LINE_CHARS   # at 12 pt and 100 dpi: what a pane of given width holds


@lru_cache(maxsize=1)
def _parser():
    """matplotlib's mathtext parser, made on the first rendering: matplotlib and its font manager take
    0.4-1.5 s to load, which the window does not spend before its first paint."""
    from matplotlib.mathtext import MathTextParser
    return MathTextParser("agg")


def _symbol_names(expr) -> dict:
    """qd1 -> \\dot{q}_{1}, qdd1 -> \\ddot{q}_{1}; other names as sympy writes them."""
    names = {}
    for s in expr.free_symbols:
        for prefix, accent in (("qdd", r"\ddot{q}"), ("qd", r"\dot{q}")):
            if s.name.startswith(prefix) and s.name[len(prefix):].isdigit():
                names[s] = f"{accent}_{{{s.name[len(prefix):]}}}"
                break
    return names


def tidy_floats(expr):
    """``expr`` with every float that is a simple fraction to within round-off written as that fraction
    (0.333333333333333 m2 as m2/3, 266.66666666666663 as 800/3, 2.0 as 2): what a person reads, the same number
    to 12 digits; any other float stays (0.4444135452174627). The window's equations show entries this way."""
    from fractions import Fraction
    swap = {}
    for f in sp.sympify(expr).atoms(sp.Float):
        x = float(f)
        if not np.isfinite(x):
            continue
        near = Fraction(x).limit_denominator(1000)
        if abs(x - float(near)) <= 1e-12 * abs(x):
            swap[f] = sp.Rational(near.numerator, near.denominator)
    return expr.xreplace(swap) if swap else expr


def latex_of(expr) -> str:
    """sympy's LaTeX with joint rates written as dotted q (and simple fractions for their floats)."""
    expr = tidy_floats(sp.sympify(expr))
    return sp.latex(expr, symbol_names=_symbol_names(expr))


def visible_length(latex: str) -> int:
    """Rough printed width of LaTeX in characters.

    Function names count by their letters (sin: 3, plus one for the space),
    Greek letters and accents as one, layout commands and braces as nothing;
    scripts count like letters (they are narrower, but it errs on the safe side).
    """
    text = re.sub(r"\\(left|right|frac|mathrm|quad|dot|ddot)\b", "", latex)
    text = re.sub(r"\\(sin|cos|tan|log|exp|sqrt)\b", lambda m: "x" * (len(m[1]) + 1), text)
    text = re.sub(r"\\[a-zA-Z]+", "x", text)
    return len(re.sub(r"[{}^_\s\\,]", "", text))


def _prefixed(prefix: str, pieces: Iterator[str], suffix: str = "") -> Iterator[str]:
    """``pieces`` with ``prefix`` on the first and ``suffix`` on the last."""
    previous = None
    for k, piece in enumerate(pieces):
        if previous is not None:
            yield previous
        previous = prefix + piece if k == 0 else piece
    if previous is not None:
        yield previous + suffix


def _pieces(expr, names: dict, width: int) -> Iterator[str]:
    """LaTeX fragments of ``expr`` between which a line may break, written lazily.

    A sum breaks between its terms; a product with one long sum in it, such as
    m_2 (a_2 d_2 sin q_2 + ...), breaks inside that sum, with plain brackets
    (mathtext's \\left( ... \\right) cannot span lines).
    """
    if isinstance(expr, sp.Add):
        for k, term in enumerate(expr.as_ordered_terms()):
            negative = term.could_extract_minus_sign()
            sign = "- " if negative else ("" if k == 0 else "+ ")
            yield from _prefixed(sign, _pieces(-term if negative else term, names, width))
        return
    text = sp.latex(expr, symbol_names=names)
    if isinstance(expr, sp.Mul) and visible_length(text) > width:
        sums = [f for f in expr.args if isinstance(f, sp.Add)]
        if len(sums) == 1:
            rest = sp.Mul(*[f for f in expr.args if f is not sums[0]])
            head = "" if rest == 1 else ("-" if rest == -1 else sp.latex(rest, symbol_names=names))
            yield from _prefixed(f"{head} (", _pieces(sums[0], names, width), ")")
            return
    yield text


def latex_lines(label: str, expr, width: int = LINE_CHARS, max_lines: int | None = None) -> list[str]:
    """``label = expr`` as one or more LaTeX lines, broken between terms of sums.

    Parameters
    ----------
    max_lines : int, optional
        Stop after this many lines and end with a line saying the rest was
        left out (the LaTeX of a long entry takes seconds to write).

    Returns
    -------
    list of str
        The first line starts with ``label =``; later ones with ``\\quad``.
    """
    expr = sp.sympify(expr)
    names = _symbol_names(expr)
    if not isinstance(expr, (sp.Add, sp.Mul)):
        return [f"{label} = {sp.latex(expr, symbol_names=names)}"]
    lines, current, used = [], f"{label} =", visible_length(label) + 2
    for k, piece in enumerate(_pieces(expr, names, width)):
        size = visible_length(piece) + 1
        if k and used + size > width:
            lines.append(current)
            if max_lines is not None and len(lines) >= max_lines:
                lines.append(r"\quad \ldots\ \mathrm{(copy\ as\ text\ for\ the\ rest)}")
                return lines
            current, used = r"\quad ", 4
        current += " " + piece
        used += size
    lines.append(current)
    return lines


@lru_cache(maxsize=512)
def _render_line(line: str, size: float, dpi: int) -> np.ndarray:
    from matplotlib.font_manager import FontProperties
    return np.asarray(_parser().parse(f"${line}$", dpi=dpi, prop=FontProperties(size=size)).image)


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


def typeset(latex_label: str, expr, size: float = 12.0, width: int = LINE_CHARS) -> np.ndarray | None:
    """``label = expr`` as an RGBA array, lines of about ``width`` visible characters, or None when
    mathtext cannot typeset it."""
    try:
        return render_lines(latex_lines(latex_label, tidy_floats(sp.sympify(expr)), width, max_lines=MAX_LINES), size)
    except (ValueError, RuntimeError, KeyError, IndexError):
        return None


def entry_stats(expr, preview_chars: int = 160) -> tuple[int, str]:
    """(sympy.count_ops, the start of sympy.sstr) of an entry, its floats tidied (:func:`tidy_floats`)."""
    expr = tidy_floats(sp.sympify(expr))
    text = sp.sstr(expr)
    return int(sp.count_ops(expr)), text if len(text) <= preview_chars else text[:preview_chars] + " …"


def typeset_many(items: list, width: int = LINE_CHARS) -> list:
    """[(latex label, expr)] -> [RGBA array or None] (one call per worker round trip), lines of about
    ``width`` visible characters (the viewer passes what fits its pane)."""
    return [typeset(label, expr, width=width) for label, expr in items]


def stats_many(items: list, preview_chars: int = 160) -> dict:
    """[(key, expr)] -> {key: (operation count, preview)}."""
    return {key: entry_stats(expr, preview_chars) for key, expr in items}
