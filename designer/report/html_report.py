"""The equations as one self-contained HTML page, rendered offline by any current browser.

Mathematics is presentation MathML (browsers render it natively; no script,
no font or style sheet from the network). The page is also well-formed XML:
every element is closed and only numeric character references are used.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from ..dynamics.closed_nonlinear import NUMERIC_CLOSURE
from ..dynamics.results import Equations
from .document import (Block, Bullets, Code, Definitions, Dims, Document, Entries, EntryLabel, Formula, Formulas,
                       Heading, InertiaCell, Math, Para, Span, Sym, Table, Var, Vec, equations_document)
from .entries import Entry
from .layout import DEFAULT_WIDTH, break_lines, render_lines
from .printing import to_mathml

__all__ = ["render_html", "entry_mathml_lines", "label_mathml", "html_blocks"]

STYLE = """
body { font-family: "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif; max-width: 60em;
       margin: 2em auto; padding: 0 1em; color: #1a1a1a; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
.subtitle { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; }
th, td { border-bottom: 1px solid #ccc; padding: 0.25em 0.8em; text-align: left; vertical-align: top; }
th { border-bottom: 2px solid #888; }
math { font-size: 1.1em; math-style: normal;
       font-family: "Latin Modern Math", "STIX Two Math", "Cambria Math", math; }
table.entries td { border-bottom: 1px solid #eee; vertical-align: baseline; }
table.entries td.lhs { white-space: nowrap; text-align: right; padding-right: 0.3em; }
table.entries td.rhs div { margin: 0.2em 0; }
table.entries td.rhs div.cont { padding-left: 2em; }
table.entries td.rhs div.lead { padding-left: 3.1em; }
table.entries td.ops { color: #777; font-size: 0.85em; white-space: nowrap; text-align: right; }
.compact { margin: 0.3em 0 1em; }
@media print { thead { display: table-header-group; } tr, h2, h3 { break-inside: avoid; }
               h2, h3 { break-after: avoid; } }
"""

GREEK = {"alpha": "&#x3b1;", "beta": "&#x3b2;", "gamma": "&#x3b3;", "theta": "&#x3b8;", "tau": "&#x3c4;",
         "omega": "&#x3c9;"}


def sym_mathml(s: Sym) -> str:
    """MathML of a symbol: Greek by name, qd/qdd dotted, upright sub- and superscripts."""
    if s.base in ("qd", "qdd"):
        mark = "&#x2d9;" if s.base == "qd" else "&#xa8;"
        base = f'<mover accent="true"><mi>q</mi><mo>{mark}</mo></mover>'
    else:
        base = f"<mi>{GREEK.get(s.base, escape(s.base))}</mi>"
    sub, sup = (f"<mtext>{escape(x).replace('-', '&#x2212;')}</mtext>" for x in (s.sub, s.sup))
    if s.sub and s.sup:
        return f"<msubsup>{base}{sub}{sup}</msubsup>"
    if s.sub:
        return f"<msub>{base}{sub}</msub>"
    return f"<msup>{base}{sup}</msup>" if s.sup else base


def _math(content: str, cls: str = "") -> str:
    # Inline math in block containers: block math is centred, and CSS display: block
    # on a math element would switch its math layout off.
    attr = f' class="{cls}"' if cls else ""
    return f"<math{attr}>{content}</math>"


def label_mathml(entry: Entry) -> str:
    """MathML of an entry's label, e.g. M with subscript 11."""
    from dataclasses import replace
    from .document import matrix_symbol
    return sym_mathml(replace(matrix_symbol(entry.matrix), sub=entry.label[len(entry.matrix) + 1:]))


def entry_mathml_lines(expr, width: int = DEFAULT_WIDTH) -> list[str]:
    """MathML contents of an entry, one per line; continuation lines begin with their sign."""
    return render_lines(break_lines(expr, width), to_mathml, plus="<mo>+</mo>", minus="<mo>&#x2212;</mo>",
                        lead_minus="<mo>&#x2212;</mo>", open_='<mo stretchy="false">(</mo>',
                        close='<mo stretchy="false">)</mo>', times="<mo>&#x2062;</mo>")




def _inertia(cell: InertiaCell) -> str:
    xx, yy, zz, xy, xz, yz = (to_mathml(c) for c in cell.entries)
    rows = [(xx, xy, xz), (xy, yy, yz), (xz, yz, zz)]
    body = "".join("<mtr>" + "".join(f"<mtd>{c}</mtd>" for c in r) + "</mtr>" for r in rows)
    return _math(f"<mrow><mo>(</mo><mtable>{body}</mtable><mo>)</mo></mrow>")


def _vector(items, transposed: bool = False) -> str:
    row = "<mrow><mo>(</mo>" + "<mo>,</mo>".join(to_mathml(c) for c in items) + "<mo>)</mo></mrow>"
    return f"<msup>{row}<mi>T</mi></msup>" if transposed else row


def _span(span: Span) -> str:
    if isinstance(span, str):
        return escape(span)
    if isinstance(span, Var):
        return f"<i>{escape(span.name)}</i>"
    if isinstance(span, Code):
        return f"<code>{escape(span.text)}</code>"
    if isinstance(span, InertiaCell):
        return _inertia(span)
    if isinstance(span, Dims):
        return f"{span.rows} &#xd7; {span.cols}"
    if isinstance(span, Sym):
        return _math(sym_mathml(span))
    if isinstance(span, Math):
        return _math(to_mathml(span.expr))
    if isinstance(span, Vec):
        return _math(_vector(span.items, span.transposed))
    if isinstance(span, EntryLabel):
        equals = "" if span.equals is None else "<mo>=</mo>" + label_mathml(span.equals)
        return _math(label_mathml(span.entry) + equals)
    raise TypeError(f"no HTML for {type(span).__name__}")


def text_html(text: Iterable[Span]) -> str:
    return "".join(_span(span) for span in text)


def _entry_row(entry: Entry) -> str:
    lines = entry_mathml_lines(entry.expr)
    # an empty row before a continuation line's sign makes it a binary operator (with spacing)
    rows = []
    for k, line in enumerate(lines):
        if k == 0:
            rows.append("<div>" + _math(line) + "</div>")
        elif line.startswith("<mo>"):
            rows.append('<div class="cont">' + _math("<mrow></mrow>" + line) + "</div>")
        else:  # the first term inside a parenthesis: line up with the terms after a sign
            rows.append('<div class="cont lead">' + _math(line) + "</div>")
    rhs = "".join(rows)
    lhs = _math(label_mathml(entry) + "<mo>=</mo>")
    return (f'<tr id="{escape(entry.label)}"><td class="lhs">{lhs}</td><td class="rhs">{rhs}</td>'
            f'<td class="ops">{entry.ops} ops</td></tr>')


def _table(header, rows, cls: str = "") -> list[str]:
    attr = f' class="{cls}"' if cls else ""
    out = [f"<table{attr}>", "<thead><tr>" + "".join(f"<th>{text_html(h)}</th>" for h in header) + "</tr></thead>",
           "<tbody>"]
    out += ["<tr>" + "".join(f"<td>{text_html(c)}</td>" for c in row) + "</tr>" for row in rows]
    return out + ["</tbody>", "</table>"]


def _block(block: Block) -> list[str]:
    if isinstance(block, Heading):
        tag = f"h{block.level}"
        anchor = f' id="{escape(block.anchor)}"' if block.anchor else ""
        return [f"<{tag}{anchor}>{text_html(block.text)}</{tag}>"]
    if isinstance(block, Para):
        return [('<p class="compact">' if block.compact else "<p>") + text_html(block.text) + "</p>"]
    if isinstance(block, Table):
        return _table(block.header, block.rows, block.cls)
    if isinstance(block, Bullets):
        return ["<ul>"] + [f"<li>{text_html(item)}</li>" for item in block.items] + ["</ul>"]
    if isinstance(block, Formula):
        return [f"<p>{escape(block.text)}</p>"]
    if isinstance(block, Entries):
        return ['<table class="entries">'] + [_entry_row(e) for e in block.entries] + ["</table>"]
    if isinstance(block, Definitions):
        out = ['<table class="entries">']
        for sym, value, kind in block.items:
            lines = [f"<mtext>{escape(NUMERIC_CLOSURE)}</mtext>"] if value is None else entry_mathml_lines(value)
            out.append(f"<tr><td>{_math(to_mathml(sym) + '<mo>=</mo>' + lines[0])}"
                       + "".join(f"<br/>{_math(line)}" for line in lines[1:]) + f"</td><td>{escape(kind)}</td></tr>")
        return out + ["</table>"]
    if isinstance(block, Formulas):
        if not block.header:
            return ["<pre>" + escape("\n".join(f"{name} = {text}" for name, _, _, text, _ in block.rows)) + "</pre>"]
        return _table([(h,) for h in block.header],
                      [((name,), (Code(text),), (value,)) for name, _, _, text, value in block.rows])
    raise TypeError(f"no HTML for {type(block).__name__}")


def html_blocks(blocks: Iterable[Block]) -> list[str]:
    """The lines of ``blocks`` in an HTML page's body."""
    return [line for block in blocks for line in _block(block)]


def html_document(doc: Document) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8"/>',
           f"<title>{escape(doc.title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
           f"<h1>{escape(doc.title)}</h1>"]
    if doc.method:
        out.append(f'<p class="subtitle">{escape(doc.method)}; {escape(doc.simplify)}. '
                   "Made by Manipulator Designer.</p>")
    if doc.description:
        out.append(f"<p>{escape(doc.description)}</p>")
    return "\n".join(out + html_blocks(doc.blocks) + ["</body>", "</html>"]) + "\n"


def render_html(eq: Equations, title: str | None = None) -> str:
    """A self-contained HTML page of the equations of ``eq``."""
    return html_document(equations_document(eq, title))
