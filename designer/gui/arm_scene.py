"""Geometry of the 3D arm picture, in plain numpy (no Qt, no OpenGL, no sympy).

:mod:`designer.gui.view3d` turns these numbers into item transforms; keeping
them apart lets tests check the geometry without a display.
"""

from __future__ import annotations

import numpy as np

from ..kinematics.numeric import NumericArm, display_arm
from ..model.kinds import Convention

__all__ = ["arm_reach", "link_segments", "link_matrices", "box_part_matrix", "ellipsoid_axes", "segment_matrix",
           "axis_matrix", "gravity_arrow"]


def arm_reach(arm: NumericArm) -> float:
    """A length scale of the arm: link lengths, offsets and prismatic strokes summed (at least 0.1 m)."""
    strokes = np.nan_to_num(np.abs(arm.limits[~arm.revolute]), nan=0.0)
    stroke = strokes.max(axis=1).sum() if len(strokes) else 0.0
    return float(max(np.abs(arm.dh[:, 0]).sum() + np.abs(arm.dh[:, 2]).sum() + stroke, 0.1))


def reach_sphere(arm: NumericArm, reach: float | None = None) -> tuple[np.ndarray, float]:
    """(centre, radius) in the world of a sphere the arm cannot leave in any pose: centred on the base
    frame, its radius the arm's reach (:func:`arm_reach`, or ``reach``: a closed chain's along the path
    to its tool) plus the tool's offset from the last frame."""
    reach = arm_reach(arm) if reach is None else reach
    return np.asarray(arm.base[:3, 3], float), reach + float(np.linalg.norm(arm.tool[:3, 3]))


def sphere_points(centre: np.ndarray, radius: float, count: int = 240) -> np.ndarray:
    """``count`` points spread evenly over a sphere (a Fibonacci lattice): its outline, as seen from
    any direction, within 1 % of the true one."""
    k = np.arange(count) + 0.5
    z = 1.0 - 2.0 * k / count
    r = np.sqrt(1.0 - z * z)
    phi = np.pi * (3.0 - np.sqrt(5.0)) * k
    return centre + radius * np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def reach_points(arm: NumericArm, joints: np.ndarray | None, radius: float,
                 reach: float | None = None) -> np.ndarray:
    """Points on the reach sphere grown by what is drawn about a frame origin: the joint bodies
    (``joints``: their matrices, the z column the half length) and COM markers (``radius``: the
    scene's marker scale). The frame axes' tips are left to the fit's margin: padding the sphere by
    the tool frame's length made the PUMA a quarter of the view."""
    centre, reach = reach_sphere(arm, reach)
    extra = [1.6 * radius]
    if joints is not None and len(joints):
        extra.append(float(np.linalg.norm(joints[:, :3, 2], axis=1).max()))
    return sphere_points(centre, reach + max(extra))


def link_segments(arm: NumericArm, frames: np.ndarray) -> np.ndarray:
    """(n, 2, 2, 3): for each link two straight pieces (start, end) from frame i-1 to frame i.

    The link is drawn along its DH offsets rather than as one straight bar, so
    an arm with offsets (the PUMA 560) looks like the real one: in the standard
    convention the piece along z_{i-1} (length d_i) comes first, then the piece
    along x_i (length a_i); in the modified convention the piece along x_{i-1}
    (a_{i-1}) comes first, then the piece along z_i (d_i).
    """
    n = arm.n
    out = np.empty((n, 2, 2, 3))
    origins = frames[:, :3, 3]
    for i in range(n):
        start, end = origins[i], origins[i + 1]
        if arm.convention is Convention.STANDARD:
            # corner = end - a_i x_i
            corner = end - arm.dh[i, 0] * frames[i + 1, :3, 0]
        else:
            corner = start + arm.dh[i, 0] * frames[i, :3, 0]
        out[i, 0] = (start, corner)
        out[i, 1] = (corner, end)
    return out


def link_matrices(arm: NumericArm, frames: np.ndarray, radius: float,
                  segments: np.ndarray | None = None) -> list[np.ndarray | None]:
    """2n matrices placing the links' two unit solids: a stick figure's two bars (unit cylinders of
    ``radius``) per link, or for a part-made link its part as it is (a cylinder of the outer diameter,
    or a box of the section's width and height, along its segment: ``box_part_matrix``) and nothing.
    ``segments``: the links' pieces when not the serial chain's (a tree: ``loop_scene.tree_segments``)."""
    segments = link_segments(arm, frames) if segments is None else segments
    sticks = [segment_matrix(a, b, radius) for a, b in segments.reshape(-1, 2, 3)]
    for beam in arm.beams:
        T = frames[beam.index + 1]
        R, p = T[:3, :3], T[:3, 3]
        start, end = R @ beam.start + p, R @ beam.end + p
        if beam.round:
            sticks[2 * beam.index] = segment_matrix(start, end, beam.size[0] / 2)
        else:
            sticks[2 * beam.index] = box_part_matrix(start, end, R @ beam.axes[1], beam.size)
        sticks[2 * beam.index + 1] = None
    return sticks


def box_part_matrix(start: np.ndarray, end: np.ndarray, e1: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """4x4 matrix mapping the cube [-1, 1]^3 onto a box from ``start`` to ``end`` whose width
    ``size[0]`` runs along ``e1`` and height ``size[1]`` across both."""
    v = np.asarray(end, float) - np.asarray(start, float)
    u = v / np.linalg.norm(v)
    e2 = np.cross(u, e1)
    M = np.eye(4)
    M[:3, :3] = np.column_stack((e1 * size[0] / 2, e2 * size[1] / 2, v / 2))
    M[:3, 3] = (np.asarray(start, float) + np.asarray(end, float)) / 2
    return M


def _rotation_to(direction: np.ndarray) -> np.ndarray:
    """A rotation matrix whose z column is the unit vector ``direction``."""
    z = direction / np.linalg.norm(direction)
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return np.column_stack((x, y, z))


def segment_matrix(start: np.ndarray, end: np.ndarray, radius: float) -> np.ndarray | None:
    """4x4 matrix mapping a unit cylinder (radius 1, z from 0 to 1) onto a bar; None if too short."""
    v = np.asarray(end, float) - np.asarray(start, float)
    length = float(np.linalg.norm(v))
    if length < 1e-9:
        return None
    M = np.eye(4)
    M[:3, :3] = _rotation_to(v) @ np.diag([radius, radius, length])
    M[:3, 3] = start
    return M


def axis_matrix(origin: np.ndarray, axis: np.ndarray, half_width: float, half_length: float) -> np.ndarray:
    """4x4 matrix mapping a solid centred on the origin with half-extents 1 onto a joint body
    centred at ``origin`` and aligned with ``axis``."""
    M = np.eye(4)
    M[:3, :3] = _rotation_to(np.asarray(axis, float)) @ np.diag([half_width, half_width, half_length])
    M[:3, 3] = origin
    return M


def ellipsoid_axes(mass: float, inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Semi-axes and principal directions of the uniform solid ellipsoid with the same inertia.

    For semi-axes (a, b, c) the principal moments are m(b^2+c^2)/5 and so on,
    hence a^2 = 5 (I_2 + I_3 - I_1) / (2 m). Negative squares (inertias that
    violate the triangle inequality) are clipped to zero.

    Returns
    -------
    semi_axes : (3,) array
    axes : (3, 3) array whose columns are the principal directions in the link frame
    """
    if mass <= 0:
        return np.zeros(3), np.eye(3)
    moments, axes = np.linalg.eigh(np.asarray(inertia, float))
    total = moments.sum()
    squares = 5.0 * (total - 2.0 * moments) / (2.0 * mass)
    return np.sqrt(np.clip(squares, 0.0, None)), axes


# -- unit solids as (vertices, normals, faces); view3d moves them with per-part matrices -------
def cylinder_mesh(cols: int = 20, z0: float = 0.0, z1: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A closed cylinder of radius 1 from z0 to z1 (side and both caps)."""
    t = np.linspace(0.0, 2 * np.pi, cols, endpoint=False)
    ring = np.column_stack((np.cos(t), np.sin(t)))
    bottom, top = np.column_stack((ring, np.full(cols, z0))), np.column_stack((ring, np.full(cols, z1)))
    # the caps get their own copies of the rim so that their normals point along the axis
    verts = np.vstack([bottom, top, bottom, top, [[0.0, 0.0, z0], [0.0, 0.0, z1]]])
    side = np.column_stack((ring, np.zeros(cols)))
    down, up = np.tile([0.0, 0.0, -1.0], (cols, 1)), np.tile([0.0, 0.0, 1.0], (cols, 1))
    normals = np.vstack([side, side, down, up, [[0.0, 0.0, -1.0], [0.0, 0.0, 1.0]]])
    faces = []
    for k in range(cols):
        k2 = (k + 1) % cols
        faces += [[k, k2, cols + k], [k2, cols + k2, cols + k]]
        faces += [[4 * cols, 2 * cols + k2, 2 * cols + k], [4 * cols + 1, 3 * cols + k, 3 * cols + k2]]
    return verts, normals, np.array(faces, dtype=np.int64)


def box_mesh() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cube [-1, 1]^3, four vertices per side so that each side is flat."""
    verts: list[np.ndarray] = []
    normals: list[np.ndarray] = []
    faces: list[list[int]] = []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            u, v = [(axis + 1) % 3, (axis + 2) % 3]
            base = len(verts)
            for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = np.zeros(3)
                p[axis], p[u], p[v] = sign, a, b
                verts.append(p)
                n = np.zeros(3)
                n[axis] = sign
                normals.append(n)
            quad = [(0, 1, 2), (0, 2, 3)] if sign > 0 else [(0, 2, 1), (0, 3, 2)]
            faces += [[base + i for i in tri] for tri in quad]
    return np.array(verts), np.array(normals), np.array(faces, dtype=np.int64)


def sphere_mesh(rows: int = 10, cols: int = 16) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unit sphere (its normals are its points)."""
    phi = np.linspace(0.0, np.pi, rows + 1)
    theta = np.linspace(0.0, 2 * np.pi, cols, endpoint=False)
    P, T = np.meshgrid(phi, theta, indexing="ij")
    verts = np.stack([np.sin(P) * np.cos(T), np.sin(P) * np.sin(T), np.cos(P)], axis=-1).reshape(-1, 3)
    faces = []
    for r in range(rows):
        for c in range(cols):
            a, b = r * cols + c, r * cols + (c + 1) % cols
            faces += [[a, a + cols, b], [b, a + cols, b + cols]]
    return verts, verts.copy(), np.array(faces, dtype=np.int64)


def gravity_arrow(gravity: np.ndarray, reach: float) -> np.ndarray:
    """Line segments (pairs of points) of an arrow along ``gravity`` beside the base: a shaft of a
    quarter of the reach and a four-line head; no segments when gravity is zero."""
    g = np.asarray(gravity, float)
    norm = float(np.linalg.norm(g))
    if not np.isfinite(norm) or norm == 0.0:
        return np.zeros((0, 3))
    direction = g / norm
    length = 0.25 * reach
    side = _rotation_to(direction)
    start = -0.3 * reach * side[:, 0] - 0.5 * length * direction   # beside the base, centred on it
    tip = start + length * direction
    head = 0.25 * length
    segments = [start, tip]
    for k in (0, 1):
        for sign in (1.0, -1.0):
            segments += [tip, tip - head * direction + sign * 0.5 * head * side[:, k]]
    return np.array(segments)


numeric_arm = display_arm   # moved to the core: designer.kinematics.display_arm
