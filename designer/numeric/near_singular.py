"""Near-singular poses of a closed chain: where its cut forces measure how near a dead centre it is, not a load.

The cut joints' forces are the least-squares lambda of J_p^T lambda = tau_p (:mod:`designer.numeric.closed`), J_p
the loops' Jacobian over the passive joints at the closed pose. Written with J_p's singular values,
|lambda| <= |tau_p| / sigma_min: sigma_min is the mechanism's effective lever arm (m, for revolute joints and the
cut point's position rows) through which the passive joints' torques reach the cut joint, and sigma_max its
longest lever (about its longest bar). At an ordinary pose the loads reach the bearings through levers of the
mechanism's own size: kappa = sigma_max / sigma_min is a few (the palletizer's parallelogram 3.5 at its nominal
pose, a four-bar mid-stroke 1 to 3). As the pose nears a singular one (a dead centre, a parallelogram folding flat)
sigma_min goes to zero and the cut forces grow as 1/sigma_min, without bound, whatever the load.

:data:`NEAR_SINGULAR` = 100: beyond it the effective lever is a hundredth of the longest one, so the cut force is
up to a hundred times what the same torques give through the mechanism's own bars; in a four-bar with equal bars
kappa is about 1 / sin(mu) of the transmission angle mu, and 100 is mu = 0.57 degrees (mechanism design keeps mu
above about 40 degrees, kappa 1.6). Such a number says how near the pose is to the singular one (the closure
refuses kappa above 1e9, :data:`designer.kinematics.closure.SINGULAR`); the bars' compliance, which the rigid
model leaves out, decides the real load there. Every place that shows cut forces (eval, torques and simulate on
the command line, the window's Simulate tab through :class:`~designer.numeric.motion.MotionResult`) says so in one
line per loop and stretch of rows: :func:`near_singular`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["NEAR_SINGULAR", "NearSingular", "loop_conditioning", "near_singular"]

#: the condition number of the passive joints' loop Jacobian above which cut forces are flagged (module text)
NEAR_SINGULAR = 100.0


def loop_conditioning(dyn, q_tree) -> tuple[np.ndarray, np.ndarray]:
    """(kappa (N,), loop (N,)) at closed tree poses ``q_tree`` (N, n_tree) of a closed chain's engine (its ``tree``
    and passive joints ``pas``): the condition number sigma_max / sigma_min of the loops' Jacobian over the passive
    joints, and the loop (0-based) whose rows hold most of the direction of sigma_min (the one near its dead
    centre). No loops or no passive joints: kappa 1, loop -1."""
    q_tree = np.asarray(q_tree, dtype=float).reshape(-1, dyn.n_tree)
    kappa, weakest = np.ones(len(q_tree)), np.full(len(q_tree), -1)
    tree, pas = getattr(dyn, "tree", None), list(getattr(dyn, "pas", ()))
    if tree is None or not tree.loops or not pas:
        return kappa, weakest
    which = np.array([k for k, *_ in tree.loop_rows])
    for r, terms in enumerate(dyn.terms_at(q_tree)):
        U, s, _ = np.linalg.svd(terms.jacobian[:, pas], full_matrices=False)
        kappa[r] = s[0] / s[-1] if s[-1] > 0 else np.inf
        weakest[r] = int(np.argmax(np.bincount(which, weights=U[:, -1] ** 2, minlength=len(tree.loops))))
    return kappa, weakest


@dataclass(frozen=True)
class NearSingular:
    """A stretch of rows (``first`` to ``last``, their labels) where a loop is near a singular pose, and its worst
    row: the condition number there, the cut force there (N, or None) and the tree pose."""

    loop: str
    first: str
    last: str
    worst: str
    condition: float
    force: float | None
    q: tuple[float, ...]

    def text(self) -> str:
        span = self.worst if self.first == self.last else f"{self.worst} (from {self.first} to {self.last})"
        force = "" if self.force is None else f" ({self.force:.3g} N there)"
        pose = ", ".join(f"{v:.4g}" for v in self.q)
        return (f"{self.loop} is near a singular pose at {span}: its passive joints' loop Jacobian has "
                f"condition number {self.condition:.3g} (above {NEAR_SINGULAR:g}) at q = [{pose}], so its cut "
                f"force{force} is the joint torques amplified by nearness to a dead centre, not a real load")


def near_singular(dyn, q_tree, label: Callable[[int], str], force=None,
                  threshold: float = NEAR_SINGULAR) -> list[NearSingular]:
    """One :class:`NearSingular` per loop and stretch of consecutive rows of the closed tree poses ``q_tree``
    (N, n_tree) where the condition number passes ``threshold`` with that loop the weakest; ``label(r)`` names row
    r ("t = 0.53 s", "states[3]"), ``force`` (N, loops, 3) the cut forces of the rows when known. Any engine: one
    without loops has none."""
    kappa, weakest = loop_conditioning(dyn, q_tree)
    q_tree = np.asarray(q_tree, dtype=float).reshape(len(kappa), -1)
    names = getattr(getattr(dyn, "tree", None), "loop_names", ())
    out = []
    for k, name in enumerate(names):
        hot = np.flatnonzero((kappa > threshold) & (weakest == k))
        for run in np.split(hot, np.flatnonzero(np.diff(hot) > 1) + 1) if len(hot) else ():
            r = int(run[np.argmax(kappa[run])])
            size = None if force is None else float(np.linalg.norm(np.asarray(force)[r, k]))
            out.append(NearSingular(name, label(int(run[0])), label(int(run[-1])), label(r), float(kappa[r]), size,
                                    tuple(float(v) for v in q_tree[r])))
    return out
