"""``modes`` of a closed chain (docs/elastic.md): its actuated joints' gearboxes, named by their links.

The elastic joints of a closed chain are its actuated ones (the gearboxes sit at the motors; a passive
joint with a drive stiffness is refused). At the pose given by the actuated values, the loops closed:
the locked modes K v = w^2 M_a v, the free modes with the rotors (the 2 n_a model), the tool
compliance J_a K^-1 J_a^T with J_a = J W and the sag J_v K^-1 (J_v^T m_p g - G_a), as the explore
metrics have them (explore/elastic_metrics.py); the links stay rigid.
"""

from __future__ import annotations

import json

import numpy as np

from ..errors import DesignerError
from .common import UserError, write_output

__all__ = ["closed_modes"]


def closed_modes(args, model) -> int:
    from ..explore.closed import ClosedArm
    from ..explore.elastic_metrics import drive_ratings, passive_stiffness_refused
    from ..numeric.elastic import ElasticJoints
    from ..numeric.modes import free_modes, locked_modes
    from ..numeric.stiffness import joint_compliance, sag
    from .numeric_commands import _values, number
    try:
        passive_stiffness_refused(model, args.project)
        arm = ClosedArm(model)
        values = drive_ratings(model)
        joints = ElasticJoints.of(arm.n, values["stiffness"], None, values["gear"], values["rotor"])
    except (DesignerError, ValueError) as exc:
        text = str(exc)
        raise UserError(text if text.startswith(args.project) else f"{args.project}: {text}") from None
    if joints.m == 0:
        raise UserError(f"{args.project}: no actuated joint has a drive stiffness (drive data 'stiffness', N m/rad)")
    if args.segments is not None:
        raise UserError("--segments: the links' bending of a closed chain is not modelled (its links are rigid here)")
    names = [f"q{i}" for i in arm.joint_numbers]
    q = np.array(_values(args.q, arm.n, f"--q ({', '.join(names)})", [0.0] * arm.n))
    payload = number(args.payload, "--payload")
    b = arm.batch(q)
    M, J = b.M[0], b.tool_jacobian[0]
    if not (np.isfinite(M).all() and np.isfinite(J).all()):
        raise UserError(f"{args.project}: the loops cannot close at --q {' '.join(f'{v:g}' for v in q)} "
                        "(or stand at a dead centre)")
    locked = locked_modes(M, joints)
    out = {"joints": names, "q": q.tolist(),
           "locked": {"frequency_hz": locked.frequency.tolist(), "shapes": locked.shape.T.tolist()}}
    elastic = ", ".join(names[i] for i in joints.elastic)
    if np.all(joints.rotor[joints.elastic] > 0):
        free = free_modes(M, joints)
        out["free"] = {"frequency_hz": free.frequency.tolist(), "shapes": free.shape.T.tolist(),
                       "coordinates": f"{', '.join(names)}, then theta/N of the elastic joints {elastic}"}
    C = (J * joint_compliance(joints)) @ J.T
    out["compliance"] = {"matrix": C.tolist(), "units": "m/N (translation rows and columns), rad/(N m) (rotation)"}
    # sag reads only the arm's gravity when given J and G (ClosedArm has it)
    out["sag_mm"] = (1e3 * sag(arm, joints, q, payload, J=J, G=b.G[0])).tolist()  # type: ignore[arg-type]
    out["payload_kg"] = payload
    out["note"] = "closed chain: the actuated joints' gearboxes, the links rigid"
    write_output(json.dumps(out, indent=1) + "\n", args.out)
    return 0
