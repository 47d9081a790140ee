"""``modes`` of a closed chain (docs/elastic.md): its actuated joints' gearboxes, named by their links.

The elastic joints of a closed chain are its actuated ones (the gearboxes sit at the motors; a passive
joint with a drive stiffness is refused). At the pose given by the actuated values, the loops closed:
the locked modes K v = w^2 M_a v, the free modes with the rotors (the 2 n_a model), the tool
compliance J_a K^-1 J_a^T with J_a = J W and the sag J_v K^-1 (J_v^T m_p g - G_a), as the explore
metrics have them; the core's :func:`designer.explore.metrics.elastic_at` computes them (the window's read-out,
mode animation and compliance ellipsoid call the same). Part-made links bend (numeric/closed_flex.py): the modes with
the links' slices (``links``, ``--segments`` per link), their share of the compliance added to the gearboxes'
and of the sag given apart (``links.sag_mm``), as the serial ``modes`` has them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..errors import DesignerError
from .common import UserError, write_output

if TYPE_CHECKING:
    import numpy as np

__all__ = ["closed_modes"]


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
        out["links"], links_C = _link_modes(args.project, arm, joints, q_tree, segments, payload)
        C = C + links_C
    out["compliance"] = {"matrix": C.tolist(), "units": "m/N (translation rows and columns), rad/(N m) (rotation)"}
    out["sag_mm"] = (1e3 * at.sag(payload)).tolist()
    out["payload_kg"] = payload
    out["note"] = ("closed chain: the actuated joints' gearboxes" + (", and the part-made links' bending (compliance; "
                   "their share of the sag: links.sag_mm)" if arm.beams else ", the links rigid"))
    write_output(json.dumps(out, indent=1) + "\n", args.out)
    return 0


def _link_modes(project: str, arm, joints, q_tree, segments: int, payload: float) -> tuple[dict, np.ndarray]:
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
