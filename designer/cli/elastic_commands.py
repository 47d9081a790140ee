"""Elastic joints on the command line (docs/elastic.md).

``eval --elastic``: q'' and theta'' (and the spring torques) at states of the elastic-joint model,
over the chosen method's compiled M, G and h.
``simulate --elastic``: the elastic-joint model under the motor-side PD (``--pd KP KD --target Q``,
a quintic move of ``--move`` seconds) or passive, with the rigid arm's run beside it: the CSV has
t, q, theta, qd, thetad, tau_m, the energy (springs and rotors included) and the tool's deviation
from the rigid arm in mm. ``modes``: natural frequencies and mode shapes at a pose (motors locked,
and free with the rotor inertias), the tool compliance and the sag under gravity and a payload.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import DesignerError

from .common import UserError, load_model, write_output
from .progress import add_quiet
from .ranges import DURATION, GAIN, PAYLOAD, SEGMENTS

if TYPE_CHECKING:
    import numpy as np

__all__ = ["register", "cmd_simulate_elastic", "cmd_modes", "cmd_eval_elastic"]

_STATE_KEYS = ("q", "qd", "theta", "thetad", "tau_m")


def register(sub) -> None:
    _extend(sub, "simulate", cmd_simulate_elastic, [
        (("--elastic",), dict(action="store_true", help="the elastic-joint model of the drive data's stiffness, PD on "
                              "the motor side, the rigid arm's run beside it (docs/elastic.md)")),
        (("--move",), dict(metavar="S", help="--elastic: reach --target along a quintic in S seconds"))])
    _extend(sub, "eval", cmd_eval_elastic, [
        (("--elastic",), dict(action="store_true", help='the elastic-joint model: states {"q", "qd", "theta", '
                              '"thetad", "tau_m"} give qdd and thetadd over the method\'s M, G, h (docs/elastic.md)'))])
    p = sub.add_parser("modes", help="natural frequencies, mode shapes, tool compliance and sag at a pose "
                       "(elastic joints: the drive data's stiffness)")
    p.add_argument("project")
    p.add_argument("--q", nargs="+", metavar="Q", help="the pose (n values; default all zero)")
    p.add_argument("--payload", default="0", metavar="KG", help="payload at the tool for the sag (kg, default 0)")
    p.add_argument("--segments", type=SEGMENTS, metavar="S", help="virtual joints per part-made link for the modes "
                   "with the links' bending (default 4; docs/elastic.md)")
    p.add_argument("--out", metavar="FILE", help="write the JSON here instead of standard output")
    add_quiet(p)
    p.set_defaults(func=cmd_modes)


def _extend(sub, name: str, elastic, options) -> None:
    """Give the command ``name`` (registered by its own module) the options; ``--elastic`` runs ``elastic``."""
    p = sub.choices[name]
    rigid = p.get_default("func")
    for flags, kw in options:
        p.add_argument(*flags, **kw)

    def func(args):
        if args.elastic:
            return elastic(args)
        if getattr(args, "move", None) is not None:
            raise UserError("--move: only with --elastic")
        return rigid(args)
    p.set_defaults(func=func)


def _arm_and_joints(args, links_bend: bool = False):
    """A serial arm's model, NumericArm and elastic joints (a closed chain went to its own path before)."""
    from ..model import MissingParameterError
    from ..kinematics import NumericArm
    from ..numeric.elastic import ElasticModelError, elastic_joints
    model = load_model(args.project)
    try:
        arm = NumericArm.from_model(model)
        joints = elastic_joints(model)
    except (MissingParameterError, ValueError, ElasticModelError) as exc:
        raise UserError(f"{args.project}: {exc}") from None
    if joints.m == 0 and not (links_bend and arm.beams):
        raise UserError(f"{args.project}: no joint has a drive stiffness (drive data 'stiffness', N m/rad)"
                        + (" and no link is made as a part" if links_bend else ""))
    return model, arm, joints


def cmd_modes(args) -> int:
    import numpy as np
    from ..numeric.engine import arm_dynamics
    from ..numeric.modes import free_modes, locked_modes
    from ..numeric.stiffness import sag, tool_compliance
    from .numeric_commands import _values
    closed = load_model(args.project, closed=True)
    if not closed.is_serial:   # its actuated joints' gearboxes (closed_modes below)
        return closed_modes(args, closed)
    model, arm, joints = _arm_and_joints(args, links_bend=True)
    q = np.array(_values(args.q, model.n, "--q", [0.0] * model.n))
    payload = PAYLOAD.parse(args.payload, "--payload")
    M = arm_dynamics(arm).M(q)
    locked = locked_modes(M, joints)
    out = {"q": q.tolist(), "locked": {"frequency_hz": locked.frequency.tolist(), "shapes": locked.shape.T.tolist()}}
    if arm.beams:
        out["links"] = _link_modes(arm, joints, q, args.segments)
    if joints.m and np.all(joints.rotor[joints.elastic] > 0):
        free = free_modes(M, joints)
        out["free"] = {"frequency_hz": free.frequency.tolist(), "shapes": free.shape.T.tolist(),
                       "coordinates": "q1..qn, then theta/N of the elastic joints " +
                       ", ".join(str(i + 1) for i in joints.elastic)}
    C = tool_compliance(arm, joints, q)
    out["compliance"] = {"matrix": C.tolist(), "units": "m/N (translation rows and columns), rad/(N m) (rotation)"}
    out["sag_mm"] = (1e3 * sag(arm, joints, q, payload)).tolist()
    out["payload_kg"] = payload
    write_output(json.dumps(out, indent=1) + "\n", args.out)
    return 0


def _link_modes(arm, joints, q, segments: int | None) -> dict:
    """The modes with the links' bending (motors locked): frequencies, the joints' part of each shape, and
    where each mode's strain energy lies (gearboxes, each link)."""
    from ..numeric.flex_modes import flex_modes
    from .numeric_inputs import segments_of
    segments = segments_of(segments)
    modes = flex_modes(arm, joints, q, segments)
    return {"frequency_hz": modes.frequency.tolist(), "joint_shapes": modes.joint_shape.T.tolist(),
            "strain_energy": [dict(zip(modes.groups, map(float, row))) for row in modes.energy],
            "segments": segments,
            "note": "motors locked, elastic joints and the part-made links' bending (virtual joints); "
                    "strain_energy: each mode's share in the gearboxes ('joints') and in each link"}


def _simulation_setup(args):
    """The serial arm or the closed chain (below) that ``simulate --elastic`` runs."""
    import numpy as np
    closed = load_model(args.project, closed=True)
    if not closed.is_serial:
        return closed_elastic_setup(closed, args.project)
    from ..kinematics.numeric import dh_frames
    model, arm, joints = _arm_and_joints(args)

    def tool_points(Q):
        return (dh_frames(arm, np.atleast_2d(Q))[:, -1] @ arm.tool)[:, :3, 3]
    return ElasticSetup(arm, joints, lambda: None, [f"q{j}" for j in range(1, model.n + 1)], tool_points)


def cmd_simulate_elastic(args) -> int:
    import numpy as np
    from ..errors import DesignerError
    from ..jobs import run
    from ..numeric.elastic import ElasticDynamics
    from ..numeric.engine import arm_dynamics
    from ..numeric.simulate import PDControl, simulate_job
    from .numeric_inputs import _values, simulation_times
    from .progress import job_bar
    setup = _simulation_setup(args)
    arm, joints, names = setup.arm, setup.joints, setup.names
    n = len(names)
    if args.torque:
        raise UserError("simulate --elastic: --torque is for the rigid arm; use --pd KP KD --target Q (motor side)")
    if args.qd0 is not None:
        raise UserError("simulate --elastic: starts at rest (--qd0 is for the rigid arm)")
    q0 = _values(args.q0, n, "--q0 (" + ", ".join(names) + ")")
    duration, rtol, atol, t_eval = simulation_times(args)
    control = None
    if args.pd:
        kp = _values([args.pd[0]], n, "--pd KP", scalar=True, bound=GAIN)
        kd = _values([args.pd[1]], n, "--pd KD", scalar=True, bound=GAIN)
        target = _values(args.target, n, "--target", q0, scalar=True)
        control = PDControl(kp, kd, target, q0, DURATION.parse(args.move, "--move") if args.move else 0.0)
    options: dict[str, Any] = dict(rtol=rtol, atol=atol, t_eval=t_eval)
    try:
        def link_side():   # a closed chain's: a fresh closure per run; a serial arm's engine
            side = setup.side()
            return arm_dynamics(arm) if side is None else side
        dyn = ElasticDynamics(link_side(), joints)
        with job_bar(args.quiet, desc="simulate") as bar:
            traj = run(simulate_job(dyn, q0, None, (0.0, duration), control, **options), bar)
        rigid = run(simulate_job(ElasticDynamics(link_side(), joints.stiffened(np.inf)), q0, None,
                                 (0.0, duration), control, **{**options, "t_eval": traj.t}))
        energy = np.atleast_1d(dyn.model.energy(traj.states()))
        residual = None if setup.residual is None else np.array([setup.residual(q) for q in traj.q])
    except (DesignerError, ValueError) as exc:
        raise UserError(f"{args.project}: {exc}") from None
    deviation = 1e3 * np.linalg.norm(setup.tool_points(traj.q) - setup.tool_points(rigid.q), axis=1)
    tau = traj.tau_m if traj.tau_m is not None else np.zeros_like(traj.q)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    motors = [names[i][1:] for i in joints.elastic]
    writer.writerow(["t"] + names + [f"theta{j}" for j in motors] + ["qd" + v[1:] for v in names]
                    + [f"thetad{j}" for j in motors] + ["taum" + v[1:] for v in names] + ["energy", "tool_deviation_mm"]
                    + ([] if residual is None else ["loop_residual"]))
    states = traj.states()
    for r in range(len(traj.t)):
        extra = () if residual is None else (residual[r],)
        writer.writerow([repr(float(v)) for v in (traj.t[r], *states[r], *tau[r], energy[r], deviation[r], *extra)])
    write_output(buf.getvalue(), args.out)
    loops = "" if residual is None else f"; largest loop residual {residual.max() * 1000:.3g} mm"
    print(f"simulated {duration:g} s of the elastic-joint model{' (closed chain)' if residual is not None else ''}: "
          f"{traj.steps} time steps (Radau), {traj.evaluations} evaluations; energy {energy[0]:.6g} J at the start, "
          f"{energy[-1]:.6g} J at the end; tool deviation from the rigid arm up to {deviation.max():.4g} mm{loops}",
          file=sys.stdout if args.out else sys.stderr)
    return 0


def _elastic_states(path: str, n: int, m: int) -> list[dict[str, np.ndarray]]:
    import numpy as np
    from .common import read_json
    data = read_json(path, "states file")
    if not isinstance(data, dict) or not isinstance(data.get("states"), list):
        raise UserError(f'{path}: expected an object {{"states": [...]}}')
    sizes = {"q": n, "qd": n, "theta": m, "thetad": m, "tau_m": n}
    out = []
    for i, state in enumerate(data["states"]):
        if not isinstance(state, dict) or set(state) - set(_STATE_KEYS):
            raise UserError(f"{path}: states[{i}]: an object with " + ", ".join(_STATE_KEYS) + " (tau_m optional)")
        row = {}
        for key in _STATE_KEYS:
            value = state.get(key, [0.0] * n if key == "tau_m" else None)
            try:
                a = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                a = np.zeros(0)
            if a.shape != (sizes[key],) or not np.all(np.isfinite(a)):
                raise UserError(f"{path}: states[{i}].{key}: expected {sizes[key]} finite numbers")
            row[key] = a
        out.append(row)
    return out


def cmd_eval_elastic(args) -> int:
    import numpy as np
    from .numeric_commands import compiled_for
    closed = load_model(args.project, closed=True)
    if not closed.is_serial:   # its actuated joints' gearboxes over M_a, h_a, G_a (below)
        return closed_eval_elastic(args, closed, _elastic_states)
    model, arm, joints = _arm_and_joints(args)
    E, N = joints.elastic, joints.gear
    if np.any(joints.rotor[E] <= 0):
        raise UserError(f"{args.project}: eval --elastic needs every elastic joint's motor_inertia")
    states = _elastic_states(args.states, model.n, joints.m)
    cd = compiled_for(model, args.method, args.project, args.quiet)
    results = []
    for i, s in enumerate(states):
        spring = (joints.stiffness[E] * (s["theta"] / N[E] - s["q"][E])
                  + joints.damping[E] * (s["thetad"] / N[E] - s["qd"][E]))
        tau = N * s["tau_m"]
        tau[E] = spring
        with np.errstate(all="ignore"):
            M = np.asarray(cd.M(s["q"])) + np.diag(joints.reflected)
            rhs = tau - np.asarray(cd.G(s["q"])) - np.asarray(cd.h(s["q"], s["qd"]))
            try:
                qdd = np.linalg.solve(M, rhs)
            except np.linalg.LinAlgError:
                raise UserError(f"{args.states}: states[{i}]: the mass matrix is singular there") from None
        thetadd = (s["tau_m"][E] - spring / N[E]) / joints.rotor[E]
        if not (np.all(np.isfinite(qdd)) and np.all(np.isfinite(thetadd))):
            raise UserError(f"{args.states}: states[{i}]: the accelerations are not finite there (numbers too large?)")
        results.append({"qdd": qdd.tolist(), "thetadd": thetadd.tolist(), "spring": spring.tolist()})
    json.dump({"method": args.method, "elastic": True, "joints": [int(i) + 1 for i in E], "results": results},
              sys.stdout)
    sys.stdout.write("\n")
    return 0


# a closed chain's elastic joints: the actuated ones, named by their links (M_a, h_a, G_a with the loops
# closed at every state, numeric/closed_elastic.py); a passive joint with a stiffness is refused

@dataclass(frozen=True)
class ElasticSetup:
    """What ``simulate --elastic`` needs of an arm: the serial arm (None for a closed chain), its elastic
    joints, a fresh link side per run (None: the serial arm's), the joints' names (by link), the tool
    points of link states (T, n) -> (T, 3), and the loop residual of a state (None for a serial arm)."""

    arm: Any
    joints: Any
    side: Any
    names: list[str]
    tool_points: Any
    residual: Any = None


def _joints(model, where: str):
    from ..model import MissingParameterError
    from ..numeric.elastic import elastic_joints
    try:
        joints = elastic_joints(model)
    except (DesignerError, MissingParameterError, ValueError) as exc:
        raise UserError(f"{where}: {exc}") from None
    if joints.m == 0:
        raise UserError(f"{where}: no actuated joint has a drive stiffness (drive data 'stiffness', N m/rad)")
    return joints


def closed_elastic_setup(model, where: str) -> ElasticSetup:
    from ..model import MissingParameterError
    from ..explore.joints import explore_arm
    from ..kinematics.closure import ClosureError
    joints = _joints(model, where)
    try:
        arm = explore_arm(model)
    except (ClosureError, MissingParameterError, ValueError) as exc:
        raise UserError(f"{where}: {exc}") from None
    names = [f"q{j}" for j in arm.joint_numbers]
    follow = arm.cd.following()   # the rows of a trajectory, one branch
    return ElasticSetup(None, joints, arm.cd.following, names, arm.tool_points, follow.residual)


def closed_elastic_linear_model(model, q, qd, qdd, where: str):
    """(the linear model, its state names) of ``linearize --elastic`` for a closed chain."""
    import numpy as np
    from ..control.linearize import elastic_linearize_closed
    from .numeric_commands import _dynamics
    joints = _joints(model, where)
    cd = _dynamics(model, where)
    names = [f"q{j + 1}" for j in cd.act]
    motors = [f"theta{names[i][1:]}" for i in joints.elastic]
    state = names + motors + ["qd" + v[1:] for v in names] + ["thetad" + v[5:] for v in motors]
    try:
        return elastic_linearize_closed(cd, joints, np.asarray(q), np.asarray(qd), np.asarray(qdd)), state
    except DesignerError as exc:
        raise UserError(f"{where}: {exc}") from None


def closed_eval_elastic(args, model, read_states) -> int:
    """``eval --elastic`` of a closed chain: q'' and theta'' (and the springs' torques) of the actuated joints at
    each state, over M_a, h_a, G_a (``read_states(path, n, m)``: elastic_commands' reader)."""
    import numpy as np
    import json
    import sys
    from ..numeric.elastic import ElasticArm
    from .numeric_commands import _dynamics
    if args.method != "lagrange":
        raise UserError(f"{args.project}: eval --elastic of a closed chain evaluates its numeric projected dynamics "
                        "(no --method)")
    joints = _joints(model, args.project)
    cd = _dynamics(model, args.project)
    try:
        ea = ElasticArm(None, joints, cd)
    except DesignerError as exc:
        raise UserError(f"{args.project}: {exc}") from None
    states = read_states(args.states, ea.n, ea.m)
    results = []
    for i, s in enumerate(states):
        y = np.concatenate([s["q"], s["theta"], s["qd"], s["thetad"]])
        try:
            qdd, thetadd = ea.accelerations(y, s["tau_m"])
        except DesignerError as exc:
            raise UserError(f"{args.states}: states[{i}]: {exc}") from None
        if not (np.all(np.isfinite(qdd)) and np.all(np.isfinite(thetadd))):
            raise UserError(f"{args.states}: states[{i}]: the accelerations are not finite there (numbers too large?)")
        spring = ea.spring(s["q"], s["theta"], s["qd"], s["thetad"])
        results.append({"qdd": qdd.tolist(), "thetadd": thetadd.tolist(), "spring": spring.tolist()})
    names = [f"q{j + 1}" for j in cd.act]
    json.dump({"method": "closed-chain numeric", "elastic": True, "actuated": names,
               "joints": [int(cd.act[i]) + 1 for i in joints.elastic], "results": results}, sys.stdout)
    sys.stdout.write("\n")
    return 0


def closed_modes(args, model) -> int:
    import numpy as np
    from ..explore.metrics import elastic_at, elastic_setup
    from .numeric_commands import _values
    from .numeric_inputs import segments_of
    from .ranges import PAYLOAD
    try:
        arm, joints = elastic_setup(model, args.project)
    except (DesignerError, ValueError) as exc:
        text = str(exc)
        raise UserError(text if text.startswith(args.project) else f"{args.project}: {text}") from None
    if joints.m == 0 and not arm.beams:
        raise UserError(f"{args.project}: no actuated joint has a drive stiffness (drive data 'stiffness', N m/rad) "
                        "and no link is made as a part")
    segments = segments_of(args.segments)
    names = [f"q{i}" for i in arm.joint_numbers]
    q = np.array(_values(args.q, arm.n, f"--q ({', '.join(names)})", [0.0] * arm.n))
    payload = PAYLOAD.parse(args.payload, "--payload")
    try:
        at = elastic_at(arm, joints, q)
    except DesignerError as exc:
        raise UserError(f"{args.project}: --q: {exc}") from None
    locked = at.locked()
    out = {"joints": names, "q": q.tolist(),
           "locked": {"frequency_hz": locked.frequency.tolist(), "shapes": locked.shape.T.tolist()}}
    elastic = ", ".join(names[i] for i in joints.elastic)
    if joints.m and np.all(joints.rotor[joints.elastic] > 0):
        free = at.free()
        out["free"] = {"frequency_hz": free.frequency.tolist(), "shapes": free.shape.T.tolist(),
                       "coordinates": f"{', '.join(names)}, then theta/N of the elastic joints {elastic}"}
    C = at.compliance()
    if arm.beams:   # the links' bending, the loops closed over their slices (numeric/closed_flex.py)
        q_tree = arm.batch(q).closed[0][0]
        out["links"], links_C = _closed_link_modes(args.project, arm, joints, q_tree, segments, payload)
        C = C + links_C
    out["compliance"] = {"matrix": C.tolist(), "units": "m/N (translation rows and columns), rad/(N m) (rotation)"}
    out["sag_mm"] = (1e3 * at.sag(payload)).tolist()
    out["payload_kg"] = payload
    out["note"] = ("closed chain: the actuated joints' gearboxes" + (", and the part-made links' bending (compliance; "
                   "their share of the sag: links.sag_mm)" if arm.beams else ", the links rigid"))
    write_output(json.dumps(out, indent=1) + "\n", args.out)
    return 0


def _closed_link_modes(project: str, arm, joints, q_tree, segments: int, payload: float) -> tuple[dict, np.ndarray]:
    """The modes with the links' bending at the closed tree pose (motors locked), and the links' share of the
    tool compliance; their share of the sag under gravity and the payload in the dictionary."""
    from ..kinematics.closure import ClosureError
    try:
        model = arm.flex(joints.stiffness, segments)
        freq, shape, energy, groups = model.modes(q_tree)
        links = arm.flex(None, segments)
        C, sag_links = links.compliance(q_tree), links.sag(q_tree, payload)
    except ClosureError as exc:
        raise UserError(f"{project}: {exc}") from None
    return {"frequency_hz": freq.tolist(), "joint_shapes": shape.T.tolist(),
            "strain_energy": [dict(zip(groups, map(float, row))) for row in energy],
            "segments": segments, "sag_mm": (1e3 * sag_links[:3]).tolist(),
            "note": "motors locked, the actuated joints' gearboxes and the part-made links' bending (virtual joints), "
                    "the loops closed over the links' slices; joint_shapes over the actuated joints; strain_energy: "
                    "each mode's share in the gearboxes ('joints') and in each link; sag_mm: the links' share"}, C
