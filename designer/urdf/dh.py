"""DH frames from joint axes by the common-normal construction, and the DH numbers between them.

Input: the joint axes at the zero pose (a point and the URDF axis direction each) and the base and tip
links' frames; output: frames 0..n of the chosen convention, so that q_DH = q_URDF and the constant part
of theta (R) or d (P) is the offset. The choices the construction leaves open (frame 0 and n, skew,
intersecting, parallel and coincident axes) are listed in docs/urdf.md."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kinematics import dh_transform
from ..model.manipulator import Convention

__all__ = ["Axis", "FAR", "PARALLEL_TOL", "DISTANCE_TOL", "SNAP_TOL", "Snap", "dh_frames", "dh_numbers",
           "snap_parallel"]

# sin of the angle between axes, and metres: below these axes count as parallel / meeting.
# URDF angles written to full double precision give about 1e-16; a value written short
# (1.5708) leaves a real, small angle that is kept.
PARALLEL_TOL = 1e-10
DISTANCE_TOL = 1e-10
#: relative to the points' size: a gap between axes below this is rounding noise and the axes meet
MEET_TOL = 1e-14


#: axes closer than this to parallel (radians) are made parallel before the frames are built. Files
#: write angles to 4-9 decimals: 1.5708 for pi/2 leaves 3.7e-6 rad, 1.570796325 leaves 1.8e-9 rad,
#: and the common normal of such axes 0.2 m apart lies 50 km to 1e8 m out; a design meant skew by
#: less than 1e-5 rad (2 arc seconds) is not one anybody builds.
SNAP_TOL = 1e-5
#: and further from parallel too when their common normal would lie more than this many arm lengths
#: out (1e-4 rad between axes 0.4 m apart: 4 km), where every evaluation loses about the square of
#: that ratio times 1e-15 (the check after the import would refuse the arm)
FAR = 1000.0


@dataclass(frozen=True)
class Axis:
    point: np.ndarray
    direction: np.ndarray


@dataclass(frozen=True)
class Snap:
    """Axis ``index`` (0-based) turned by ``angle`` rad to be parallel to the one before; points of
    the arm beyond it move by up to ``moved`` m over a joint turn."""

    index: int
    angle: float
    moved: float


def snap_parallel(axes: list[Axis], reach_points: list[np.ndarray], literal: bool = False
                  ) -> tuple[list[Axis], list[Snap]]:
    """Axes within :data:`SNAP_TOL` of parallel to the one before, or whose common normal with it lies
    more than :data:`FAR` arm lengths out, made exactly parallel (turned about their own point);
    ``reach_points``: where the arm's parts are at the zero pose (for the figure moved). ``literal``
    (the file's numbers as written): none."""
    if literal:
        return list(axes), []
    out, snaps = [axes[0]], []
    points = np.array(reach_points + [a.point for a in axes])
    reach = max(float(np.linalg.norm(points[:, None] - points[None], axis=-1).max()), 1e-3)
    for i in range(1, len(axes)):
        prev, axis = out[-1].direction, axes[i].direction
        sine = float(np.linalg.norm(np.cross(prev, axis)))
        if 0.0 < sine and (sine < SNAP_TOL or _normal_distance(out[-1], axes[i]) > FAR * reach):
            new = prev if prev @ axis > 0 else -prev
            angle = float(np.arcsin(min(sine, 1.0)))
            # a point r from the axis turns about an axis tilted by angle: it lands up to 2 r sin(angle/2) * 2 off
            r = max([float(np.linalg.norm(p - axes[i].point)) for p in reach_points] + [0.0])
            snaps.append(Snap(i, angle, 2.0 * angle * r))
            out.append(Axis(axes[i].point, new.copy()))
        else:
            out.append(axes[i])
    return out, snaps


def _normal_distance(a: Axis, b: Axis) -> float:
    """How far out along the axes their common normal lies (from each axis' point, the nearer)."""
    cross = np.cross(a.direction, b.direction)
    nn = float(cross @ cross)
    w = b.point - a.point
    return min(abs(float(np.cross(w, b.direction) @ cross)), abs(float(np.cross(w, a.direction) @ cross))) / nn


def _frame(origin, x, z) -> np.ndarray:
    z = z / np.linalg.norm(z)
    x = x - (x @ z) * z
    x = x / np.linalg.norm(x)
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = x, np.cross(z, x), z, origin
    return T


def _foot(point, axis: Axis) -> np.ndarray:
    return axis.point + ((point - axis.point) @ axis.direction) * axis.direction


def _projected_x(T: np.ndarray, z: np.ndarray) -> np.ndarray | None:
    """The frame's x (else its y) projected onto the plane normal to z, or None."""
    for k in (0, 1):
        v = T[:3, k] - (T[:3, k] @ z) * z
        if np.linalg.norm(v) > 1e-6:
            return v / np.linalg.norm(v)
    return None


def _normal(a: Axis, b: Axis, prev_point: np.ndarray, prev_x: np.ndarray):
    """(foot on a, foot on b, x) of the common normal of axes a and b."""
    cross = np.cross(a.direction, b.direction)
    s = np.linalg.norm(cross)
    if s > PARALLEL_TOL:
        # the feet from the cross product: the textbook 1 - (a.b)^2 in the denominator loses half the
        # digits for nearly parallel axes (1.5708 written for pi/2 leaves 4e-6 rad), and an error along
        # axis a far out moves the foot off axis b (2e-6 m in M for a 51 km common normal)
        w = b.point - a.point
        nn = cross @ cross
        fa = a.point + (np.cross(w, b.direction) @ cross / nn) * a.direction
        fb = b.point + (np.cross(w, a.direction) @ cross / nn) * b.direction
        # x from the cross product, not from fb - fa: for a small gap that difference has
        # few correct digits (a gap of 1e-7 m would leave x wrong by 1e-9)
        x = cross / s
        gap = float((fb - fa) @ x)
        if abs(gap) <= MEET_TOL * max(1.0, float(np.abs(fa).max())):
            return fa, fa, x   # rounding noise: the axes meet (x keeps the cross product's sign)
        if abs(gap) <= DISTANCE_TOL:
            # a real gap, however small (Baxter's 11-digit quarter turns leave 5e-13 m): the frame goes on axis
            # b, where it belongs; meeting them at fa moved the arm by the gap. x keeps the cross product's sign
            return fa, fb, x
        if gap < 0:
            x, gap = -x, -gap
        return fa, fa + gap * x, x
    fa = prev_point
    fb = _foot(prev_point, b)
    gap = float(np.linalg.norm(fb - fa))
    if gap <= DISTANCE_TOL:
        return fa, fa, prev_x
    return fa, fb, (fb - fa) / gap


def dh_frames(axes: list[Axis], base: np.ndarray, tip: np.ndarray, convention: Convention) -> list[np.ndarray]:
    """World frames 0..n (4x4) at the zero pose; ``base``, ``tip``: the base and tip link frames."""
    n = len(axes)
    z1 = axes[0].direction
    x0 = _projected_x(base, z1)
    o0 = _foot(base[:3, 3], axes[0])
    if x0 is None:  # cannot happen: x and y of a frame are not both along one axis
        raise ValueError("no x axis for frame 0")
    frames = [_frame(o0, x0, z1)]
    prev_point, prev_x = o0, x0
    for i in range(n - 1):
        fa, fb, x = _normal(axes[i], axes[i + 1], prev_point, prev_x)
        if convention is Convention.STANDARD:
            frames.append(_frame(fb, x, axes[i + 1].direction))
        else:
            frames.append(_frame(fa, x, axes[i].direction))
        prev_point, prev_x = fb, x
    zn = axes[-1].direction
    xn = _projected_x(tip, zn)
    frames.append(_frame(_foot(tip[:3, 3], axes[-1]), prev_x if xn is None else xn, zn))
    return frames


def dh_numbers(prev: np.ndarray, frame: np.ndarray, convention: Convention) -> tuple[float, float, float, float]:
    """(a, alpha, d, theta) with frame = prev * A; raises ValueError when A is not a DH transform."""
    A = np.linalg.solve(prev, frame)
    R, p = A[:3, :3], A[:3, 3]
    if convention is Convention.STANDARD:
        theta = float(np.arctan2(R[1, 0], R[0, 0]))
        alpha = float(np.arctan2(R[2, 1], R[2, 2]))
        d = float(p[2])
        a = float(p[0] * np.cos(theta) + p[1] * np.sin(theta))
    else:
        alpha = float(np.arctan2(-R[1, 2], R[2, 2]))
        theta = float(np.arctan2(-R[0, 1], R[0, 0]))
        a = float(p[0])
        d = float(-np.sin(alpha) * p[1] + np.cos(alpha) * p[2])
    err = np.abs(dh_transform(a, alpha, d, theta, convention) - A).max()
    if err > 1e-9 * max(1.0, np.abs(p).max()):
        raise ValueError(f"frames are not related by a DH transform (residual {err:.2e})")
    return a, alpha, d, theta
