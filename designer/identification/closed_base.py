"""A closed chain's base parameters as :class:`~.base_params.BaseParameters`, for the reports.

The grouping is :func:`designer.numeric.closed_regressor.closed_base_parameters`'s (QR with pivoting
of W^T Y_tree over random closed states), its coefficients numbers at the project's geometry: each
base parameter is written as that combination of the tree's standard parameter symbols (m1, mx1, ...,
every link of the tree), so that ``derive --base-parameters`` prints a closed chain's section as it
prints a serial arm's.
"""

from __future__ import annotations

import sympy as sp

from ..dynamics.inertial import parameter_names
from ..model.manipulator import Manipulator
from ..numeric.closed import ClosedDynamics
from ..numeric.closed_regressor import closed_base_parameters
from .base_params import BaseParameters
from .closed_base_text import base_name

__all__ = ["closed_base_parameter_set"]


def closed_base_parameter_set(model: Manipulator) -> BaseParameters:
    """Raises ClosureError (a loop that cannot be posed) or MissingParameterError."""
    bp = closed_base_parameters(ClosedDynamics(model))
    symbols = tuple(sp.Symbol(name, real=True) for name in parameter_names(model.n))
    by_name = {s.name: s for s in symbols}

    def coefficient(c: float) -> sp.Expr:
        return sp.Integer(round(c)) if abs(c - round(c)) < 1e-12 else sp.Float(f"{c:.6g}")
    formulas = tuple(sp.Add(*[coefficient(c) * by_name[k] for k, c in combo.items()]) for _, combo in bp.base)
    names = tuple(base_name(name, combo) for name, combo in bp.base)
    return BaseParameters(model, names, (), formulas, symbols, tuple(bp.dropped),
                          ("closed-loop grouping of W^T Y_tree over random closed states, its coefficients at the "
                           "project's geometry",), bp.count)
