"""Links as parts: a section of a material along the link, from which mass, COM and inertia follow.

A designer thinks in tubes, wall thicknesses and materials, not in inertia tensors. A :class:`Part`
keeps the numbers it comes from (outer diameter, wall, material), each a number or an expression in
the project's parameters, so a sweep over a tube diameter changes mass, centre of mass and inertia
consistently. :func:`part_body` turns it into the link's rigid body; :func:`section_properties`
gives the cross-section's area, second moments and torsion constant that the beam compliance of
``numeric/beams.py`` uses.

The part is a prism of uniform section along a straight segment in the link's frame. By default the
segment is the link's own DH segment (``segment_from_dh``): in the standard convention from the
previous frame's origin to this frame's origin, in the modified one from this frame's origin to the
next joint's (in a tree: the joint of the first link mounted on it, else the tool or a loop's cut
joint, ``_modified_end``); a prismatic joint's segment is taken at q = 0. ``start``/``end`` override it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import sympy as sp

from ..errors import DesignerError
from .beam import Beam, section_axes_at
from .evaluate import real_value, value_of
from .expr import to_expr
from .manipulator import Convention, Inertia, Manipulator
from .mechanism import model_tool_link, parents_of

__all__ = ["PartError", "Material", "MATERIALS", "SHAPES", "Part", "SectionProperties", "section_properties",
           "wall_problem", "segment_from_dh", "part_segment", "part_body", "parts_of", "section_axes",
           "section_axes_at", "Beam", "link_beams", "material_table"]


class PartError(DesignerError):
    """A part that gives no body (a segment of zero length)."""


@dataclass(frozen=True)
class Material:
    """Density (kg/m^3), Young's modulus E and shear modulus G (Pa)."""

    name: str
    density: float
    young: float
    shear: float

    def as_dict(self) -> dict[str, float]:
        return {"density": self.density, "young": self.young, "shear": self.shear}


# Typical handbook values (room temperature). CFRP is a filament-wound tube with a 0/+-45 layup:
# quasi-isotropic in bending, its shear modulus well above a unidirectional laminate's 5 GPa.
MATERIALS: dict[str, Material] = {m.name: m for m in (
    Material("steel", 7850.0, 210e9, 81e9),
    Material("stainless steel", 8000.0, 193e9, 77e9),
    Material("aluminium 6061-T6", 2700.0, 68.9e9, 26e9),
    Material("aluminium 7075-T6", 2810.0, 71.7e9, 26.9e9),
    Material("cast aluminium", 2680.0, 71e9, 26.5e9),
    Material("cast iron", 7200.0, 110e9, 45e9),
    Material("CFRP", 1600.0, 110e9, 20e9),
    Material("titanium Ti-6Al-4V", 4430.0, 113.8e9, 44e9),
)}

#: shape -> the dimensions it needs (metres)
SHAPES: dict[str, tuple[str, ...]] = {
    "tube": ("outer_diameter", "wall"),
    "box_section": ("width", "height", "wall"),
    "cylinder": ("diameter",),
    "box": ("width", "height"),
}


@dataclass(frozen=True)
class Part:
    """A prism of ``shape`` and ``material`` along a segment of the link.

    ``dims`` maps each of ``SHAPES[shape]`` to an expression. ``start``/``end`` (link frame) fix the
    segment; ``None`` takes it from the DH numbers. For a box or box section ``width`` is measured
    along the section's first axis (see :func:`section_axes`), ``height`` along the second.
    """

    shape: str
    material: Material
    dims: tuple[tuple[str, sp.Expr], ...]
    start: tuple[sp.Expr, sp.Expr, sp.Expr] | None = None
    end: tuple[sp.Expr, sp.Expr, sp.Expr] | None = None

    def __post_init__(self):
        if self.shape not in SHAPES:
            raise ValueError(f"unknown shape {self.shape!r} (use {', '.join(SHAPES)})")
        dims = dict(self.dims.items() if isinstance(self.dims, Mapping) else self.dims)
        missing = [k for k in SHAPES[self.shape] if k not in dims]
        if missing:
            raise ValueError(f"a {self.shape} needs {', '.join(missing)}")
        object.__setattr__(self, "dims", tuple((k, to_expr(dims[k])) for k in SHAPES[self.shape]))
        for name in ("start", "end"):
            v = getattr(self, name)
            if v is not None:
                object.__setattr__(self, name, tuple(to_expr(c) for c in v))

    def dim(self, name: str) -> sp.Expr:
        return dict(self.dims)[name]

    def expressions(self):
        yield from (e for _, e in self.dims)
        for v in (self.start, self.end):
            if v is not None:
                yield from v

    def body(self, model: Manipulator, index: int):
        """(mass, COM, inertia) this part makes on link ``index`` of ``model`` (:func:`part_body`)."""
        return part_body(model, index, self)

    def map(self, fn: Callable[[sp.Expr], sp.Expr]) -> Part:
        return replace(self, dims=tuple((k, fn(e)) for k, e in self.dims),
                       start=None if self.start is None else tuple(fn(c) for c in self.start),
                       end=None if self.end is None else tuple(fn(c) for c in self.end))


def wall_problem(part: Part, values: Mapping[str, float]) -> str | None:
    """What is wrong with a hollow section's wall at the parameters' ``values``, or None: it must be
    less than half the outer diameter (or the width and the height). Names without a value pass."""
    if "wall" not in dict(part.dims):
        return None

    def at(expr) -> float | None:
        try:
            return real_value(expr, values)
        except (ValueError, TypeError, KeyError, ArithmeticError):
            return None
    wall = at(part.dim("wall"))
    across = [v for k, _ in part.dims if k != "wall" and (v := at(part.dim(k))) is not None]
    if wall is None or not across or 2 * wall < min(across):
        return None
    named = any(e.free_symbols for _, e in part.dims)
    return ("must be less than half the " + ("outer diameter" if part.shape == "tube" else "width and the height")
            + (" (at the parameters' values)" if named else ""))


@dataclass(frozen=True)
class SectionProperties:
    """Area A, second moments I1 (bending about the section's first axis), I2 (about the second)
    and the torsion constant J (m^2, m^4); numbers or expressions."""

    area: sp.Expr
    i1: sp.Expr
    i2: sp.Expr
    torsion: sp.Expr
    polar: sp.Expr = field(default=sp.Integer(0))   # I1 + I2, the mass inertia's axial factor


def _rect_torsion(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """Torsion constant of a solid a x b rectangle (a >= b), Roark's series approximation, within 4 %."""
    return a * b**3 * (sp.Rational(1, 3) - sp.Float(0.21) * b / a * (1 - b**4 / (12 * a**4)))


def section_properties(part: Part) -> SectionProperties:
    """The cross-section's A, I1, I2 and J; thin-walled closed sections use Bredt's formula for J."""
    d = part.dim
    if part.shape == "tube":
        R = d("outer_diameter") / 2
        r = R - d("wall")
        area = sp.pi * (R**2 - r**2)
        i = sp.pi * (R**4 - r**4) / 4
        return SectionProperties(area, i, i, 2 * i, 2 * i)
    if part.shape == "cylinder":
        R = d("diameter") / 2
        i = sp.pi * R**4 / 4
        return SectionProperties(sp.pi * R**2, i, i, 2 * i, 2 * i)
    b, h = d("width"), d("height")
    if part.shape == "box":
        i1, i2 = b * h**3 / 12, h * b**3 / 12
        a_, b_ = (b, h) if _ge(b, h) else (h, b)
        return SectionProperties(b * h, i1, i2, _rect_torsion(a_, b_), i1 + i2)
    t = d("wall")
    bi, hi = b - 2 * t, h - 2 * t
    i1 = (b * h**3 - bi * hi**3) / 12
    i2 = (h * b**3 - hi * bi**3) / 12
    # Bredt: J = 4 A_m^2 t / perimeter of the wall's mid-line
    torsion = 4 * ((b - t) * (h - t))**2 * t / (2 * ((b - t) + (h - t)))
    return SectionProperties(b * h - bi * hi, i1, i2, torsion, i1 + i2)


def _ge(a: sp.Expr, b: sp.Expr) -> bool:
    diff = sp.sympify(a - b)
    return bool(diff >= 0) if diff.is_number else True


def _modified_end(model: Manipulator, index: int) -> sp.Matrix:
    """Where link ``index``'s body ends in its own frame (modified convention): the joint of the link
    mounted on it (in a tree the first such link in the file: the chain a branch leaves), else the
    tool on the arm's end (the deepest leaf of a tree, as the closed-chain metrics place it), else the
    cut joint a loop has on it (a parallelogram's coupler bar), else its origin."""
    parents = parents_of(model.links)
    child = next((k for k in range(index + 1, model.n) if parents[k] == index + 1), None)
    if child is not None:
        nxt = model.links[child]
        # the child's joint is Rz(gamma) Tz(b) Rx(alpha) Tx(a) Tz(d) from this frame (Khalil-Kleinfinger)
        local = sp.Matrix([nxt.a, -sp.sin(nxt.alpha) * nxt.d, sp.cos(nxt.alpha) * nxt.d + nxt.b])
        c, s = sp.cos(nxt.gamma), sp.sin(nxt.gamma)
        return sp.Matrix([c * local[0] - s * local[1], s * local[0] + c * local[1], local[2]])
    if model.tool is not None and index == model_tool_link(model):   # a serial arm's: its last link
        return sp.Matrix(model.tool.xyz)
    for loop in model.loops:
        if index + 1 in (loop.link_i, loop.link_j):
            frame = loop.frame_i if loop.link_i == index + 1 else loop.frame_j
            return sp.Matrix(frame.xyz)
    return sp.zeros(3, 1)


def segment_from_dh(model: Manipulator, index: int) -> tuple[sp.Matrix, sp.Matrix]:
    """The DH segment of link ``index`` (0-based) in its own frame: (start, end) column vectors."""
    link = model.links[index]
    if model.convention is Convention.STANDARD:
        # the previous frame's origin seen from frame i: -(a, d sin alpha, d cos alpha); in a tree
        # the joint's own point (the parent's frame after Rz(gamma) Tz(b)), where the link's body starts
        d = link.d
        start = -sp.Matrix([link.a, d * sp.sin(link.alpha), d * sp.cos(link.alpha)])
        return start, sp.zeros(3, 1)
    return sp.zeros(3, 1), _modified_end(model, index)


def part_segment(model: Manipulator, index: int, part: Part) -> tuple[sp.Matrix, sp.Matrix]:
    start, end = segment_from_dh(model, index)
    if part.start is not None:
        start = sp.Matrix(part.start)
    if part.end is not None:
        end = sp.Matrix(part.end)
    return start, end


def _length(r: sp.Matrix, values: Mapping[str, float] | None = None) -> sp.Expr:
    """|r|. A segment along one axis whose coordinate is an expression (``-a2``) has the length
    that expression or its negative, chosen by the sign it has at the parameters' default values,
    so that mass and inertia stay polynomials in the lengths instead of carrying Abs()."""
    nonzero = [c for c in r if c != 0]
    if len(nonzero) == 1:
        c = nonzero[0]
        if c.is_number:
            return sp.Abs(c)
        if values is not None:
            subs = {s: values[s.name] for s in c.free_symbols if s.name in values}
            if len(subs) == len(c.free_symbols):
                v = float(c.xreplace(subs))
                if v != 0:
                    return c if v > 0 else -c
        return sp.Abs(c)
    return sp.sqrt(sum((c**2 for c in r), sp.Integer(0)))


def section_axes(r: sp.Matrix, length: sp.Expr | None = None) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix]:
    """Unit axis u along ``r`` and the section's axes e1, e2 (e1 x e2 = u).

    e1 is the link frame's z (the next joint's axis in the standard convention) made perpendicular
    to u, or x when u lies along z: a box section's ``width`` runs along the joint axis.
    """
    u = r / (_length(r) if length is None else length)
    z = sp.Matrix([0, 0, 1])
    # is_zero, not == 0: the beams' segments arrive as Floats, and SymPy (1.13 on) has Float(0.0) != 0, which
    # made e1 the zero vector (no bending compliance) for a part along the link's z axis (a standard link of d only)
    if all(sp.sympify(c).is_zero for c in (r[0], r[1])):
        e1 = sp.Matrix([1, 0, 0])
    else:
        e1 = z - u * u[2]
        e1 = e1 / _length(e1)
    e2 = u.cross(e1)
    return u, e1, e2


def part_body(model: Manipulator, index: int, part: Part):
    """(mass, COM, inertia about the COM) of ``part`` on link ``index``, in the link's frame."""
    start, end = part_segment(model, index, part)
    r = end - start
    length = _length(r, model.parameter_values)
    if length == 0:
        raise PartError(f"links[{index + 1}].part: the link's DH segment has zero length here "
                        "(give the part's start and end in the link frame)")
    sec = section_properties(part)
    rho = sp.Float(part.material.density)
    mass = rho * sec.area * length
    u, e1, e2 = section_axes(r, length)
    # mass inertia of a uniform prism about its centre: rho L I_area about each transverse axis plus
    # m L^2 / 12, rho L (I1 + I2) about the axis
    i_e1 = rho * length * sec.i1 + mass * length**2 / 12
    i_e2 = rho * length * sec.i2 + mass * length**2 / 12
    i_u = rho * length * sec.polar
    tensor = i_u * u * u.T + i_e1 * e1 * e1.T + i_e2 * e2 * e2.T
    com = (start + end) / 2
    return (sp.expand(mass), tuple(sp.expand(c) for c in com),
            Inertia.from_matrix(tensor.applyfunc(sp.expand)))


def parts_of(model: Manipulator) -> list[tuple[int, Part]]:
    """(index, part) of every part-made link. ``Link.part`` is typed by the protocol the model needs
    (``manipulator.LinkPart``, so that the model does not import this module); this is the one place
    that says every such part is a :class:`Part`."""
    out = []
    for i, link in enumerate(model.links):
        if link.part is not None:
            if not isinstance(link.part, Part):
                raise TypeError(f"link {i + 1}: a part must be a designer.model.parts.Part")
            out.append((i, link.part))
    return out


def material_table(model: Manipulator) -> dict[str, Material]:
    """The built-in materials and those the model's parts use (a project's own, or a redefinition)."""
    table = dict(MATERIALS)
    for _, part in parts_of(model):
        table[part.material.name] = part.material
    return table


def link_beams(model: Manipulator, overrides: Mapping[str, float] | None = None) -> tuple[Beam, ...]:
    """The beams of the model's part-made links at the parameters' values (overridden)."""
    f = value_of(model, overrides)
    beams = []
    for i, part in parts_of(model):
        start, end = part_segment(model, i, part)
        s, e = np.array([f(c) for c in start], float), np.array([f(c) for c in end], float)
        axes = section_axes_at(e - s)
        sec = section_properties(part)
        E, G, rho = part.material.young, part.material.shear, part.material.density
        area = f(sec.area)
        if part.shape in ("tube", "cylinder"):
            d = f(part.dim("outer_diameter" if part.shape == "tube" else "diameter"))
            size = (d, d)
        else:
            size = (f(part.dim("width")), f(part.dim("height")))
        beams.append(Beam(i, s, e, axes, E * area, G * f(sec.torsion), E * f(sec.i1), E * f(sec.i2),
                          rho * area, part.shape in ("tube", "cylinder"), size))
    return tuple(beams)
