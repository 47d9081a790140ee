"""The links' own bending: compliance and sag at the tool from beam theory (Euler-Bernoulli).

A part-made link (``model/parts.py``) is a prism of uniform section along a segment whose start is
on the link's own joint axis (the standard convention's previous frame origin, the modified one's
own origin): a beam clamped at its start. A wrench [F; M] at the tool loads the section at s with
the internal wrench X(s) [F; M], X(s) = [[1, 0], [skew(p_tool - x(s)), 1]], and the virtual-work
theorem gives the tool's displacement [delta; theta] = C [F; M] with

    C = sum over links of  integral_0^L  X(s)^T S X(s) ds,

S the section's compliance (axial 1/EA; torsion 1/GJ; bending 1/EI1 and 1/EI2 about the section's
axes; shear deformation left out, under 1 % for the slender links of an arm, L/D > 10). X is linear
in s, so the integrand is quadratic and 2-point Gauss-Legendre quadrature is exact; the sag under
the links' own weight, whose internal moment is quadratic in s, takes 3 points.

The joints' compliance J K^-1 J^T (gearboxes) adds to this; the two are reported apart, so a
deflection budget splits into gearboxes and links.
"""

from __future__ import annotations

import numpy as np

from ..kinematics.numeric import NumericArm
from ..model.parts import Beam

__all__ = ["beams_compliance", "beams_sag", "tool_sag_many", "tool_compliance_many"]


def _skew(v: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _placed(arm: NumericArm, beams, q):
    """Per beam: (T of its link, base-frame start, end, rotation of the link frame)."""
    T = arm.frames(q)
    tool = arm.tool_in_base(q, T)[:3, 3]
    out = []
    for b in beams:
        Tl = T[b.index + 1]   # link i's own frame is frame i in both conventions
        R, p = Tl[:3, :3], Tl[:3, 3]
        out.append((b, R @ b.start + p, R @ b.end + p, R))
    return T, tool, out


def _sections(placed, tool: np.ndarray, points: int, flexibilities=None):
    """Per beam and Gauss point: (beam, its base-frame start, s along it, the weight, S in frame-0 axes,
    X(s) carrying the tool's wrench to the section); ``flexibilities``: per beam, its section's figures in place
    of its own (:meth:`~designer.model.parts.Beam.section_compliance`)."""
    nodes, weights = np.polynomial.legendre.leggauss(points)
    for k, (b, x0, x1, R) in enumerate(placed):
        S = np.zeros((6, 6))
        Sl = b.section_compliance(None if flexibilities is None else flexibilities[k])
        S[:3, :3], S[3:, 3:] = R @ Sl[:3, :3] @ R.T, R @ Sl[3:, 3:] @ R.T
        L = b.length
        for t, w in zip(nodes, weights):
            s = L * (t + 1) / 2
            X = np.eye(6)
            X[3:, :3] = _skew(tool - (x0 + (x1 - x0) * s / L))
            yield b, x0, x1, s, w * L / 2, S, X


def beams_compliance(arm: NumericArm, beams: tuple[Beam, ...], q) -> np.ndarray:
    """(6, 6) compliance at the tool point, frame-0 axes: [delta; theta] = C [F; M]."""
    _, tool, placed = _placed(arm, beams, q)
    C = np.zeros((6, 6))
    for *_, weight, S, X in _sections(placed, tool, 2):
        C += weight * X.T @ S @ X
    return C


def beams_sag(arm: NumericArm, beams: tuple[Beam, ...], q, payload: float = 0.0, *, masses=None,
              per_length=None, points: bool = True, flexibilities=None) -> np.ndarray:
    """The tool's displacement and rotation [delta; theta] (6,) from the links' bending under gravity:
    each link's own weight (distributed along its beam, or at its COM for a link without part), the
    point masses and a payload (kg) at the tool. Frame-0 axes.

    The sag is linear in the loads and, apart, in the sections' flexibilities, so its derivative by a
    parameter is this sum taken twice (:mod:`designer.optimize.design_gradients`): with the flexibilities'
    derivatives (``flexibilities``, per beam: d(1/EA), d(1/GJ), d(1/EI1), d(1/EI2)), and with the loads'
    (``masses``: the links' masses, for those without a beam; ``per_length``: per beam; ``points``: False
    leaves out the point masses; ``payload``)."""
    T, tool, placed = _placed(arm, beams, q)
    g = arm.gravity
    coms = arm.com_positions(q, T)
    by_index = {b.index for b in beams}
    mass = arm.mass if masses is None else masses
    along = [b.mass_per_length for b in beams] if per_length is None else per_length
    # point loads: links without a beam at their COM, point masses, the payload
    loads = [(mass[i] * g, coms[i], i) for i in range(arm.n) if i not in by_index]
    for link, m, pos in arm.point_masses if points else ():
        Tl = T[link + 1]
        loads.append((m * g, Tl[:3, :3] @ pos + Tl[:3, 3], link))
    loads.append((payload * g, tool, arm.n - 1))
    out = np.zeros(6)
    for b, x0, x1, s, weight, S, X in _sections(placed, tool, 3, flexibilities):
        L = b.length
        x, axis = x0 + (x1 - x0) * s / L, (x1 - x0) / L
        # internal wrench at x: every load outboard of the section, about x
        F, M = np.zeros(3), np.zeros(3)
        for f, p, link in loads:
            # carried by this section: loads on outboard links, and those of this link beyond s
            if link > b.index or (link == b.index and float(np.dot(p - x0, axis)) > s):
                F += f
                M += np.cross(p - x, f)
        for k, (other, y0, y1, _) in enumerate(placed):   # the weight of outboard beams and of this one beyond s
            lo = s / L if other is b else 0.0
            if other.index < b.index or lo >= 1.0:
                continue
            f = along[k] * other.length * (1 - lo) * g
            F += f
            M += np.cross(y0 + (y1 - y0) * (1 + lo) / 2 - x, f)
        out += weight * X.T @ S @ np.concatenate([F, M])
    return out


def tool_sag_many(arm: NumericArm, q, payload: float = 0.0) -> np.ndarray:
    """(N, 6): the links' sag at states q (N, n) under gravity and ``payload`` kg at the tool (the arm's
    own beams, ``arm.beams``; zero without)."""
    q = np.atleast_2d(np.asarray(q, float))
    if not arm.beams:
        return np.zeros((len(q), 6))
    return np.array([beams_sag(arm, arm.beams, row, payload) for row in q])


def tool_compliance_many(arm: NumericArm, q) -> np.ndarray:
    """(N, 6, 6): the links' compliance at the tool at states q (N, n)."""
    q = np.atleast_2d(np.asarray(q, float))
    if not arm.beams:
        return np.zeros((len(q), 6, 6))
    return np.array([beams_compliance(arm, arm.beams, row) for row in q])
