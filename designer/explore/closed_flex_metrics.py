"""The links' bending of a closed chain in the explore metrics (docs/elastic.md "Closed chains").

A closed chain's batch (:class:`~designer.explore.closed.ClosedBatch`) holds each state's closed tree pose;
the virtual-joint model with the loops closed over the slices (:mod:`designer.numeric.closed_flex`) gives,
for all the closed states of a block at once,

- ``frequency_links``: the lowest frequency, motors locked, gearboxes and the links' bending;
- ``deflection_links`` / ``compliance_links``: the links' share of the tool's sag and compliance (the motors'
  gearboxes rigid), which ``deflection`` and ``compliance`` add to the gearboxes' figures (the two shares add
  exactly: the gearboxes never meet the rows the loops hold against the slices).

A state where a loop cannot close (or stands at a dead centre) gives NaN, as the other closed-chain metrics.
"""

from __future__ import annotations

import numpy as np

__all__ = ["closed_links", "closed_frequency_links", "closed_links_sag", "closed_links_compliance"]


def closed_links(b, stiffness, segments: int, value, width: tuple[int, ...] = ()) -> np.ndarray:
    """``value(model, q_tree)`` (the ClosedFlex model, the closed tree poses stacked) at every state of the closed
    batch ``b`` that closes (NaN elsewhere, and at a dead centre); ``stiffness`` (n_act,) the actuated joints'
    gearboxes (None: locked)."""
    model = b.arm.flex(stiffness, segments)
    out = np.full((len(b.q),) + width, np.nan)
    ok = [s for s, state in enumerate(b.closed) if state is not None]
    if ok:
        out[ok] = value(model, np.array([b.closed[s][0] for s in ok]))
    return out


def closed_frequency_links(b, stiffness, segments: int) -> np.ndarray:
    """(N,) Hz: the lowest natural frequency with the gearboxes ``stiffness`` and the links' bending."""
    return closed_links(b, stiffness, segments, lambda m, q: m.lowest_frequencies(q))


def closed_links_sag(b, payload: float, segments: int) -> np.ndarray:
    """(N, 6): the links' share of the tool's [delta; theta] under gravity and ``payload`` kg."""
    return closed_links(b, None, segments, lambda m, q: m.sags(q, payload), (6,))


def closed_links_compliance(b, segments: int) -> np.ndarray:
    """(N, 6, 6): the links' share of the tool's compliance (frame-0 axes)."""
    return closed_links(b, None, segments, lambda m, q: m.compliances(q), (6, 6))
