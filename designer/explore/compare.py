"""A/B comparison of two designs: the same metrics at a pose and over the workspace, side by side.

The two models must have the same number of joints. Over the workspace both
designs are evaluated at the same joint states (the samples are drawn within
the joint limits of design A), so a difference is the design's, not sampling
noise; metrics that need ratings nobody gave are left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..kinematics import NumericArm
from .maps import Sampling, sample_configurations, summarize
from .joint_names import joint_label, joint_numbers
from .metrics import METRICS, MetricError, MetricSpec, Ratings, Shape, compute, evaluate_many

__all__ = ["compare"]


def _diff(a: float, b: float) -> dict[str, float]:
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = b / a if a != 0 else (float("nan") if b == 0 else float("inf"))
    return {"A": a, "B": b, "B-A": b - a, "B/A": float(ratio)}


def compare(arm_a: NumericArm, arm_b: NumericArm, q: ArrayLike | None = None,
            ratings: Ratings | None = None, samples: int = 1000, sampling: Sampling | str = Sampling.SOBOL,
            seed: int = 0, stats: Sequence[str] = ("max", "mean"), ratings_b: Ratings | None = None) -> list[dict]:
    """Rows of differences: each metric component at the pose ``q`` (``where`` = "pose"), and each
    metric's reduction summarised over workspace samples (``where`` = "workspace:<stat>"). ``ratings_b``:
    design B's, when they differ (a named stiffness set for B); default ``ratings``."""
    ratings_b = ratings if ratings_b is None else ratings_b
    if arm_a.n != arm_b.n:
        raise ValueError(f"the designs have {arm_a.n} and {arm_b.n} joints: compare arms of the same size")
    n = arm_a.n
    # joints by the designs' names (a closed chain's link numbers) when both name them alike, else 1..n
    numbers = joint_numbers(arm_a) if joint_numbers(arm_a) == joint_numbers(arm_b) else ()
    q = np.zeros(n) if q is None else np.asarray(q, float)
    rows: list[dict] = []
    usable = []
    for name, metric in METRICS.items():
        try:
            va, vb = compute(arm_a, [q], name, ratings)[0], compute(arm_b, [q], name, ratings_b)[0]
        except MetricError:
            continue
        usable.append(MetricSpec(metric))
        for idx in np.ndindex(np.shape(va)):
            if metric.shape is Shape.PAIR and idx[0] > idx[1]:
                continue   # symmetric: the upper triangle says it all
            label = name + (f"[{','.join(str(joint_label(i, numbers)) for i in idx)}]" if idx else "")
            rows.append({"metric": label, "where": "pose",
                         **_diff(float(np.asarray(va)[idx]), float(np.asarray(vb)[idx]))})
    Q = sample_configurations(arm_a, samples, sampling, seed)
    for spec, va, vb in zip(usable, evaluate_many(arm_a, Q, usable, ratings),
                            evaluate_many(arm_b, Q, usable, ratings_b)):
        sa, sb = summarize(va), summarize(vb)
        for s in stats:
            rows.append({"metric": spec.label, "where": f"workspace:{s}", **_diff(sa[s], sb[s])})
    for what, a, b in (("total_mass", arm_a.total_mass(), arm_b.total_mass()),):
        rows.append({"metric": what, "where": "design", **_diff(a, b)})
    return rows
