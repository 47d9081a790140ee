"""The derivation methods as strategy objects behind one protocol.

Each method turns the ring elements of its recursion into the matrices of its own form (the
derivation a reader sees) and the common tau, M, G and h; :func:`designer.dynamics.derive_job`
only looks a method up in :data:`METHODS`. A new method is one more class here.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Protocol

import sympy as sp

from ..jobs import CancelToken, Progress
from ..model.manipulator import Manipulator
from .assemble import combine, to_matrix_job
from .results import Method, SimplifyMode
from .trigpoly import TrigRing

__all__ = ["DerivationMethod", "Lagrange", "NewtonEuler", "DAlembert", "METHODS", "ClosedForms"]

#: (matrices of the method's form, tau, M, G, h, extras)
ClosedForms = tuple[dict, sp.Matrix, sp.Matrix, sp.Matrix, sp.Matrix, dict]
#: (tau, M, G, h)
Assembled = tuple[sp.Matrix, sp.Matrix, sp.Matrix, sp.Matrix]


class DerivationMethod(Protocol):
    """What :func:`~designer.dynamics.derive_job` needs of a method."""

    method: Method
    matrix_names: tuple[str, ...]  # the method's form, in display order

    def closed_job(self, model: Manipulator, tr: TrigRing, simplify: SimplifyMode,
                   token: CancelToken) -> Generator[Progress, None, ClosedForms]:
        """Generator returning :data:`ClosedForms` (expanded, simplified in ``simplify``)."""
        ...

    def assemble(self, model: Manipulator, mats: Mapping[str, sp.Matrix]) -> Assembled:
        """(tau, M, G, h) built from the method's own matrices alone (as its report prints them):
        what ``eval --form closed`` evaluates."""
        ...


def _matrix_job(model, tr, rows, simplify, name, token, symmetric=False):
    return to_matrix_job(model, tr, rows, simplify, name, token, symmetric)


class Lagrange:
    method = Method.LAGRANGE
    matrix_names: tuple[str, ...] = ("M", "B", "C", "G")

    def closed_job(self, model, tr, simplify, token):
        from .lagrange import lagrange_job
        n = model.n
        raw = yield from lagrange_job(model, tr, token)
        mats: dict = {}
        for name in self.matrix_names:
            if name == "B" and n < 2:
                mats[name] = sp.zeros(n, 0)
                continue
            mats[name] = yield from _matrix_job(model, tr, raw[name], simplify, name, token, name == "M")
        tau, M, G, h = self.assemble(model, mats)
        return mats, tau, M, G, h, {"christoffel": (tr, raw["christoffel"])}

    def assemble(self, model, mats):
        """tau = M qdd + 2 B (qd qd) + C qd^2 + G (ROBMAT's form)."""
        from .results import velocity_products, velocity_squares
        n = model.n
        h = combine([mats["B"], mats["C"]], [2 * velocity_products(model.qd), velocity_squares(model.qd)])
        tau = combine([mats["M"], sp.eye(n), sp.eye(n)], [sp.Matrix(model.qdd), h, mats["G"]])
        return tau, mats["M"], mats["G"], h


class NewtonEuler:
    method = Method.NEWTON_EULER
    matrix_names: tuple[str, ...] = ("tau",)

    def closed_job(self, model, tr, simplify, token):
        from .newton_euler import newton_euler_job
        raw_tau = yield from newton_euler_job(model, tr, token)
        rest = [tr.subs_zero(t, model.qdd) for t in raw_tau]
        raw_G = [tr.subs_zero(t, model.qd) for t in rest]
        raw_M = [[tr.diff(t, v) for v in model.qdd] for t in raw_tau]
        tau = yield from _matrix_job(model, tr, [[t] for t in raw_tau], simplify, "tau", token)
        M = yield from _matrix_job(model, tr, raw_M, simplify, "M", token, True)
        G = yield from _matrix_job(model, tr, [[g] for g in raw_G], simplify, "G", token)
        h = yield from _matrix_job(model, tr, [[r - g] for r, g in zip(rest, raw_G)], simplify, "h", token)
        return {"tau": tau}, tau, M, G, h, {}

    def assemble(self, model, mats):
        """M, G and h read off the printed tau: tau is linear in qdd, so M = d tau / d qdd, and
        G = tau(qd = 0, qdd = 0), h = tau(qdd = 0) - G."""
        tau = sp.Matrix(mats["tau"])
        G = tau.xreplace({v: 0 for v in (*model.qd, *model.qdd)})
        h = tau.xreplace({v: 0 for v in model.qdd}) - G
        return tau, tau.jacobian(list(model.qdd)), G, h


class DAlembert:
    method = Method.DALEMBERT
    matrix_names: tuple[str, ...] = ("D_rot", "D_tra", "H_rot", "H_tra", "G")

    def closed_job(self, model, tr, simplify, token):
        from .dalembert import dalembert_job
        raw = yield from dalembert_job(model, tr, token)
        mats: dict = {}
        for name in self.matrix_names:
            mats[name] = yield from _matrix_job(model, tr, raw[name], simplify, name, token, name.startswith("D"))
        tau, M, G, h = self.assemble(model, mats)
        # Horn's per-link torques T_ij (joint i, link j), the same split by link instead of by kind
        torques = yield from _matrix_job(model, tr, raw["T"], simplify, "T", token)
        return mats, tau, M, G, h, {"link_torques": torques}

    def assemble(self, model, mats):
        """M = D_rot + D_tra, h = H_rot + H_tra, tau = M qdd + h + G (Lee, Lee and Nigam's form)."""
        n = model.n
        M = sp.Matrix(n, n, lambda i, j: mats["D_rot"][i, j] + mats["D_tra"][i, j])
        h = sp.Matrix(n, 1, lambda i, _: mats["H_rot"][i] + mats["H_tra"][i])
        tau = combine([M, sp.eye(n), sp.eye(n)], [sp.Matrix(model.qdd), h, mats["G"]])
        return tau, M, mats["G"], h


METHODS: dict[Method, DerivationMethod] = {m.method: m for m in (Lagrange(), NewtonEuler(), DAlembert())}
