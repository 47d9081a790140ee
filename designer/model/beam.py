"""A part-made link as a beam at numbers (:class:`Beam`), in a module without sympy.

:func:`designer.model.parts.link_beams` makes them from a model; the 3D view draws them (a tube as a
bar, a box as a box) and ``numeric/beams.py`` bends them. Here, apart from the parts' sympy, so that
a numeric arm with parts can be built and drawn before sympy is imported (issue 29).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Beam", "section_axes_at"]


def section_axes_at(r: np.ndarray) -> np.ndarray:
    """(3, 3): the rows u, e1, e2 of :func:`designer.model.parts.section_axes` for a segment ``r`` at numbers
    (a beam's at the parameters' values: numpy, no SymPy matrices in a sweep's or a design's evaluation)."""
    u = r / np.linalg.norm(r)
    e1 = np.array([1.0, 0.0, 0.0]) if r[0] == 0 and r[1] == 0 else np.array([0.0, 0.0, 1.0]) - u * u[2]
    e1 = e1 / np.linalg.norm(e1)
    return np.array([u, e1, np.cross(u, e1)])


@dataclass(frozen=True, eq=False)
class Beam:
    """A part-made link as a beam: index (0-based), segment in the link frame, section axes
    (u along the segment, e1, e2) in the link frame, and the section's stiffness figures (SI)."""

    index: int
    start: np.ndarray
    end: np.ndarray
    axes: np.ndarray          # (3, 3): rows u, e1, e2
    ea: float
    gj: float
    ei1: float
    ei2: float
    mass_per_length: float
    round: bool = True                 # a tube or cylinder; else a box or box section
    size: tuple[float, float] = (0.0, 0.0)   # outer extent along e1 and e2 (m), for drawing

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.end - self.start))

    def flexibilities(self) -> tuple[float, float, float, float]:
        """(1/EA, 1/GJ, 1/EI1, 1/EI2): the section's compliance figures."""
        return 1.0 / self.ea, 1.0 / self.gj, 1.0 / self.ei1, 1.0 / self.ei2

    def section_compliance(self, flexibilities: tuple[float, float, float, float] | None = None) -> np.ndarray:
        """S (6, 6) in link-frame axes: [axial strain, 0, 0; twist, curvatures] per internal [F; M]; with
        ``flexibilities`` given (1/EA, 1/GJ, 1/EI1, 1/EI2, or their derivatives) in place of the beam's own."""
        u, e1, e2 = self.axes
        a, t, b1, b2 = self.flexibilities() if flexibilities is None else flexibilities
        force = np.outer(u, u) * a
        moment = np.outer(u, u) * t + np.outer(e1, e1) * b1 + np.outer(e2, e2) * b2
        S = np.zeros((6, 6))
        S[:3, :3], S[3:, 3:] = force, moment
        return S
