"""The batch engine, for the exploration modules: it lives in :mod:`designer.numeric.batch`; :func:`batch_of`
gives any arm's (a serial one's, a closed chain's)."""

from ..numeric.batch import CHUNK, Batch, BatchDynamics, batch_frames, map_states

__all__ = ["Batch", "BatchDynamics", "batch_frames", "batch_of", "map_states", "CHUNK"]


def batch_of(arm, q, compiled=None):
    """The quantities of a block of states q (N, n) under :class:`Batch`'s names: a closed chain's arm makes its
    own (:class:`~designer.numeric.closed_batch.ClosedBatch`); ``compiled`` takes over a serial arm's M and G."""
    return arm.batch(q) if hasattr(arm, "batch") else Batch(arm, q, compiled)
