"""The drive terms of a closed chain's compact form (:mod:`designer.dynamics.closed_compact`).

The drive data of every tree joint (:func:`~designer.model.drives.drive_arrays`: N^2 Jm, viscous b,
Coulomb fc) projected by W = [I; W_p] (rows: the tree's joints), W_p the steps' d q_p / d q_a:

- M_a += W^T diag(N^2 Jm) W;
- tau_a += W^T (N^2 Jm qdd_tree + b qd_tree + fc sign(qd_tree)), qd_tree and qdd_tree the steps' tree
  rates (a passive acceleration is W_p qdd_a + b, the W_p' qd_a term included);
- h_a += the same at qdd_a = 0 (h = tau(q, qd, 0) - G stays true: N^2 Jm of a passive joint times its
  rate term b, and the friction).

Everything is written over the steps' symbols (W<i>_<k>, qdp<i>, qddp<i>, b<i>), so the plan takes the
steps these terms read. A linear closure's W_p is the integer A and b = 0: the same formulas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from ..dynamics.inertial import drive_parameter_values, drive_slots
from ..model.drives import drive_arrays

if TYPE_CHECKING:
    from ..dynamics.closed_compact import ClosedCompact
    from ..model.manipulator import Manipulator

__all__ = ["drive_columns", "compact_drive_terms", "compact_drive_doc", "COMPACT_DRIVES_STATEMENT"]

COMPACT_DRIVES_STATEMENT = ("drive terms of every joint of the tree added, projected by W = d q_tree / d q_a: "
                            "W^T diag(N^2 Jm) W in M, W^T (N^2 Jm qdd_tree + b qd_tree + fc sign(qd_tree)) in tau, "
                            "the same at qdd_a = 0 in h")


def _num(v: float) -> sp.Expr:
    return sp.Float(v) if v else sp.Integer(0)


def compact_drive_terms(cc: ClosedCompact) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix, sp.Matrix]:
    """(dM for M_a, dtau for tau_a, dh for h_a, and dh's rotor part W^T N^2 Jm qdd_tree(qdd_a = 0), the
    part quadratic in the rates, for the Coriolis matrix) over ``cc``'s step symbols (module docstring)."""
    if cc.tree is None:
        raise ValueError("drive terms: this compact form does not carry its projection")
    refl, visc, coul = drive_arrays(cc.tree)
    na = len(cc.act)
    W = [[sp.Integer(0)] * na for _ in range(cc.tree.n)]
    for k, i in enumerate(cc.act):
        W[i][k] = sp.Integer(1)
    for r, i in enumerate(cc.pas):
        W[i] = [sp.sympify(w) for w in cc.Wp[r]]
    dM, dtau, dh, rotor = sp.zeros(na, na), sp.zeros(na, 1), sp.zeros(na, 1), sp.zeros(na, 1)
    for i, row in enumerate(W):
        if not (refl[i] or visc[i] or coul[i]):
            continue
        qd = sp.sympify(cc.tree_qd[i])
        friction = _num(visc[i]) * qd + _num(coul[i]) * sp.sign(qd)
        at = _num(refl[i]) * sp.sympify(cc.tree_qdd[i]) + friction
        spin = _num(refl[i]) * sp.sympify(cc.tree_qdd0[i])
        at0 = spin + friction
        for a in range(na):
            if row[a] == 0:
                continue
            dtau[a] += row[a] * at
            dh[a] += row[a] * at0
            rotor[a] += row[a] * spin
            for b in range(na):
                if row[b] != 0:
                    dM[a, b] += row[a] * row[b] * _num(refl[i])
    return dM, dtau, dh, rotor


def drive_columns(model: Manipulator) -> tuple[sp.Matrix, str]:
    """(columns, doc): the regressor's columns of the drive parameters (n x k; qdd_j, qd_j and
    sign(qd_j) for Ia_j, fv_j and fc_j, in :func:`~designer.dynamics.inertial.drive_slots` order,
    as the numeric regressor has them) and what the header says about them ('' without drive data)."""
    slots = drive_slots(model)
    Y = sp.zeros(model.n, len(slots))
    for c, (j, kind) in enumerate(slots):
        Y[j, c] = {"Ia": model.qdd[j], "fv": model.qd[j], "fc": sp.sign(model.qd[j])}[kind]
    if not slots:
        return Y, ""
    values = ", ".join(f"{kind}{j + 1} = {float(v):.15g}" for (j, kind), v in zip(slots, drive_parameter_values(model)))
    return Y, (f"; then the {len(slots)} drive parameters (Ia reflected rotor inertia N^2 Jm, fv viscous and "
               f"fc Coulomb friction of joint j; columns qdd_j, qd_j, sign(qd_j)), the project's values: {values}")


def compact_drive_doc(cc: ClosedCompact) -> str:
    """What the regressor's header says of its drive-parameter columns ('' without drive data)."""
    if cc.tree is None:
        return ""
    _, doc = drive_columns(cc.tree)
    return (doc.replace("of joint j", "of tree joint j, projected by W")
            .replace("columns qdd_j, qd_j, sign(qd_j)", "columns W_j^T times tree joint j's qdd_j, qd_j, sign(qd_j)"))
