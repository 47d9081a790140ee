"""The equations as one self-contained HTML page, rendered offline by any current browser.

Mathematics is presentation MathML (browsers render it natively; no script,
no font or style sheet from the network). The page is also well-formed XML:
every element is closed and only numeric character references are used.
"""

from __future__ import annotations

from html import escape

from ..dynamics.results import Equations
from ..model.expr import symbol
from ..model.manipulator import Convention
from ..dynamics.closed_nonlinear import NUMERIC_CLOSURE
from .loop_section import LOOP_INTRO, loop_items
from .document import METHOD_TITLE, SIMPLIFY_TEXT, form_text, sections
from .entries import Entry
from .layout import DEFAULT_WIDTH, break_lines, render_lines
from .printing import to_mathml
from .tables import dh_rows, inertia_cells, mass_rows, parameter_rows

__all__ = ["render_html", "entry_mathml_lines", "label_mathml"]

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
"""

_BASES = {"tau": ("<mi>&#x3c4;</mi>", ""), "D_rot": ("<mi>D</mi>", "rot"), "D_tra": ("<mi>D</mi>", "tra"),
          "H_rot": ("<mi>H</mi>", "rot"), "H_tra": ("<mi>H</mi>", "tra")}


def _math(content: str, cls: str = "") -> str:
    # Inline math in block containers: block math is centred, and CSS display: block
    # on a math element would switch its math layout off.
    attr = f' class="{cls}"' if cls else ""
    return f"<math{attr}>{content}</math>"


def label_mathml(entry: Entry) -> str:
    """MathML of an entry's label, e.g. M with subscript 11."""
    base, sup = _BASES.get(entry.matrix, (f"<mi>{escape(entry.matrix)}</mi>", ""))
    sub = escape(entry.label[len(entry.matrix) + 1:])
    if sup:
        return f"<msubsup>{base}<mtext>{sub}</mtext><mtext>{sup}</mtext></msubsup>"
    return f"<msub>{base}<mtext>{sub}</mtext></msub>"


def entry_mathml_lines(expr, width: int = DEFAULT_WIDTH) -> list[str]:
    """MathML contents of an entry, one per line; continuation lines begin with their sign."""
    return render_lines(break_lines(expr, width), to_mathml, plus="<mo>+</mo>", minus="<mo>&#x2212;</mo>",
                        lead_minus="<mo>&#x2212;</mo>", open_='<mo stretchy="false">(</mo>',
                        close='<mo stretchy="false">)</mo>', times="<mo>&#x2062;</mo>")


def _m(expr) -> str:
    return _math(to_mathml(expr))


def _vector(items) -> str:
    return _math("<mo>(</mo>" + "<mo>,</mo>".join(to_mathml(c) for c in items) + "<mo>)</mo>")


def _table(header: list[str], rows: list[list[str]], cls: str = "") -> list[str]:
    attr = f' class="{cls}"' if cls else ""
    out = [f"<table{attr}>", "<tr>" + "".join(f"<th>{h}</th>" for h in header) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows]
    return out + ["</table>"]


def _inertia(entries) -> str:
    kind, cells = inertia_cells(entries)
    if kind == "zero":
        return "0"
    if kind == "diag":
        return "diag " + _vector(cells)
    xx, yy, zz, xy, xz, yz = (to_mathml(c) for c in cells)
    rows = [(xx, xy, xz), (xy, yy, yz), (xz, yz, zz)]
    body = "".join("<mtr>" + "".join(f"<mtd>{c}</mtd>" for c in r) + "</mtr>" for r in rows)
    return _math(f"<mrow><mo>(</mo><mtable>{body}</mtable><mo>)</mo></mrow>")


def _arm(eq: Equations) -> list[str]:
    model = eq.model
    modified = model.convention is Convention.MODIFIED
    conv = ("modified (Craig): frame <i>i</i> at joint <i>i</i>; row <i>i</i> holds a<sub>i&#x2212;1</sub> and "
            "&#x3b1;<sub>i&#x2212;1</sub>" if modified else
            "standard: frame <i>i</i> at the distal end of link <i>i</i>")
    a, alpha = (("a<sub>i&#x2212;1</sub>", "&#x3b1;<sub>i&#x2212;1</sub>") if modified
                else ("a<sub>i</sub>", "&#x3b1;<sub>i</sub>"))
    out = ["<h2>The arm</h2>", f"<p>{model.n} links, Denavit-Hartenberg convention {conv}.</p>",
           "<h3>Denavit-Hartenberg parameters</h3>"]
    out += _table(["<i>i</i>", "link", "joint", a, alpha, "d<sub>i</sub>", "&#x3b8;<sub>i</sub>"],
                  [[str(r.index), escape(r.name), "revolute" if r.joint == "R" else "prismatic",
                    _m(r.a), _m(r.alpha), _m(r.d), _m(r.theta)] for r in dh_rows(model)], "dh")
    out += ["<h3>Masses</h3>", "<p>Centre of mass and inertia about it, in the axes of link frame <i>i</i>.</p>"]
    out += _table(["<i>i</i>", "mass", "centre of mass", "inertia"],
                  [[str(r.index), _m(r.mass), _vector(r.com), _inertia(r.inertia)] for r in mass_rows(model)])
    if model.point_masses:
        out += ["<h3>Point masses</h3>", "<ul>"]
        out += [f"<li>{_m(p.mass)} on link {p.link} at {_vector(p.position)}</li>" for p in model.point_masses]
        out.append("</ul>")
    out += ["<h3>Gravity</h3>",
            f"<p>Gravitational acceleration in the base frame: {_vector(model.gravity_frame0)}</p>"]
    params = parameter_rows(model)
    if params:
        out += ["<h3>Parameters</h3>"]
        out += _table(["symbol", "name", "default value"],
                      [[_m(symbol(name)), f"<code>{escape(name)}</code>",
                        f"{value:g}" if value is not None else "symbolic"] for name, value in params])
    return out


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


def _loops(eq: Equations) -> list[str]:
    items = loop_items(eq)
    if not items:
        return []
    out = ["<h2>Loop quantities</h2>", f"<p>{escape(LOOP_INTRO)}</p>", '<table class="entries">']
    for sym, value, kind in items:
        lines = [f"<mtext>{escape(NUMERIC_CLOSURE)}</mtext>"] if value is None else entry_mathml_lines(value)
        out.append(f"<tr><td>{_math(to_mathml(sym) + '<mo>=</mo>' + lines[0])}"
                   + "".join(f"<br/>{_math(line)}" for line in lines[1:]) + f"</td><td>{escape(kind)}</td></tr>")
    return out + ["</table>"]


def render_html(eq: Equations, title: str | None = None) -> str:
    """A self-contained HTML page of the equations of ``eq``."""
    model = eq.model
    title = title or f"Equations of motion: {model.name or 'unnamed arm'}"
    secs = sections(eq)
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8"/>',
           f"<title>{escape(title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
           f"<h1>{escape(title)}</h1>",
           f'<p class="subtitle">{escape(METHOD_TITLE.get(eq.method, eq.method.value))}; '
           f"{escape(SIMPLIFY_TEXT.get(eq.simplify.value, eq.simplify.value))}. Made by Manipulator Designer.</p>"]
    if model.description:
        out.append(f"<p>{escape(model.description)}</p>")
    out += _arm(eq)
    out += _loops(eq)
    out += ["<h2>Equations of motion</h2>", f"<p>{escape(form_text(eq))}</p>",
            "<p>Joint positions q<sub>i</sub>, velocities q&#x307;<sub>i</sub>, "
            "accelerations q&#x308;<sub>i</sub>. Operations: <code>sympy.count_ops</code> of each entry, "
            "before common-subexpression elimination. Numbers are shown to 6 significant digits (the JSON "
            "export keeps full precision).</p>"]
    out += _table(["matrix", "size", "non-zero entries", "operations"],
                  [[escape(s.name), f"{s.shape[0]} &#xd7; {s.shape[1]}", str(len(s.shown) + len(s.mirrors)),
                    str(s.ops)] for s in secs])
    for sec in secs:
        out.append(f'<h3 id="matrix-{escape(sec.name)}">{escape(sec.name)}: {escape(sec.info.description)}</h3>')
        if sec.shown:
            out.append('<table class="entries">')
            out += [_entry_row(e) for e in sec.shown]
            out.append("</table>")
        if sec.mirrors:
            out.append('<p class="compact">By symmetry: ' + ", ".join(
                _math(label_mathml(e) + "<mo>=</mo>" + label_mathml(p)) for e, p in sec.mirrors) + ".</p>")
        if sec.zeros:
            out.append('<p class="compact">' + ("Zero: " + ", ".join(_math(label_mathml(e)) for e in sec.zeros)
                                                if sec.shown or sec.mirrors else "All entries are zero") + ".</p>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
