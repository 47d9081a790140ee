"""Random kinematic trees with the branches real arm files have, written as URDF and as MJCF, and the
arm the tip rule must choose in them, computed from the tree itself (not by the importer's code).

A tree is a main chain of moving joints from the base, with: a branch of fixed links only (a camera
on the forearm, a head whose joint the file leaves out), a shorter moving branch from an early link
(a head with pan and tilt), and at the end several fingers of equally many moving joints (a hand).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

__all__ = ["Body", "expected_arm", "random_tree", "tree_mjcf", "tree_urdf"]


@dataclass
class Body:
    name: str
    parent: int            # index of the parent body, -1 the base
    joint: str | None      # "revolute", "prismatic" or None (fixed)
    axis: np.ndarray
    pos: np.ndarray        # the joint frame (= body frame) in the parent's frame
    rpy: np.ndarray        # URDF roll-pitch-yaw (fixed axes x, y, z)
    mass: float
    com: np.ndarray
    inertia_rpy: np.ndarray   # the principal axes of the inertia in the body frame
    moments: np.ndarray


def _body(rng, name: str, parent: int, joint: str | None) -> Body:
    axis = rng.normal(size=3)
    box = rng.uniform(0.02, 0.3, 3)
    mass = float(rng.uniform(0.2, 3.0))
    moments = mass / 12 * np.array([box[1] ** 2 + box[2] ** 2, box[0] ** 2 + box[2] ** 2, box[0] ** 2 + box[1] ** 2])
    return Body(name, parent, joint, axis / np.linalg.norm(axis), rng.uniform(-0.3, 0.3, 3),
                rng.uniform(-np.pi, np.pi, 3), mass, rng.uniform(-0.1, 0.1, 3), rng.uniform(-np.pi, np.pi, 3),
                moments)


def random_tree(rng: np.random.Generator) -> list[Body]:
    """A base (index 0, fixed) and the branches of the module docstring, in random amounts."""
    n = int(rng.integers(3, 7))
    bodies = [_body(rng, "base", -1, None)]
    chain = [0]
    for i in range(n):
        kind = "prismatic" if rng.random() < 0.2 else "revolute"
        bodies.append(_body(rng, f"link{i + 1}", chain[-1], kind))
        chain.append(len(bodies) - 1)
    if rng.random() < 0.8:   # links fixed to a moving link: part of it, never a branch
        at = int(rng.choice(chain[1:]))
        bodies.append(_body(rng, "camera", at, None))
        bodies.append(_body(rng, "camera_lens", len(bodies) - 1, None))
    if rng.random() < 0.8 and n >= 3:   # a head: fewer moving joints than the arm from wherever it hangs
        at = int(rng.integers(0, n - 1))
        parent = chain[at]
        for k in range(int(rng.integers(1, n - at))):
            bodies.append(_body(rng, f"head{k + 1}", parent, "revolute"))
            parent = len(bodies) - 1
    fingers = int(rng.integers(0, 4))
    if fingers:
        palm = len(bodies)
        bodies.append(_body(rng, "palm", chain[-1], None))
        depth = int(rng.integers(1, min(n, 3) + 1))
        for f in range(fingers):
            parent = palm
            for k in range(depth):
                kind = "prismatic" if k == 0 and rng.random() < 0.5 else "revolute"
                bodies.append(_body(rng, f"finger{f + 1}_{k + 1}", parent, kind))
                parent = len(bodies) - 1
    return bodies


def expected_arm(bodies: list[Body]) -> tuple[list[str], str]:
    """(the arm's moving joints, its tip body) by the rule: the longest chain of moving joints; equally
    long ones part after no fewer moving joints than follow the parting: the arm ends where they part."""
    children: dict[int, list[int]] = {}
    for k, b in enumerate(bodies):
        children.setdefault(b.parent, []).append(k)

    def path(k: int) -> list[int]:
        out = []
        while k >= 0:
            out.append(k)
            k = bodies[k].parent
        return out[::-1]
    leaves = [k for k in range(len(bodies)) if k not in children]
    moving = {leaf: [k for k in path(leaf) if bodies[k].joint] for leaf in leaves}
    longest = max(len(m) for m in moving.values())
    top = [leaf for leaf in leaves if len(moving[leaf]) == longest]
    if len(top) == 1:
        return [f"j_{bodies[k].name}" for k in moving[top[0]]], bodies[top[0]].name
    paths = [path(leaf) for leaf in top]
    common = 0
    while all(len(p) > common for p in paths) and len({p[common] for p in paths}) == 1:
        common += 1
    shared = [k for k in paths[0][:common] if bodies[k].joint]
    assert len(shared) >= longest - len(shared), "two arms: no tip by the rule"
    return [f"j_{bodies[k].name}" for k in shared], bodies[paths[0][common - 1]].name


def _v(values) -> str:
    return " ".join(repr(float(v)) for v in values)


def tree_urdf(bodies: list[Body]) -> str:
    """The tree as URDF: link = body, each joint ``j_<body>`` placing its child at ``pos``/``rpy``."""
    links, joints = [], []
    for b in bodies:
        links.append(f'<link name="{b.name}"><inertial><origin xyz="{_v(b.com)}" rpy="{_v(b.inertia_rpy)}"/>'
                     f'<mass value="{b.mass!r}"/><inertia ixx="{float(b.moments[0])!r}" iyy="{float(b.moments[1])!r}" '
                     f'izz="{float(b.moments[2])!r}" ixy="0" ixz="0" iyz="0"/></inertial></link>')
        if b.parent < 0:
            continue
        limit = '<limit effort="10" velocity="2" lower="-3" upper="3"/>' if b.joint else ""
        joints.append(f'<joint name="j_{b.name}" type="{b.joint or "fixed"}"><parent link="{bodies[b.parent].name}"/>'
                      f'<child link="{b.name}"/><origin xyz="{_v(b.pos)}" rpy="{_v(b.rpy)}"/>'
                      f'<axis xyz="{_v(b.axis)}"/>{limit}</joint>')
    return f'<robot name="tree">{"".join(links)}{"".join(joints)}</robot>'


def _quat(rpy) -> str:
    x, y, z, w = Rotation.from_euler("xyz", rpy).as_quat()   # extrinsic x, y, z: URDF's rpy
    return _v((w, x, y, z))


def tree_mjcf(bodies: list[Body]) -> str:
    """The same tree as MJCF: body = link, a hinge or slide ``j_<body>`` at the body's origin."""
    def body(k: int) -> str:
        b = bodies[k]
        kind = "hinge" if b.joint == "revolute" else "slide"
        joint = f'<joint name="j_{b.name}" type="{kind}" axis="{_v(b.axis)}" range="-3 3"/>' if b.joint else ""
        inner = "".join(body(c) for c in range(len(bodies)) if bodies[c].parent == k)
        return (f'<body name="{b.name}" pos="{_v(b.pos)}" quat="{_quat(b.rpy)}">{joint}'
                f'<inertial pos="{_v(b.com)}" quat="{_quat(b.inertia_rpy)}" mass="{b.mass!r}" '
                f'diaginertia="{_v(b.moments)}"/>{inner}</body>')
    return ('<mujoco model="tree"><compiler angle="radian" autolimits="true"/>'
            f'<worldbody>{body(0)}</worldbody></mujoco>')
