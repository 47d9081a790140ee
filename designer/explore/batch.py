"""The batch engine, for the exploration modules: it lives in :mod:`designer.numeric.batch`, with :func:`batch_of`,
which gives any arm's (a serial one's, a closed chain's)."""

from ..numeric.batch import CHUNK, Batch, BatchDynamics, batch_frames, batch_of, map_states

__all__ = ["Batch", "BatchDynamics", "batch_frames", "batch_of", "map_states", "CHUNK"]
