"""Trees and closed loops (project format version 3, docs/project-format.md "Closed chains").

A serial arm is the plain case: every link is mounted on the link before it and every joint is
actuated. A mechanism generalises it in two steps:

- the links form a tree: ``Link.parent`` names the link a link is mounted on (0 the base,
  ``None`` the link before it, which keeps serial arms unchanged), and a branching frame may use
  Khalil and Kleinfinger's two extra parameters ``gamma`` and ``b`` (a rotation about and a shift
  along the parent's z axis before the link's DH transform, as OpenSYMORO writes them);
- loops are closed by cut joints: a :class:`Loop` names two links and where the cut joint sits
  on each (a frame in each link's own frame), and each joint of the tree is actuated or passive.

The passive joints' values follow from the actuated ones through the loop equations
(:mod:`designer.kinematics.closure`); the dynamics are projected onto the actuated joints
(:mod:`designer.numeric.closed`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .extras import Pose

__all__ = ["CutJoint", "Loop", "parents_of", "is_serial", "structure_lines", "actuated_indices",
           "structure_problems", "tool_link", "pinned_links", "model_tool_link",
           "uses_closed_chain_fields"]


class CutJoint(str, Enum):
    """The joint a loop is cut at; both frames' origins coincide.

    ``R`` (revolute): the two frames' z axes stay aligned (5 conditions); ``S`` (ball): origins
    only (3 conditions, a bar pinned by ball joints at both ends); ``F`` (fixed): the two frames
    coincide (6 conditions, the closure OpenSYMORO writes with a fixed frame).
    """

    REVOLUTE = "R"
    SPHERICAL = "S"
    FIXED = "F"


@dataclass(frozen=True)
class Loop:
    """A loop closed by a cut joint between link ``link_i`` and link ``link_j`` (1-based, 0 the base).

    ``frame_i`` is where the cut joint sits on link i, in link i's own frame (DH frame i); its z
    axis is the joint's axis for a revolute cut. ``frame_j`` likewise on link j.
    """

    link_i: int
    link_j: int
    frame_i: Pose = field(default_factory=Pose)
    frame_j: Pose = field(default_factory=Pose)
    joint: CutJoint = CutJoint.REVOLUTE
    name: str = ""

    def __post_init__(self):
        object.__setattr__(self, "joint", CutJoint(self.joint))
        object.__setattr__(self, "link_i", int(self.link_i))
        object.__setattr__(self, "link_j", int(self.link_j))

    def label(self, k: int) -> str:
        """How messages name the loop: its name, else its place in the file (1-based)."""
        return f"loops[{k}]" + (f" ({self.name})" if self.name else "")

    def expressions(self):
        yield from self.frame_i.expressions()
        yield from self.frame_j.expressions()

    def map(self, fn) -> Loop:
        return Loop(self.link_i, self.link_j, self.frame_i.map(fn), self.frame_j.map(fn), self.joint, self.name)


def parents_of(links) -> tuple[int, ...]:
    """The 1-based parent of each link (0 the base): ``parent`` where given, else the link before."""
    return tuple(i if link.parent is None else int(link.parent) for i, link in enumerate(links))


def is_serial(model) -> bool:
    """A plain serial arm: each link on the one before, every joint actuated, no loop."""
    return (not model.loops and all(l.actuated for l in model.links)
            and parents_of(model.links) == tuple(range(len(model.links)))
            and all(l.gamma == 0 and l.b == 0 for l in model.links))


def structure_lines(model) -> list[str]:
    """The tree, its passive joints and the loops as text lines (``info``), none for a plain serial arm (its table
    of links says it all)."""
    if is_serial(model):
        return []
    parents = parents_of(model.links)
    out = ["tree: " + ", ".join(f"link {i} on {'the base' if p == 0 else f'link {p}'}"
                                + ("" if l.actuated else " (passive)")
                                + (f", gamma {l.gamma}, b {l.b}" if l.gamma != 0 or l.b != 0 else "")
                                for i, (l, p) in enumerate(zip(model.links, parents), start=1))]
    for k, loop in enumerate(model.loops, start=1):
        out.append(f"{loop.label(k)}: cut joint {loop.joint.value} between link {loop.link_i} at "
                   f"{list(map(str, loop.frame_i.xyz))} rpy {list(map(str, loop.frame_i.rpy))} and "
                   f"{'the base' if loop.link_j == 0 else f'link {loop.link_j}'} at "
                   f"{list(map(str, loop.frame_j.xyz))} rpy {list(map(str, loop.frame_j.rpy))}")
    return out


def tool_link(parents, pinned=()) -> int:
    """The link (0-based) carrying a closed chain's tool: the deepest in the tree, the later one of equals
    (the arm's end, not a parallelogram's bar), as the closed-chain metrics and the 3D view take it;
    ``parents``: :func:`parents_of` (1-based, 0 the base). A link in ``pinned`` (1-based,
    :func:`pinned_links`: a four-bar's rocker) only turns about its pin and is no arm's end: the
    deepest other link is taken (a four-bar's coupler), unless every link is pinned. A serial arm's:
    its last link."""
    left_out = set(pinned)
    free = [i for i in range(len(parents)) if i + 1 not in left_out] or list(range(len(parents)))
    return max(free, key=lambda i: (len(path_to_base(parents, i + 1)), i))


def pinned_links(parents, pairs) -> frozenset[int]:
    """The links (1-based) a loop pins to a link they hang from, the base or an ancestor (a four-bar's
    rocker, pinned to the ground or to the column the four-bar stands on); ``pairs``: each loop's
    (link_i, link_j), 1-based, 0 the base."""
    out = set()
    for i, j in pairs:
        for link, other in ((i, j), (j, i)):
            if link > 0 and (other == 0 or other in path_to_base(parents, link)[1:]):
                out.add(link)
    return frozenset(out)


def model_tool_link(model) -> int:
    """:func:`tool_link` of a model: its tree and the links its loops pin to an ancestor."""
    parents = parents_of(model.links)
    return tool_link(parents, pinned_links(parents, [(lp.link_i, lp.link_j) for lp in model.loops]))


def actuated_indices(model) -> tuple[int, ...]:
    """0-based indices of the actuated joints."""
    return tuple(i for i, l in enumerate(model.links) if l.actuated)


def uses_closed_chain_fields(model) -> bool:
    """Whether saving ``model`` needs format version 3 for these fields."""
    return bool(model.loops) or any(
        l.parent is not None or not l.actuated or l.gamma != 0 or l.b != 0 for l in model.links)


def structure_problems(model) -> list[tuple[str, str]]:
    """(where, message) for a tree or loop that cannot be: a parent that is not an earlier link,
    a loop naming a link that does not exist or closing a link on itself, a passive joint on no loop.

    Geometric checks (a loop that cannot close, mobility) need kinematics:
    :func:`designer.kinematics.closure.mechanism_problems`.
    """
    out: list[tuple[str, str]] = []
    n = len(model.links)
    for i, link in enumerate(model.links, start=1):
        if link.parent is not None and not 0 <= link.parent < i:
            out.append((f"links[{i}].parent", f"must be an earlier link (0 the base, 1 to {i - 1}), "
                        f"not {link.parent}" if i > 1 else
                        f"must be 0 (the base) for the first link, not {link.parent}"))
    parents = parents_of(model.links)
    for k, loop in enumerate(model.loops, start=1):
        where = f"loops[{k}]"
        bad = False
        for key in ("link_i", "link_j"):
            value = getattr(loop, key)
            if not 0 <= value <= n:
                out.append((f"{where}.{key}", f"no link {value} (links are numbered 1 to {n}, 0 is the base)"))
                bad = True
        if not bad and loop.link_i == loop.link_j:
            out.append((where, f"closes link {loop.link_i} on itself (a loop joins two different links)"))
    on_loop = set()
    for loop in model.loops:
        if 0 <= loop.link_i <= n and 0 <= loop.link_j <= n:
            on_loop |= set(loop_links(parents, loop.link_i, loop.link_j))
    for i, link in enumerate(model.links, start=1):
        if not link.actuated and i not in on_loop:
            out.append((f"links[{i}].actuated", "a passive joint on no loop (nothing decides its value: "
                        "make it actuated or close a loop through it)"))
    return out


def path_to_base(parents, i: int) -> list[int]:
    """Links from ``i`` (1-based) down to the base, ``i`` first, 0 excluded."""
    out = []
    seen = set()
    while i != 0 and i not in seen and 0 < i <= len(parents):
        seen.add(i)
        out.append(i)
        i = parents[i - 1]
    return out


def loop_links(parents, i: int, j: int) -> list[int]:
    """The links whose joints a loop between links i and j moves (1-based): the two paths to the
    base without their common part."""
    a, b = path_to_base(parents, i), path_to_base(parents, j)
    common = set(a) & set(b)
    return [x for x in a if x not in common] + [x for x in b if x not in common]
