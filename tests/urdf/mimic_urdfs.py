"""Hand-written URDFs with mimic joints (the ROS way of describing a parallelogram), for the tests.

A parallelogram arm: base yaw j1, shoulder j2 and elbow j3 about y; the bars hang from the
forearm's rear extension (length c behind the elbow): a rod as long as the upper arm (joint jr,
mimic of j3 with multiplier -1: it stays parallel to the upper arm) and a crank of length c (joint
jc, mimic of j3: it stays parallel to the forearm) whose end lies on the shoulder axis. Written
by hand from the geometry, sharing nothing with the designer's exporter.
"""

from __future__ import annotations

import numpy as np


def _inertial(rng, mass=None) -> str:
    m = float(rng.uniform(1.0, 20.0)) if mass is None else mass
    com = [float(v) for v in rng.uniform(-0.2, 0.2, 3)]
    d = [float(v) for v in rng.uniform(0.01, 0.5, 3)]
    return (f'<inertial><origin xyz="{com[0]!r} {com[1]!r} {com[2]!r}" rpy="0 0 0"/><mass value="{m!r}"/>'
            f'<inertia ixx="{d[1] + d[2]!r}" iyy="{d[0] + d[2]!r}" izz="{d[0] + d[1]!r}" ixy="0" ixz="0" iyz="0"/>'
            "</inertial>")


def parallelogram_urdf(seed: int, wrist: bool = True, offset: float = 0.0, digits: int | None = None,
                       tilt: bool = True, from_column: bool = False, quarter: bool = False) -> str:
    """A random parallelogram arm's URDF text; ``offset``: the rod's mimic offset (its origin turned
    back by as much); ``digits``: lengths rounded to this many decimals (the loop still closes).

    ``from_column``: the palletizer's layout instead: the crank hangs from link1 on the shoulder axis
    and stays parallel to the forearm (q = q2 + q3: two coaxial mimic joints through a massless link,
    jc of j2 and jc2 of j3), the rod from the crank's end (mimic of j3, -1) reaches the forearm's rear.

    ``quarter`` (bars from the forearm): the rod's frame turned a quarter turn about x, written as
    1.5708 (3.7e-6 rad short: its axis written "0 0 -1" then tilts by as much), the crank's frame
    turned back by -1.5708, as files exported from CAD often are."""
    rng = np.random.default_rng(seed)

    def r(x):
        return round(float(x), digits) if digits is not None else float(x)
    h, L2 = r(rng.uniform(0.3, 1.0)), r(rng.uniform(0.5, 1.5))
    L3, c = r(rng.uniform(0.5, 1.5)), r(rng.uniform(0.1, 0.4))
    roll = r(rng.uniform(-0.5, 0.5)) if tilt else 0.0
    links = ["base_link", "link1", "upper", "forearm", "rod", "crank"] + (["wrist", "flange"] if wrist else [])
    out = ['<?xml version="1.0"?>', '<robot name="parallelogram">']
    for name in links:
        body = "" if name in ("base_link", "flange") else _inertial(rng)
        out.append(f'<link name="{name}">{body}</link>')

    def joint(name, kind, parent, child, xyz, rpy="0 0 0", axis="0 1 0", extra=""):
        lim = '<limit lower="-3" upper="3" effort="10" velocity="1"/>' if kind == "revolute" else ""
        out.append(f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
                   f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>{lim}{extra}</joint>')
    joint("j1", "revolute", "base_link", "link1", f"0 0 {h!r}", axis="0 0 1")
    joint("j2", "revolute", "link1", "upper", "0 0 0", rpy=f"0 0 {roll!r}")
    joint("j3", "revolute", "upper", "forearm", f"0 0 {L2!r}")

    def hand():   # the wrist and its flange, else a tool frame at the forearm's end
        if wrist:
            joint("j4", "revolute", "forearm", "wrist", f"{L3!r} 0 0", axis="0 0 1")
            joint("flange_joint", "fixed", "wrist", "flange", "0 0 0.1")
        else:
            out.append('<link name="tool"/>')
            joint("tool_joint", "fixed", "forearm", "tool", f"{L3!r} 0 0")
    if from_column:
        out.append('<link name="crank_helper"><inertial><mass value="0"/><inertia ixx="0" iyy="0" izz="0" ixy="0" '
                   'ixz="0" iyz="0"/></inertial></link>')
        hand()
        joint("jc", "revolute", "link1", "crank_helper", "0 0 0", rpy=f"0 0 {roll!r}",
              extra='<mimic joint="j2" multiplier="1"/>')
        joint("jc2", "revolute", "crank_helper", "crank", "0 0 0", extra='<mimic joint="j3" multiplier="1"/>')
        joint("jr", "revolute", "crank", "rod", f"{-c!r} 0 0", rpy=f"0 {-offset!r} 0",
              extra=f'<mimic joint="j3" multiplier="-1" offset="{offset!r}"/>')
        out.append("</robot>")
        return "\n".join(out) + "\n"
    if quarter:
        joint("jr", "revolute", "forearm", "rod", f"{-c!r} 0 0", rpy="1.5708 0 0", axis="0 0 -1",
              extra='<mimic joint="j3" multiplier="-1"/>')
        joint("jc", "revolute", "rod", "crank", f"0 {-L2!r} 0", rpy="-1.5708 0 0",
              extra='<mimic joint="j3" multiplier="1"/>')
    else:
        joint("jr", "revolute", "forearm", "rod", f"{-c!r} 0 0", rpy=f"0 {-offset!r} 0",
              extra=f'<mimic joint="j3" multiplier="-1" offset="{offset!r}"/>')
        joint("jc", "revolute", "rod", "crank", f"0 0 {-L2!r}", extra='<mimic joint="j3" multiplier="1"/>')
    hand()
    out.append("</robot>")
    return "\n".join(out) + "\n"


def _gripper() -> str:
    """An arm with a two-finger hand whose second finger mimics the first (a prismatic pair): no loop."""
    inertia = '<inertia ixx="{0}" iyy="{0}" izz="{0}" ixy="0" ixz="0" iyz="0"/>'
    links = [("base", None, None), ("arm", 2, 0.1), ("hand", 1, 0.01), ("left", 0.1, 0.001), ("right", 0.1, 0.001)]
    out = ['<?xml version="1.0"?>', '<robot name="gripper">']
    for name, mass, moment in links:
        body = "" if mass is None else f'<inertial><mass value="{mass}"/>{inertia.format(moment)}</inertial>'
        out.append(f'<link name="{name}">{body}</link>')
    joints = [("j1", "revolute", "base", "arm", "0 0 0.3", "0 0 1", "-3", "3", ""),
              ("j2", "revolute", "arm", "hand", "0.5 0 0", "0 1 0", "-3", "3", ""),
              ("finger1", "prismatic", "hand", "left", "0.1 0.02 0", "0 1 0", "0", "0.04", ""),
              ("finger2", "prismatic", "hand", "right", "0.1 -0.02 0", "0 -1 0", "0", "0.04",
               '<mimic joint="finger1"/>')]
    for name, kind, parent, child, xyz, axis, lower, upper, extra in joints:
        out.append(f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
                   f'<origin xyz="{xyz}"/><axis xyz="{axis}"/>'
                   f'<limit lower="{lower}" upper="{upper}" effort="10" velocity="1"/>{extra}</joint>')
    return "\n".join(out + ["</robot>"]) + "\n"


GRIPPER = _gripper()


def assert_same_closed_chain(model, back, seed: int = 0, poses: int = 4, spread: float = 0.6, tool: bool = False):
    """``back`` (a file written from ``model`` and read again) has ``model``'s M_a and G_a (and with
    ``tool`` its tool pose) at random actuated poses, its actuated joints matched by name."""
    from designer.kinematics import NumericArm
    from designer.model.mechanism import model_tool_link
    from designer.numeric.closed import ClosedDynamics

    def names(m, closed):
        return [m.links[i].joint_name or f"joint{i + 1}" for i in closed.closure.act]

    def tool_pose(m, closed, q_a):   # where the closed-chain views take it (model_tool_link)
        arm = NumericArm.from_model(m)
        return arm.base @ closed.tree.frames(closed.positions(q_a))[model_tool_link(m) + 1] @ arm.tool
    a, b = ClosedDynamics(model), ClosedDynamics(back)
    perm = [names(back, b).index(n) for n in names(model, a)]
    rng = np.random.default_rng(seed)
    for _ in range(poses):
        q = rng.uniform(-spread, spread, len(perm))
        qb = np.zeros_like(q)
        qb[perm] = q
        Ma = a.M(q)
        np.testing.assert_allclose(b.M(qb)[np.ix_(perm, perm)], Ma, atol=1e-9 * np.abs(Ma).max())
        np.testing.assert_allclose(b.G(qb)[perm], a.G(q), atol=1e-9 * max(1.0, np.abs(a.G(q)).max()))
        if tool:
            np.testing.assert_allclose(tool_pose(back, b, qb), tool_pose(model, a, q), atol=1e-12)
