"""A closed chain's loops in MJCF: equality constraints at the cut joints (docs/mjcf.md).

MuJoCo closes a loop with ``<equality><connect>``: a point of body1 (``anchor``, in body1's frame)
held on the point of body2 that coincides with it at ``qpos0``, the nominal pose, where the loops
close (the project's validation requires it). A ball cut joint is one connect; a revolute one two
connects on its axis, :data:`AXIS_SPAN` apart (6 conditions of which 5 are independent: the hinge);
a fixed one three connects at points not on a line (rigid; they share the connects' meaning of
"where the points coincide at qpos0", which a weld's relative pose would have to restate). The
constraints are MuJoCo's soft ones: ``solref`` and ``solimp`` are set stiff (:data:`SOLREF`,
:data:`SOLIMP`) so that the loop stays closed to what its time step allows.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from ..kinematics.closure import mechanism_problems
from ..kinematics.tree import TreeArm
from ..model.manipulator import Manipulator
from ..model.mechanism import CutJoint
from .source import MjcfError

__all__ = ["AXIS_SPAN", "SOLIMP", "SOLREF", "loop_equalities"]

#: the second point of a revolute cut joint, along its axis (m)
AXIS_SPAN = 0.1
#: stiff constraints: time constant 4 ms (MuJoCo wants at least two time steps: its default step is 2 ms),
#: impedance 0.9999 (the constraint force is 99.99 % of the rigid one)
SOLREF = "0.004 1"
SOLIMP = "0.9999 0.9999 0.001 0.5 2"


def _vec(v) -> str:
    return " ".join("0" if float(x) == 0 else repr(float(x)) for x in v)


def loop_equalities(root: ET.Element, model: Manipulator, out, link_names: list[str]) -> str:
    """``<equality>`` of the loops of ``model`` under ``root``; ``out``: the exporter's
    :class:`~designer.urdf.exporter.Exported` (each link's body frame holds DH frame i at
    ``offsets[i]`` in the standard convention, at the identity in the modified one). Returns the
    loops' names, for the file's note."""
    tree = TreeArm.from_model(model)
    problems = mechanism_problems(tree)   # the exporter wrote an assembled loop at its assembled pose: none here
    if problems:   # MuJoCo would hold the bodies where they are at qpos0, closed or not
        raise MjcfError("cannot export: " + "; ".join(map(str, problems)))
    equality = ET.SubElement(root, "equality")
    taken: set[str] = set()   # MuJoCo refuses a file whose equalities share a name; loops may share a label

    def unique(name: str) -> str:
        candidate, count = name, 1
        while candidate in taken:
            count += 1
            candidate = f"{name} #{count}"
        taken.add(candidate)
        return candidate
    labels = [lp.name or f"loop{k + 1}" for k, lp in enumerate(model.loops)]
    for k, (i, j, Fi, _, kind) in enumerate(tree.loops):
        to_body = out.offsets[i] if out.standard and i >= 0 else np.eye(4)
        cut = to_body @ Fi   # the cut frame in body i's frame
        body1 = link_names[i] if i >= 0 else "dh_frame0"
        body2 = link_names[j] if j >= 0 else "dh_frame0"
        name = labels[k] if labels.count(labels[k]) == 1 else f"{labels[k]}, loops[{k + 1}]"
        common = {"body1": body1, "body2": body2, "solref": SOLREF, "solimp": SOLIMP}
        points = [cut[:3, 3]]
        if kind is CutJoint.REVOLUTE:   # a second point on the axis: a hinge
            points.append(cut[:3, 3] + AXIS_SPAN * cut[:3, 2])
        elif kind is CutJoint.FIXED:    # three points not on a line: rigid
            points += [cut[:3, 3] + AXIS_SPAN * cut[:3, 0], cut[:3, 3] + AXIS_SPAN * cut[:3, 1]]
        for n, point in enumerate(points):
            ET.SubElement(equality, "connect", attrib={"name": unique(name if n == 0 else f"{name} ({n + 1})"),
                                                       "anchor": _vec(point), **common})
    return ", ".join(labels)
