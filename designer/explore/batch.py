"""The batch engine, for the exploration modules: it lives in :mod:`designer.numeric.batch`."""

from ..numeric.batch import CHUNK, Batch, BatchDynamics, batch_frames, map_states

__all__ = ["Batch", "BatchDynamics", "batch_frames", "map_states", "CHUNK"]
