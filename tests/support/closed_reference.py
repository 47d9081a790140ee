"""Closed-chain mechanisms for the tests, and their Pinocchio models built independently.

Generators: a planar four-bar (crank, coupler, rocker, the rocker's end pinned to the ground by
the cut joint) and an arm whose elbow is driven through a parallelogram from a crank coaxial with
the shoulder; random lengths, masses, inertias and places, either DH convention.

:func:`pin_mechanism` builds the spanning tree in Pinocchio from the model's numbers with its own
DH matrices (standard: the joint turns about the parent's z after Rz(gamma) Tz(b) Rz(theta), the
body sits at Tz(d) Tx(a) Rx(alpha) after it; modified: Rz(gamma) Tz(b) Rx(alpha) Tx(a) Rz(theta)
Tz(d) then the joint), and one CONTACT_3D rigid constraint per loop between the two cut points:
nothing of designer.kinematics or designer.numeric is used.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from designer.model import Convention, Inertia, Link, Loop, Manipulator, Pose


def _inertia(rng, m: float) -> Inertia:
    # a random physical inertia: principal moments obeying the triangle inequality, rotated
    d = rng.uniform(0.2, 1.0, 3) * m * 0.01
    d[2] = min(d[2], d[0] + d[1])
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return Inertia.from_matrix((Q @ np.diag(d) @ Q.T).tolist())


def _body(rng, scale: float) -> dict:
    m = float(rng.uniform(0.5, 3.0))
    return {"mass": m, "com": tuple(rng.uniform(-0.3, 0.3, 3) * scale), "inertia": _inertia(rng, m)}


def four_bar(rng, convention: Convention = Convention.STANDARD, massless: bool = False,
             mounted: bool = False) -> Manipulator:
    """Crank (actuated, on the base), coupler and rocker (passive); the rocker's end is pinned to the
    ground point (L0, 0, 0) by the cut joint. Closed at q = 0 by the theta offsets. ``mounted``: the
    four-bar stands in a vertical plane on a turning column (an actuated base yaw, link 1), its
    ground point on the column."""
    while True:
        L0, L1, L2, L3 = rng.uniform(0.3, 1.0, 4)
        phi = float(rng.uniform(-2.5, 2.5))
        D = np.array([L0, 0.0])
        # the crank must turn 0.7 rad either way without reaching a dead centre
        dists = [np.linalg.norm(D - L1 * np.array([math.cos(phi + e), math.sin(phi + e)]))
                 for e in np.linspace(-0.7, 0.7, 15)]
        if all(abs(L2 - L3) + 0.05 < x < L2 + L3 - 0.05 for x in dists):
            break
    return four_bar_at(rng, (L0, L1, L2, L3), phi, convention, massless, mounted)


def four_bar_at(rng, lengths, phi: float, convention: Convention = Convention.STANDARD, massless: bool = False,
                mounted: bool = False) -> Manipulator:
    """:func:`four_bar` of the ground, crank, coupler and rocker ``lengths`` (L0, L1, L2, L3) with the crank at
    ``phi`` (rad from the ground line) at the nominal pose, the rocker's joint C on the upper branch; random bodies
    from ``rng``."""
    L0, L1, L2, L3 = (float(x) for x in lengths)
    D = np.array([L0, 0.0])
    B = np.array([L1 * math.cos(phi), L1 * math.sin(phi)])
    dist = float(np.linalg.norm(D - B))
    # C on both circles (|C - B| = L2, |C - D| = L3), the upper solution
    a = (L2**2 - L3**2 + dist**2) / (2 * dist)
    h = math.sqrt(max(L2**2 - a**2, 0.0))
    u = (D - B) / dist
    C = B + a * u + h * np.array([-u[1], u[0]])
    ang_bc = math.atan2(*(C - B)[::-1])
    ang_cd = math.atan2(*(D - C)[::-1])
    thetas = [phi, ang_bc - phi, ang_cd - ang_bc]
    lengths = [L1, L2, L3]
    gravity = (0, 0, -9.81) if mounted else (0, -9.81, 0)  # in the plane of the mechanism
    links = []
    if mounted:
        column = float(rng.uniform(0.2, 0.6))
        links.append(Link(d=column, alpha=math.pi / 2 if convention is Convention.STANDARD else 0,
                          **_body(rng, column)))
    for k in range(3):
        body = {"mass": 0} if massless else _body(rng, lengths[k])
        if convention is Convention.STANDARD:
            links.append(Link(a=lengths[k], theta=thetas[k], actuated=k == 0, **body))
        else:
            links.append(Link(a=0 if k == 0 else lengths[k - 1], theta=thetas[k], actuated=k == 0,
                              alpha=math.pi / 2 if mounted and k == 0 else 0, **body))
    end = Pose() if convention is Convention.STANDARD else Pose((L3, 0, 0))
    # mounted in the modified convention, the four-bar's plane is frame 1 turned by Rx(pi/2)
    roll = math.pi / 2 if mounted and convention is Convention.MODIFIED else 0
    loop = Loop(len(links), 1 if mounted else 0, end, Pose((float(L0), 0, 0), (roll, 0, 0)), "R", "four-bar")
    return Manipulator(links=tuple(links), convention=convention, gravity=gravity, loops=(loop,),
                       name="random four-bar")


def parallelogram_arm(rng, convention: Convention = Convention.STANDARD, bars_mass: bool = True,
                      wrist: bool = False) -> Manipulator:
    """Base yaw q1; shoulder q2 and crank q4 (actuated, coaxial); forearm q3 and coupler q5 passive:
    q3 = q4 - q2, q5 = q2 - q4. With ``wrist`` a last actuated joint on the forearm (link 6)."""
    h, L2, L3, c = rng.uniform(0.3, 0.8), rng.uniform(0.5, 1.0), rng.uniform(0.5, 1.0), rng.uniform(0.15, 0.35)
    phi0 = float(rng.uniform(2.0, 3.0))     # the crank points backwards
    half = math.pi / 2
    std = convention is Convention.STANDARD
    bar = (lambda s: _body(rng, s)) if bars_mass else (lambda s: {"mass": 0})
    if std:
        links = [Link(d=h, alpha=half, **_body(rng, h)),
                 Link(a=L2, **_body(rng, L2)),
                 Link(a=L3, actuated=False, **_body(rng, L3)),
                 Link(a=c, theta=phi0, parent=1, **bar(c)),
                 Link(a=L2, theta=-phi0, parent=4, actuated=False, **bar(L2))]
        on_forearm = Pose((-L3 + c * math.cos(phi0), c * math.sin(phi0), 0))   # frame 3 is at the wrist
        end_of_coupler = Pose()
    else:
        links = [Link(d=h, **_body(rng, h)),
                 Link(alpha=half, **_body(rng, L2)),
                 Link(a=L2, actuated=False, **_body(rng, L3)),
                 Link(alpha=half, theta=phi0, parent=1, **bar(c)),
                 Link(a=c, theta=-phi0, parent=4, actuated=False, **bar(L2))]
        on_forearm = Pose((c * math.cos(phi0), c * math.sin(phi0), 0))          # frame 3 is at the elbow
        end_of_coupler = Pose((L2, 0, 0))
    if wrist:
        links.append(Link(a=0.1, alpha=half, parent=3, **_body(rng, 0.1)) if std else
                     Link(a=L3, alpha=half, parent=3, **_body(rng, 0.1)))
    loop = Loop(5, 3, end_of_coupler, on_forearm, "R", "parallelogram")
    return Manipulator(links=tuple(links), convention=convention, gravity=(0, 0, -9.81), loops=(loop,),
                       name="random parallelogram arm")


# -- Pinocchio, independently ------------------------------------------------------------------

def _rz(t):
    c, s = math.cos(t), math.sin(t)
    T = np.eye(4)
    T[:2, :2] = [[c, -s], [s, c]]
    return T


def _rx(t):
    c, s = math.cos(t), math.sin(t)
    T = np.eye(4)
    T[1:3, 1:3] = [[c, -s], [s, c]]
    return T


def _tr(x=0.0, z=0.0):
    T = np.eye(4)
    T[0, 3], T[2, 3] = x, z
    return T


def _rpy(xyz, rpy):
    r, p, y = (float(v) for v in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    T = np.eye(4)
    T[:3, :3] = [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                 [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr], [-sp, cp * sr, cp * cr]]
    T[:3, 3] = [float(v) for v in xyz]
    return T


def _depth_first(parents: list[int]) -> list[int]:
    """Link numbers (1-based) in depth-first order: Pinocchio's algorithms that walk a joint's
    subtree (crba, the constrained dynamics) expect each subtree to be contiguous in the joint order."""
    out: list[int] = []

    def visit(k: int) -> None:
        for child in [i for i in range(1, len(parents) + 1) if parents[i - 1] == k]:
            out.append(child)
            visit(child)
    visit(0)
    return out


def _pin_tree(m: Manipulator):
    """(pin model, joint id of each link (0 the base), each link's frame in its joint's frame, order) of the
    numeric model ``m``'s spanning tree, gravity in frame 0 (turned from the world by the base's rpy)."""
    import pinocchio as pin
    pm = pin.Model()
    g = np.array([float(v) for v in m.gravity])
    if m.gravity_in_world and m.base is not None:
        g = _rpy((0, 0, 0), m.base.rpy)[:3, :3].T @ g
    pm.gravity = pin.Motion(g, np.zeros(3))
    parents = [i - 1 if l.parent is None else l.parent for i, l in enumerate(m.links, start=1)]
    link_in_joint = {0: np.eye(4)}   # link frame i in joint frame i; 0 the base
    joint_id = {0: 0}
    for i in _depth_first(parents):
        link = m.links[i - 1]
        a, alpha, d, theta = (float(v) for v in (link.a, link.alpha, link.d, link.theta))
        gamma, b = float(link.gamma), float(link.b)
        parent = parents[i - 1]
        pre = _rz(gamma) @ _tr(z=b)
        if m.convention is Convention.STANDARD:
            placement = link_in_joint[parent] @ pre @ (_rz(theta) if link.is_revolute else _rz(theta) @ _tr(z=d))
            after = (_tr(z=d) @ _tr(x=a) @ _rx(alpha)) if link.is_revolute else _tr(x=a) @ _rx(alpha)
        else:
            placement = link_in_joint[parent] @ pre @ _rx(alpha) @ _tr(x=a) @ _rz(theta) @ _tr(z=d)
            after = np.eye(4)
        joint = pin.JointModelRZ() if link.is_revolute else pin.JointModelPZ()
        jid = pm.addJoint(joint_id[parent], joint, pin.SE3(placement[:3, :3], placement[:3, 3]), f"j{i}")
        I = np.array(link.inertia.matrix().tolist(), dtype=float)
        com = np.array([float(c) for c in link.com])
        placed = pin.SE3(after[:3, :3], after[:3, 3])
        pm.appendBodyToJoint(jid, placed.act(pin.Inertia(float(link.mass), com, I)), pin.SE3.Identity())
        for load in m.point_masses_on(i):   # a point mass: no inertia about its own centre
            at = np.array([float(c) for c in load.position])
            pm.appendBodyToJoint(jid, placed.act(pin.Inertia(float(load.mass), at, np.zeros((3, 3)))),
                                 pin.SE3.Identity())
        joint_id[i] = jid
        link_in_joint[i] = after
    return pm, joint_id, link_in_joint, [i - 1 for i in _depth_first(parents)]


def _cut_frames(link_in_joint, loop) -> tuple[np.ndarray, np.ndarray]:
    """The cut joint's frame on link i and on link j, each in its link's joint frame."""
    return (link_in_joint[loop.link_i] @ _rpy(loop.frame_i.xyz, loop.frame_i.rpy),
            link_in_joint[loop.link_j] @ _rpy(loop.frame_j.xyz, loop.frame_j.rpy))


def pin_mechanism(model: Manipulator, exact_cuts: bool = False):
    """(pin model, constraint models, order): the spanning tree with revolute/prismatic z joints added
    depth first, and a CONTACT_3D constraint per loop (the cut points coincide; planar loops need no
    more). ``order[k]`` is the 0-based link of Pinocchio's k-th joint: ``x[order]`` is a vector of
    ours in Pinocchio's order. With ``exact_cuts`` each cut joint's own conditions, for spatial loops: a
    fixed cut ("F") a CONTACT_6D constraint, and a revolute one a second CONTACT_3D one at the point one metre
    along both frames' z axes after all the loops' first ones (two points of the axis coincide: the origins
    and the z axes; the loops' first constraints keep their places in ``lambda_c``)."""
    import pinocchio as pin
    m = model.numeric()
    pm, joint_id, link_in_joint, order = _pin_tree(m)
    constraints, axes = [], []
    for loop in m.loops:
        Fi, Fj = _cut_frames(link_in_joint, loop)
        kind = pin.ContactType.CONTACT_6D if exact_cuts and loop.joint.value == "F" else pin.ContactType.CONTACT_3D
        constraints.append(pin.RigidConstraintModel(
            kind, pm, joint_id[loop.link_i], pin.SE3(Fi[:3, :3], Fi[:3, 3]),
            joint_id[loop.link_j], pin.SE3(Fj[:3, :3], Fj[:3, 3]), pin.ReferenceFrame.LOCAL))
        if exact_cuts and loop.joint.value == "R":
            Fi, Fj = Fi @ _tr(z=1.0), Fj @ _tr(z=1.0)
            axes.append(pin.RigidConstraintModel(
                pin.ContactType.CONTACT_3D, pm, joint_id[loop.link_i], pin.SE3(Fi[:3, :3], Fi[:3, 3]),
                joint_id[loop.link_j], pin.SE3(Fj[:3, :3], Fj[:3, 3]), pin.ReferenceFrame.LOCAL))
    return pm, constraints + axes, order


@functools.lru_cache(maxsize=8)
def _pin_tree_of(model: Manipulator):
    return _pin_tree(model.numeric())


def tree_frames(model: Manipulator, q=None) -> list[np.ndarray]:
    """Every link's frame in frame 0 (index 0 the base) at the tree pose ``q`` (ours' order; default 0), by
    Pinocchio's forward kinematics of :func:`pin_mechanism`'s tree."""
    import pinocchio as pin
    m = model
    pm, joint_id, link_in_joint, order = _pin_tree_of(model)
    data = pm.createData()
    q = np.zeros(m.n) if q is None else np.asarray(q, float)
    pin.forwardKinematics(pm, data, q[order])
    return [np.eye(4)] + [data.oMi[joint_id[i]].homogeneous @ link_in_joint[i] for i in range(1, m.n + 1)]


def loop_conditions(m: Manipulator, q) -> np.ndarray:
    """The loops' closure conditions at the tree pose q (zero when closed), by :func:`tree_frames`: per loop the
    cut frames' origins' difference (3 rows), for "R" also their z axes', for "F" their rotations' (rows that are
    dependent stay: the rank is what counts). ``m``: a numeric model."""
    T = tree_frames(m, q)
    out = []
    for loop in m.loops:
        Ti = T[loop.link_i] @ _rpy(loop.frame_i.xyz, loop.frame_i.rpy)
        Tj = T[loop.link_j] @ _rpy(loop.frame_j.xyz, loop.frame_j.rpy)
        out.append(Ti[:3, 3] - Tj[:3, 3])
        if loop.joint.value == "R":
            out.append(Ti[:3, 2] - Tj[:3, 2])
        if loop.joint.value == "F":
            out.append((Ti[:3, :3] - Tj[:3, :3]).ravel())
    return np.concatenate(out)


def loop_jacobian(model: Manipulator, q=None, eps: float = 1e-6) -> np.ndarray:
    """:func:`loop_conditions`' Jacobian over every tree joint (ours' order) by central differences."""
    m = model.numeric()
    q = np.zeros(m.n) if q is None else np.asarray(q, float)
    return np.array([(loop_conditions(m, q + e) - loop_conditions(m, q - e)) / (2 * eps)
                     for e in np.eye(m.n) * eps]).T


def pin_close(model: Manipulator, q_a, steps: int = 8) -> np.ndarray | None:
    """The tree pose at the actuated values ``q_a`` on the branch of the nominal pose, by scipy's least squares
    over :func:`loop_conditions` along a straight path from 0 (a homotopy of ``steps`` steps), or None where the
    path leaves the mechanism's reach (the residual stays above 1e-9 m)."""
    from scipy.optimize import least_squares
    m = model.numeric()
    act = [i for i, link in enumerate(m.links) if link.actuated]
    pas = [i for i, link in enumerate(m.links) if not link.actuated]
    x = np.zeros(m.n)
    for t in np.linspace(0.0, 1.0, steps + 1)[1:]:
        x[act] = t * np.asarray(q_a, float)

        def f(p, x=x):
            y = x.copy()
            y[pas] = p
            return loop_conditions(m, y)
        fit = least_squares(f, x[pas], xtol=1e-15, ftol=1e-15, gtol=1e-15)
        if np.abs(fit.fun).max() > 1e-9:
            return None
        x[pas] = fit.x
    return x


class PinMechanism:
    """Pinocchio's side of a mechanism, taking and giving vectors in our joint order."""

    def __init__(self, model: Manipulator, accuracy: float = 1e-14, mu: float = 1e-12, iterations: int = 500,
                 exact_cuts: bool = False):
        import pinocchio as pin
        self.pin = pin
        self.model, self.constraints, order = pin_mechanism(model, exact_cuts)
        self.order = np.array(order)
        self.data = self.model.createData()
        self.cdatas = [c.createData() for c in self.constraints]
        pin.initConstraintDynamics(self.model, self.data, self.constraints, self.cdatas)
        self.prox = pin.ProximalSettings(accuracy, mu, iterations)

    def _ours(self, x):
        out = np.empty(len(self.order))
        out[self.order] = x
        return out

    def rnea(self, q, qd, qdd):
        o = self.order
        return self._ours(self.pin.rnea(self.model, self.model.createData(), q[o], qd[o], qdd[o]))

    def constrained(self, q, qd, tau):
        """q'' of the constrained dynamics (ours' order); ``lambda_c`` holds the contact forces."""
        o = self.order
        qdd = self.pin.constraintDynamics(self.model, self.data, q[o], qd[o], tau[o], self.constraints,
                                          self.cdatas, self.prox)
        return self._ours(qdd)

    @property
    def lambda_c(self):
        return self.data.lambda_c


def closable_state(rng, model: Manipulator, dyn, span: float = 0.2):
    """Actuated values within ``span`` of the nominal pose where the loops close, and the tree pose there: where
    ``dyn`` says a loop cannot close, the independent solver :func:`pin_close` must fail too, and a smaller span
    is drawn; the closed pose must be the independent solver's."""
    from designer.kinematics.closure import ClosureError
    for _ in range(6):
        qa = rng.uniform(-span, span, dyn.n)
        ref = pin_close(model, qa)
        try:
            q_tree = dyn.positions(qa)
        except ClosureError:
            assert ref is None, f"the loops close at {qa} (Pinocchio's frames), ClosedDynamics says they cannot"
            span /= 2
            continue
        if ref is not None:
            assert np.abs(q_tree - ref).max() < 1e-7
        return qa, q_tree
    raise AssertionError("no state where the loops close near the nominal pose")


def pin_accelerations(ref: PinMechanism, dyn, q, qd_a, tau_a) -> np.ndarray:
    """Pinocchio's actuated accelerations at the closed tree pose q, the actuated rates qd_a (the passive ones
    from Pinocchio's own constraint Jacobian: J_c qd_tree = 0) and the actuated torques tau_a."""
    import pinocchio as pin
    pin.computeAllTerms(ref.model, ref.data, q[ref.order], np.zeros(dyn.n_tree))
    Jc = np.vstack([pin.getConstraintJacobian(ref.model, ref.data, c, cd)
                    for c, cd in zip(ref.constraints, ref.cdatas)])
    Jc_ours = np.empty_like(Jc)
    Jc_ours[:, ref.order] = Jc
    act = list(dyn.actuated)
    pas = [i for i in range(dyn.n_tree) if i not in act]
    qd_tree, tree_tau = np.zeros(dyn.n_tree), np.zeros(dyn.n_tree)
    qd_tree[act], tree_tau[act] = qd_a, tau_a
    qd_tree[pas] = -np.linalg.lstsq(Jc_ours[:, pas], Jc_ours[:, act] @ qd_a, rcond=None)[0]
    return ref.constrained(q, qd_tree, tree_tau)[act]


def pin_actuated_terms(ref: PinMechanism, dyn, q, qd_a) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(M_a, G_a, h_a) in the actuated coordinates at the closed tree pose q and actuated rates qd_a, from
    Pinocchio's constrained accelerations alone: its responses to unit torques give M_a^-1, its accelerations at
    rest and at zero torque G_a, at qd_a h_a."""
    n = len(dyn.actuated)
    zero = np.zeros(n)
    a0 = pin_accelerations(ref, dyn, q, zero, zero)
    M = np.linalg.inv(np.array([pin_accelerations(ref, dyn, q, zero, e) - a0 for e in np.eye(n)]).T)
    G = -M @ a0
    return M, G, -M @ pin_accelerations(ref, dyn, q, qd_a, zero) - G


def pin_tree_terms(model: Manipulator, q, qd) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(M, G, h) of a mechanism's spanning tree (its loops ignored) at the tree state q, qd in our joint order:
    Pinocchio's crba and rnea."""
    import pinocchio as pin
    pm, _, _, order = _pin_tree(model.numeric())
    data, o = pm.createData(), np.array(order)
    M = pin.crba(pm, data, np.asarray(q, float)[o])
    M = np.triu(M) + np.triu(M, 1).T
    G = pin.rnea(pm, data, q[o], np.zeros(len(o)), np.zeros(len(o))).copy()
    h = pin.rnea(pm, data, q[o], qd[o], np.zeros(len(o))) - G
    back = np.empty(len(o), int)
    back[o] = np.arange(len(o))
    return M[np.ix_(back, back)], G[back], h[back]


def felt(cd, q_tree, force) -> tuple[np.ndarray, np.ndarray]:
    """(loop 1's cut-joint force ``force`` (frame 0) as the joints feel it, in the cut frame on its link i;
    the projector P onto those components): Pinocchio's lambda_c is in that frame, and a planar loop's
    out-of-plane reaction that no joint feels is left to each side's least-norm solution, so only P x
    compares (``P @ lambda_c[:3]`` the other side)."""
    terms = cd.tree.loop_terms(q_tree)
    i, _, Fi, _, _ = cd.tree.loops[0]
    R = (cd.tree.frames(q_tree)[i + 1] @ Fi)[:3, :3]
    J_local = R.T @ terms.jacobian[:3]
    P = np.linalg.pinv(J_local.T) @ J_local.T
    return P @ (R.T @ np.asarray(force, float)), P
