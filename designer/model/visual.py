"""How a link looks: mesh files placed in the link's DH frame (project format version 3).

Display data only: nothing here enters the dynamics. Plain floats, not expressions: a mesh's
pose is where the vendor's file put it, not a design parameter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .extras import pose_matrix

__all__ = ["Visual"]


def _floats(values, count: int, name: str) -> tuple[float, ...]:
    out = tuple(float(v) for v in values)
    if len(out) != count or not all(np.isfinite(out)):
        raise ValueError(f"visual {name}: expected {count} finite numbers")
    return out


@dataclass(frozen=True)
class Visual:
    """A mesh file (absolute path once loaded; the project file may hold it relative to itself),
    its scale, its pose in the link's DH frame (``xyz`` then ``rpy``, URDF's origin) and an RGBA
    colour (None: the view's own)."""

    mesh: str
    scale: tuple[float, ...] = (1.0, 1.0, 1.0)    # three, checked on creation
    xyz: tuple[float, ...] = (0.0, 0.0, 0.0)
    rpy: tuple[float, ...] = (0.0, 0.0, 0.0)
    color: tuple[float, ...] | None = None        # four

    def __post_init__(self):
        object.__setattr__(self, "mesh", str(self.mesh))
        object.__setattr__(self, "scale", _floats(self.scale, 3, "scale"))
        object.__setattr__(self, "xyz", _floats(self.xyz, 3, "xyz"))
        object.__setattr__(self, "rpy", _floats(self.rpy, 3, "rpy"))
        if self.color is not None:
            object.__setattr__(self, "color", _floats(self.color, 4, "color"))

    def matrix(self) -> np.ndarray:
        """The mesh's frame in the link's DH frame (4x4)."""
        return pose_matrix(self.xyz, self.rpy)
