"""Design exploration: dynamic metrics over the workspace, sweeps, design conditions, sizing.

Modules, each a set of pure functions (definitions in docs/metrics.md):

- :mod:`.batch`: M, Lee's D_tra/D_rot, G, Christoffel symbols, Jacobians at many states at once
- :mod:`.metrics`: the metrics (coupling, effective inertia, cond M, Cartesian inertia, isotropy,
  dynamic manipulability, Coriolis significance, gravity load, Lee's split) and metric texts
- :mod:`.maps`: 2-D joint grids, Sobol/random samples within the joint limits, tool positions
- :mod:`.sweep`: one or two parameters over ranges on any concurrent.futures executor; Pareto fronts
- :mod:`.conditions`: symbolic decoupling, invariance and static-balance conditions
- :mod:`.sensitivity`: exact d(metric)/d(parameter) at a pose, parameters ranked over the workspace
- :mod:`.significance`: term significance, simplified models and their error bound
- :mod:`.sizing`: motor sizing along trajectories, payload envelope
- :mod:`.compare`: A/B comparison of two designs
- :mod:`.coupling`: joint-pair coupling/Coriolis curves for the GUI's plots
"""

from ..numeric.batch import Batch
from .conditions import Kind, apply_condition, find_conditions
from .maps import Sampling, grid_map, sample_configurations, sample_summary, variation, workspace_map
from .metrics import METRICS, MetricError, Ratings, compute, evaluate, evaluate_many, parse_metric
from .sweep import SweepAxis, SweepResult, SweepSpec, pareto_front, sweep

__all__ = ["Batch", "Kind", "METRICS", "MetricError", "Ratings", "Sampling", "SweepAxis", "SweepResult",
           "SweepSpec", "apply_condition", "compute", "evaluate", "evaluate_many", "find_conditions", "grid_map",
           "pareto_front", "parse_metric", "sample_configurations", "sample_summary", "sweep", "variation",
           "workspace_map"]
