"""Loop closure: the passive joints from the actuated ones, and W = d q_tree / d q_actuated.

- Validation names the loop (:func:`mechanism_problems`): a loop that cannot close at the nominal
  pose (every joint 0; the residual in mm; a file's rounding, up to :data:`NOMINAL_GAP`, is no gap), a
  mobility (n - rank of the loop Jacobian) that differs from the number of actuated joints, passive joints
  the loops do not determine.
- A linear closure (a parallelogram: q_p = A q_a + c with integer A, such as q3p = q3 - q2) is
  detected exactly: W is the same integer matrix at the nominal pose and at random poses, and the
  closure residual of the linear guess vanishes there (to 1e-10 of the mechanism's size). It is then
  used as such: no iteration, no branch, no singular pose.
- A planar four-bar (one planar loop, two passive revolute joints) closes in closed form
  (:mod:`designer.kinematics.four_bar`: two circles meet, the nominal pose's branch kept), polished
  by one Newton step.
- Otherwise Newton's iterations on the passive joints (least squares: a planar loop's out-of-plane
  rows are zero). The branch is the nominal pose's: a far pose is reached by continuation in steps
  of at most 0.1 rad from the nominal pose, or from the previous solution (simulate).
- A pose where the loop cannot close, or where the passive joints' Jacobian loses rank (singular),
  is a :class:`ClosureError` naming the loop and the pose, never NaN passed on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DesignerError
from .tree import TreeArm

__all__ = ["Closure", "ClosureError", "mechanism_problems", "STEP", "SINGULAR"]

#: largest change of an actuated joint per continuation step (rad or m): Newton converges from
#: a start this close for any loop whose passive Jacobian is well conditioned
STEP = 0.1
#: the passive joints' Jacobian is singular when its smallest singular value is below this share of
#: its largest (a four-bar at a dead-centre pose gives 1e-16)
SINGULAR = 1e-9
#: closure tolerance, relative to the mechanism's size (its largest length, at least 1 m)
TOL = 1e-12
#: how far the nominal pose's loops may be from closed (relative to the mechanism's size, and the sine of the angle
#: between the cut joint's axes): a file's rounding, which the closure's Newton steps close
NOMINAL_GAP = 1e-3
MAX_NEWTON = 30


class ClosureError(DesignerError):
    """A pose where a loop cannot close or the mechanism is singular."""


def _size(tree: TreeArm) -> float:
    arm = tree.arm
    lengths = [np.abs(arm.dh[:, [0, 2]]).max(initial=0.0), np.abs(arm.com).max(initial=0.0)]
    lengths += [abs(F[:3, 3]).max() for _, _, F, _, _ in tree.loops] + [abs(F[:3, 3]).max() for *_, F, _ in tree.loops]
    return max(1.0, *lengths)


def mechanism_problems(tree: TreeArm) -> list[tuple[str, str]]:
    """(where, message) for a mechanism that cannot be used: see the module's docstring."""
    out: list[tuple[str, str]] = []
    if not tree.loops:
        return out
    q0 = np.zeros(tree.n)
    terms = tree.loop_terms(q0)
    # a file's rounding: a millimetre per metre of mechanism (the four-bar's theta offsets to four decimals leave
    # its loop 0.012 mm open), a milliradian; the closure closes the loops exactly from there
    tol = NOMINAL_GAP * _size(tree)
    rows = np.array([r[0] for r in terms.rows])
    for k, name in enumerate(tree.loop_names):
        sel = rows == k
        kinds = [r[1] for r in terms.rows if r[0] == k]
        pos = np.linalg.norm(terms.residual[sel][[x == "force" for x in kinds]])
        rot = np.abs(terms.residual[sel][[x == "moment" for x in kinds]]).max(initial=0.0)
        if pos > tol:
            out.append((name, f"cannot close at the nominal pose (every joint 0): the cut joint's two frames "
                        f"are {pos * 1000:.4g} mm apart"))
        elif rot > NOMINAL_GAP:
            out.append((name, f"cannot close at the nominal pose (every joint 0): the cut joint's axes are "
                        f"{np.degrees(np.arcsin(min(1.0, rot))):.4g} degrees apart"))
    if out:
        return out
    J = terms.jacobian
    rank = np.linalg.matrix_rank(J, tol=SINGULAR * max(1.0, np.abs(J).max()))
    mobility = tree.n - rank
    if mobility != len(tree.actuated):
        names = ", ".join(tree.loop_names)
        out.append(("loops", f"the mechanism has {mobility} degree(s) of freedom (n - rank of the loop Jacobian "
                    f"of {names} = {tree.n} - {rank}) but {len(tree.actuated)} actuated joint(s)"))
        return out
    Jp = J[:, list(tree.passive)]
    if tree.passive and np.linalg.matrix_rank(Jp, tol=SINGULAR * max(1.0, np.abs(J).max())) < len(tree.passive):
        out.append(("loops", "the loops do not determine the passive joints "
                    + ", ".join(f"q{i + 1}" for i in tree.passive)
                    + " at the nominal pose (choose other joints to actuate)"))
    return out


@dataclass(frozen=True)
class Linear:
    """q_p = A q_a + c, exact."""

    A: np.ndarray
    c: np.ndarray


class Closure:
    """Solves the loops of ``tree`` for its passive joints; raises ClosureError where it cannot."""

    def __init__(self, tree: TreeArm, closed_form: bool = True):
        problems = mechanism_problems(tree)
        if problems:
            raise ClosureError("; ".join(f"{w}: {m}" for w, m in problems))
        self.tree = tree
        self.act = np.array(tree.actuated, dtype=int)
        self.pas = np.array(tree.passive, dtype=int)
        self.size = _size(tree)
        #: the loops' terms (no rates) at the last pose asked: Newton's final check, W and the rates of a forward-
        #: dynamics call share them (one pose, one evaluation of the frames and Jacobians)
        self._memo: tuple[bytes, object] | None = None
        self.linear = self._detect_linear()
        self.four_bar = None
        if closed_form and self.linear is None:
            from .four_bar import four_bar_of
            self.four_bar = four_bar_of(tree, np.zeros(tree.n))

    def _terms(self, q):
        """The tree's loop terms (no rate term) at q, from the one-pose memo when q is the last pose asked."""
        q = np.asarray(q, dtype=float)
        key = q.tobytes()
        memo = self._memo
        if memo is not None and memo[0] == key:
            return memo[1]
        terms = self.tree.loop_terms(q)
        self._memo = (key, terms)
        return terms

    # -- W and the passive rates -------------------------------------------
    def _split(self, J):
        return J[:, self.act], J[:, self.pas]

    def _solve_passive(self, Jp, rhs, q, checked: bool = False):
        """Least-squares solution of Jp x = rhs; ClosureError where Jp loses column rank (``checked``: this Jp's rank
        was checked already)."""
        if not len(self.pas):
            return np.zeros((0,) + rhs.shape[1:])
        s = None if checked else np.linalg.svd(Jp, compute_uv=False)
        if s is not None and s[-1] <= SINGULAR * max(s[0], 1e-300):
            raise ClosureError(f"singular pose of {', '.join(self.tree.loop_names)} at q = "
                               f"{_fmt(q)}: the passive joints are not determined there (a dead centre)")
        return np.linalg.lstsq(Jp, rhs, rcond=None)[0]

    def W(self, q, J=None) -> np.ndarray:
        """(n, n_a): d q_tree / d q_a at the closed pose q (rows of the actuated joints: identity)."""
        W = np.zeros((self.tree.n, len(self.act)))
        W[self.act, np.arange(len(self.act))] = 1.0
        if self.linear is not None:
            W[self.pas] = self.linear.A
            return W
        J = self._terms(q).jacobian if J is None else J
        Ja, Jp = self._split(J)
        W[self.pas] = -self._solve_passive(Jp, Ja, q)
        return W

    def rates(self, q, qd_a, qdd_a=None):
        """(qd, qdd or None, W, loop terms): the tree's rates consistent with the loops."""
        terms = None
        qd = np.zeros(self.tree.n)
        qd[self.act] = qd_a
        if self.linear is not None:
            W = self.W(q)
            qd = W @ np.asarray(qd_a, dtype=float)
            qdd = None if qdd_a is None else W @ np.asarray(qdd_a, dtype=float)
            return qd, qdd, W, terms
        W = self.W(q)   # the Jacobian does not depend on the rates: the rate term needs the passive ones first
        qd = W @ np.asarray(qd_a, dtype=float)
        terms = self.tree.loop_terms(q, qd)
        qdd = None
        if qdd_a is not None:
            Ja, Jp = self._split(terms.jacobian)
            qdd = W @ np.asarray(qdd_a, dtype=float)
            qdd[self.pas] -= self._solve_passive(Jp, terms.rate, q, True)   # W's Jp: the same, checked
        return qd, qdd, W, terms

    def bias(self, q, qd) -> np.ndarray:
        """W' qd_a: the passive accelerations at zero actuated accelerations (n,)."""
        out = np.zeros(self.tree.n)
        if self.linear is not None:
            return out
        terms = self.tree.loop_terms(q, qd)
        out[self.pas] = -self._solve_passive(self._split(terms.jacobian)[1], terms.rate, q)
        return out

    # -- positions ---------------------------------------------------------
    def solve(self, q_a, guess=None) -> np.ndarray:
        """The tree's joint values (n,) closing every loop at the actuated values ``q_a``.

        ``guess``: a closed pose nearby (the previous step of a trajectory); without it the branch
        is the nominal pose's, followed by continuation.
        """
        q_a = np.asarray(q_a, dtype=float)
        if not np.all(np.isfinite(q_a)):
            raise ClosureError(f"actuated joint values are not finite: {_fmt(q_a)}")
        if self.linear is not None:
            q = np.zeros(self.tree.n)
            q[self.act] = q_a
            q[self.pas] = self.linear.A @ q_a + self.linear.c
            return q
        if self.four_bar is not None:
            from .four_bar import FourBarError
            q = np.zeros(self.tree.n) if guess is None else np.array(guess, dtype=float)
            q[self.act] = q_a
            try:
                return self._newton(self.four_bar.solve(q))   # converged at once: one check, or one step
            except FourBarError as exc:
                raise ClosureError(f"{self.tree.loop_names[0]} {exc} at the actuated values {_fmt(q_a)}") from None
        start = np.zeros(self.tree.n) if guess is None else np.array(guess, dtype=float)
        span = float(np.abs(q_a - start[self.act]).max(initial=0.0))
        steps = max(1, int(np.ceil(span / STEP)))
        from_a = start[self.act].copy()
        q = start
        for s in range(1, steps + 1):
            q = q.copy()
            q[self.act] = from_a + (q_a - from_a) * (s / steps)
            q = self._newton(q)
        return q

    def _newton(self, q) -> np.ndarray:
        tol = TOL * self.size
        for _ in range(MAX_NEWTON):
            terms = self._terms(q)
            r = terms.residual
            err = float(np.abs(r).max(initial=0.0))
            if err <= tol:
                return q
            Jp = self._split(terms.jacobian)[1]
            q = q.copy()
            q[self.pas] -= self._solve_passive(Jp, r, q)
            if not np.all(np.isfinite(q)):
                break
        worst = self._worst_loop(q)
        raise ClosureError(f"{worst[0]} cannot close at the actuated values {_fmt(q[self.act])}: "
                           f"{worst[1] * 1000:.4g} mm apart after {MAX_NEWTON} Newton steps")

    def _worst_loop(self, q):
        terms = self.tree.loop_terms(q)
        rows = np.array([r[0] for r in terms.rows])
        errs = [float(np.abs(terms.residual[rows == k]).max(initial=0.0)) for k in range(len(self.tree.loops))]
        k = int(np.nanargmax(errs)) if np.all(np.isfinite(errs)) else 0
        return self.tree.loop_names[k], errs[k]

    def residual(self, q) -> float:
        """The largest loop residual at q (m, or the sine of an angle)."""
        return float(np.abs(self._terms(q).residual).max(initial=0.0))

    # -- a linear closure (parallelogram) ----------------------------------
    def _detect_linear(self) -> Linear | None:
        tree, n_a = self.tree, len(self.act)
        if not len(self.pas):
            return Linear(np.zeros((0, n_a)), np.zeros(0))
        self.linear = None
        q0 = np.zeros(tree.n)
        try:
            W0 = self.W(q0)
        except ClosureError:
            return None
        A = np.round(W0[self.pas])
        if np.abs(W0[self.pas] - A).max() > 1e-10:
            return None
        c = q0[self.pas] - A @ q0[self.act]
        rng = np.random.default_rng(0)
        for _ in range(4):
            q = np.zeros(tree.n)
            q[self.act] = rng.uniform(-1.5, 1.5, n_a)
            q[self.pas] = A @ q[self.act] + c
            if np.abs(tree.loop_terms(q).residual).max(initial=0.0) > 1e-10 * self.size:
                return None
        return Linear(A, c)


def _fmt(values) -> str:
    return "[" + ", ".join(f"{float(v):.6g}" for v in np.ravel(values)) + "]"
