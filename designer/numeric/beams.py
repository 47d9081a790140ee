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

from ..kinematics.numeric import NumericArm, cross3
from ..model.parts import Beam

__all__ = ["beams_compliance", "beams_sag", "beams_sag_derivatives", "sag_loads", "sag_terms", "tool_sag_many",
           "tool_compliance_many"]


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


def _frame0_compliance(b: Beam, R: np.ndarray, flexibilities=None) -> np.ndarray:
    """The beam's section compliance S (6, 6) in frame-0 axes (its link frame turned by R); linear in the section's
    flexibilities, so that given their derivatives (``flexibilities``, :meth:`Beam.section_compliance`) it is S's."""
    Sl = b.section_compliance(flexibilities)
    S = np.zeros((6, 6))
    S[:3, :3], S[3:, 3:] = R @ Sl[:3, :3] @ R.T, R @ Sl[3:, 3:] @ R.T
    return S


def _sections(placed, tool: np.ndarray, points: int, flexibilities=None):
    """Per beam and Gauss point: (beam, its base-frame start, s along it, the weight, S in frame-0 axes,
    X(s) carrying the tool's wrench to the section); ``flexibilities``: per beam, its section's figures in place
    of its own (:meth:`~designer.model.parts.Beam.section_compliance`)."""
    nodes, weights = np.polynomial.legendre.leggauss(points)
    for k, (b, x0, x1, R) in enumerate(placed):
        S = _frame0_compliance(b, R, None if flexibilities is None else flexibilities[k])
        L = b.length
        for t, w in zip(nodes, weights):
            s = L * (t + 1) / 2
            X = np.eye(6)
            X[3:, :3] = _skew(tool - (x0 + (x1 - x0) * s / L))
            yield b, x0, x1, s, w * L / 2, S, X


def beams_compliance(arm: NumericArm, beams: tuple[Beam, ...], q, flexibilities=None) -> np.ndarray:
    """(6, 6) compliance at the tool point, frame-0 axes: [delta; theta] = C [F; M]. Linear in the sections'
    flexibilities: ``flexibilities`` (per beam: 1/EA, 1/GJ, 1/EI1, 1/EI2, or their derivatives by a parameter,
    which give C's) in place of the beams' own."""
    _, tool, placed = _placed(arm, beams, q)
    C = np.zeros((6, 6))
    for *_, weight, S, X in _sections(placed, tool, 2, flexibilities):
        C += weight * X.T @ S @ X
    return C


def sag_terms(arm: NumericArm, beams: tuple[Beam, ...], q):
    """The sag's terms, per Gauss point of every beam (3 a beam: the internal moment is quadratic in s):
    (the beam's place in ``beams``, the weight, X(s), B) with the section's internal wrench B @ loads
    (:func:`sag_loads`: every load outboard of the section, about it, per unit of each source); and per beam the
    rotation of its link frame (its section compliance in frame-0 axes: :func:`_frame0_compliance`)."""
    T, tool, placed = _placed(arm, beams, q)
    g = np.asarray(arm.gravity, float)
    coms = arm.com_positions(q, T)
    by_index = {b.index for b in beams}
    n, nb = arm.n, len(beams)
    # point sources: links without a beam at their COM (column i), point masses, the payload (the last column);
    # a beam's weight per unit length is column n + its place
    points = [(i, coms[i], i) for i in range(n) if i not in by_index]
    for j, (link, _, pos) in enumerate(arm.point_masses):
        Tl = T[link + 1]
        points.append((n + nb + j, Tl[:3, :3] @ pos + Tl[:3, 3], link))
    width = n + nb + len(arm.point_masses) + 1
    points.append((width - 1, tool, n - 1))
    nodes, weights = np.polynomial.legendre.leggauss(3)
    terms = []
    for k, (b, x0, x1, _) in enumerate(placed):
        L = b.length
        axis = (x1 - x0) / L
        for t, w in zip(nodes, weights):
            s = L * (t + 1) / 2
            x = x0 + axis * s
            X = np.eye(6)
            X[3:, :3] = _skew(tool - x)
            B = np.zeros((6, width))
            for col, p, link in points:
                # carried by this section: loads on outboard links, and those of this link beyond s
                if link > b.index or (link == b.index and float(np.dot(p - x0, axis)) > s):
                    B[:3, col] = g
                    B[3:, col] = cross3(p - x, g)
            for m, (other, y0, y1, _) in enumerate(placed):   # outboard beams' weight and this one's beyond s
                lo = s / L if other is b else 0.0
                if other.index < b.index or lo >= 1.0:
                    continue
                f = other.length * (1 - lo) * g
                B[:3, n + m] = f
                B[3:, n + m] = cross3(y0 + (y1 - y0) * (1 + lo) / 2 - x, f)
            terms.append((k, w * L / 2, X, B))
    return terms, [R for *_, R in placed]


def sag_loads(arm: NumericArm, beams: tuple[Beam, ...], payload: float = 0.0) -> np.ndarray:
    """The sag's sources (kg, kg/m) in :func:`sag_terms`' columns: the links' masses (used for the links
    without a beam), the beams' masses per length, the point masses, the payload."""
    return np.concatenate([arm.mass, [b.mass_per_length for b in beams], [m for _, m, _ in arm.point_masses],
                           [payload]])


def beams_sag(arm: NumericArm, beams: tuple[Beam, ...], q, payload: float = 0.0) -> np.ndarray:
    """The tool's displacement and rotation [delta; theta] (6,) from the links' bending under gravity:
    each link's own weight (distributed along its beam, or at its COM for a link without part), the
    point masses and a payload (kg) at the tool. Frame-0 axes."""
    terms, rotations = sag_terms(arm, beams, q)
    loads = sag_loads(arm, beams, payload)
    S = [_frame0_compliance(b, R) for b, R in zip(beams, rotations)]
    out = np.zeros(6)
    for k, weight, X, B in terms:
        out += weight * X.T @ (S[k] @ (B @ loads))
    return out


def beams_sag_derivatives(arm: NumericArm, beams: tuple[Beam, ...], q, payload: float, flexibilities,
                          loads, terms=None) -> tuple[np.ndarray, np.ndarray]:
    """(:func:`beams_sag` (6,), its derivatives (m, 6) by m parameters) given theirs of the sections'
    flexibilities (``flexibilities`` (m, beams, 4): d(1/EA), d(1/GJ), d(1/EI1), d(1/EI2)) and of the sources
    (``loads`` (m, sources), :func:`sag_loads`' columns). The sag is bilinear in the two: S dw + dS w at each
    section, from one set of terms (``terms``: :func:`sag_terms` of this arm at q, when the caller has them: they
    depend on the kinematics and the beams' geometry alone)."""
    terms, rotations = sag_terms(arm, beams, q) if terms is None else terms
    base = sag_loads(arm, beams, payload)
    flexibilities = np.asarray(flexibilities, float)
    loads = np.asarray(loads, float)
    S = [_frame0_compliance(b, R) for b, R in zip(beams, rotations)]
    dS = [np.array([_frame0_compliance(b, R, tuple(d)) for d in flexibilities[:, k]])   # (m, 6, 6) each
          for k, (b, R) in enumerate(zip(beams, rotations))]
    value, out = np.zeros(6), np.zeros((len(loads), 6))
    for k, weight, X, B in terms:
        w = B @ base                            # the section's internal wrench
        dw = B @ loads.T                        # (6, m)
        value += weight * X.T @ (S[k] @ w)
        out += weight * (X.T @ (S[k] @ dw + np.einsum("mij,j->im", dS[k], w))).T
    return value, out


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
