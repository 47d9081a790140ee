"""Frozen result objects of the symbolic derivations (the contract other packages build on).

Every derivation returns :class:`Equations`: the method, the model it came
from, the named matrices of that method's form (in display order) and the
inverse dynamics tau(q, qd, qdd). Mass matrix, gravity vector and the
Coriolis/centrifugal vector are available for every method.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from collections.abc import Mapping

import sympy as sp

from ..model.manipulator import Manipulator

__all__ = ["Method", "SimplifyMode", "Form", "Equations", "velocity_products", "velocity_squares"]


class Method(str, Enum):
    LAGRANGE = "lagrange"          # M, B, C, G (ROBMAT's configuration-space form)
    NEWTON_EULER = "newton-euler"  # tau (Luh, Walker & Paul)
    DALEMBERT = "dalembert"        # D_rot, D_tra, H_rot, H_tra, G (Lee, Lee & Nigam)


class SimplifyMode(str, Enum):
    OFF = "off"    # no simplification
    FAST = "fast"  # bounded-time trigonometric simplification and collection
    FULL = "full"  # readable form, collected by inertial parameter


class Form(str, Enum):
    """Which form a derivation returns.

    closed: expanded and simplified matrices of the method's form (the derivation to read);
    compact: the recursive form (customized Newton-Euler graph, named intermediate variables),
    never expanded, for any arm in about a second; auto: closed when the size estimate of the
    expanded tau (designer.dynamics.size) is below the limit and the expansion finishes within its
    time budget, else compact.
    """

    AUTO = "auto"
    CLOSED = "closed"
    COMPACT = "compact"


def velocity_products(qd) -> sp.Matrix:
    """[q1'q2', q1'q3', ..., q1'qn', q2'q3', ..., q(n-1)'qn'] (ROBMAT's q'q')."""
    n = len(qd)
    return sp.Matrix([qd[i] * qd[j] for i in range(n) for j in range(i + 1, n)])


def velocity_squares(qd) -> sp.Matrix:
    """[q1'^2, ..., qn'^2] (ROBMAT's q'^2)."""
    return sp.Matrix([v**2 for v in qd])


@dataclass(frozen=True)
class Equations:
    """The equations of motion of one model by one method.

    ``matrices`` holds the method's form in display order:
    lagrange: M (n x n), B (n x n(n-1)/2), C (n x n), G (n x 1);
    newton-euler: tau (n x 1);
    dalembert: D_rot, D_tra (n x n), H_rot, H_tra (n x 1), G (n x 1).
    ``mass_matrix``, ``gravity`` and ``tau`` are there for every method;
    ``coriolis`` is h(q, qd) = tau(q, qd, 0) - G(q).
    Symbols: ``model.q``, ``model.qd``, ``model.qdd`` and the model's parameters.
    """

    method: Method
    model: Manipulator
    simplify: SimplifyMode
    matrices: Mapping[str, sp.Matrix]
    tau: sp.Matrix
    mass_matrix: sp.Matrix
    gravity: sp.Matrix
    coriolis: sp.Matrix
    extras: Mapping[str, object] = field(default_factory=dict)  # e.g. per-link contributions, timings
    form: Form = Form.CLOSED  # compact: matrices is empty, tau/M/G/h are shared graphs (never print them whole)

    def __post_init__(self):
        object.__setattr__(self, "matrices", MappingProxyType(dict(self.matrices)))
        object.__setattr__(self, "extras", MappingProxyType(dict(self.extras)))

    @property
    def n(self) -> int:
        return self.model.n

    def __getitem__(self, name: str) -> sp.Matrix:
        return self.matrices[name]
