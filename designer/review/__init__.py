"""The design review: every requirement of a project evaluated on its mechanism (no Qt).

:func:`review` takes any mechanism (serial, closed, elastic alike: the explore metrics' arm,
:func:`designer.explore.joints.explore_arm`) and gives one :class:`Outcome` per requirement: value, bound,
margin, pass or fail, and where it is worst (pose, time, joint).
"""

from .evaluate import (REVIEW_METRICS, Outcome, ReviewError, cycle_motion, cycle_trajectory, review, review_cycle_job,
                       review_job, review_value)

__all__ = ["REVIEW_METRICS", "Outcome", "ReviewError", "cycle_motion", "cycle_trajectory", "review", "review_cycle_job",
           "review_job", "review_value"]
