"""Rendering a report's blocks (report/document.py) in a format: the one place that knows the three renderers, so
that they and the block model do not import each other."""

from __future__ import annotations

from collections.abc import Sequence

from .document import Block, Bullets, Document, Heading, Math, Para, _t

__all__ = ["elastic_section", "with_elastic_section", "with_section", "write"]


def write(doc: Document | Sequence[Block], fmt: str) -> str:
    """``doc`` in ``fmt`` (latex, markdown, html): a whole document, or blocks to add to one."""
    from .html_report import html_blocks, html_document
    from .latex_report import latex_blocks, latex_document
    from .markdown_report import markdown_blocks, markdown_document
    whole, part = {"latex": (latex_document, latex_blocks), "markdown": (markdown_document, markdown_blocks),
                   "html": (html_document, html_blocks)}[fmt]
    if isinstance(doc, Document):
        return whole(doc)
    return "\n".join(part(doc)) + "\n"


def with_section(text: str, fmt: str, key: str, section) -> str:
    """A rendered report ``text`` with a section added at its end: ``section`` the rendered blocks (:func:`write`),
    for JSON an object under ``key``."""
    if fmt == "json":
        import json
        doc = json.loads(text)
        doc[key] = section
        return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return text.rstrip("\n") + "\n\n" + section
    closing = "</body>" if fmt == "html" else r"\end{document}"
    at = text.rfind(closing)
    if at < 0:
        raise ValueError(f"{fmt} report without {closing}")
    return text[:at] + section + text[at:]


def elastic_section(model, fmt: str):
    """The elastic joints' coupling terms (dynamics/elastic.py) as a section: rendered in ``fmt``, for JSON an
    object. ValueError for an arm without a drive stiffness."""
    import math
    from ..dynamics.elastic import elastic_terms
    t = elastic_terms(model)
    note = ("elastic joints (reduced model, docs/elastic.md): tau_i is the derivation's joint torque "
            "tau(q, qd, qdd); theta_i the motor angle (motor side), taum_i the motor torque")
    if fmt == "json":
        return {"note": note, "joints": [i + 1 for i in t.joints], "spring": [str(s) for s in t.spring],
                "motor": [f"{m} = 0" for m in t.motor], "link": [f"{e.lhs} = {e.rhs}" for e in t.link],
                "values": t.values}
    import sympy as sp
    values = ", ".join(f"{k} = {v:.6g}" if math.isfinite(v) else k for k, v in t.values.items())
    equations = [*t.link, *(sp.Eq(m, 0) for m in t.motor)]
    return write([Heading(2, _t("Elastic joints"), numbered=False), Para(_t(note + ".")),
                  Bullets(tuple(_t(Math(e)) for e in equations)), Para(_t(values))], fmt)


def with_elastic_section(text: str, model, fmt: str) -> str:
    """A rendered report with the elastic section added (JSON: an ``elastic`` key)."""
    return with_section(text, fmt, "elastic", elastic_section(model, fmt))
