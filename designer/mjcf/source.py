"""Reading an MJCF file safely, by MuJoCo itself, into the kinematic tree the URDF import uses.

The file is untrusted. Before MuJoCo sees it, every file of the model (the file and its
``<include>``s) is pre-scanned with lxml (no entities resolved, no network, no DTD): a document type
declaration, a file above :data:`MAX_MJCF_BYTES` (all files together too), an include outside the
file's folder (and the folders allowed with ``--allow-root``), an include loop or more than
:data:`MAX_INCLUDES` includes are refused with a message.
MuJoCo then parses and compiles it (``MjSpec.from_file``): default classes, childclass, the
compiler's angle unit and every frame form (pos/quat/euler/axisangle/xyaxes/zaxis) and inertias
computed from geoms are MuJoCo's own. The compiled model gives body frames, joints, inertias,
armature, damping, friction loss and actuators.

MJCF's joints live in bodies: a hinge at ``pos`` p of its body turns the body about the axis through
p, after the joints before it in the same body (mj_kinematics). In the tree, each joint moves a frame
at its own p (named ``BODY:JOINT``), and the body hangs below the last one by a fixed joint;
``ref`` is folded into the joint's origin so that q is MuJoCo's qpos.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..errors import DesignerError
# MAX_VALUE: one bound for every imported number
from ..urdf.numbers import snap_direction, snap_rotation, snap_value
from ..urdf.source import MAX_VALUE, SnappedAngle, UrdfInertial, UrdfJoint, UrdfTree, parse_xml, read_bounded

__all__ = ["MAX_INCLUDES", "MAX_MJCF_BYTES", "MjcfError", "OutsideFolder", "compile_mjcf", "file_format",
           "out_of_range", "prescan", "snap_spec", "tree_of", "with_site"]

MAX_MJCF_BYTES = 20_000_000
MAX_INCLUDES = 100
#: the most elements a file may stand for once its ``<replicate>``s are repeated (a robot arm has hundreds):
#: ``count="100000000"`` kept MuJoCo's parser busy for minutes, nested ones multiply
MAX_REPLICATED = 100_000
#: the most samples of a height field or pixels of a texture MuJoCo is asked to allocate (4096 x 4096):
#: ``<hfield nrow="100000" ncol="100000">`` kept it busy past a minute (40 GB)
MAX_SAMPLES = 4096 * 4096
#: the attributes whose product MuJoCo allocates, per element
_ALLOCATED = {"hfield": ("nrow", "ncol"), "texture": ("width", "height")}


class MjcfError(DesignerError):
    """An MJCF file that cannot be imported; the message names the file and the body or joint."""


class OutsideFolder(MjcfError):
    """An include outside the model's folder and the folders allowed (``--allow-root``); ``folder``: the
    folder that would have to be allowed."""

    def __init__(self, message: str, folder: Path):
        super().__init__(message)
        self.folder = folder


def _read(path: Path, budget: int, where: str) -> bytes:
    return read_bounded(path, budget, where, MjcfError, "an MJCF file",
                        f"the model with its includes is more than the {MAX_MJCF_BYTES} bytes an MJCF model may be")


def file_format(path: str | os.PathLike) -> str:
    """"urdf" or "mjcf", by the file's top element (a .urdf or .xacro file is URDF by its name)."""
    path = Path(path)
    if path.suffix.lower() in (".urdf", ".xacro"):
        return "urdf"
    head = _read_head(path)
    # the first element after the XML declaration, comments and processing instructions
    text = re.sub(rb"<\?.*?\?>|<!--.*?-->", b"", head, flags=re.DOTALL)
    match = re.search(rb"<\s*([A-Za-z_][\w.:-]*)", text)
    tag = match.group(1).decode() if match else ""
    if tag == "mujoco":
        return "mjcf"
    if tag == "robot":
        return "urdf"
    raise MjcfError(f"{path}: neither URDF nor MJCF (the top element is " +
                    (f"<{tag}>" if tag else "missing") + ", not <robot> or <mujoco>)")


def _read_head(path: Path) -> bytes:
    return read_bounded(path, 65536, str(path), MjcfError, "a model file")


_TEXT_ATTRIBUTES = {"name", "class", "childclass", "file", "model", "joint", "joint1", "joint2", "body", "body1",
                    "body2", "tendon", "site", "target", "mesh", "material", "texture", "hfield", "content_type"}


#: physical quantities of a joint or a body that may exceed :data:`MAX_VALUE` in the file: they are bounded
#: after MuJoCo compiled the model, for the joints and bodies the import takes (:func:`out_of_range`); those it
#: does not take may hold anything finite (Fetch's base slides have damping 1e11, its arm never uses them)
_BOUNDED_LATER = {"joint": {"damping", "stiffness", "armature", "frictionloss", "range", "springref", "ref",
                            "actuatorfrcrange", "margin"},
                  "inertial": {"mass", "diaginertia", "fullinertia"}, "geom": {"mass", "density"},
                  **{tag: {"gear", "forcerange", "ctrlrange", "gainprm"} for tag in
                     ("motor", "general", "position", "velocity", "intvelocity", "damper", "cylinder")}}


def _check_numbers(root, where: str) -> None:
    """Every attribute made of numbers holds finite ones of size at most :data:`MAX_VALUE` (but for
    :data:`_BOUNDED_LATER`: finite): NaN, inf and 1e308 are refused here, naming the element, before
    MuJoCo turns them into a model."""
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        later = _BOUNDED_LATER.get(el.tag, set())
        for attr, text in el.attrib.items():
            if attr in _TEXT_ATTRIBUTES:
                continue
            try:
                values = [float(v) for v in text.split()]
            except ValueError:
                continue   # words (names, keywords): MuJoCo says what it thinks of them
            bound = math.inf if attr in later else MAX_VALUE
            if values and not all(math.isfinite(v) and abs(v) <= bound for v in values):
                label = f"<{el.tag}" + (f" name=\"{el.get('name')}\"" if el.get("name") else "") + ">"
                raise MjcfError(f"{where}: line {el.sourceline}: {label} {attr}=\"{text[:40]}\": every number must "
                                "be finite" + (f" and of size at most {MAX_VALUE:g}" if bound == MAX_VALUE else ""))


def _check_replicates(root, where: str) -> None:
    """The elements the file stands for with every ``<replicate count>`` repeated are at most
    :data:`MAX_REPLICATED` (nested ones multiply), counted before MuJoCo repeats anything."""
    def size(el) -> int:
        inside = sum(size(child) for child in el if isinstance(child.tag, str))
        if el.tag != "replicate":
            return 1 + inside
        text = (el.get("count") or "").strip()
        if not text.isdigit():
            return inside   # not a whole number: MuJoCo says what it thinks of it
        total = int(text) * inside
        if total > MAX_REPLICATED:
            raise MjcfError(f"{where}: line {el.sourceline}: <replicate count=\"{text[:20]}\"> repeats its "
                            f"{inside} element(s) into {total:.3g}, more than the {MAX_REPLICATED} a model may "
                            "stand for; refused")
        return total
    if next(root.iter("replicate"), None) is not None:
        size(root)


def _check_allocations(root, where: str) -> None:
    """A height field's rows times columns and a texture's width times height are at most
    :data:`MAX_SAMPLES`."""
    for tag, names in _ALLOCATED.items():
        for el in root.iter(tag):
            texts = [(el.get(n) or "").strip() for n in names]
            if all(t.isdigit() for t in texts) and math.prod(int(t) for t in texts) > MAX_SAMPLES:
                given = " ".join(f'{n}="{t[:20]}"' for n, t in zip(names, texts))
                raise MjcfError(f"{where}: line {el.sourceline}: <{tag} {given}> is more than the {MAX_SAMPLES} "
                                "samples a model may ask for; refused")


def prescan(path: str | os.PathLike, *, allow_roots=()) -> None:
    """Refuse what must not reach MuJoCo's parser (module docstring); returns when the file may go.
    ``allow_roots``: folders besides the model's own that includes may come from (``--allow-root``)."""
    path = Path(path)
    folder = path.resolve().parent
    roots = [folder, *(Path(r).resolve() for r in allow_roots)]
    budget = MAX_MJCF_BYTES
    count = 0

    def visit(file: Path, stack: tuple[Path, ...]) -> None:
        nonlocal budget, count
        where = str(path) if not stack else f"{path}: included file {file.name}"
        raw = _read(file, budget, where)
        budget -= len(raw)
        root = parse_xml(raw, where, MjcfError, "MJCF")
        if not stack and root.tag != "mujoco":
            raise MjcfError(f"{where}: not an MJCF model (the top element is <{root.tag}>, not <mujoco>)")
        _check_numbers(root, where)
        _check_replicates(root, where)
        _check_allocations(root, where)
        for el in root.iter("include"):
            name = el.get("file")
            if not name:
                raise MjcfError(f"{where}: line {el.sourceline}: an <include> without a file attribute")
            # MuJoCo reads an include's path relative to the main file's folder
            target = (folder / name).resolve()
            if not any(target.is_relative_to(root) for root in roots):
                raise OutsideFolder(f"{where}: line {el.sourceline}: <include file=\"{name}\"> lies outside the "
                                    f"model's folder {folder}" + (" and the folders allowed" if allow_roots else "") +
                                    f"; refused (to read it: --allow-root {target.parent})", target.parent)
            if target in stack or target == file.resolve():
                raise MjcfError(f"{where}: line {el.sourceline}: <include file=\"{name}\"> includes a file that "
                                "includes it (an include loop)")
            count += 1
            if count > MAX_INCLUDES:
                raise MjcfError(f"{path}: more than {MAX_INCLUDES} includes; refused")
            visit(target, (*stack, file.resolve()))

    visit(path, ())


def compile_mjcf(path: str | os.PathLike, snap: bool = False, *, allow_roots=()):
    """(spec, compiled model, angles read as exact ones, lines on meshes left out) of a pre-scanned file
    (:func:`prescan`, ``allow_roots`` for its includes); MuJoCo's errors as :class:`MjcfError`. With
    ``snap``, the angles MuJoCo read are read as exact ones first (:func:`snap_spec`), else as written (and
    the list is empty). Geoms whose mesh file is not there are left out where they carry no mass
    (:func:`without_missing_meshes`)."""
    import mujoco
    prescan(path, allow_roots=allow_roots)
    try:
        with warnings.catch_warnings():   # its warnings (a nearly singular inertia) are the check's to judge
            warnings.simplefilter("ignore")
            spec = mujoco.MjSpec.from_file(str(path))
            left_out = without_missing_meshes(spec, str(path))
            snaps = snap_spec(spec) if snap else []
            model = spec.compile()
    except (ValueError, RuntimeError, OSError) as exc:   # what MuJoCo's bindings raise for a file it cannot use
        # MuJoCo says what on its first line and where (the element, its name, the line) on the next
        lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()] or [type(exc).__name__]
        where = f" ({'; '.join(lines[1:])})" if len(lines) > 1 else ""
        raise MjcfError(f"{path}: MuJoCo cannot read it: {lines[0]}{where}") from None
    return spec, model, snaps, left_out


def _asset_file(spec, folder: str, name: str) -> Path:
    """Where MuJoCo looks for an asset's file ``name`` (below ``folder``, the compiler's meshdir or texturedir)."""
    return Path(spec.modelfiledir or ".", folder or "", os.path.basename(name) if spec.strippath else name)


def _fixed_to_world(body) -> bool:
    """Whether no joint lies on ``body`` or between it and the world (the world itself included)."""
    while body is not None and body.name != "world":
        if len(body.joints):
            return False
        body = body.parent
    return True


def without_missing_meshes(spec, source: str) -> list[str]:
    """Leave out of ``spec`` what refers to a mesh or texture file that is not there (a model copied
    without its assets folder, as a vendor's MJCF usually is): the geoms of such meshes where they give
    no body its mass, the meshes, such textures and the materials' references to them; one line saying
    so (empty when nothing is missing). A geom that does give its body mass (the body has no
    ``<inertial>``, or the compiler takes inertias from geoms) is refused naming the body and the file,
    unless that body is fixed to the world (no joint on it or above it: a pedestal, a vendor's link0),
    whose mass no joint ever moves: its geoms are left out too, and the line names those bodies."""
    import mujoco
    missing = {m.name: f for m in spec.meshes
               if m.file and not (f := _asset_file(spec, spec.meshdir, m.file)).is_file()}
    textures = {t.name: f for t in spec.textures
                for f in [_asset_file(spec, spec.texturedir, n) for n in [t.file, *t.cubefiles] if n]
                if not f.is_file()}
    if not missing and not textures:
        return []
    from_geoms = spec.compiler.inertiafromgeom
    dropped = 0
    fixed: list[str] = []   # bodies fixed to the world whose mass a geom left out would have given
    for body in spec.bodies:
        weighs = from_geoms == mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_TRUE or (
            from_geoms == mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_AUTO and not body.explicitinertial)
        for geom in list(body.geoms):
            if geom.meshname not in missing:
                continue
            massless = geom.mass == 0 or (math.isnan(geom.mass) and geom.density == 0)
            if weighs and not massless and _fixed_to_world(body):
                fixed += [] if body.name in fixed else [body.name]
            elif weighs and not massless:
                raise MjcfError(f"{source}: body {body.name!r} takes its mass from its mesh geom "
                                f"{geom.name or geom.meshname!r}, whose file {missing[geom.meshname]} is not there: "
                                "put the model's mesh files where its meshdir says, or give the body an <inertial>")
            spec.delete(geom)
            dropped += 1
    for material in spec.materials:   # a material without its texture is drawn in its colour
        if any(name in textures for name in material.textures):
            material.textures = ["" if name in textures else name for name in material.textures]
    for element in [*spec.meshes, *spec.textures]:
        if element.name in missing or element.name in textures:
            spec.delete(element)
    first = sorted(map(str, [*missing.values(), *textures.values()]))[0]
    parts = [f"{len(missing)} mesh file(s)"] if missing else []
    parts += [f"{len(textures)} texture file(s)"] if textures else []
    moving = f"{dropped} geom(s) left out, which give no {'moving ' if fixed else ''}body its mass"
    if fixed:   # the mass of a body no joint moves enters none of the arm's dynamics
        moving += (" (those of " + ", ".join(map(repr, fixed)) + ", fixed to the world, weigh on no joint)")
    left = [moving] if missing else []
    left += ["the textures left out"] if textures else []
    return [f"{' and '.join(parts)} not there (the first {first}): {', '.join(left)}"]


def _numbers(values) -> str:
    return " ".join(f"{float(v):.10g}" for v in values)


def _snap_frame(element, quat: str, alt: str, unit: float, where: str) -> list[SnappedAngle]:
    """The orientation of a spec element (its ``quat``, or the alternative MJCF wrote: euler,
    axisangle, xyaxes, zaxis) read as the exact one it is within ANGLE_SNAP of, in place."""
    import mujoco
    kind = getattr(element, alt)
    q = np.asarray(getattr(element, quat), dtype=float)
    T = mujoco.mjtOrientation
    if kind.type == T.mjORIENTATION_QUAT:
        norm = float(np.linalg.norm(q))
        if not norm > 0:
            return []
        R, angle = snap_rotation(_quat_matrix(q / norm))
        if angle > 0.0:
            exact = np.zeros(4)
            mujoco.mju_mat2Quat(exact, R.flatten())
            out = [SnappedAngle(f"{where} quat", _numbers(q), _numbers(exact), angle)]
            getattr(element, quat)[:] = exact
            return out
        return []
    new: list[float]
    if kind.type == T.mjORIENTATION_EULER:
        pairs = [snap_value(v, unit) for v in kind.euler]
        angle, new, attr, values = max(off for _, off in pairs), [v for v, _ in pairs], "euler", kind.euler
    elif kind.type == T.mjORIENTATION_AXISANGLE:
        axis, turn = snap_direction(kind.axisangle[:3])
        value, off = snap_value(kind.axisangle[3], unit)
        angle, new, attr, values = max(turn, off), [*axis, value], "axisangle", kind.axisangle
    elif kind.type == T.mjORIENTATION_XYAXES:
        (x, a), (y, b) = snap_direction(kind.xyaxes[:3]), snap_direction(kind.xyaxes[3:])
        angle, new, attr, values = max(a, b), [*x, *y], "xyaxes", kind.xyaxes
    else:
        z, angle = snap_direction(kind.zaxis)
        new, attr, values = list(z), "zaxis", kind.zaxis
    if angle > 0.0:
        out = [SnappedAngle(f"{where} {attr}", _numbers(values), _numbers(new), angle)]
        values[:] = new
        return out
    return []


def snap_spec(spec) -> list[SnappedAngle]:
    """Every orientation MuJoCo read (bodies, their inertial frames, frames, geoms, sites: quat, euler,
    axisangle, xyaxes, zaxis), every joint axis and hinge ``ref`` within ANGLE_SNAP of an exact angle or
    direction (:mod:`designer.urdf.numbers`) read as that, in the compiler's angle unit, in place; what
    was changed. 0.707107 0 0 0.707107 is a quarter turn, euler 1.5708 (radian) pi/2."""
    import mujoco
    unit = math.pi / 180 if spec.compiler.degree else 1.0
    out: list[SnappedAngle] = []
    for kind, items in (("body", spec.bodies), ("frame", spec.frames), ("geom", spec.geoms), ("site", spec.sites)):
        for k, el in enumerate(items):
            where = f"{kind} {el.name!r}" if el.name else f"{kind} {k}"
            out += _snap_frame(el, "quat", "alt", unit, where)
            if kind == "body" and el.explicitinertial and not np.isfinite(el.fullinertia[0]):
                out += _snap_frame(el, "iquat", "ialt", unit, f"{where} <inertial>")
    for k, joint in enumerate(spec.joints):
        where = f"joint {joint.name!r}" if joint.name else f"joint {k}"
        axis, angle = snap_direction(joint.axis)
        if angle > 0.0:
            out.append(SnappedAngle(f"{where} axis", _numbers(joint.axis), _numbers(axis), angle))
            joint.axis[:] = axis
        if joint.type == mujoco.mjtJoint.mjJNT_HINGE:
            ref, off = snap_value(joint.ref, unit)
            if off > 0.0:
                out.append(SnappedAngle(f"{where} ref", _numbers([joint.ref]), _numbers([ref]), off))
                joint.ref = ref
    return out


def _quat_matrix(q) -> np.ndarray:
    w, x, y, z = (float(v) for v in q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _transform(R=None, p=None) -> np.ndarray:
    T = np.eye(4)
    if R is not None:
        T[:3, :3] = R
    if p is not None:
        T[:3, 3] = p
    return T


def _turn(axis: np.ndarray, angle: float) -> np.ndarray:
    k = axis / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def _quantities(model) -> tuple[dict, dict]:
    """The numbers the import may take from the compiled model: per body and per joint, {what: rows}."""
    per_body = {"pos": model.body_pos, "quat": model.body_quat, "mass": model.body_mass[:, None],
                "inertial pos": model.body_ipos, "inertial quat": model.body_iquat, "inertia": model.body_inertia}
    per_joint = {"pos": model.jnt_pos, "axis": model.jnt_axis, "range": model.jnt_range,
                 "armature": model.dof_armature[model.jnt_dofadr][:, None],
                 "damping": model.dof_damping[model.jnt_dofadr][:, None],
                 "frictionloss": model.dof_frictionloss[model.jnt_dofadr][:, None]}
    return per_body, per_joint


#: what of a joint the import takes when it only locks the joint (its frame), not when it moves on the arm
LOCKED_QUANTITIES = ("pos", "axis")


def _check_finite(model, source: str, names: list[str], joint_names: list[str]) -> None:
    """Every number the import may use is finite (MuJoCo computed it: an inertia from a geom of size 1e300
    is inf), named where it is not; their size is bounded for what is imported (:func:`out_of_range`)."""
    per_body, per_joint = _quantities(model)
    for table, labels, kind in ((per_body, names, "body"), (per_joint, joint_names, "joint")):
        for what, values in table.items():
            bad = ~np.all(np.isfinite(values), axis=1)
            if bad.any():
                k = int(np.argmax(bad))
                raise MjcfError(f"{source}: {kind} {labels[k]!r}: {what} = {' '.join(f'{v:g}' for v in values[k])} "
                                "is not a finite number")


def out_of_range(model) -> list[tuple[str, str, str, str]]:
    """(kind, name, what, values) of every number of the compiled model beyond :data:`MAX_VALUE` in size,
    kind "body", "joint" or "actuator" (an actuator's name is the joint it drives, or its own name when it
    drives no joint): the import refuses those it takes and reports the rest."""
    import mujoco
    per_body, per_joint = _quantities(model)
    per_actuator = {"gear": model.actuator_gear[:, :1], "forcerange": model.actuator_forcerange,
                    "ctrlrange": model.actuator_ctrlrange, "gain": model.actuator_gainprm[:, :1]}
    names = [model.body(b).name or f"body{b}" for b in range(model.nbody)]
    joint_names = [model.joint(j).name or f"joint{j}" for j in range(model.njnt)]
    driven = [joint_names[int(model.actuator_trnid[a, 0])]
              if model.actuator_trntype[a] == mujoco.mjtTrn.mjTRN_JOINT else (model.actuator(a).name or f"actuator{a}")
              for a in range(model.nu)]
    out = []
    for table, labels, kind in ((per_body, names, "body"), (per_joint, joint_names, "joint"),
                                (per_actuator, driven, "actuator")):
        for what, values in table.items():
            for k in np.flatnonzero(~np.all(np.abs(values) <= MAX_VALUE, axis=1)):
                out.append((kind, labels[int(k)], what, " ".join(f"{v:g}" for v in values[int(k)])))
    return out


def _actuation(model) -> dict[int, tuple[float, float | None]]:
    """joint id -> (gear, torque limit at the joint or None) of the first actuator driving it."""
    import mujoco
    out: dict[int, tuple[float, float | None]] = {}
    for a in range(model.nu):
        if model.actuator_trntype[a] != mujoco.mjtTrn.mjTRN_JOINT:
            continue
        j = int(model.actuator_trnid[a, 0])
        if j in out:
            continue
        gear = float(model.actuator_gear[a, 0])
        limits = []
        if model.actuator_forcelimited[a]:
            limits.append(abs(gear) * float(np.abs(model.actuator_forcerange[a]).max()))
        # a motor's force is gain * ctrl; another actuator's ctrl is a position or a speed, not a force
        motor = (model.actuator_biastype[a] == mujoco.mjtBias.mjBIAS_NONE and
                 model.actuator_gaintype[a] == mujoco.mjtGain.mjGAIN_FIXED)
        if motor and model.actuator_ctrllimited[a]:
            gain = float(model.actuator_gainprm[a, 0])
            limits.append(abs(gear * gain) * float(np.abs(model.actuator_ctrlrange[a]).max()))
        out[j] = (gear, min(limits) if limits else None)
    return out


def tree_of(model, name: str, source: str) -> UrdfTree:
    """The compiled model's kinematic tree, in the URDF import's form (module docstring)."""
    import mujoco
    names = [model.body(b).name or f"body{b}" for b in range(model.nbody)]
    joint_names = [model.joint(j).name or f"joint{j}" for j in range(model.njnt)]
    _check_finite(model, source, names, joint_names)
    actuation = _actuation(model)
    for j, (_, limit) in list(actuation.items()):
        if model.jnt_actfrclimited[j]:   # a joint's own actuatorfrcrange bounds the sum of its actuators
            cap = float(np.abs(model.jnt_actfrcrange[j]).max())
            actuation[j] = (actuation[j][0], cap if limit is None else min(limit, cap))
    inertials: dict[str, UrdfInertial | None] = {}
    for b in range(model.nbody):
        R = _quat_matrix(model.body_iquat[b])
        inertials[names[b]] = UrdfInertial(float(model.body_mass[b]), model.body_ipos[b].copy(),
                                           R @ np.diag(model.body_inertia[b]) @ R.T)
    tree = UrdfTree(name, inertials, {}, root=names[0])
    tree.child_joints = {n: [] for n in names}

    def add(joint: UrdfJoint) -> None:
        tree.joints[joint.name] = joint
        tree.parent_joint[joint.child] = joint.name
        tree.child_joints.setdefault(joint.parent, []).append(joint.name)
        if joint.child not in tree.inertials:   # a joint's frame inside a body: no mass of its own
            tree.inertials[joint.child] = UrdfInertial(0.0, np.zeros(3), np.zeros((3, 3)))
            tree.child_joints.setdefault(joint.child, [])

    kinds = {mujoco.mjtJoint.mjJNT_HINGE: "revolute", mujoco.mjtJoint.mjJNT_SLIDE: "prismatic",
             mujoco.mjtJoint.mjJNT_BALL: "ball", mujoco.mjtJoint.mjJNT_FREE: "floating"}
    for b in range(1, model.nbody):
        body, parent = names[b], names[model.body_parentid[b]]
        origin = _transform(_quat_matrix(model.body_quat[b]), model.body_pos[b])
        first, count = int(model.body_jntadr[b]), int(model.body_jntnum[b])
        if count <= 0:
            add(UrdfJoint(f"{body}(fixed)", "fixed", parent, body, origin, np.array([1.0, 0, 0])))
            continue
        link = parent
        for j in range(first, first + count):
            kind = kinds[mujoco.mjtJoint(int(model.jnt_type[j]))]
            axis = model.jnt_axis[j].copy()
            at = model.jnt_pos[j].copy() if kind == "revolute" else np.zeros(3)
            if kind == "revolute":
                ref = float(model.qpos0[model.jnt_qposadr[j]])
                origin = origin @ _transform(p=at) @ _transform(R=_turn(axis, -ref))
                if not model.jnt_limited[j]:
                    kind = "continuous"
            elif kind == "prismatic":
                origin = origin @ _transform(p=-axis * float(model.qpos0[model.jnt_qposadr[j]]))
            else:
                origin = origin @ _transform(p=at)
            last = j == first + count - 1
            child = body if last and not at.any() else f"{body}:{joint_names[j]}"
            if last:
                tree.labels[child] = body
            gear, limit = actuation.get(j, (None, None))
            dof = int(model.jnt_dofadr[j])
            lower, upper = (float(v) for v in model.jnt_range[j]) if model.jnt_limited[j] else (None, None)
            add(UrdfJoint(joint_names[j], kind, link, child, origin, axis, lower=lower, upper=upper,
                          damping=float(model.dof_damping[dof]), friction=float(model.dof_frictionloss[dof]),
                          armature=float(model.dof_armature[dof]), gear=gear, rated_torque=limit))
            link, origin = child, _transform(p=-at)
        if link != body:
            add(UrdfJoint(f"{body}(fixed)", "fixed", link, body, origin, np.array([1.0, 0, 0])))
    return _with_cuts(tree, model, names, actuation)


def _with_cuts(tree: UrdfTree, model, names: list[str], actuation) -> UrdfTree:
    """``tree`` with the loops its ``<equality><connect>`` close (the points of body1 per pair of bodies)
    and, when there are any, the joints no actuator drives marked passive (designer/urdf/closed_import.py)."""
    import mujoco
    points: dict[tuple[str, str], list[np.ndarray]] = {}
    for e in range(model.neq):
        if model.eq_type[e] != mujoco.mjtEq.mjEQ_CONNECT or model.eq_objtype[e] != mujoco.mjtObj.mjOBJ_BODY:
            continue
        pair = (names[model.eq_obj1id[e]], names[model.eq_obj2id[e]])
        points.setdefault(pair, []).append(model.eq_data[e, :3].copy())
    tree.cuts = [(a, b, np.array(p)) for (a, b), p in points.items()]
    if tree.cuts:
        driven = set(actuation)
        joint_names = [model.joint(j).name or f"joint{j}" for j in range(model.njnt)]
        for j, name in enumerate(joint_names):
            if j not in driven and name in tree.joints:
                tree.joints[name] = replace(tree.joints[name], passive=True)
    return tree


def with_site(tree: UrdfTree, model, name: str) -> UrdfTree:
    """``tree`` with the site ``name`` as a massless link fixed to its body (a tool flange such as
    Menagerie's ``attachment_site`` as the tip); ``tree`` itself when no site has that name."""
    import mujoco
    site = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, name)
    if site < 0 or name in tree.inertials:
        return tree
    b = int(model.site_bodyid[site])
    body = model.body(b).name or f"body{b}"
    origin = _transform(_quat_matrix(model.site_quat[site]), model.site_pos[site])
    joint = UrdfJoint(f"{name}(site)", "fixed", body, name, origin, np.array([1.0, 0, 0]))
    out = replace(tree, inertials={**tree.inertials, name: UrdfInertial(0.0, np.zeros(3), np.zeros((3, 3)))},
                  joints={**tree.joints, joint.name: joint}, parent_joint={**tree.parent_joint, name: joint.name},
                  child_joints={**tree.child_joints, body: [*tree.child_joints.get(body, []), joint.name], name: []})
    return out
