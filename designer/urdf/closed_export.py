"""What a closed chain's URDF can say of its loops (docs/urdf.md, "Closed chains").

URDF has no loops: the exporter writes the spanning tree and drops the cut joints. A passive joint whose
closure is linear in one actuated joint is a ``<mimic>`` of it; one following several actuated joints (the
palletizer's q3 = q4 - q2) a series of coaxial revolute mimic joints through massless links (rotations
about one axis add; the importer merges them back); a passive joint of a non-linear closure an independent
joint. What no mimic can say is listed as a note."""

from __future__ import annotations

import numpy as np

from ..kinematics.closure import Closure, ClosureError
from ..kinematics.tree import TreeArm
from ..model.manipulator import JointType, Manipulator
from .source import UrdfError

__all__ = ["mimic_plan", "relation_text"]


def relation_text(terms) -> str:
    """``[(joint name, multiplier), ...]`` as a sum: "joint4 - joint2", "2 j3"."""
    out = []
    for name, m in sorted(terms, key=lambda t: t[1] < 0):   # a positive term first: "joint4 - joint2"
        if m == 0:
            continue
        coefficient = "" if abs(m) == 1 else f"{abs(m):g} "
        out.append(("- " if m < 0 else "+ ") + coefficient + name)
    return " ".join(out).removeprefix("+ ") or "0"


def _relation(names: list[str], passive: int, row: np.ndarray, act: np.ndarray) -> str:
    return f"{names[passive]} = " + relation_text([(names[k], m) for k, m in zip(act, row)])


def mimic_plan(model: Manipulator, joint_names: list[str]) -> tuple[dict[int, list[tuple[int, float]]], list[str]]:
    """({passive joint: [(actuated joint, multiplier), ...]} for the ``<mimic>`` joints (0-based; more
    than one term: coaxial mimic joints), notes on what the URDF drops or how it says it); a mechanism
    whose loops cannot be assembled raises :class:`UrdfError`."""
    try:
        closure = Closure(TreeArm.from_model(model))
    except ClosureError as exc:
        raise UrdfError(f"cannot export: {exc}") from None
    mimics: dict[int, list[tuple[int, float]]] = {}
    notes: list[str] = []
    act = closure.act
    if closure.linear is None:
        notes.append("passive joint(s) " + ", ".join(joint_names[p] for p in closure.pas)
                     + " follow a non-linear loop closure (no mimic can say it): written as independent joints")
    else:
        for row, p, c in zip(closure.linear.A, closure.pas, closure.linear.c):
            used = np.flatnonzero(row)
            if abs(c) > 1e-12:   # an assembled loop's passive joint at c when the actuated ones are at 0
                notes.append(f"passive joint {joint_names[p]} is {c:.6g} at the reference pose (the loop assembled): "
                             "written as an independent joint")
                continue
            if len(used) == 0:   # a loop holding the joint at its nominal value: a mimic of nothing
                notes.append(f"passive joint {joint_names[p]} stays at 0 (written as an independent joint)")
                continue
            if len(used) > 1 and model.links[p].joint is not JointType.REVOLUTE:
                notes.append(f"{_relation(joint_names, int(p), row, act)} follows {len(used)} actuated joints "
                             "(a URDF mimic follows one): written as an independent joint")
                continue
            mimics[int(p)] = [(int(act[u]), float(row[u])) for u in used]
            if len(used) > 1:
                series = ", ".join([joint_names[p]] + [f"{joint_names[p]}_mimic{k}" for k in range(2, len(used) + 1)])
                notes.append(f"{_relation(joint_names, int(p), row, act)} written as coaxial mimic joints {series} "
                             "through massless links (a URDF mimic follows one joint)")
    if closure.assembly.assembled:
        open_loops = ", ".join(closure.tree.loop_names[k] for k in closure.assembly.assembled)
        notes.append(f"{open_loops} do(es) not close at the nominal pose (the closure assembles it by moving the "
                     "passive joints): the URDF's zero pose is the project's nominal pose, the loop open there")
    names = [lp.name or f"loops[{k}]" for k, lp in enumerate(model.loops, start=1)]
    if names:
        notes.append("cut joint(s) of " + ", ".join(names) + " dropped (URDF has no loops)")
    return mimics, notes
