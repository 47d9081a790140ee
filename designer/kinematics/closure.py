"""Loop closure: the passive joints from the actuated ones, and W = d q_tree / d q_actuated.

- The reference pose (:func:`assemble`): every actuated joint 0, the passive joints closing the loops. Where the
  nominal pose (every joint 0) leaves a loop open by more than a file's rounding (:data:`NOMINAL_GAP`: a four-bar
  whose coupler was made longer, a design of a length sweep), the mechanism is *assembled*, as a CAD assembly is:
  damped least squares on the passive joints from the nominal pose (with continuation on the gap where that
  stalls), the actuated ones kept at 0. A loop open within a file's rounding is closed from the nominal pose by the
  same steps (no warning: a few Gauss-Newton steps). The reference pose, closed either way, is then the nominal pose
  of everything below: the linear detection, the four-bar's branch, the continuation start, the mobility check
  (which at an open pose can count a rank too many). What a file's rounding leaves open that no joint moves (a
  planar loop's cut point out of its plane: :attr:`Assembly.across`) stays, with a warning; Newton's iterations
  then stop where their step no longer moves the residual.
- Validation names the loop (:func:`mechanism_problems`): a warning for a loop that had to be assembled (the gap
  at the nominal pose in mm, the passive joints' assembled values), an error for a loop that cannot be assembled
  (its gap at best), a mobility (n - rank of the loop Jacobian) that differs from the number of actuated joints,
  passive joints the loops do not determine.
- A linear closure (a parallelogram: q_p = A q_a + c with integer A, such as q3p = q3 - q2) is
  detected exactly: W is the same integer matrix at the reference pose and at random poses, and the
  closure residual of the linear guess vanishes there (to 1e-10 of the mechanism's size). It is then
  used as such: no iteration, no branch, no singular pose.
- A planar four-bar (one planar loop, two passive revolute joints) closes in closed form
  (:mod:`designer.kinematics.four_bar`: two circles meet, the reference pose's branch kept), polished
  by one Newton step.
- Otherwise Newton's iterations on the passive joints (least squares: a planar loop's out-of-plane
  rows are zero). The branch is the reference pose's: a far pose is reached by continuation in steps
  of at most 0.1 rad from the reference pose, or from the previous solution (simulate).
- A pose where the loop cannot close, or where the passive joints' Jacobian loses rank (singular),
  is a :class:`ClosureError` naming the loop and the pose, never NaN passed on.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..errors import DesignerError
from ..model.manipulator import Manipulator
from ..model.validation import Problem, Severity
from .tree import TreeArm

__all__ = ["Assembly", "AssemblyError", "Closure", "ClosureError", "assemble", "assembled_model", "loop_joints",
           "mechanism_problems", "STEP", "SINGULAR"]

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
#: a loop counts as assembled where its residual is below this share of the mechanism's size (the closure's Newton
#: steps then close it to TOL)
ASSEMBLED = 1e-9
#: damped least-squares steps of one assembly, and the continuation's steps on the gap where the direct one stalls
ASSEMBLY_STEPS = 200
ASSEMBLY_CONTINUATION = 20
#: seeded starts over the passive joints' range tried where both stall at a local minimum of the gap (a spatial loop)
ASSEMBLY_STARTS = 24


class ClosureError(DesignerError):
    """A pose where a loop cannot close or the mechanism is singular."""


class AssemblyError(ClosureError):
    """Loops that cannot be assembled with the actuated joints at 0; ``problems``: (loop, message) of each."""

    def __init__(self, message: str, problems: list[tuple[str, str]]):
        super().__init__(message)
        self.problems = problems


def _size(tree: TreeArm) -> float:
    arm = tree.arm
    lengths = [np.abs(arm.dh[:, [0, 2]]).max(initial=0.0), np.abs(arm.com).max(initial=0.0)]
    lengths += [abs(F[:3, 3]).max() for _, _, F, _, _ in tree.loops] + [abs(F[:3, 3]).max() for *_, F, _ in tree.loops]
    return max(1.0, *lengths)


@dataclass(frozen=True)
class Assembly:
    """The reference pose of a mechanism (:func:`assemble`)."""

    #: (n,) every actuated joint 0, the passive joints closing the loops (every joint 0 where the nominal pose closes;
    #: moved by a rounding's worth where a file's rounding leaves it open)
    q: np.ndarray
    #: per loop, (position gap in m, sine of the angle between the cut joint's axes) at the nominal pose
    gaps: tuple[tuple[float, float], ...]
    #: the loops (indices) open beyond a file's rounding at the nominal pose: the passive joints moved to close them
    assembled: tuple[int, ...] = ()
    #: the loops (indices) left open at ``q`` by a rounding's worth that none of the mechanism's joints moves (a
    #: planar loop's cut point out of its plane): closed where the joints move them, the rest as the file has it
    across: tuple[int, ...] = ()


def _loop_gaps(tree: TreeArm, q) -> list[tuple[float, float]]:
    """Per loop, (the distance of the cut joint's two frames, the largest sine of the angle between its axes) at q."""
    terms = tree.loop_terms(q)
    rows = np.array([r[0] for r in terms.rows])
    out = []
    for k in range(len(tree.loops)):
        sel = rows == k
        kinds = [r[1] for r in terms.rows if r[0] == k]
        pos = float(np.linalg.norm(terms.residual[sel][[x == "force" for x in kinds]]))
        rot = float(np.abs(terms.residual[sel][[x == "moment" for x in kinds]]).max(initial=0.0))
        out.append((pos, rot))
    return out


def _open(gap: tuple[float, float], tol: float, rot_tol: float) -> bool:
    return not (gap[0] <= tol and gap[1] <= rot_tol)   # NaN: open


def _gap_text(gap: tuple[float, float], tol: float) -> str:
    """What stays open of a loop: "the cut joint's two frames are 12 mm apart" (or its axes' angle)."""
    if not np.all(np.isfinite(gap)):
        return "the cut joint's frames are not finite"
    if gap[0] > tol:
        return f"the cut joint's two frames are {gap[0] * 1000:.4g} mm apart"
    return f"the cut joint's axes are {np.degrees(np.arcsin(min(1.0, gap[1]))):.4g} degrees apart"


def _passive_least_squares(tree: TreeArm, q0: np.ndarray, target: np.ndarray | None, tol: float) -> np.ndarray:
    """q0 with its passive joints moved to minimise |r(q) - target| (r the stacked loop residual; target None: 0):
    Levenberg-Marquardt's damped Gauss-Newton steps, from q0, until the loops close or the progress stalls (a
    minimum of the gap, approached slowly where the gap is large: :func:`_smallest_gap` then)."""
    pas = list(tree.passive)
    q = np.array(q0, dtype=float)
    shift = 0.0 if target is None else target

    terms = tree.loop_terms(q)   # at q: its residual, and the Jacobian of the next step
    r = terms.residual - shift
    cost = float(r @ r)
    lam = 1e-3
    slow = 0
    for _ in range(ASSEMBLY_STEPS):
        if not np.isfinite(cost) or np.abs(r).max(initial=0.0) <= tol:
            break
        J = terms.jacobian[:, pas]
        A, g = J.T @ J, J.T @ r
        scale = np.diag(A) + 1e-12 * max(1.0, float(np.abs(A).max(initial=0.0)))
        improved = False
        while lam < 1e12:
            step = np.linalg.solve(A + lam * np.diag(scale), -g)
            trial = q.copy()
            trial[pas] += step
            trial_terms = tree.loop_terms(trial)
            r_new = trial_terms.residual - shift
            cost_new = float(r_new @ r_new)
            if np.isfinite(cost_new) and cost_new < cost:
                improved = True
                q, r, terms, lam = trial, r_new, trial_terms, max(lam / 4, 1e-12)
                break
            lam *= 4
        slow = slow + 1 if improved and cost - cost_new <= 1e-4 * cost else 0
        if not improved or slow == 5:
            break   # slow progress (a zero gap is approached quadratically): a minimum of the gap, no closure here
        cost = cost_new
    return q


def assemble(tree: TreeArm) -> Assembly:
    """The mechanism's reference pose (see the module): the passive joints moved until the loops close, the actuated
    ones kept at 0 (the nominal pose itself where its loops close). ``assembled``: the loops open beyond a file's
    rounding there. ClosureError naming the loop and its remaining gap where the loops cannot be assembled."""
    q0 = np.zeros(tree.n)
    if not tree.loops:
        return Assembly(q0, ())
    size = _size(tree)
    # a file's rounding: a millimetre per metre of mechanism (the four-bar's theta offsets to four decimals leave
    # its loop 0.012 mm open), a milliradian: closed below with no warning, as an assembly is
    gaps = _loop_gaps(tree, q0)
    opened = tuple(k for k, gap in enumerate(gaps) if _open(gap, NOMINAL_GAP * size, NOMINAL_GAP))
    tol = TOL * size
    if _closed(tree, q0, tol) or not (opened or tree.passive):
        return Assembly(q0, tuple(gaps))
    q = _passive_least_squares(tree, q0, None, tol)   # within a file's rounding: a few Gauss-Newton steps close it
    if tree.passive and not _closed(tree, q, tol):   # stalled: continuation on the gap, r(q) = (1 - s) r(0)
        r0 = tree.loop_terms(q0).residual
        if np.all(np.isfinite(r0)):
            path = q0
            for s in np.linspace(0.0, 1.0, ASSEMBLY_CONTINUATION + 1)[1:]:
                path = _passive_least_squares(tree, path, (1.0 - s) * r0, tol)
            if _closed(tree, path, tol) or _worst(tree, path) < _worst(tree, q):
                q = path
    if tree.passive and not _closed(tree, q, tol):   # a rounding across the loop's moves: closed where they move it
        across = _closed_across(tree, q0, tol, size) or _closed_across(tree, q, tol, size)
        if across is not None:
            q, loops = across
            return Assembly(q, tuple(gaps), tuple(k for k in opened if k not in loops), loops)
    if tree.passive and not _closed(tree, q, tol):   # a local minimum of the gap: from seeded starts
        q = _from_starts(tree, q, tol, size)
    if not _closed(tree, q, tol):
        q = _smallest_gap(tree, q) if tree.passive else q   # the gap at best, to report
        best = _loop_gaps(tree, q)
        worst = int(np.nanargmax([max(g) if np.all(np.isfinite(g)) else np.inf for g in best]))
        found = [(tree.loop_names[k], f"cannot be assembled with the actuated joints at 0: "
                  f"{_gap_text(best[k], ASSEMBLED * size)} at best ({_gap_text(gaps[k], 0.0)} at the nominal pose, "
                  "every joint 0)" + _unmoved(tree, q, k, best[k], size))
                 for k in range(len(tree.loops)) if _open(best[k], ASSEMBLED * size, ASSEMBLED) or k == worst]
        raise AssemblyError("; ".join(f"{w}: {m}" for w, m in found), found)
    return Assembly(q, tuple(gaps), opened)


def _closed_across(tree: TreeArm, q: np.ndarray, tol: float, size: float) -> tuple[np.ndarray, tuple[int, ...]] | None:
    """(q polished by Newton's least-squares steps on the passive joints, the loops left open) where what the loops
    leave open there is a file's rounding (:data:`NOMINAL_GAP`) that no joint of the mechanism moves (its share in
    the span of the loop Jacobian's columns within the closure's tolerance); else None."""
    pas = list(tree.passive)
    for _ in range(MAX_NEWTON):
        terms = tree.loop_terms(q)
        r, J = terms.residual, terms.jacobian
        if not (np.all(np.isfinite(r)) and np.all(np.isfinite(J))):
            return None
        step = np.linalg.lstsq(J[:, pas], r, rcond=None)[0]
        if np.abs(J[:, pas] @ step).max(initial=0.0) <= tol:
            break
        q = q.copy()
        q[pas] -= step
    else:
        return None
    moved = J @ np.linalg.lstsq(J, r, rcond=None)[0]   # the residual's share any joint moves
    gaps = _loop_gaps(tree, q)
    if np.abs(moved).max(initial=0.0) > tol or any(_open(g, NOMINAL_GAP * size, NOMINAL_GAP) for g in gaps):
        return None
    return q, tuple(k for k, g in enumerate(gaps) if _open(g, ASSEMBLED * size, ASSEMBLED))


def _unmoved(tree: TreeArm, q: np.ndarray, k: int, gap: tuple[float, float], size: float) -> str:
    """For loop k's gap at best (at q): where it is a file's rounding (:data:`NOMINAL_GAP`) with a share that none of
    the loop's joints moves (beyond the closure's tolerance, out of the span of their Jacobian columns: a planar
    loop's cut point out of its plane, its axes out of parallel), the words that say so; else nothing."""
    if _open(gap, NOMINAL_GAP * size, NOMINAL_GAP):
        return ""
    terms = tree.loop_terms(q)
    rows = [r for r, row in enumerate(terms.rows) if row[0] == k]
    r, J = terms.residual[rows], terms.jacobian[np.ix_(rows, loop_joints(tree, k))]
    if not (np.all(np.isfinite(r)) and np.all(np.isfinite(J))):
        return ""
    moved = J @ np.linalg.lstsq(J, r, rcond=None)[0]   # the gap's share the loop's joints can move
    if np.linalg.norm(r - moved) <= ASSEMBLED * size:
        return ""
    return ("; a rounding's worth of it no joint of the loop moves (the cut joint out of a planar loop's plane, or "
            "its axes out of parallel: are numbers across the plane rounded?)")


def _smallest_gap(tree: TreeArm, q0: np.ndarray) -> np.ndarray:
    """q0 moved (passive joints) to the nearest minimum of |r|^2 by quasi-Newton steps (BFGS: the gap's curvature,
    which Gauss-Newton leaves out and misses where the gap is large): the gap at best that the error gives."""
    from scipy.optimize import minimize
    pas = list(tree.passive)

    def full(p):
        q = q0.copy()
        q[pas] = p
        return q

    def cost(p):
        terms = tree.loop_terms(full(p))
        r = terms.residual
        return 0.5 * float(r @ r), terms.jacobian[:, pas].T @ r
    fit = minimize(cost, q0[pas], jac=True, method="BFGS", options={"gtol": 1e-12, "maxiter": 500})
    return full(fit.x) if np.isfinite(fit.fun) and fit.fun <= cost(q0[pas])[0] else q0


def _from_starts(tree: TreeArm, best: np.ndarray, tol: float, size: float) -> np.ndarray:
    """The first closed pose of damped least squares from :data:`ASSEMBLY_STARTS` seeded starts (revolute passive
    joints anywhere in a turn, prismatic ones within half the mechanism's size), else the pose of the smallest gap
    found (``best`` included). Revolute joints' values are brought within a half turn of 0."""
    pas = list(tree.passive)
    revolute = np.asarray(tree.arm.revolute, dtype=bool)[pas]
    rng = np.random.default_rng(0)
    best_gap = _worst(tree, best)
    for _ in range(ASSEMBLY_STARTS):
        start = np.zeros(tree.n)
        start[pas] = np.where(revolute, rng.uniform(-np.pi, np.pi, len(pas)), rng.uniform(-0.5, 0.5, len(pas)) * size)
        q = _passive_least_squares(tree, start, None, tol)
        gap = _worst(tree, q)
        if _closes(gap, tol):
            q[pas] = np.where(revolute, (q[pas] + np.pi) % (2 * np.pi) - np.pi, q[pas])
            return q
        if gap < best_gap:
            best, best_gap = q, gap
    return best


def assembled_model(model: Manipulator) -> tuple[Manipulator, Assembly]:
    """(``model`` with each passive joint's zero moved to its reference value, the assembly): a revolute joint's
    theta, a prismatic one's d, gains the value, its limits lose it. The same mechanism, whose nominal pose closes
    its loops (for a file format that needs that: MuJoCo's connects hold the bodies as they are at qpos0); its
    passive joints' values are this model's minus the reference's. ``model`` itself where nothing was assembled.
    ClosureError as :func:`assemble`."""
    import sympy as sp
    assembly = assemble(TreeArm.from_model(model))
    if not assembly.assembled:
        return model, assembly
    links = list(model.links)
    for i, link in enumerate(links):
        value = float(assembly.q[i])
        if link.actuated or value == 0.0:
            continue
        shift = sp.Float(value, 17)
        key = "theta" if link.is_revolute else "d"
        limits = None if link.limits is None else tuple(sp.sympify(v) - shift for v in link.limits)
        links[i] = replace(link, **{key: sp.sympify(getattr(link, key)) + shift, "limits": limits})
    return replace(model, links=tuple(links)), assembly


def _worst(tree: TreeArm, q) -> float:
    r = tree.loop_terms(q).residual
    return float(np.abs(r).max(initial=0.0)) if np.all(np.isfinite(r)) else np.inf


def _closes(gap: float, tol: float) -> bool:
    """Whether a largest loop residual ``gap`` (:func:`_worst`) counts as closed."""
    return gap <= tol * ASSEMBLED / TOL


def _closed(tree: TreeArm, q, tol: float) -> bool:
    return _closes(_worst(tree, q), tol)


def loop_joints(tree: TreeArm, k: int) -> list[int]:
    """The joints (0-based, in order) loop k moves: the two paths to the base without their common part."""
    i, j = tree.loops[k][:2]
    a = set(tree.path(i)) if i >= 0 else set()
    b = set(tree.path(j)) if j >= 0 else set()
    return sorted(a ^ b)


def _joint_value(tree: TreeArm, i: int, value: float) -> str:
    if tree.arm.revolute[i]:
        return f"q{i + 1} = {np.degrees(value):.4g} degrees"
    return f"q{i + 1} = {value * 1000:.4g} mm"


def mechanism_problems(tree: TreeArm) -> list[Problem]:
    """Errors for a mechanism that cannot be used, a warning per loop that had to be assembled (see the module)."""
    if not tree.loops:
        return []
    try:
        assembly = assemble(tree)
    except AssemblyError as exc:
        return [Problem(Severity.ERROR, where, message) for where, message in exc.problems]
    return _assembly_warnings(tree, assembly) + _across_warnings(tree, assembly) + _rank_problems(tree, assembly.q)


def _across_warnings(tree: TreeArm, assembly: Assembly) -> list[Problem]:
    gaps = _loop_gaps(tree, assembly.q)
    return [Problem(Severity.WARNING, tree.loop_names[k],
                    f"stays open by a rounding's worth that no joint of the loop moves: {_gap_text(gaps[k], 0.0)} "
                    "with the loop closed where its joints move it (the cut joint out of a planar loop's plane, or "
                    "its axes out of parallel: are numbers across the plane rounded?); left as the file has it")
            for k in assembly.across]


def _assembly_warnings(tree: TreeArm, assembly: Assembly) -> list[Problem]:
    size = _size(tree)
    out = []
    for k in assembly.assembled:
        moved = [_joint_value(tree, i, assembly.q[i]) for i in loop_joints(tree, k) if i in tree.passive]
        out.append(Problem(Severity.WARNING, tree.loop_names[k],
                           f"does not close at the nominal pose (every joint 0): "
                           f"{_gap_text(assembly.gaps[k], NOMINAL_GAP * size)}; assembled with the actuated "
                           f"joints at 0 by moving the passive joints to {', '.join(moved)} (the reference pose: "
                           "is a length in the file wrong?)"))
    return out


def _rank_problems(tree: TreeArm, q0) -> list[Problem]:
    """The mobility and the passive joints' rank at the reference pose ``q0`` (:func:`assemble`'s: the loops closed,
    not the nominal pose a file's rounding leaves open; nothing for a tree without loops)."""
    out: list[Problem] = []
    if not tree.loops:
        return out
    J = tree.loop_terms(q0).jacobian
    rank = np.linalg.matrix_rank(J, tol=SINGULAR * max(1.0, np.abs(J).max()))
    mobility = tree.n - rank
    if mobility != len(tree.actuated):
        names = ", ".join(tree.loop_names)
        out.append(Problem(Severity.ERROR, "loops",
                           f"the mechanism has {mobility} degree(s) of freedom (n - rank of the loop Jacobian "
                           f"of {names} = {tree.n} - {rank}) but {len(tree.actuated)} actuated joint(s)"))
        return out
    Jp = J[:, list(tree.passive)]
    if tree.passive and np.linalg.matrix_rank(Jp, tol=SINGULAR * max(1.0, np.abs(J).max())) < len(tree.passive):
        out.append(Problem(Severity.ERROR, "loops", "the loops do not determine the passive joints "
                           + ", ".join(f"q{i + 1}" for i in tree.passive)
                           + (" at the reference pose (every actuated joint 0, the loops closed)"
                              if np.any(np.asarray(q0) != 0) else " at the nominal pose (every joint 0)")
                           + " (choose other joints to actuate)"))
    return out


@dataclass(frozen=True)
class Linear:
    """q_p = A q_a + c, exact."""

    A: np.ndarray
    c: np.ndarray


class Closure:
    """Solves the loops of ``tree`` for its passive joints; raises ClosureError where it cannot."""

    def __init__(self, tree: TreeArm, closed_form: bool = True):
        #: the reference pose (:func:`assemble`; AssemblyError where the loops cannot be assembled): the branch, the
        #: continuation's start and the linear detection's pose
        self.assembly = assemble(tree)
        self.reference = self.assembly.q
        #: what Newton's iterations may leave open (:attr:`Assembly.across`: a rounding no joint moves), else 0
        self.across = NOMINAL_GAP * _size(tree) if self.assembly.across else 0.0
        problems = _rank_problems(tree, self.reference)
        if problems:
            raise ClosureError("; ".join(map(str, problems)))
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
            self.four_bar = four_bar_of(tree, self.reference)

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
        is the reference pose's (:attr:`reference`), followed by continuation from it.
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
            q = self.reference.copy() if guess is None else np.array(guess, dtype=float)
            q[self.act] = q_a
            try:
                return self._newton(self.four_bar.solve(q))   # converged at once: one check, or one step
            except FourBarError as exc:
                raise ClosureError(f"{self.tree.loop_names[0]} {exc} at the actuated values {_fmt(q_a)}") from None
        start = self.reference.copy() if guess is None else np.array(guess, dtype=float)
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
            step = self._solve_passive(Jp, r, q)
            if err <= self.across and np.abs(Jp @ step).max(initial=0.0) <= tol:
                return q   # closed where the joints move it: the rest a rounding across the loop (assemble)
            q = q.copy()
            q[self.pas] -= step
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
        q0 = self.reference
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
