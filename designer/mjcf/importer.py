"""MJCF -> project: MuJoCo reads the file, the URDF import's pipeline makes the DH model.

After the import the model is checked twice: against the kinematic tree it was made from (as
every URDF import) and against MuJoCo's own compiled model (mj_fullM without the armature,
qfrc_bias at rest, the tip body's pose) at random poses, off-chain joints at zero and dropped
bodies without mass; a disagreement beyond 1e-9 relative (plus what the report says the import
changed) refuses the import with the figure.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..kinematics import NumericArm
from ..model.manipulator import Convention
from ..numeric.recursive import gravity_torque, mass_matrix
from ..urdf.check import CHECK_POSES, CHECK_TOL, relative_worst
from ..urdf.importer import ImportReport, import_tree
from ..urdf.source import MAX_VALUE, UrdfError, written
from .source import LOCKED_QUANTITIES, MjcfError, compile_mjcf, out_of_range, tree_of, with_site

__all__ = ["check_against_mujoco", "import_mjcf", "import_read", "read_mjcf"]


def read_mjcf(path: str | os.PathLike, literal: bool = False, *, allow_roots=()):
    """(kinematic tree, compiled MjModel) of an MJCF file; :class:`MjcfError` naming the file.
    ``allow_roots``: folders besides the file's that its includes may come from. Unless ``literal``, the
    angles MuJoCo read within ANGLE_SNAP of exact ones are read as those (:func:`.source.snap_spec`): the
    tree is the arm the file means, and its ``as_written`` (with its own ``reader_model``) the file as written."""
    spec, model, snaps, left_out = compile_mjcf(path, snap=not literal, allow_roots=allow_roots)
    name = spec.modelname or Path(path).stem
    tree = tree_of(model, name, str(path))
    tree.reader_model, tree.literal = model, literal
    tree.notes += left_out   # the import report's warnings (import_read)
    if snaps:
        _, as_read, _, _ = compile_mjcf(path, allow_roots=allow_roots)
        tree.snaps, tree.as_written = snaps, tree_of(as_read, name, str(path))
        tree.as_written.reader_model, tree.as_written.literal = as_read, True
        tree.as_written.notes += left_out
    return tree, model


def import_mjcf(path: str | os.PathLike, *, base: str | None = None, tip: str | None = None,
                convention: Convention | str = Convention.STANDARD, drop_rest: bool = False,
                allow_roots=(), literal: bool = False) -> ImportReport:
    """Read an MJCF file and make a model of the chain of bodies from ``base`` to ``tip``; ``literal``:
    its numbers as written (no angle read as an exact one, no axes made parallel)."""
    start = time.perf_counter()
    tree, mj = read_mjcf(path, literal, allow_roots=allow_roots)
    report = import_read(tree, mj, str(path), base=base, tip=tip, convention=convention, drop_rest=drop_rest,
                         literal=literal)
    report.seconds = time.perf_counter() - start
    return report


def import_read(tree, mj, source: str, *, base: str | None = None, tip: str | None = None,
                convention: Convention | str = Convention.STANDARD, drop_rest: bool = False,
                massless: bool = True, literal: bool = False) -> ImportReport:
    """The model of the chain of an MJCF file already read (:func:`read_mjcf`), checked against
    MuJoCo's model; :class:`MjcfError` naming ``source``. ``tip`` may name a site (a tool flange).
    (``massless``: an MJCF body always has a mass, MuJoCo's, so the URDF import's option means
    nothing here.) ``literal``: the file as written (the tree's ``as_written`` and its MuJoCo model)."""
    if literal:
        tree = written(tree)
        mj = tree.reader_model if tree.reader_model is not None else mj
    if tip is not None:
        tree = with_site(tree, mj, tip)
        if tree.as_written is not None:
            tree = replace(tree, as_written=with_site(tree.as_written, tree.as_written.reader_model, tip))
    try:
        report = import_tree(tree, base=base, tip=tip, convention=convention, drop_rest=drop_rest,
                             massless=True, source=source, gravity=_vector(mj.opt.gravity), literal=literal)
        ignored = _bounded(report, tree, mj)
        against = check_against_mujoco(report, mj, CHECK_TOL + 10 * report.moved)
    except UrdfError as exc:
        raise MjcfError(f"{source}: {exc}") from None
    report.checked = max(report.checked or 0.0, against)
    report.checked_by = "the file's own kinematic tree and MuJoCo's model of the file" if report.model.is_serial \
        else "MuJoCo's model of the file (the tree's M and G; the loops: the closure)"
    report.warnings += tree.notes + _not_imported(report, mj)
    report.notes += ignored
    return report


def _bounded(report: ImportReport, tree, mj) -> list[str]:
    """Refuse a number beyond :data:`MAX_VALUE` that the import takes (a moving joint's data, a locked
    joint's frame, a body of the arm or above its base); a note summarising those it leaves aside."""
    chain = report.chain
    moving = set(chain.joints)
    locked = set(chain.locked)
    bodies = {link for links in chain.bodies for link in links}
    link: str | None = chain.base
    while link is not None:   # the base and what it hangs from place the arm
        bodies.add(link)
        j = tree.parent_joint.get(link)
        link = tree.joints[j].parent if j is not None else None
    left: dict[str, list[str]] = {}
    for kind, name, what, values in out_of_range(mj):
        if kind == "body":
            taken = name in bodies
        elif kind == "actuator":   # an actuator of an arm's joint gives its gear and torque limit
            taken = name in moving
        else:
            taken = name in moving or (name in locked and what in LOCKED_QUANTITIES)
        if taken:
            hint = ""
            if kind == "joint" and name in moving:   # a mobile base's slides: start the arm below them
                import mujoco
                body = mj.body(int(mj.jnt_bodyid[mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, name)])).name
                hint = f"; to leave the joint out, start the arm below it: --base {body}"
            where = f"the actuator of joint {name!r}" if kind == "actuator" else f"{kind} {name!r}"
            raise UrdfError(f"{where}: {what} = {values} is larger than {MAX_VALUE:g} in size "
                            f"(the import takes it{hint})")
        left.setdefault(f"{what} of the actuator of joint" if kind == "actuator" else f"{what} of {kind}",
                        []).append(name)
    if not left:
        return []
    parts = []
    for what, names in left.items():
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        parts.append(f"{what} {shown}")
    return [f"beyond {MAX_VALUE:g} in size and not imported (not on the arm): " + "; ".join(parts)]


def _not_imported(report: ImportReport, mj) -> list[str]:
    """What MuJoCo applies at the chain's joints and bodies that a project has no place for."""
    import mujoco
    out = []
    for name in report.chain.joints:
        j = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, name)
        if mj.jnt_stiffness[j]:
            out.append(f"joint {name!r}: stiffness {mj.jnt_stiffness[j]:g} (a spring to springref) not imported")
    compensated = [mj.body(b).name for b in range(mj.nbody) if mj.body_gravcomp[b] and
                   mj.body(b).name in {l for links in report.chain.bodies for l in links}]
    if compensated:
        out.append("gravcomp (gravity compensation by MuJoCo) not imported for " + ", ".join(compensated))
    acting = _acting_equalities(report, mj) if report.model.is_serial else []
    if acting:   # loops, coupled joints: the chain alone moves as it cannot in MuJoCo
        kinds = sorted({mujoco.mjtEq(int(mj.eq_type[e])).name.removeprefix("mjEQ_").lower() for e in acting})
        out.append(f"{len(acting)} equality constraint(s) ({', '.join(kinds)}) not imported: the chain is imported "
                   "without them (a closed chain is read from connects between the arm's bodies)")
    return out


def _acting_equalities(report: ImportReport, mj) -> list[int]:
    """The equality constraints that would hold the imported joints: one on a joint of the chain, or
    between bodies that move apart in it (both locked or in one body: they hold at zero as in MuJoCo's
    qpos0... a finger coupling of a hand imported locked is no loss)."""
    import mujoco
    chain = report.chain
    owner = {link: k for k, links in enumerate(chain.bodies) for link in links}
    owner.update({link: -1 for link in [chain.base, *chain.fixed_to_base]})
    moving = set(chain.joints)
    out = []
    for e in range(mj.neq):
        kind = mj.eq_type[e]
        if kind == mujoco.mjtEq.mjEQ_JOINT:
            names = {mj.joint(int(j)).name for j in (mj.eq_obj1id[e], mj.eq_obj2id[e]) if j >= 0}
            if names & moving:
                out.append(e)
        elif mj.eq_objtype[e] == mujoco.mjtObj.mjOBJ_BODY:
            a, b = (owner.get(mj.body(int(x)).name) for x in (mj.eq_obj1id[e], mj.eq_obj2id[e]))
            if a != b:
                out.append(e)
        else:   # tendons, flexes, sites: not followed here
            out.append(e)
    return out


def _vector(v) -> tuple[float, float, float]:
    return float(v[0]), float(v[1]), float(v[2])


def _mass_and_bias(mj, data) -> None:
    """MuJoCo's M (qM) and bias forces (qfrc_bias) at data's qpos, qvel: the stages of mj_forward that
    make them, without its factorisation of M, which warns (and writes MUJOCO_LOG.TXT into the
    user's folder) for a dof whose bodies were dropped and so have no mass."""
    import mujoco
    mujoco.mj_kinematics(mj, data)
    mujoco.mj_comPos(mj, data)
    mujoco.mj_makeM(mj, data)
    mujoco.mj_comVel(mj, data)
    mujoco.mj_rne(mj, data, 0, data.qfrc_bias)


def _dynamics_of(report: ImportReport, arm: NumericArm):
    """(M(q), G(q), tool pose(q)) of the imported model at the joint values q of its links: a serial
    arm's, or a closed chain's tree (its connects' loops left to the closure), the tool on its last link."""
    if report.model.is_serial:
        return (lambda q: mass_matrix(arm, q)), (lambda q: gravity_torque(arm, q)), \
            (lambda q: arm.tool_pose(q.tolist()))
    from ..numeric.closed import ClosedDynamics
    closed = ClosedDynamics(report.model)
    zero = np.zeros(arm.n)
    return closed.tree_M, (lambda q: closed.tree_tau(q, zero, zero)), \
        (lambda q: arm.base @ closed.tree.frames(q)[-1] @ arm.tool)


def check_against_mujoco(report: ImportReport, mj, tolerance: float, poses: int = CHECK_POSES, seed: int = 11) -> float:
    """The largest relative disagreement of M, G and the tip pose with MuJoCo's model of the file."""
    import mujoco
    chain = report.chain
    arm = NumericArm.from_model(report.model)
    M_of, G_of, tool_of = _dynamics_of(report, arm)
    mj = mj.__copy__()
    for name in chain.dropped:   # left out of our model: without mass in MuJoCo's
        b = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, name)
        if b >= 0:
            mj.body_mass[b], mj.body_inertia[b] = 0.0, 0.0
    ids = [mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, j) for j in chain.joints]
    tip = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, chain.tip)
    site = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_SITE, chain.tip) if tip < 0 else -1
    data = mujoco.MjData(mj)
    qpos = mj.qpos0.copy()
    for j in range(mj.njnt):   # locked joints at zero, as in our model; free and ball joints at their qpos0
        if mj.jnt_type[j] in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
            qpos[mj.jnt_qposadr[j]] = 0.0
    dofs = [int(mj.jnt_dofadr[j]) for j in ids]
    rng = np.random.default_rng(seed)
    scale = {"M": 0.0, "G": 0.0}
    diff = {"M": 0.0, "G": 0.0, "tool pose": 0.0}
    reach = 1e-3
    for _ in range(poses):
        q = rng.uniform(-np.pi, np.pi, arm.n)
        q[~arm.revolute] = rng.uniform(-0.5, 0.5, int((~arm.revolute).sum()))
        data.qpos[:] = qpos
        data.qpos[[int(mj.jnt_qposadr[j]) for j in ids]] = q
        data.qvel[:] = 0.0
        _mass_and_bias(mj, data)
        full = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, data, full)
        M = full[np.ix_(dofs, dofs)] - np.diag(mj.dof_armature[dofs])
        G = data.qfrc_bias[dofs]
        diff["M"] = max(diff["M"], float(np.abs(M_of(q) - M).max()))
        diff["G"] = max(diff["G"], float(np.abs(G_of(q) - G).max()))
        scale["M"], scale["G"] = max(scale["M"], float(np.abs(M).max())), max(scale["G"], float(np.abs(G).max()))
        if tip >= 0 or site >= 0:
            T = np.eye(4)
            if tip >= 0:
                T[:3, :3], T[:3, 3] = data.xmat[tip].reshape(3, 3), data.xpos[tip]
            else:
                T[:3, :3], T[:3, 3] = data.site_xmat[site].reshape(3, 3), data.site_xpos[site]
            diff["tool pose"] = max(diff["tool pose"], float(np.abs(tool_of(q) - T).max()))
            reach = max(reach, float(np.linalg.norm(T[:3, 3] - arm.base[:3, 3])))
    moving = {mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, link) for links in chain.bodies for link in links}
    mass = float(sum(mj.body_mass[b] for b in moving if b >= 0))
    worst, what = relative_worst(diff, scale, mass, reach, float(np.linalg.norm(mj.opt.gravity)))
    if not worst <= tolerance:
        raise UrdfError(f"the imported model disagrees with MuJoCo's model of the file: {what} off by {worst:.2g} "
                        f"relative (allowed {tolerance:.2g}) at random poses; refused instead of saving a wrong arm")
    return worst
