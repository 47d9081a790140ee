"""A copy of an XML text with every number of its attribute values rounded to a few significant
digits (0.707105 -> 0.707, 1.570796327 -> 1.57, -2.59734e-06 -> -2.6e-06), as a hand-edited or
exported vendor file may write them. Names, versions, integers, element text and comments are left alone.
A project file's numbers likewise (:func:`significant_numbers`), and a random planar closed chain so written
(:func:`rounded_planar_loop`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

_NUMBER = re.compile(r"(?<![\w.])-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_ATTRIBUTE = re.compile(r'([\w:]+)="([^"]*)"')
_KEPT = {"version", "name"}   # a robot's version="1.0" is a format, not a quantity


def significant(text: str, digits: int) -> str:
    def number(m: re.Match) -> str:
        if m.group(0).lstrip("-").isdigit():   # an integer: a count or a flag (iterations="20"), kept
            return m.group(0)
        x = float(m.group(0))
        return m.group(0) if x == 0 else f"{x:.{digits}g}"

    head, rest = re.match(r"(\s*<\?xml[^>]*\?>)?(.*)", text, re.S).groups()   # the declaration's version stays

    def attribute(a: re.Match) -> str:
        return a.group(0) if a.group(1) in _KEPT else f'{a.group(1)}="{_NUMBER.sub(number, a.group(2))}"'

    return (head or "") + _ATTRIBUTE.sub(attribute, rest)


def rounded_files(text: str, digits: int, exact: Callable[[str], str], folder: Path,
                  suffix: str) -> tuple[Path, Path, Path]:
    """A vendor file's text rounded to ``digits`` significant digits, written in ``folder`` as the three files a
    rounded-file test reads: (the rounded file, the reference's reading of it: ``exact`` of the rounded text, the
    reference's reading of the original: ``exact`` of ``text``)."""
    rounded, exact_rounded, original = (folder / f"{name}{suffix}" for name in ("rounded", "exact", "original"))
    rounded.write_text(significant(text, digits))
    exact_rounded.write_text(exact(rounded.read_text()))
    original.write_text(exact(text))
    return rounded, exact_rounded, original


def significant_numbers(node, digits: int, kept: Callable[[str], bool] = lambda key: False):
    """A project file's JSON (as json.loads gives it) with every fractional number rounded to ``digits`` significant
    digits, as :func:`significant` does an XML file's; the values of the keys ``kept`` says are left alone (whole
    subtrees). Integers (link numbers, versions) and texts (expressions, names) stay."""
    if isinstance(node, dict):
        return {k: v if kept(k) else significant_numbers(v, digits, kept) for k, v in node.items()}
    if isinstance(node, list):
        return [significant_numbers(v, digits, kept) for v in node]
    if isinstance(node, float) and node != 0 and node != round(node):
        return float(f"{node:.{digits}g}")
    return node


def _out_of_plane(key: str) -> bool:
    """The numbers a planar loop's plane depends on (lengths and twists along and about the joints' parallel axes,
    the cut frames' height and tilt): left exact, so the rounded design is still planar."""
    return key in ("d", "b", "alpha", "frame_i", "frame_j")


def rounded_planar_loop(folder: Path, seed: int, cut: str, digits: int):
    """(the random planar project of ``seed`` with a ``cut`` loop, rounded to ``digits`` (the loop frames' in-plane
    position and angle too), and the path of its rounded file)."""
    import json

    import numpy as np

    from designer.model import Convention
    from designer.project import load_project, save_project
    from tests.support.random_models import Shapes, random_project
    rng = np.random.default_rng(seed)
    model = random_project(rng, Shapes(loops=(cut,), planar=True, convention=list(Convention)[seed % 2],
                                       frames=seed % 4 < 2))
    save_project(model, folder / "exact.json")
    doc = json.loads((folder / "exact.json").read_text())
    rounded = significant_numbers(doc, digits, _out_of_plane)
    for loop in rounded["loops"]:   # in the plane: the cut frames' x, y and their angle about z
        for frame in ("frame_i", "frame_j"):
            xyz, rpy = loop[frame]["xyz"], loop[frame]["rpy"]
            loop[frame] = {"xyz": significant_numbers(xyz[:2], digits) + xyz[2:],
                           "rpy": rpy[:2] + significant_numbers(rpy[2:], digits)}
    assert rounded != doc
    path = folder / "rounded.json"
    path.write_text(json.dumps(rounded))
    return load_project(path), path
