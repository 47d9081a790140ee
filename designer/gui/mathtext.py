"""Offline rendering of sympy expressions as mathematics, with matplotlib's mathtext.

mathtext handles one line of a LaTeX subset, so a long sum is broken into
lines of a few terms each (every line a valid formula on its own), and an
expression mathtext cannot parse falls back to plain text.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
import sympy as sp
from matplotlib.font_manager import FontProperties
from matplotlib.mathtext import MathTextParser
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter

__all__ = ["latex_of", "latex_lines", "render_lines", "render_entry", "MAX_LINES"]

MAX_LINES = 40       # beyond this a rendering says how much it left out (copy as text gives all)
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


def latex_lines(label: str, expr, width: int = LINE_CHARS) -> list[str]:
    """``label = expr`` as one or more LaTeX lines; a sum is broken between its terms.

    Returns
    -------
    list of str
        The first line starts with ``label =``; later ones with ``\\quad +`` or ``\\quad -``.
    """
    expr = sp.sympify(expr)
    whole = latex_of(expr)
    if visible_length(whole) <= width or not isinstance(expr, sp.Add):
        return [f"{label} = {whole}"]
    names = _symbol_names(expr)
    lines, current, used = [], f"{label} =", visible_length(label) + 2
    for k, term in enumerate(expr.as_ordered_terms()):
        negative = term.could_extract_minus_sign()
        body = sp.latex(-term if negative else term, symbol_names=names)
        piece = ("- " if negative else ("" if k == 0 else "+ ")) + body
        size = visible_length(piece) + 1
        if k and used + size > width:
            lines.append(current)
            current, used = r"\quad ", 4
        current += " " + piece
        used += size
    lines.append(current)
    return lines


@lru_cache(maxsize=512)
def _render_line(line: str, size: float, dpi: int) -> np.ndarray:
    return np.asarray(_parser.parse(f"${line}$", dpi=dpi, prop=FontProperties(size=size)).image)


def render_lines(lines: list[str], size: float = 12.0, dpi: int = 100, gap: int = 6) -> QImage:
    """Render LaTeX lines one below the other (black on transparent); raises ValueError if mathtext cannot."""
    images = [_render_line(line, size, dpi) for line in lines]
    width = max(im.shape[1] for im in images) + 8
    height = sum(im.shape[0] for im in images) + gap * (len(images) - 1) + 8
    rgba = np.zeros((height, width, 4), np.uint8)
    y = 4
    for im in images:
        h, w = im.shape
        rgba[y:y + h, 4:4 + w, 3] = im  # black text: colour 0, alpha from the glyph coverage
        y += h + gap
    image = QImage(rgba.data, width, height, 4 * width, QImage.Format.Format_RGBA8888)
    return image.copy()  # own the pixels (rgba goes away)


def _text_image(text: str, note: str) -> QImage:
    font = QFont("DejaVu Sans Mono", 10)
    metrics = QFontMetrics(font)
    lines = [note] + [text[k:k + 120] for k in range(0, min(len(text), 120 * MAX_LINES), 120)]
    width = max(metrics.horizontalAdvance(line) for line in lines) + 12
    image = QImage(width, metrics.lineSpacing() * len(lines) + 12, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(0, 0, 0, 0))
    painter = QPainter(image)
    painter.setFont(font)
    for k, line in enumerate(lines):
        painter.setPen(QColor("#8a5a00") if k == 0 else QColor("black"))
        painter.drawText(6, 6 + metrics.ascent() + k * metrics.lineSpacing(), line)
    painter.end()
    return image


def render_entry(latex_label: str, text_label: str, expr, size: float = 12.0) -> tuple[QImage, bool]:
    """An entry as an image: (image, True) rendered by mathtext or (image, False) as plain text."""
    lines = latex_lines(latex_label, expr)
    if len(lines) > MAX_LINES:
        left = len(lines) - MAX_LINES
        lines = lines[:MAX_LINES] + [rf"\quad \ldots\ \mathrm{{and\ {left}\ more\ lines}}"]
    try:
        return render_lines(lines, size), True
    except (ValueError, RuntimeError, KeyError, IndexError):
        return _text_image(f"{text_label} = {sp.sstr(expr)}", "(shown as text: mathtext cannot typeset this entry)"), False
