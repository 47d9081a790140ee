"""Random arms as models (for the regressor, base-parameter and linearization tests): both DH
conventions, R and P joints, twists that are and are not multiples of 90 degrees, loads; and
:func:`random_project`, random projects of every shape the project format allows (:class:`Shapes`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.kinematics import NumericArm
from designer.model import Convention, Inertia, JointType, Link, Manipulator, PointMass


def model_from_arm(arm: NumericArm, name: str = "random") -> Manipulator:
    """The Manipulator of a NumericArm (floats throughout)."""
    links = []
    for i in range(arm.n):
        a, alpha, d, theta = (float(x) for x in arm.dh[i])
        links.append(Link(JointType.REVOLUTE if arm.revolute[i] else JointType.PRISMATIC, a=a, alpha=alpha, d=d,
                          theta=theta, mass=float(arm.mass[i]), com=tuple(float(c) for c in arm.com[i]),
                          inertia=Inertia.from_matrix(np.asarray(arm.inertia[i]).tolist())))
    loads = tuple(PointMass(int(j) + 1, float(m), tuple(float(c) for c in pos)) for j, m, pos in arm.point_masses)
    return Manipulator(links=tuple(links), name=name, convention=arm.convention,
                       gravity=tuple(float(g) for g in arm.gravity), point_masses=loads)


def random_model(rng: np.random.Generator, n: int, convention: Convention, right_angles: bool = False) -> Manipulator:
    """A random arm; with ``right_angles`` the twists are 0 or +-pi/2 (written as floats) and some
    lengths zero, the structure of real arms where extra parameters group."""
    from tests.support.pin_reference import random_arm
    arm = random_arm(rng, n, convention)
    if right_angles:
        dh = arm.dh.copy()
        dh[:, 1] = rng.choice([0.0, 1.5707963267948966, -1.5707963267948966], n)
        dh[:, 0] *= rng.random(n) < 0.5
        dh[:, 2] *= rng.random(n) < 0.5
        dh[:, 3] = 0.0
        arm = NumericArm(arm.convention, arm.revolute, dh, arm.mass, arm.com, arm.inertia, np.array([0, 0, -9.81]),
                         arm.limits, arm.point_masses)
    return model_from_arm(arm)


# -- random projects of every shape the format allows ------------------------------------------------------------
#
# One generator for the end-to-end tests (tests/model/test_random_shapes.py, tests/numeric/test_random_shapes.py,
# tests/cli/test_random_shapes.py): a random project as the writer saves it, holding whichever of the format's
# shapes ``Shapes`` asks for. The loops are closed at the nominal pose with Pinocchio's own frames
# (tests/support/closed_reference.py), not with designer.kinematics, and each loop's passive joints are the
# best-conditioned columns of Pinocchio's loop Jacobian (pivoted QR), so the mobility is right by construction.

#: the format's shapes, each a flag of :class:`Shapes` (the report's list; tests name them)
SHAPE_NAMES = ("modified", "prismatic", "degenerate", "offsets", "named", "frames", "limits", "drives", "elastic",
               "parts", "loads", "branches", "loops", "requirements")


@dataclass(frozen=True)
class Shapes:
    """What a random project holds. ``joints``: the main chain's joint letters (None: random, 2 to 6 joints);
    ``loops``: one cut joint per letter ("R", "S", "F"), each closing a branch of its own; ``planar``: those
    branches move in a plane (the branch's axes parallel), else spatial (a branch long enough for the cut)."""

    joints: str | None = None
    convention: Convention | None = None
    degenerate: bool = False   # zero-length links, coincident (a = alpha = 0) and parallel (alpha = 0) axes
    offsets: bool = True       # theta and d offsets (the joint variable's zero elsewhere)
    named: bool = False        # lengths, masses, a load and a stiffness as named parameters with values
    frames: bool = False       # base and tool poses, gravity given in the world
    limits: bool = False
    drives: bool = False       # gear ratio, rotor inertia, friction, ratings
    elastic: bool = False      # a gearbox stiffness (and damping) on some joints
    parts: bool = False        # links as tubes, box sections, cylinders, boxes of built-in or own materials
    loads: bool = False        # point masses
    branches: int = 0          # moving side branches (a tree, gamma and b)
    loops: tuple[str, ...] = ()
    planar: bool = True
    requirements: bool = False   # a payload, a cycle and requirements at the zero pose, at poses, along the cycle

    @classmethod
    def every(cls, rng: np.random.Generator) -> Shapes:
        """A random mix of every flag (a serial arm, a tree or a closed chain)."""
        flip = lambda p=0.5: bool(rng.random() < p)  # noqa: E731
        kind = rng.integers(3)
        return cls(convention=list(Convention)[int(rng.integers(2))], degenerate=flip(), offsets=flip(0.7),
                   named=flip(), frames=flip(), limits=flip(), drives=flip(), elastic=flip(0.3), parts=flip(0.4),
                   loads=flip(), branches=int(rng.integers(1, 3)) if kind >= 1 else 0,
                   loops=tuple(rng.choice(["R", "S", "F"], int(rng.integers(1, 3)))) if kind == 2 else (),
                   planar=flip(0.6), requirements=flip(0.3))


def _twist(rng, degenerate: bool) -> float:
    """A twist: 0 (parallel axes), +-pi/2 and pi as real tables have them, or any angle."""
    return float(rng.choice([0.0, np.pi / 2, -np.pi / 2, np.pi, rng.uniform(-np.pi, np.pi)],
                            p=[0.35, 0.2, 0.2, 0.05, 0.2] if degenerate else [0.1, 0.2, 0.2, 0.05, 0.45]))


def _symbolic(value: float, name: str, params: dict, rng, named: bool):
    """``value`` as a number, or (``named``, half the time) as the parameter ``name`` or an expression of it."""
    if not named or rng.random() < 0.5 or value == 0:
        return value
    from designer.model import symbol
    if rng.random() < 0.3:
        params[name] = value / 2
        return 2 * symbol(name)
    params[name] = value
    return symbol(name)


def _shape_body(rng, s: Shapes, i: int, params: dict) -> dict:
    m = float(rng.uniform(0.3, 4.0))
    from tests.support.pin_reference import random_inertia
    return {"mass": _symbolic(m, f"m{i}", params, rng, s.named),
            "com": tuple(float(c) for c in rng.uniform(-0.2, 0.2, 3)),
            "inertia": Inertia.from_matrix((random_inertia(rng) * m * 0.1).tolist())}


def _part(rng, s: Shapes, i: int, params: dict):
    from designer.model.parts import MATERIALS, Material, Part
    shape = str(rng.choice(["tube", "box_section", "cylinder", "box"]))
    own = Material("test alloy", 4000.0, 90e9, 35e9)
    material = own if rng.random() < 0.3 else MATERIALS[str(rng.choice(sorted(MATERIALS)))]
    outer = float(rng.uniform(0.04, 0.12))
    dims = {"tube": {"outer_diameter": outer, "wall": outer * 0.1},
            "box_section": {"width": outer, "height": outer * 1.3, "wall": outer * 0.08},
            "cylinder": {"diameter": outer * 0.6}, "box": {"width": outer * 0.5, "height": outer * 0.7}}[shape]
    first = next(iter(dims))
    dims[first] = _symbolic(dims[first], f"D{i}", params, rng, s.named)
    return Part(shape, material, tuple(dims.items()))


def _drive(rng, s: Shapes, i: int, params: dict, elastic: bool):
    from designer.model.extras import Drive
    values = {}
    if s.drives:
        values = {"rated_torque": float(rng.uniform(20, 200)), "peak_torque": float(rng.uniform(200, 400)),
                  "rated_speed": float(rng.uniform(1, 4)), "gear_ratio": float(rng.uniform(10, 120)),
                  "motor_inertia": float(rng.uniform(1e-5, 5e-4)), "viscous": float(rng.uniform(0, 2)),
                  "coulomb": float(rng.uniform(0, 3))}
    if elastic:
        values.setdefault("gear_ratio", float(rng.uniform(10, 120)))
        values.setdefault("motor_inertia", float(rng.uniform(1e-5, 5e-4)))
        values["stiffness"] = _symbolic(float(rng.uniform(2e4, 2e5)), f"k{i}", params, rng, s.named)
        if rng.random() < 0.5:
            values["damping"] = float(rng.uniform(1, 50))
    return Drive(**values) if values else None


def _random_pose(rng, scale: float = 0.3):
    from designer.model.extras import Pose
    return Pose(tuple(float(v) for v in rng.uniform(-scale, scale, 3)),
                tuple(float(v) for v in rng.uniform(-np.pi, np.pi, 3)))


def _chain_link(rng, s: Shapes, i: int, kind: str, params: dict, *, parent=None, planar=False, zero=False) -> Link:
    """Link ``i`` (1-based) of kind "R"/"P": its DH numbers, body (or part), drive, limits."""
    a, d = float(rng.uniform(-0.5, 0.5)), float(rng.uniform(-0.4, 0.4))
    alpha = 0.0 if planar else _twist(rng, s.degenerate)
    theta = float(rng.uniform(-np.pi, np.pi)) if s.offsets else 0.0
    if not s.offsets and kind == "P":
        d = 0.0
    if zero or (s.degenerate and rng.random() < 0.25):   # a zero-length link; with alpha = 0 the axes coincide
        a, d = 0.0, 0.0
    if planar and kind == "R":
        d = 0.0 if rng.random() < 0.5 else d
    link = dict(joint=JointType.REVOLUTE if kind == "R" else JointType.PRISMATIC,
                a=_symbolic(a, f"L{i}", params, rng, s.named), alpha=alpha, d=d, theta=theta,
                name=f"link{i}", parent=parent)
    link.update(_shape_body(rng, s, i, params))
    if s.limits and rng.random() < 0.7:
        link["limits"] = (float(rng.uniform(-3, -1)), float(rng.uniform(1, 3))) if kind == "R" else \
            (float(rng.uniform(-0.5, -0.2)), float(rng.uniform(0.2, 0.5)))
    link["drive"] = _drive(rng, s, i, params, s.elastic and (i == 1 or rng.random() < 0.5))
    if parent is not None and rng.random() < 0.6:   # Khalil-Kleinfinger's branching parameters
        link["gamma"], link["b"] = float(rng.uniform(-np.pi, np.pi)), float(rng.uniform(-0.2, 0.2))
    return Link(**link)


def _with_parts(model: Manipulator, rng, s: Shapes, params: dict) -> Manipulator:
    """Some links made as parts, where the link's DH segment is long enough to carry one."""
    from dataclasses import replace

    from designer.model.parts import PartError
    links = list(model.links)
    for i in rng.permutation(len(links))[: max(1, len(links) // 2)]:
        trial = replace(links[i], part=_part(rng, s, int(i) + 1, params), mass=0, com=(0, 0, 0), inertia=Inertia())
        try:
            made = replace(model, links=tuple(links[:i] + [trial] + links[i + 1:]), parameters=params)
            mass = float(made.numeric().links[i].mass)
        except (PartError, ValueError):
            continue
        if mass > 1e-3:
            links[i] = trial
    return replace(model, links=tuple(links))


def random_project(rng: np.random.Generator, s: Shapes | None = None) -> Manipulator:
    """A random project with the shapes ``s`` asks for (:meth:`Shapes.every` when None): a main chain, then
    ``s.branches`` moving side branches, then one branch per loop closed by its cut joint."""
    from dataclasses import replace

    s = s or Shapes.every(rng)
    conv = s.convention or list(Convention)[int(rng.integers(2))]
    joints = s.joints or "".join(rng.choice(["R", "P"], int(rng.integers(2, 7)), p=[0.65, 0.35]))
    params: dict = {}
    links = [_chain_link(rng, s, i, k, params) for i, k in enumerate(joints, start=1)]
    for _ in range(s.branches):
        root = int(rng.integers(0, len(links)))     # 0: on the base
        for k in range(int(rng.integers(1, 3))):
            kind = "R" if rng.random() < 0.75 else "P"
            links.append(_chain_link(rng, s, len(links) + 1, kind, params,
                                     parent=root if k == 0 else len(links)))
    g = rng.normal(size=3)
    g = tuple(float(v) for v in 9.81 * g / np.linalg.norm(g))
    if s.named:
        params["g"] = 9.81
        from designer.model import symbol
        g = tuple(float(v) / 9.81 * symbol("g") for v in g)
    model = Manipulator(links=tuple(links), name="random project", convention=conv, gravity=g, parameters=params)
    if s.loads:
        loads = [PointMass(int(k) + 1, _symbolic(float(rng.uniform(0.1, 2)), f"mL{k + 1}", params, rng, s.named),
                           tuple(float(c) for c in rng.uniform(-0.2, 0.2, 3)))
                 for k in rng.choice(len(links), size=min(2, len(links)), replace=False)]
        model = replace(model, point_masses=tuple(loads), parameters=params)
    if s.frames:
        model = replace(model, base=_random_pose(rng), tool=_random_pose(rng, 0.2),
                        gravity_in_world=bool(rng.random() < 0.5))
    model = replace(model, parameters=params)
    loops: list = []
    rank = 0
    for cut in s.loops:
        # a branch whose loop is singular at the nominal pose (zero-length links lining up, axes meeting) has a
        # loop Jacobian of lower rank there than the cut's conditions: its mobility is not what the rank says,
        # so draw again (such a mechanism is legal, and its message is tests/cli's; not a random shape here)
        for _ in range(20):
            trial, loop = _closed_branch(rng, s, model, str(cut), params)
            trial_rank = _loop_rank(replace(trial, loops=(*loops, loop), parameters=params))
            if trial_rank - rank == _CUT_RANK[s.planar][str(cut)]:
                break
        model, rank = trial, trial_rank
        loops.append(loop)
    if loops:
        model = _choose_passive(replace(model, loops=tuple(loops), parameters=params))
    if s.parts:   # last: a part's segment runs to the first link mounted on its link
        model = _with_parts(model, rng, s, params)
    if s.requirements:
        model = replace(model, requirements=_requirements(rng, sum(link.actuated for link in model.links)))
    return replace(model, parameters=params)


def _requirements(rng, n: int):
    """Loose requirements (every one passes) over the metrics' ``n`` joints: the arm's mass, a gravity torque at
    two poses, the peak torque along a quintic cycle, with a payload."""
    from designer.model.requirements import Cycle, Payload, Requirement, Requirements, Where
    pose = tuple(float(v) for v in rng.uniform(-0.05, 0.05, n))
    zero = (0.0,) * n
    return Requirements(items=(Requirement("mass", "<=", 1e4, name="light enough"),
                               Requirement("gravity", "<=", 1e6, Where("poses", poses=(zero, pose))),
                               Requirement("peak_torque", "<=", 1e7, Where("cycle"))),
                        payload=Payload(float(rng.uniform(0.1, 2.0))), cycle=Cycle(waypoints=(zero, pose), time=2.0))


#: the rank of a cut's conditions on a generic loop: planar (the branch's axes parallel to the cut's z), spatial
_CUT_RANK = {True: {"R": 2, "S": 2, "F": 3}, False: {"S": 3, "R": 5, "F": 6}}


def _loop_rank(model: Manipulator) -> int:
    from tests.support.closed_reference import loop_jacobian
    J = loop_jacobian(model)
    return int(np.linalg.matrix_rank(J, 1e-7 * max(1.0, np.abs(J).max())))


def _closed_branch(rng, s: Shapes, model: Manipulator, cut: str, params: dict):
    """A new branch from a random link closed back onto the tree by a cut joint ``cut``: its end's frame (or a
    point on it) and the matching frame on the other link, from Pinocchio's frames at the nominal pose."""
    from dataclasses import replace

    from designer.model import Loop
    from designer.model.extras import Pose, rpy_from_matrix
    from tests.support.closed_reference import tree_frames
    n0 = model.n
    root = int(rng.integers(0, n0 + 1))
    # joints the loop needs beyond its rank: planar, 2 (R, S) or 3 (F) position conditions; spatial 3, 5, 6
    size = {True: {"R": 3, "S": 3, "F": 4}, False: {"S": 4, "R": 6, "F": 7}}[s.planar][cut]
    links = list(model.links)
    for k in range(size):
        links.append(_chain_link(rng, replace(s, limits=False, elastic=False), len(links) + 1, "R", params,
                                 parent=root if k == 0 else len(links), planar=s.planar))
    model = replace(model, links=tuple(links), parameters=params)
    # the cut: on the branch's last link at its frame (a point on it for a ball joint), onto the root
    # (planar: the loop turns in the root's plane) or, spatially, onto any earlier link or the base
    other = root if s.planar else int(rng.integers(0, n0 + 1))
    frames = tree_frames(model)
    frame_i = _random_pose(rng, 0.1) if cut == "S" or not s.planar else Pose()
    Ti = frames[len(links)] @ frame_i.matrix()
    Tj = np.linalg.solve(frames[other], Ti)
    frame_j = Pose(tuple(float(v) for v in Tj[:3, 3]), rpy_from_matrix(Tj[:3, :3]))
    return model, Loop(len(links), other, frame_i, frame_j, cut, f"cut {cut}")


def _choose_passive(model: Manipulator) -> Manipulator:
    """Every loop's passive joints: the columns pivoted QR picks first in Pinocchio's loop Jacobian at the
    nominal pose (as many as its rank), the rest actuated."""
    from dataclasses import replace

    import scipy.linalg

    from tests.support.closed_reference import loop_jacobian
    J = loop_jacobian(model)
    # an elastic joint's column last among equals: its spring stays on an actuated joint where it can
    springs = np.array([1e-3 if link.drive is not None and link.drive.stiffness is not None else 1.0
                        for link in model.links])
    _, R, piv = scipy.linalg.qr(J * springs, pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > 1e-9 * diag[0]))
    passive = set(int(k) for k in piv[:rank])
    # a closed chain's springs sit on actuated joints (a passive joint's stiffness is refused): drop it there
    links = tuple(replace(link, actuated=i not in passive,
                          drive=link.drive if i not in passive or link.drive is None else
                          replace(link.drive, stiffness=None, damping=None))
                  for i, link in enumerate(model.links))
    return replace(model, links=links)
