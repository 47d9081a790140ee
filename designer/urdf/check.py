"""The imported model against the file's own kinematic tree, before anything is saved.

The DH model is built by a long way round (common normals, lumping into DH frames, exact angles);
this module takes the short way: the tree's joints moved to q (off-chain joints locked at zero,
dropped links left out), every link's mass, centre of mass and inertia in the world, and
M = sum(m Jv^T Jv + Jw^T I Jw), G = -sum(m Jv^T g) and the tip link's pose from the link Jacobians.
It shares nothing with the DH path but the tree itself, so a frame built far out, an inertia
turned the wrong way or a lumped part forgotten shows up as a disagreement.
"""

from __future__ import annotations

import numpy as np

from ..kinematics import NumericArm
from ..numeric.recursive import gravity_torque, mass_matrix
from .chain import Chain
from .source import UrdfError, UrdfTree

__all__ = ["CHECK_POSES", "CHECK_TOL", "TreeReference", "check_against_tree", "relative_worst"]

#: the agreement an import must reach (relative to the largest entry over the poses sampled)
CHECK_TOL = 1e-9
CHECK_POSES = 5


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    k = axis / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


class TreeReference:
    """M, G and the tip pose of the chain, read straight from the tree (world = the root link's frame)."""

    def __init__(self, tree: UrdfTree, chain: Chain, gravity_world: np.ndarray):
        self.tree, self.chain = tree, chain
        self.g = np.asarray(gravity_world, dtype=float)
        self.index = {j: k for k, j in enumerate(chain.joints)}
        self.owner = {link: k for k, links in enumerate(chain.bodies) for link in links}
        self.dropped = set(chain.dropped)

    def _poses(self, q) -> tuple[dict[str, np.ndarray], list[tuple[np.ndarray, np.ndarray]]]:
        """Link frames in the world and each chain joint's (point, direction)."""
        poses = {self.tree.root: np.eye(4)}
        axes: list[tuple[np.ndarray, np.ndarray]] = [(np.zeros(3), np.zeros(3))] * len(self.chain.joints)
        todo = [self.tree.root]
        while todo:
            link = todo.pop()
            for name in self.tree.child_joints.get(link, []):
                joint = self.tree.joints[name]
                if joint.child in self.dropped:
                    continue
                at = poses[link] @ joint.origin
                value = q[self.index[name]] if name in self.index else 0.0
                motion = np.eye(4)
                if joint.type == "prismatic":
                    motion[:3, 3] = joint.axis * value
                elif joint.movable:
                    motion[:3, :3] = _axis_angle(joint.axis, value)
                if name in self.index:
                    axes[self.index[name]] = (at[:3, 3], at[:3, :3] @ joint.axis)
                poses[joint.child] = at @ motion
                todo.append(joint.child)
        return poses, axes

    def evaluate(self, q) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(M, G, tip pose) at q."""
        n = len(self.chain.joints)
        poses, axes = self._poses(q)
        M, G = np.zeros((n, n)), np.zeros(n)
        for link, k in self.owner.items():
            ine = self.tree.inertials.get(link)
            if ine is None or link not in poses:
                continue
            T = poses[link]
            R = T[:3, :3]
            c = R @ ine.com + T[:3, 3]
            I = R @ ine.inertia @ R.T
            Jv, Jw = np.zeros((3, n)), np.zeros((3, n))
            for i in range(k + 1):
                p, z = axes[i]
                if self.tree.joints[self.chain.joints[i]].type == "prismatic":
                    Jv[:, i] = z
                else:
                    Jv[:, i], Jw[:, i] = np.cross(z, c - p), z
            M += ine.mass * Jv.T @ Jv + Jw.T @ I @ Jw
            G -= ine.mass * Jv.T @ self.g
        return M, G, poses[self.chain.tip]


def relative_worst(diffs: dict[str, float], largest: dict[str, float], mass: float, reach: float,
                   g: float) -> tuple[float, str]:
    """(the largest of the differences relative to their scale, which). The scale of M is at least
    m reach^2 and that of G at least m g reach (the arm's own: an arm whose G is all but zero by
    design, gravity along joint 1, or whose base the import turned by 4e-6 rad, is not 100% off for
    a difference of a millionth of m g reach); the tool pose's is 1 for its rotation, the reach for
    its position."""
    scales = {"M": max(largest.get("M", 0.0), mass * reach ** 2), "G": max(largest.get("G", 0.0), mass * g * reach),
              "tool pose": max(1.0, reach)}
    worst, what = 0.0, "M"
    for key, diff in diffs.items():
        if scales[key] > 0 and diff / scales[key] > worst:
            worst, what = diff / scales[key], key
    return worst, what


def check_against_tree(arm: NumericArm, tree: UrdfTree, chain: Chain, tolerance: float = CHECK_TOL,
                       poses: int = CHECK_POSES, seed: int = 7) -> float:
    """The largest relative disagreement of M, G and the tool pose at ``poses`` random poses;
    raises :class:`UrdfError` with the figure when it exceeds ``tolerance``."""
    ref = TreeReference(tree, chain, arm.base[:3, :3] @ arm.gravity)
    rng = np.random.default_rng(seed)
    diffs: dict[str, list[float]] = {"M": [], "G": [], "tool pose": []}
    scales: dict[str, float] = {"M": 0.0, "G": 0.0, "tool pose": 1e-3}
    reach = 1e-3
    for _ in range(poses):
        q = rng.uniform(-np.pi, np.pi, arm.n)
        q[~arm.revolute] = rng.uniform(-0.5, 0.5, int((~arm.revolute).sum()))
        M, G, tip = ref.evaluate(q)
        ours = (mass_matrix(arm, q), gravity_torque(arm, q), arm.tool_pose(q.tolist()))
        for key, mine, theirs in zip(diffs, ours, (M, G, tip)):
            if not np.all(np.isfinite(mine)):
                raise UrdfError(f"the imported model's {key} is not finite at q = {np.round(q, 3).tolist()}")
            diffs[key].append(float(np.abs(mine - theirs).max()))
            scales[key] = max(scales[key], float(np.abs(theirs).max()))
        reach = max(reach, float(np.linalg.norm(tip[:3, 3] - arm.base[:3, 3])))
    mass = sum(ine.mass for link, ine in tree.inertials.items() if ine is not None and link in ref.owner)
    worst, what = relative_worst({k: max(v) for k, v in diffs.items()}, scales, mass, reach,
                                 float(np.linalg.norm(ref.g)))
    if not worst <= tolerance:
        raise UrdfError(f"the imported model disagrees with the file's own kinematic tree: {what} off by "
                        f"{worst:.2g} relative (allowed {tolerance:.2g}) at random poses; refused instead of "
                        "saving a wrong arm")
    return worst
