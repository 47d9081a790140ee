"""``modes`` of a closed chain (docs/elastic.md): its actuated joints' gearboxes, named by their links.

The elastic joints of a closed chain are its actuated ones (the gearboxes sit at the motors; a passive
joint with a drive stiffness is refused). At the pose given by the actuated values, the loops closed:
the locked modes K v = w^2 M_a v, the free modes with the rotors (the 2 n_a model), the tool
compliance J_a K^-1 J_a^T with J_a = J W and the sag J_v K^-1 (J_v^T m_p g - G_a), as the explore
metrics have them; the core's :mod:`designer.explore.closed_elastic` computes them (the window's read-out,
mode animation and compliance ellipsoid call the same); the links stay rigid.
"""

from __future__ import annotations

import json

import numpy as np

from ..errors import DesignerError
from .common import UserError, write_output

__all__ = ["closed_modes"]


def closed_modes(args, model) -> int:
    from ..explore.closed_elastic import closed_elastic, closed_elastic_at
    from .numeric_commands import _values, number
    try:
        arm, joints = closed_elastic(model, args.project)
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
    try:
        at = closed_elastic_at(arm, joints, q)
    except DesignerError as exc:
        raise UserError(f"{args.project}: --q: {exc}") from None
    locked = at.locked()
    out = {"joints": names, "q": q.tolist(),
           "locked": {"frequency_hz": locked.frequency.tolist(), "shapes": locked.shape.T.tolist()}}
    elastic = ", ".join(names[i] for i in joints.elastic)
    if np.all(joints.rotor[joints.elastic] > 0):
        free = at.free()
        out["free"] = {"frequency_hz": free.frequency.tolist(), "shapes": free.shape.T.tolist(),
                       "coordinates": f"{', '.join(names)}, then theta/N of the elastic joints {elastic}"}
    out["compliance"] = {"matrix": at.compliance().tolist(),
                         "units": "m/N (translation rows and columns), rad/(N m) (rotation)"}
    out["sag_mm"] = (1e3 * at.sag(payload)).tolist()
    out["payload_kg"] = payload
    out["note"] = "closed chain: the actuated joints' gearboxes, the links rigid"
    write_output(json.dumps(out, indent=1) + "\n", args.out)
    return 0
