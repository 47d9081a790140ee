"""Base inertial parameters: the identifiable combinations of the standard parameters.

Two steps. First Khalil and Gautier's grouping rules, symbolic, applied from the tip to the base
in the joint frames of :mod:`designer.dynamics.customized` (frame j' has joint j along z_j'; it is
link frame j in the modified convention, and link frame j moved back by Trans_x(a_j) Rot_x(alpha_j)
in the standard one):

- revolute joint j: the body {m_j, MZ_j e_z, YY_j diag(1, 1, 0)} is unchanged by turning about
  z_j', so it is moved onto link j-1 (through the joint's fixed transform at q_j = 0) and leaves
  XXR_j = XX_j - YY_j; M_j, MZ_j and YY_j drop out;
- prismatic joint j: the link turns with link j-1, so its inertia tensor is rotated onto link j-1;
  the six inertia entries of link j drop out;
- a body moved onto the fixed base is lost: it never changes tau.

Then a numeric pass on the regressor stacked over random states: parameters whose columns vanish
(the first links' restricted motion, gravity along the first axis) are dropped, and any column still
dependent on the others (QR with pivoting) is grouped with numeric coefficients. Its count equals the
numerical rank of Y.

A closed chain's base parameters are the same :class:`BaseParameters`, from the same :func:`base_parameters`
(callers never choose): the grouping is :func:`designer.identification.regressor.base_grouping`'s (QR
with pivoting of W^T Y_tree over random closed states: the projected regressor, the serial case being W = I), its
coefficients numbers at the project's geometry: each base parameter is written as that combination of the
tree's standard parameter symbols (m1, mx1, ..., every link of the tree), so that ``derive
--base-parameters`` prints a closed chain's section as it prints a serial arm's. :func:`base_name`,
:func:`grouping_text` and :data:`BASE_DOC` name them in the closed chain's generated code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from ..dynamics.grouping import symbolic_grouping
from ..dynamics.inertial import PARAMETER_KINDS, drive_slots, joint_frame_offsets, move_parameters, parameter_names
from ..kinematics import NumericArm
from ..model.manipulator import Convention, Manipulator
from .regressor import Regressor, base_grouping, drive_regressor, regressor

__all__ = ["BaseParameters", "base_parameters", "mechanism_base_parameters", "across_loops", "base_regressor",
           "MechanismRegressor", "combination_text", "joint_frame_regressor", "joint_to_link_matrix", "BASE_DOC",
           "base_name", "grouping_text"]


@dataclass(frozen=True)
class BaseParameters:
    """The base parameters of a model.

    ``slots[k]`` is (link 0-based, kind) of base parameter k in the joint frame; ``formulas[k]`` its
    value as a combination of the standard parameter symbols (:func:`parameter_names`);
    ``dropped`` the standard parameters grouped or lost; ``numeric_groups`` notes the groupings
    found numerically (their coefficients are floats at the model's default geometry).
    """

    model: Manipulator
    names: tuple[str, ...]
    slots: tuple[tuple[int, str], ...]
    formulas: tuple[sp.Expr, ...]
    standard_symbols: tuple[sp.Symbol, ...]
    dropped: tuple[str, ...]
    numeric_groups: tuple[str, ...]
    rank: int

    @property
    def count(self) -> int:
        return len(self.names)

    def values(self, standard: np.ndarray, geometry: dict[str, float] | None = None) -> np.ndarray:
        """Base parameter values from the standard ones (10 n numbers, then the drive parameters when
        the set includes them) at the default geometry (``geometry``: values for unvalued symbols)."""
        subs = dict(zip(self.standard_symbols, map(float, standard)))
        subs.update(self.model.substitutions(geometry, require_all=False))
        return np.array([float(f.xreplace(subs)) for f in self.formulas])

    def joint_frame_inputs(self) -> list[list[sp.Expr]]:
        """Per joint, the ten joint-frame parameters with the base-parameter symbols in the kept
        places and zeros elsewhere: the parameters to run a recursion with."""
        out = [[sp.S.Zero] * 10 for _ in range(self.model.n)]
        for name, (j, kind) in zip(self.names, self.slots):
            if kind in PARAMETER_KINDS:
                out[j][PARAMETER_KINDS.index(kind)] = sp.Symbol(name, real=True)
        return out


def _geometry(model: Manipulator, rng: np.random.Generator):
    """A NumericArm of the model: default values, random ones for symbols without a value
    (the regressor does not depend on the inertial parameters)."""
    missing = {name: float(rng.uniform(0.2, 1.0)) for name in model.unvalued_symbols()}
    return NumericArm.from_model(model, missing), missing


def joint_to_link_matrix(model: Manipulator, arm=None) -> np.ndarray:
    """(10 n, 10 n): link-frame parameters of unit joint-frame parameters (pi = T pi'), numeric."""
    n = model.n
    subs = model.substitutions(require_all=False)
    if arm is not None:  # the geometry the caller evaluates at (random values for unvalued symbols)
        subs = {}
    back = np.zeros((10 * n, 10 * n))
    for j, (R, p) in enumerate(joint_frame_offsets(model)):
        if arm is not None and model.convention is Convention.STANDARD:
            a, alpha = arm.dh[j][0], arm.dh[j][1]
            R = [[1, 0, 0], [0, np.cos(alpha), -np.sin(alpha)], [0, np.sin(alpha), np.cos(alpha)]]
            p = [a, 0, 0]
        Rn = np.array([[float(sp.sympify(x).evalf(subs=subs)) for x in row] for row in R])
        pn = np.array([float(sp.sympify(x).evalf(subs=subs)) for x in p])
        for k in range(10):
            unit = np.zeros(10)
            unit[k] = 1.0
            back[10 * j:10 * j + 10, 10 * j + k] = move_parameters(unit.tolist(), Rn.T.tolist(), (-Rn.T @ pn).tolist())
    return back


def joint_frame_regressor(model: Manipulator, arm, q, qd, qdd) -> np.ndarray:
    """Y in the joint-frame parameters (the columns the base parameters pick), numeric."""
    return regressor(arm, q, qd, qdd) @ joint_to_link_matrix(model, arm)


def _full_regressor(model: Manipulator, arm, q, qd, qdd, drives: bool) -> np.ndarray:
    Y = joint_frame_regressor(model, arm, q, qd, qdd)
    if drives:
        Y = np.concatenate([Y, drive_regressor(model, qd, qdd)], axis=-1)
    return Y


def _column(model: Manipulator, slot: tuple[int, str]) -> int:
    j, kind = slot
    if kind in PARAMETER_KINDS:
        return 10 * j + PARAMETER_KINDS.index(kind)
    return 10 * model.n + drive_slots(model).index(slot)


def base_regressor(bp: BaseParameters, arm, q, qd, qdd) -> np.ndarray:
    """Y_b with tau = Y_b beta: the joint-frame regressor's columns of the base parameters."""
    drives = len(bp.standard_symbols) > 10 * bp.model.n  # the set was found with the drive parameters
    return _full_regressor(bp.model, arm, q, qd, qdd, drives)[..., [_column(bp.model, s) for s in bp.slots]]


class MechanismRegressor:
    """The base regressor Y_b of any mechanism over states in its coordinates (a closed chain's: its actuated
    joints), one interface for every mechanism: ``n``, ``limits`` (n, 2) and ``revolute`` of the coordinates,
    ``numbers`` their links' numbers (1-based), and :meth:`rows`. ``bp`` is either set of base parameters: a serial
    arm's :class:`BaseParameters` (the joint-frame regressor's columns, :func:`base_regressor`; the case W = I) or
    a closed chain's grouping (:class:`~designer.identification.regressor.BaseGrouping`: W^T Y_tree's
    columns of the independent parameters, the loops closed on one branch along each run of states)."""

    def __init__(self, model: Manipulator, bp):
        self.bp = bp
        if isinstance(bp, BaseParameters):   # the tree's own grouping: the arm's coordinates are its joints
            self.arm = NumericArm.from_model(model)
            self.n, self.limits, self.revolute = self.arm.n, self.arm.limits, self.arm.revolute
            self.numbers = list(range(1, self.n + 1))
            return
        from ..numeric.closed import closed_dynamics
        self.cd = closed_dynamics(model)
        act = list(self.cd.act)
        self.n, self.numbers = len(act), [j + 1 for j in act]
        self.limits = np.asarray(self.cd.tree.arm.limits, float)[act]
        self.revolute = np.asarray(self.cd.tree.arm.revolute)[act]
        self.closed = Regressor(self.cd.following(), bp.drives)
        self.columns = bp.columns

    def rows(self, q, qd, qdd) -> np.ndarray:
        """Y_b stacked over the states, the columns of ``q``, ``qd``, ``qdd`` (n, N): (N n, count); a DesignerError
        names a state where the loops cannot close."""
        q, qd, qdd = (np.asarray(v, float) for v in (q, qd, qdd))
        if not hasattr(self, "closed"):
            return base_regressor(self.bp, self.arm, q, qd, qdd).reshape(-1, self.bp.count)
        from ..errors import DesignerError
        from ..kinematics.closure import ClosureError
        self.closed.cd = self.cd.following()   # each run of states on a branch of its own from the nominal pose
        out = []
        for k, state in enumerate(zip(q.T, qd.T, qdd.T)):
            try:
                out.append(self.closed.actuated(*state)[:, self.columns])
            except ClosureError as exc:
                raise DesignerError(f"sample {k + 1}: {exc}") from None
        if not out:
            raise DesignerError("the trajectory has no samples")
        return np.vstack(out)


def _stacked(model: Manipulator, arm, states: int, rng, drives: bool) -> np.ndarray:
    n = model.n
    Q = rng.uniform(-np.pi, np.pi, (n, states))
    Y = _full_regressor(model, arm, Q, rng.normal(size=(n, states)), rng.normal(size=(n, states)), drives)
    return Y.reshape(-1, Y.shape[-1])


def base_parameters(model: Manipulator, states: int = 40, seed: int = 0, tol: float = 1e-9,
                    drives: bool = False) -> BaseParameters:
    """The base parameters of ``model`` (see the module docstring); ``drives``: with the drive
    parameters (reflected rotor inertia Ia, viscous fv and Coulomb fc friction) of the joints that
    have drive data, which the numeric pass groups (Ia1 goes into ZZR1 when joint 1 turns about a
    fixed vertical axis). A mechanism with loops: the closed-loop grouping (:func:`mechanism_base_parameters`,
    written as symbols by :func:`_loop_base_parameters`; ClosureError for a loop that cannot be posed)."""
    if across_loops(model):
        return _loop_base_parameters(model, mechanism_base_parameters(model, drives), drives)
    return _tree_base_parameters(model, states, seed, tol, drives)


def across_loops(model: Manipulator) -> bool:
    """Whether the tree's grouping rules and recursions stop at a loop of ``model``: its base parameters are then
    the projected regressor's numeric grouping (:func:`base_parameters`, and their code,
    :func:`~designer.identification.code_plan.base_plan`)."""
    return bool(model.loops)


def _tree_base_parameters(model: Manipulator, states: int, seed: int, tol: float, drives: bool) -> BaseParameters:
    """:func:`base_parameters` of a mechanism without loops: the grouping rules, then the numeric pass."""
    n = model.n
    extra = drive_slots(model) if drives else []
    names = parameter_names(n) + [f"{kind}{j + 1}" for j, kind in extra]
    symbols = [sp.Symbol(s, real=True) for s in names]
    slots, emptied = symbolic_grouping(model, symbols[:10 * n])
    slots.append(symbols[10 * n:])
    rng = np.random.default_rng(seed)
    arm, _ = _geometry(model, rng)
    Y = _stacked(model, arm, states, rng, bool(extra))
    flat = [(j, kind) for j in range(n) for kind in PARAMETER_KINDS] + extra
    kept = [k for k, slot in enumerate(flat) if slot not in emptied]
    scale = max(float(np.abs(Y).max()), 1.0)
    live = [k for k in kept if np.linalg.norm(Y[:, k]) > tol * scale * np.sqrt(len(Y))]
    from scipy.linalg import qr
    cols = Y[:, live] / np.linalg.norm(Y[:, live], axis=0)
    _, Rq, piv = qr(cols, mode="economic", pivoting=True)
    diag = np.abs(np.diag(Rq))
    rank = int(np.sum(diag > tol * 1e3 * diag[0])) if len(diag) else 0
    independent = sorted(live[i] for i in piv[:rank])
    dependent = [live[i] for i in piv[rank:]]
    def slot_value(k: int) -> sp.Expr:
        return slots[k // 10][k % 10] if k < 10 * n else slots[n][k - 10 * n]
    formulas = {k: sp.expand(slot_value(k)) for k in independent}
    notes = []
    if dependent:
        C, *_ = np.linalg.lstsq(Y[:, independent], Y[:, dependent], rcond=None)
        for d_col, k_dep in enumerate(dependent):
            terms = []
            for i_row, k_ind in enumerate(independent):
                c = float(C[i_row, d_col])
                if abs(c) > 1e-9:
                    c_exact = sp.Integer(round(c)) if abs(c - round(c)) < 1e-9 else sp.Float(c, 15)
                    formulas[k_ind] = sp.expand(formulas[k_ind] + c_exact * slot_value(k_dep))
                    terms.append(names[k_ind])
            notes.append(f"{names[k_dep]} grouped numerically into {', '.join(terms) or 'nothing'}")
    out_names = []
    for k in independent:
        plain = symbols[k]
        out_names.append(names[k] if formulas[k] == plain else f"{flat[k][1]}R{flat[k][0] + 1}")
    dropped = tuple(names[k] for k in range(len(names)) if k not in independent)
    return BaseParameters(model, tuple(out_names), tuple(flat[k] for k in independent),
                          tuple(formulas[k] for k in independent), tuple(symbols), dropped, tuple(notes), rank)


BASE_DOC = {"coriolis_matrix": "Coriolis matrix C(q, qd), h = C(q, qd) qd, dM/dt - 2C skew-symmetric; row-major",
            "regressor": "joint-torque regressor Y(q, qd, qdd) of the base parameters, tau = Y beta; row-major"}


def base_name(name: str, combo: dict) -> str:
    """A base parameter's name: the standard parameter it starts from, with R when others are grouped into it."""
    return name if len(combo) == 1 else f"{name.rstrip('0123456789')}R{name[len(name.rstrip('0123456789')):]}"


def combination_text(combo: dict[str, float]) -> str:
    """``m3 + 0.380952 mx2 + ...``: a base parameter's standard parameters and their coefficients."""
    return " + ".join(f"{c:.6g} {k}" if c != 1 else k for k, c in combo.items())


def grouping_text(betas, base) -> str:
    """The header's list of the grouped base parameters: ``ZZR1 = ZZ1 + 0.25 m2; ...``."""
    def term(k: str, c: float) -> str:
        return k if abs(c - 1) < 1e-12 else f"{c:.6g} {k}"
    return "; ".join(f"{b.name} = " + " + ".join(term(k, c) for k, c in combo.items())
                     for b, (_, combo) in zip(betas, base) if len(combo) > 1)



def mechanism_base_parameters(model: Manipulator, drives: bool = False, states: int = 40, seed: int = 0,
                              tol: float = 1e-9):
    """The base parameters of any mechanism as its regressor groups them, what ``regressor`` reports and
    :class:`MechanismRegressor` reads: a serial arm's :class:`BaseParameters` (the symbolic grouping rules and the
    numeric pass), any other mechanism's (loops, branches, passive joints: :class:`~designer.numeric.closed
    .ClosedDynamics`) numeric grouping of W^T Y_tree
    (:class:`~designer.identification.regressor.BaseGrouping`, its coefficients numbers). ClosureError for
    a loop that cannot be posed, MissingParameterError."""
    if model.is_serial:   # the chain's grouping rules hold (a loop or a branch: the projected regressor's grouping)
        return _tree_base_parameters(model, states, seed, tol, drives)
    from ..numeric.closed import ClosedDynamics
    return base_grouping(ClosedDynamics(model), drives=drives)


def _loop_base_parameters(model: Manipulator, bp, drives: bool) -> BaseParameters:
    """The base parameters of a mechanism with loops from its numeric grouping ``bp`` (the module docstring);
    ``drives``: with the drive parameters of the tree's joints."""
    standard = parameter_names(model.n) + ([f"{kind}{j + 1}" for j, kind in drive_slots(model)] if drives else [])
    symbols = tuple(sp.Symbol(name, real=True) for name in standard)
    by_name = {s.name: s for s in symbols}

    def coefficient(c: float) -> sp.Expr:
        return sp.Integer(round(c)) if abs(c - round(c)) < 1e-12 else sp.Float(f"{c:.6g}")
    formulas = tuple(sp.Add(*[coefficient(c) * by_name[k] for k, c in combo.items()]) for _, combo in bp.base)
    names = tuple(base_name(name, combo) for name, combo in bp.base)
    return BaseParameters(model, names, (), formulas, symbols, tuple(bp.dropped),
                          ("closed-loop grouping of W^T Y_tree over random closed states, its coefficients at the "
                           "project's geometry",), bp.count)
