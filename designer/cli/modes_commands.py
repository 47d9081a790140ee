"""``modes`` and the elastic-joint model's options of ``eval`` and ``simulate`` (docs/elastic.md), for any mechanism
(a closed chain's elastic joints are its actuated ones, named by their links).

``eval --elastic``: q'' and theta'' (and the spring torques) at states of the elastic-joint model,
over the chosen method's compiled M, G and h (a closed chain's numeric M_a, h_a, G_a).
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


def cmd_modes(args) -> int:
    """Any mechanism's modes, tool compliance and sag at its coordinates (a closed chain's actuated joints, named by
    their links): :func:`~designer.numeric.modes.elastic_at` over the metrics' arm and its elastic joints, the
    links' bending where links are made as parts."""
    import numpy as np
    from ..explore.joints import explore_joints
    from ..explore.metrics import elastic_setup
    from ..numeric.modes import elastic_at
    from .numeric_commands import _values
    from .numeric_inputs import segments_of
    model = load_model(args.project)
    try:
        arm, joints = elastic_setup(model, args.project)
    except (DesignerError, ValueError) as exc:
        text = str(exc)
        raise UserError(text if text.startswith(args.project) else f"{args.project}: {text}") from None
    if joints.m == 0 and not arm.beams:
        raise UserError(f"{args.project}: no actuated joint has a drive stiffness (drive data 'stiffness', N m/rad) "
                        "and no link is made as a part")
    segments = segments_of(args.segments)
    names = list(explore_joints(model).names)
    q = np.array(_values(args.q, arm.n, f"--q ({', '.join(names)})", [0.0] * arm.n))
    payload = PAYLOAD.parse(args.payload, "--payload")
    try:
        at = elastic_at(arm, joints, q)
    except DesignerError as exc:
        raise UserError(f"{args.project}: --q: {exc}") from None
    locked = at.locked()
    if not np.all(np.isfinite(locked.frequency)) or (joints.m and np.all(joints.rotor[joints.elastic] > 0)
                                                     and not np.all(np.isfinite(at.free().frequency))):
        raise UserError(f"{args.project}: --q: the mass matrix is singular at q = {q.tolist()} (a massless link or "
                        "joint?): no natural frequencies there")
    out = {"joints": names, "q": q.tolist(),
           "locked": {"frequency_hz": locked.frequency.tolist(), "shapes": locked.shape.T.tolist()}}
    elastic = ", ".join(names[i] for i in joints.elastic)
    if joints.m and np.all(joints.rotor[joints.elastic] > 0):
        free = at.free()
        out["free"] = {"frequency_hz": free.frequency.tolist(), "shapes": free.shape.T.tolist(),
                       "coordinates": f"{', '.join(names)}, then theta/N of the elastic joints {elastic}"}
    C = at.compliance()
    if arm.beams:   # the links' bending (a closed chain's with the loops closed over their slices)
        out["links"], links_C = _link_modes(args.project, at, segments, payload)
        C = C + links_C
    out["compliance"] = {"matrix": C.tolist(), "units": "m/N (translation rows and columns), rad/(N m) (rotation)"}
    out["sag_mm"] = (1e3 * at.sag(payload)).tolist()
    out["payload_kg"] = payload
    out["note"] = ("the actuated joints' gearboxes" + (", and the part-made links' bending (compliance; their share "
                   "of the sag: links.sag_mm)" if arm.beams else ", the links rigid"))
    write_output(json.dumps(out, indent=1) + "\n", args.out)
    return 0


def _link_modes(project: str, at, segments: int, payload: float) -> tuple[dict, np.ndarray]:
    """The modes with the links' bending at the pose ``at`` (motors locked), and the links' share of the tool
    compliance; their share of the sag under gravity and the payload in the dictionary."""
    from ..kinematics.closure import ClosureError
    try:
        modes, C, sag_links = at.links(segments, payload)
    except ClosureError as exc:
        raise UserError(f"{project}: {exc}") from None
    return {"frequency_hz": modes.frequency.tolist(), "joint_shapes": modes.joint_shape.T.tolist(),
            "strain_energy": [dict(zip(modes.groups, map(float, row))) for row in modes.energy],
            "segments": segments, "sag_mm": (1e3 * sag_links[:3]).tolist(),
            "note": "motors locked, the actuated joints' gearboxes and the part-made links' bending (virtual joints), "
                    "a closed chain's loops closed over the links' slices; joint_shapes over the actuated joints; "
                    "strain_energy: each mode's share in the gearboxes ('joints') and in each link; sag_mm: the "
                    "links' share"}, C


def cmd_simulate_elastic(args) -> int:
    """The elastic-joint model of any mechanism (a closed chain's on its actuated joints, named by their links) and
    its rigid twin (the springs stiffened) beside it; the loop residual where the mechanism has loops."""
    import numpy as np
    from ..errors import DesignerError
    from ..explore.joints import explore_arm
    from ..jobs import run
    from ..numeric.elastic import ElasticDynamics
    from ..numeric.simulate import PDControl, simulate_job
    from .control_commands import elastic_dynamics
    from .numeric_commands import _names, say_run
    from .numeric_inputs import _values, integrator, simulation_times
    from .progress import job_bar
    model = load_model(args.project)
    dyn = elastic_dynamics(model, args.project)
    link, joints = dyn.link, dyn.joints
    names = _names(link.actuated, "q")
    n = len(names)
    if args.torque:
        raise UserError("simulate --elastic: --torque is for the rigid arm; use --pd KP KD --target Q (motor side)")
    if args.qd0 is not None:
        raise UserError("simulate --elastic: starts at rest (--qd0 is for the rigid arm)")
    if args.limits == "stop":
        raise UserError("simulate --elastic: no end stops (--limits stop is for the rigid arm); --limits warn lists "
                        "the joints that passed their limits")
    q0 = _values(args.q0, n, "--q0 (" + ", ".join(names) + ")")
    duration, rtol, atol, t_eval = simulation_times(args)
    control = None
    if args.pd:
        kp = _values([args.pd[0]], n, "--pd KP", scalar=True, bound=GAIN)
        kd = _values([args.pd[1]], n, "--pd KD", scalar=True, bound=GAIN)
        target = _values(args.target, n, "--target", q0, scalar=True)
        control = PDControl(kp, kd, target, q0, DURATION.parse(args.move, "--move") if args.move else 0.0)
    options: dict[str, Any] = dict(rtol=rtol, atol=atol, t_eval=t_eval, method=integrator(args))
    try:
        # each run on a fresh closure of its own (a serial engine is its own following)
        dyn = ElasticDynamics(link.following(), joints)
        with job_bar(args.quiet, desc="simulate") as bar:
            traj = run(simulate_job(dyn, q0, None, (0.0, duration), control, **options), bar)
        rigid = run(simulate_job(ElasticDynamics(link.following(), joints.stiffened(np.inf)), q0, None,
                                 (0.0, duration), control, **{**options, "t_eval": traj.t}))
        energy = np.atleast_1d(dyn.model.energy(traj.states()))
        assert traj.cut_force is not None   # a row per loop: the loops' residual, a column where there are loops
        loops = traj.cut_force.shape[1]
        residual = traj.residual if loops else None   # the run's own rows' (computed with the cut forces)
        arm = explore_arm(model)
        deviation = 1e3 * np.linalg.norm(arm.tool_points(traj.q) - arm.tool_points(rigid.q), axis=1)
    except (DesignerError, ValueError) as exc:
        raise UserError(f"{args.project}: {exc}") from None
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
          f"{traj.steps} time steps ({traj.method}: {traj.method_reason}), {traj.evaluations} evaluations; "
          f"energy {energy[0]:.6g} J at the start, "
          f"{energy[-1]:.6g} J at the end; tool deviation from the rigid arm up to {deviation.max():.4g} mm{loops}",
          file=sys.stdout if args.out else sys.stderr)
    say_run(args.limits, dyn, traj, energy, sys.stdout if args.out else sys.stderr)
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
    """q'' and theta'' (and the springs' torques) of any mechanism's elastic joints at each state
    (:func:`~designer.numeric.evaluable.elastic_accelerations`: over the numeric dynamics of the link side, a closed
    chain's in its actuated coordinates, named by their links)."""
    import numpy as np
    from ..numeric.evaluable import elastic_accelerations
    from .control_commands import elastic_dynamics
    from .numeric_commands import _names
    model = load_model(args.project)
    dyn = elastic_dynamics(model, args.project)
    link, joints = dyn.link, dyn.joints
    states = _elastic_states(args.states, link.n, joints.m)
    try:   # numbers only: nothing is derived (no derivation's bar)
        at = elastic_accelerations(dyn)
    except ValueError as exc:   # the drive data (a rotor inertia missing)
        raise UserError(f"{args.project}: {exc}") from None
    results = []
    for i, s in enumerate(states):
        try:
            qdd, thetadd, spring = at(s["q"], s["theta"], s["qd"], s["thetad"], s["tau_m"])
        except ValueError as exc:   # a DesignerError (the loops at the state), a singular mass matrix
            raise UserError(f"{args.states}: states[{i}]: {exc}") from None
        if not (np.all(np.isfinite(qdd)) and np.all(np.isfinite(thetadd))):
            raise UserError(f"{args.states}: states[{i}]: the accelerations are not finite there (numbers too large?)")
        results.append({"qdd": qdd.tolist(), "thetadd": thetadd.tolist(), "spring": spring.tolist()})
    closing = link.n_tree > link.n   # what the numbers are of: the head says
    head = {"method": "closed-chain numeric" if closing else args.method, "elastic": True}
    if closing:
        head["actuated"] = _names(link.actuated, "q")
    json.dump({**head, "joints": [int(link.actuated[i]) + 1 for i in joints.elastic], "results": results}, sys.stdout)
    sys.stdout.write("\n")
    return 0
