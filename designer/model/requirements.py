"""A design's requirements as frozen values (project format version 4, docs/project-format.md).

A requirement is a metric, a bound (``<=`` or ``>=`` a value) and where it applies: every joint at zero
(the default), a list of poses, a box of joint values sampled, or the project's task cycle. The payload
(a point mass at an offset from the last frame's origin) loads the arm for every requirement; the cycle
(waypoints with a cycle time, or a trajectory file) is shared by the requirements evaluated along it.
Reading and writing: :mod:`designer.project.requirements`; evaluation: :mod:`designer.review`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BOUNDS", "WHERE_KINDS", "Where", "Requirement", "Payload", "Cycle", "Requirements"]

BOUNDS = ("<=", ">=")
WHERE_KINDS = ("zero", "poses", "box", "cycle")


@dataclass(frozen=True)
class Where:
    """Where a requirement holds: ``zero`` (every joint at 0), ``poses`` (each a tuple of the metrics' joint
    values), ``box`` (joint values from ``lo`` to ``hi``, ``samples`` points of a deterministic low-discrepancy
    sequence and the corners' centre), ``cycle`` (the project's cycle)."""

    kind: str = "zero"
    poses: tuple[tuple[float, ...], ...] = ()
    lo: tuple[float, ...] = ()
    hi: tuple[float, ...] = ()
    samples: int = 0

    @property
    def text(self) -> str:
        if self.kind == "poses":
            return f"{len(self.poses)} pose(s)"
        if self.kind == "box":
            return f"box of {self.samples} samples"
        return self.kind


@dataclass(frozen=True)
class Requirement:
    """``metric`` (an ``explore metric`` spec such as ``frequency`` or ``gravity[2]``, or one of the review's
    own: :data:`designer.review.REVIEW_METRICS`) ``bound`` (``<=``, ``>=``) ``value``, at ``where``."""

    metric: str
    bound: str
    value: float
    where: Where = Where()
    name: str = ""

    @property
    def text(self) -> str:
        return f"{self.metric} {self.bound} {self.value:g}"


@dataclass(frozen=True)
class Payload:
    """A point mass (kg) at ``offset`` (m) from the last frame's origin, in that frame."""

    mass: float
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Cycle:
    """A task cycle: ``waypoints`` (poses of the metrics' joints) joined by rest-to-rest quintic moves sharing
    ``time`` (s) equally, or, with ``timing`` ``"time-optimal"``, by straight lines timed as fast as the drives'
    torque and speed limits allow (:mod:`designer.review.timing`); or a ``trajectory`` CSV (``t, q1..qn``; absolute
    once loaded)."""

    waypoints: tuple[tuple[float, ...], ...] = ()
    time: float = 0.0
    trajectory: str = ""
    timing: str = ""   # "" (the time shared by quintic moves) or "time-optimal"


@dataclass(frozen=True)
class Requirements:
    """What a project asks of its design: the requirements, the payload and the cycle (each optional)."""

    items: tuple[Requirement, ...] = ()
    payload: Payload | None = None
    cycle: Cycle | None = None

    def __bool__(self) -> bool:
        return bool(self.items) or self.payload is not None or self.cycle is not None
