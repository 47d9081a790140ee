"""Frozen value objects describing a serial manipulator.

Every quantity is a sympy expression (a number is just a constant expression),
so the same model serves symbolic derivations and numeric work. Models are
immutable: an edit makes a new model (``dataclasses.replace`` or the ``with_*``
helpers), which is what the GUI's undo stack swaps.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from collections.abc import Iterable, Mapping
from typing import Protocol

import sympy as sp

from ..errors import DesignerError
from .expr import symbol, to_expr
from .extras import Drive, Pose
from .kinds import Convention, JointType
from .mechanism import Loop, is_serial
from .requirements import Requirements
from .visual import Visual

__all__ = [
    "Convention",
    "Drive",
    "Inertia",
    "JointType",
    "Link",
    "Loop",
    "Manipulator",
    "PointMass",
    "Pose",
    "joint_symbols",
    "MissingParameterError",
]

ZERO = sp.Integer(0)


class MissingParameterError(DesignerError):
    """Numeric work needs values for symbols that have none."""

    def __init__(self, names: Iterable[str]):
        self.names = sorted(set(names))
        super().__init__("no value for parameter(s): " + ", ".join(self.names))


def _expr(value) -> sp.Expr:
    return to_expr(value)


def _vec3(values) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    items = tuple(_expr(v) for v in values)
    if len(items) != 3:
        raise ValueError("expected three components")
    return items


@dataclass(frozen=True)
class Inertia:
    """Inertia tensor about the centre of mass, axes parallel to the link frame.

    Off-diagonal entries are the tensor entries (minus the product integrals),
    as in URDF and in project files.
    """

    xx: sp.Expr = ZERO
    yy: sp.Expr = ZERO
    zz: sp.Expr = ZERO
    xy: sp.Expr = ZERO
    xz: sp.Expr = ZERO
    yz: sp.Expr = ZERO

    def __post_init__(self):
        for name in ("xx", "yy", "zz", "xy", "xz", "yz"):
            object.__setattr__(self, name, _expr(getattr(self, name)))

    @classmethod
    def from_matrix(cls, m) -> Inertia:
        """From a symmetric 3x3 (nested sequence or sympy Matrix); symmetry is not checked here."""
        return cls(m[0][0], m[1][1], m[2][2], m[0][1], m[0][2], m[1][2]) if not isinstance(m, sp.MatrixBase) \
            else cls(m[0, 0], m[1, 1], m[2, 2], m[0, 1], m[0, 2], m[1, 2])

    @classmethod
    def diagonal(cls, xx, yy, zz) -> Inertia:
        return cls(xx, yy, zz)

    def matrix(self) -> sp.Matrix:
        return sp.Matrix([[self.xx, self.xy, self.xz], [self.xy, self.yy, self.yz], [self.xz, self.yz, self.zz]])

    def entries(self) -> tuple[sp.Expr, ...]:
        """(xx, yy, zz, xy, xz, yz)."""
        return (self.xx, self.yy, self.zz, self.xy, self.xz, self.yz)

    @property
    def is_zero(self) -> bool:
        return all(e == 0 for e in self.entries())

    def __add__(self, other: Inertia) -> Inertia:
        return Inertia(*(a + b for a, b in zip(self.entries(), other.entries())))


class LinkPart(Protocol):
    """What a link made as a part (``model/parts.py`` ``Part``) offers the model: the body it makes on
    link ``index`` of ``model`` (mass, COM, inertia about the COM in the link frame), the expressions
    it uses, and a copy with ``fn`` applied to them."""

    def body(self, model: Manipulator, index: int) -> tuple[sp.Expr, tuple[sp.Expr, sp.Expr, sp.Expr], Inertia]: ...

    def expressions(self) -> Iterable[sp.Expr]: ...

    def map(self, fn) -> LinkPart: ...


@dataclass(frozen=True)
class Link:
    """One link with the joint that moves it (base outwards).

    For a revolute joint ``theta`` is the offset added to the joint variable;
    for a prismatic joint ``d`` is. In the modified convention ``a`` and
    ``alpha`` are a_{i-1} and alpha_{i-1} (row i of Craig's table).
    """

    joint: JointType = JointType.REVOLUTE
    a: sp.Expr = ZERO
    alpha: sp.Expr = ZERO
    d: sp.Expr = ZERO
    theta: sp.Expr = ZERO
    mass: sp.Expr = ZERO
    com: tuple[sp.Expr, sp.Expr, sp.Expr] = (ZERO, ZERO, ZERO)
    inertia: Inertia = field(default_factory=Inertia)
    name: str = ""
    limits: tuple[sp.Expr, sp.Expr] | None = None
    joint_name: str = ""
    drive: Drive | None = None
    visuals: tuple[Visual, ...] = ()   # meshes drawn for this link (model/visual.py); display only
    # closed chains (format version 3, model/mechanism.py): the link it is mounted on (1-based,
    # 0 the base, None the link before), whether its joint is driven, and Khalil-Kleinfinger's
    # branching parameters: Rz(gamma) Tz(b) in the parent's frame before the DH transform
    parent: int | None = None
    actuated: bool = True
    gamma: sp.Expr = ZERO
    b: sp.Expr = ZERO
    part: LinkPart | None = None   # a section of a material: mass, com and inertia follow (model/parts.py)

    def __post_init__(self):
        object.__setattr__(self, "joint", JointType(self.joint))
        object.__setattr__(self, "visuals", tuple(self.visuals))
        object.__setattr__(self, "actuated", bool(self.actuated))
        if self.parent is not None:
            object.__setattr__(self, "parent", int(self.parent))
        for name in ("gamma", "b"):
            object.__setattr__(self, name, _expr(getattr(self, name)))
        if self.drive is not None and self.drive.is_empty:
            object.__setattr__(self, "drive", None)
        for name in ("a", "alpha", "d", "theta", "mass"):
            object.__setattr__(self, name, _expr(getattr(self, name)))
        object.__setattr__(self, "com", _vec3(self.com))
        if not isinstance(self.inertia, Inertia):
            object.__setattr__(self, "inertia", Inertia.from_matrix(self.inertia))
        if self.limits is not None:
            lo, hi = self.limits
            object.__setattr__(self, "limits", (_expr(lo), _expr(hi)))

    @property
    def is_revolute(self) -> bool:
        return self.joint is JointType.REVOLUTE

    def joint_values(self, q: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
        """(theta_i, d_i) with the joint variable q added to the right one."""
        if self.is_revolute:
            return self.theta + q, self.d
        return self.theta, self.d + q

    def expressions(self) -> Iterable[sp.Expr]:
        yield from (self.a, self.alpha, self.d, self.theta, self.mass)
        yield from self.com
        yield from self.inertia.entries()
        if self.limits:
            yield from self.limits
        yield from (self.gamma, self.b)
        if self.part is not None:
            yield from self.part.expressions()
        if self.drive is not None:   # a named gearbox stiffness or damping
            yield from self.drive.expressions()


@dataclass(frozen=True)
class PointMass:
    """A load rigidly attached to link ``link`` (1-based) at ``position`` in that link's frame."""

    link: int
    mass: sp.Expr
    position: tuple[sp.Expr, sp.Expr, sp.Expr] = (ZERO, ZERO, ZERO)

    def __post_init__(self):
        object.__setattr__(self, "mass", _expr(self.mass))
        object.__setattr__(self, "position", _vec3(self.position))


def joint_symbols(n: int) -> tuple[tuple[sp.Symbol, ...], tuple[sp.Symbol, ...], tuple[sp.Symbol, ...]]:
    """The symbols q1..qn, qd1..qdn, qdd1..qddn."""
    return (
        tuple(symbol(f"q{i}") for i in range(1, n + 1)),
        tuple(symbol(f"qd{i}") for i in range(1, n + 1)),
        tuple(symbol(f"qdd{i}") for i in range(1, n + 1)),
    )


@dataclass(frozen=True)
class Manipulator:
    """A serial arm: DH links base outwards, gravity, named parameters, point loads."""

    links: tuple[Link, ...]
    name: str = ""
    description: str = ""
    convention: Convention = Convention.STANDARD
    gravity: tuple[sp.Expr, sp.Expr, sp.Expr] = (ZERO, ZERO, -symbol("g"))
    parameters: tuple[tuple[str, float], ...] = ()
    point_masses: tuple[PointMass, ...] = ()
    base: Pose | None = None   # pose of DH frame 0 in the world; None: the world is frame 0
    tool: Pose | None = None   # tool (flange) frame in the last link's frame; None: frame n
    gravity_in_world: bool = False   # True: ``gravity`` is in the world, turned into frame 0 by the base rotation
    base_visuals: tuple[Visual, ...] = ()   # meshes fixed to DH frame 0 (the vendor's base); display only
    loops: tuple[Loop, ...] = ()     # closed chains (format version 3): cut joints closing loops of the tree
    # format version 4: what the design must meet (requirements, payload, cycle). Not part of the mechanism's
    # equality or hash: the equations, metrics and results computed for a model stay current when only its
    # requirements change (compare ``requirements`` itself where it matters: the document's edits, the review)
    requirements: Requirements = field(default=Requirements(), compare=False)

    def __post_init__(self):
        object.__setattr__(self, "links", tuple(self.links))
        object.__setattr__(self, "base_visuals", tuple(self.base_visuals))
        for name in ("base", "tool"):
            if getattr(self, name) is not None and getattr(self, name).is_identity:
                object.__setattr__(self, name, None)
        object.__setattr__(self, "convention", Convention(self.convention))
        object.__setattr__(self, "gravity", _vec3(self.gravity))
        object.__setattr__(self, "gravity_in_world", bool(self.gravity_in_world))
        params = self.parameters.items() if isinstance(self.parameters, Mapping) else self.parameters
        object.__setattr__(self, "parameters", tuple((str(k), float(v)) for k, v in params))
        object.__setattr__(self, "point_masses", tuple(self.point_masses))
        object.__setattr__(self, "loops", tuple(self.loops))
        if any(link.part is not None for link in self.links):
            # every construction (an edit of a DH number moves a part's segment, a parameter's value picks
            # its length's sign, a substitution maps its dimensions) recomputes what the parts make
            links = tuple(link if link.part is None else
                          replace(link, **dict(zip(("mass", "com", "inertia"), link.part.body(self, i))))
                          for i, link in enumerate(self.links))
            object.__setattr__(self, "links", links)

    @property
    def is_serial(self) -> bool:
        """A plain serial arm (no branch, no loop, every joint actuated): what the serial engines take."""
        return is_serial(self)

    @property
    def gravity_frame0(self) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
        """Gravity in frame 0, the vector the dynamics use.

        ``gravity`` itself unless it is given in the world and the arm has a base pose: then
        R_base^T gravity, exact when the base angles are (``pi/2``, not 1.5707963267948966).
        """
        if not self.gravity_in_world or self.base is None:
            return self.gravity
        R = self.base.sym_matrix()[:3, :3]
        # 0 and +-1 stay exact; sqrt(2)/2 and the like become floats, which the derivations take
        R = R.applyfunc(lambda e: e if e.is_Rational or not e.is_number else sp.Float(e.evalf(17)))
        return tuple(sp.expand(sum((R[r, c] * self.gravity[r] for r in range(3)), sp.Integer(0)))
                     for c in range(3))

    # -- sizes and symbols -------------------------------------------------
    @property
    def n(self) -> int:
        """Degrees of freedom (number of links)."""
        return len(self.links)

    @property
    def q(self) -> tuple[sp.Symbol, ...]:
        return joint_symbols(self.n)[0]

    @property
    def qd(self) -> tuple[sp.Symbol, ...]:
        return joint_symbols(self.n)[1]

    @property
    def qdd(self) -> tuple[sp.Symbol, ...]:
        return joint_symbols(self.n)[2]

    @property
    def parameter_values(self) -> dict[str, float]:
        return dict(self.parameters)

    def expressions(self) -> Iterable[sp.Expr]:
        for link in self.links:
            yield from link.expressions()
        yield from self.gravity
        for pm in self.point_masses:
            yield pm.mass
            yield from pm.position
        for pose in (self.base, self.tool):
            if pose is not None:
                yield from pose.expressions()
        for loop in self.loops:
            yield from loop.expressions()

    def free_symbols(self) -> set[sp.Symbol]:
        """Every parameter symbol the model uses. Kept on the (immutable) model after the first call: a part-made
        link's inertia formulas made sympy's walk cost the window 0.2 to 0.9 s each time a panel asked when a
        project opened (the explore panel's drive values, the parameters table, the read-out)."""
        known = self.__dict__.get("_free_symbols")
        if known is None:
            known = frozenset().union(*(e.free_symbols for e in self.expressions()))
            object.__setattr__(self, "_free_symbols", known)   # a cache, not a field: eq, hash, replace ignore it
        return set(known)

    def symbol_names(self) -> list[str]:
        return sorted(s.name for s in self.free_symbols())

    def unvalued_symbols(self) -> list[str]:
        values = self.parameter_values
        return [name for name in self.symbol_names() if name not in values]

    def substitutions(self, overrides: Mapping[str, float] | None = None, *, require_all: bool = True) -> dict:
        """{Symbol: value} for every used symbol; raises MissingParameterError when one has no value."""
        values = dict(self.parameters)
        if overrides:
            values.update(overrides)
        used = self.free_symbols()
        missing = [s.name for s in used if s.name not in values]
        if missing and require_all:
            raise MissingParameterError(missing)
        return {s: sp.Float(values[s.name]) for s in used if s.name in values}

    def numeric(self, overrides: Mapping[str, float] | None = None) -> Manipulator:
        """The same arm with every symbol replaced by its (overridden) default value."""
        subs = self.substitutions(overrides)
        return self.map_expressions(lambda e: e.xreplace(subs) if e.free_symbols else e)

    def map_expressions(self, fn) -> Manipulator:
        """A copy with ``fn`` applied to every quantity."""
        def link_map(link: Link) -> Link:
            return replace(
                link,
                a=fn(link.a), alpha=fn(link.alpha), d=fn(link.d), theta=fn(link.theta), mass=fn(link.mass),
                com=tuple(fn(c) for c in link.com),
                inertia=Inertia(*(fn(e) for e in link.inertia.entries())),
                limits=None if link.limits is None else tuple(fn(v) for v in link.limits),
                gamma=fn(link.gamma), b=fn(link.b),
                part=None if link.part is None else link.part.map(fn),
                drive=None if link.drive is None else link.drive.map(fn),
            )
        return replace(
            self,
            links=tuple(link_map(l) for l in self.links),
            gravity=tuple(fn(g) for g in self.gravity),
            point_masses=tuple(replace(p, mass=fn(p.mass), position=tuple(fn(c) for c in p.position))
                               for p in self.point_masses),
            base=None if self.base is None else self.base.map(fn),
            tool=None if self.tool is None else self.tool.map(fn),
            loops=tuple(loop.map(fn) for loop in self.loops),
        )

    # -- edits (each returns a new model) ----------------------------------
    def with_link(self, index: int, link: Link) -> Manipulator:
        links = list(self.links)
        links[index] = link
        return replace(self, links=tuple(links))

    def with_parameter(self, name: str, value: float | None) -> Manipulator:
        values = dict(self.parameters)
        if value is None:
            values.pop(name, None)
        else:
            values[name] = float(value)
        return replace(self, parameters=tuple(values.items()))

    def with_parameters(self, values: Mapping[str, float]) -> Manipulator:
        merged = dict(self.parameters)
        merged.update({k: float(v) for k, v in values.items()})
        return replace(self, parameters=tuple(merged.items()))

    def point_masses_on(self, link_number: int) -> tuple[PointMass, ...]:
        """The loads on link ``link_number`` (1-based)."""
        return tuple(p for p in self.point_masses if p.link == link_number)
