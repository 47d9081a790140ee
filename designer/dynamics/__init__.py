"""Symbolic equations of motion: Lagrange-Euler, Newton-Euler and Lee's generalized d'Alembert.

    >>> eq = derive(model, Method.LAGRANGE, SimplifyMode.FAST)
    >>> eq["M"], eq["B"], eq["C"], eq["G"], eq.tau

Arms whose expanded tau would be too large (see :mod:`designer.dynamics.size`) come back in
the compact recursive form (``Form.AUTO``); ``Form.CLOSED`` asks for the expansion anyway.
Every derivation is a job (:func:`derive_job`) that yields progress and stops
promptly when its cancel token is set.
"""

from .algebra import count_ops_cse
from .engine import coriolis_matrix, derive, derive_job, link_torques, link_torques_job
from .tree import tree_mass_matrix, tree_tau
from .results import Equations, Form, Method, SimplifyMode, velocity_products, velocity_squares
from .size import ExpansionTooLarge

__all__ = ["Equations", "ExpansionTooLarge", "Form", "Method", "SimplifyMode", "coriolis_matrix", "count_ops_cse",
           "derive", "derive_job", "link_torques", "link_torques_job", "tree_mass_matrix", "tree_tau",
           "velocity_products", "velocity_squares"]
