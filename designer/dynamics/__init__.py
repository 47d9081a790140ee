"""Symbolic equations of motion: Lagrange-Euler, Newton-Euler and Lee's generalized d'Alembert.

    >>> eq = derive(model, Method.LAGRANGE, SimplifyMode.FAST)
    >>> eq["M"], eq["B"], eq["C"], eq["G"], eq.tau

Every derivation is a job (:func:`derive_job`) that yields progress and stops
promptly when its cancel token is set.
"""

from .algebra import count_ops_cse
from .engine import coriolis_matrix, derive, derive_job, link_torques, link_torques_job
from .tree import tree_mass_matrix, tree_tau
from .results import Equations, Method, SimplifyMode, velocity_products, velocity_squares

__all__ = ["Equations", "Method", "SimplifyMode", "coriolis_matrix", "count_ops_cse", "derive",
           "derive_job", "link_torques", "link_torques_job", "tree_mass_matrix", "tree_tau", "velocity_products",
           "velocity_squares"]
