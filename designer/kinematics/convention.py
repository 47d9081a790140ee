"""Rewrite a DH table in the other convention so that the arm stays the same arm.

Standard DH: T_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i), frame i at the distal end of link i.
Modified DH (Craig): T_i = Rx(alpha_(i-1)) Tx(a_(i-1)) Rz(theta_i) Tz(d_i), frame i at joint i.
Tx(a) and Rx(alpha) commute, so the product of the standard transforms regroups into modified
rows holding the previous row's a and alpha. Frame i moves from the link's far end to its joint:
standard frame i = modified frame i * Tx(a_i) Rx(alpha_i), and each COM, inertia and point load
is re-expressed in the new frame. What has no row on the other side is reported: the standard
table's last (a_n, alpha_n) place the tool frame beyond the last joint, the modified table's first
(a_0, alpha_0) place the first joint off the base frame.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import sympy as sp

from ..model import Convention, Manipulator
from ..model.extras import rpy_from_matrix
from ..model.manipulator import Inertia

__all__ = ["convert_convention", "ConversionNote"]


class ConversionNote(str):
    """A sentence saying what the conversion could not keep ("" when it kept everything)."""


def _clean(e) -> sp.Expr:
    """Simplified, with float round-off dropped (cos(1.5707963267948966) is 6e-17, meant as 0)."""
    e = sp.simplify(e)
    floats = e.atoms(sp.Float)
    if floats:
        e = e.xreplace({f: (sp.S.Zero if abs(float(f)) < 1e-12 else sp.Float(f"{float(f):.12g}", 15))
                        for f in floats})
    return e


def _rx(alpha) -> sp.Matrix:
    c, s = sp.cos(alpha), sp.sin(alpha)
    return sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])


def _move(point, a, alpha, inverse: bool) -> tuple:
    """A point of standard frame i in modified frame i (``inverse``: the other way)."""
    p = sp.Matrix(point)
    if inverse:   # modified -> standard: p_std = Rx(-alpha) (p_mod - a x)
        q = _rx(-alpha) * (p - sp.Matrix([a, 0, 0]))
    else:         # standard -> modified: p_mod = a x + Rx(alpha) p_std
        q = sp.Matrix([a, 0, 0]) + _rx(alpha) * p
    return tuple(_clean(v) for v in q)


def _turn(inertia: Inertia, alpha, inverse: bool) -> Inertia:
    R = _rx(-alpha if inverse else alpha)
    return Inertia.from_matrix((R * inertia.matrix() * R.T).applyfunc(_clean))


def _move_visuals(visuals, a, alpha, inverse: bool, values: dict):
    """Mesh poses of standard frame i in modified frame i (``inverse``: the other way): Tx(a) Rx(alpha) V.
    Meshes are placed by numbers: a symbol without a value leaves them where they were."""
    if not visuals:
        return visuals
    try:
        a, alpha = float(sp.sympify(a).subs(values)), float(sp.sympify(alpha).subs(values))
    except (TypeError, ValueError):
        return visuals
    S = np.eye(4)
    S[:3, 3] = (a, 0.0, 0.0)
    S[1:3, 1:3] = [[np.cos(alpha), -np.sin(alpha)], [np.sin(alpha), np.cos(alpha)]]
    move = np.linalg.inv(S) if inverse else S
    out = []
    for v in visuals:
        M = move @ v.matrix()
        out.append(replace(v, xyz=tuple(float(x) for x in M[:3, 3]), rpy=rpy_from_matrix(M[:3, :3])))
    return tuple(out)


def _zero(e) -> bool:
    return sp.sympify(e) == 0


def convert_convention(model: Manipulator, convention: Convention) -> tuple[Manipulator, ConversionNote]:
    """``model`` written in ``convention`` with the same joints, links and loads; and a note on what
    has no place in the new table (an empty note when nothing was lost)."""
    if convention is model.convention:
        return model, ConversionNote("")
    links, n = model.links, model.n
    to_modified = convention is Convention.MODIFIED
    new_links, note = [], ""
    values = model.substitutions(require_all=False)
    # the x-offsets a frame moves by: standard row i's own (a_i, alpha_i); modified row i+1's
    shift = ([(l.a, l.alpha) for l in links] if to_modified
             else [(links[i + 1].a, links[i + 1].alpha) if i + 1 < n else (0, 0) for i in range(n)])
    for i, link in enumerate(links):
        a, alpha = shift[i]
        if to_modified:
            prev = links[i - 1] if i else None
            row_a, row_alpha = (prev.a, prev.alpha) if prev is not None else (0, 0)
        else:
            row_a, row_alpha = a, alpha
        new_links.append(replace(link, a=row_a, alpha=row_alpha,
                                 visuals=_move_visuals(link.visuals, a, alpha, not to_modified, values),
                                 com=_move(link.com, a, alpha, inverse=not to_modified),
                                 inertia=_turn(link.inertia, alpha, inverse=not to_modified)))
    loads = tuple(replace(pm, position=_move(pm.position, shift[pm.link - 1][0], shift[pm.link - 1][1],
                                             inverse=not to_modified))
                  for pm in model.point_masses)
    if to_modified and not (_zero(links[-1].a) and _zero(links[-1].alpha)):
        note = (f"the last link's a = {links[-1].a}, alpha = {links[-1].alpha} place the tool frame beyond the "
                "last joint; a modified table has no row for them, so the tool frame now sits at the last joint "
                "(the dynamics are unchanged)")
    if not to_modified and not (_zero(links[0].a) and _zero(links[0].alpha)):
        note = (f"the first link's a = {links[0].a}, alpha = {links[0].alpha} place the first joint off the base "
                "frame; a standard table has no row for them, so they are dropped and the arm moves with its base")
    return replace(model, convention=convention, links=tuple(new_links), point_masses=loads), ConversionNote(note)

