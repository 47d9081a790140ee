"""Term significance and simplified models (Lee, Lee & Nigam section 3; Armstrong, Khatib & Burdick).

Each term of tau = M qdd + 2 B [qd_j qd_k] + C [qd_j^2] + G gets its largest contribution c over an
envelope, against the reference torque T_i of joint i; a term is significant when c / T_i reaches the
threshold, and the simplified model's error bound is the sum of the dropped c (the formulas: docs/metrics.md,
"Term significance"). The maxima over q are taken over Sobol samples, so the bound is checked afterwards on
fresh random states."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from ..jobs import NEVER, CancelToken, Job, Progress
from ..jobs.interrupt import interruptible
from ..kinematics import NumericArm
from ..numeric.batch import CHUNK, Batch
from .joint_names import joint_label
from .metrics import batch_of
from .maps import Sampling, joint_limits, sample_configurations

__all__ = ["Term", "Significance", "term_significance", "check_bound", "operation_counts", "SignificanceResult",
           "significance_job"]


@dataclass(frozen=True)
class Term:
    """One term: ``matrix`` (M, B, C or G), the joint i whose torque it enters, and its other indices
    (0-based): (j,) for M_ij and C_ij, (j, k) for B_i,(jk), () for G_i."""

    matrix: str
    joint: int
    index: tuple[int, ...]
    contribution: float     # largest |contribution| over the envelope (N m or N)
    relative: float         # contribution / reference torque of the joint
    share_translation: float = float("nan")   # M terms: Lee's |D_tra| / (|D_tra| + |D_rot|) at the maximum

    @property
    def label(self) -> str:
        return self.label_in()

    def label_in(self, numbers: Sequence[int] = ()) -> str:
        """The label with the joints named by ``numbers`` (a closed chain's link numbers), else 1..n."""
        i = joint_label(self.joint, numbers)
        if self.matrix == "G":
            return f"G_{i}"
        if self.matrix == "B":
            j, k = (joint_label(v, numbers) for v in self.index)
            return f"B_{i},{j}{k}"
        return f"{self.matrix}_{i}{joint_label(self.index[0], numbers)}"


@dataclass(frozen=True)
class Significance:
    speed: np.ndarray
    acceleration: np.ndarray
    reference: np.ndarray           # T_i
    terms: tuple[Term, ...]
    threshold: float

    def kept(self) -> tuple[Term, ...]:
        return tuple(t for t in self.terms if t.relative >= self.threshold)

    def dropped(self) -> tuple[Term, ...]:
        return tuple(t for t in self.terms if t.relative < self.threshold)

    def bound(self) -> np.ndarray:
        """E_i: the largest error of the simplified model at each joint (N m or N)."""
        out = np.zeros(len(self.reference))
        for t in self.dropped():
            out[t.joint] += t.contribution
        return out

    def simplified_torque(self, b: Batch, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        """tau of the simplified model at the states of ``b`` with rates qd, qdd (N, n)."""
        tau = np.zeros((b.size, b.n))
        for t in self.kept():
            i = t.joint
            if t.matrix == "M":
                tau[:, i] += b.M[:, i, t.index[0]] * qdd[:, t.index[0]]
            elif t.matrix == "B":
                j, k = t.index
                tau[:, i] += 2 * b.gamma[:, i, j, k] * qd[:, j] * qd[:, k]
            elif t.matrix == "C":
                j = t.index[0]
                tau[:, i] += b.gamma[:, i, j, j] * qd[:, j] ** 2
            else:
                tau[:, i] += b.G[:, i]
        return tau


def term_significance(arm: NumericArm, speed, acceleration, threshold: float = 0.01, samples: int = 2048,
                      seed: int = 0) -> Significance:
    """Every term's largest contribution over the envelope and its size relative to T_i."""
    n = arm.n
    v = np.broadcast_to(np.asarray(speed, float), (n,))
    a = np.broadcast_to(np.asarray(acceleration, float), (n,))
    if np.any(v < 0) or np.any(a < 0):
        raise ValueError("speeds and accelerations of the envelope must not be negative")
    if not 0 <= threshold < 1:
        raise ValueError("the threshold is a fraction between 0 and 1, e.g. 0.01 for 1 %")
    q = sample_configurations(arm, samples, Sampling.SOBOL, seed)
    pairs = [(j, k) for j in range(n) for k in range(j + 1, n)]
    cM = np.zeros((n, n))
    cB = np.zeros((n, len(pairs)))
    cC = np.zeros((n, n))
    cG = np.zeros(n)
    T = np.zeros(n)
    share_at = np.full((n, n), np.nan)
    for s in range(0, len(q), CHUNK):
        b = batch_of(arm, q[s:s + CHUNK])
        # a closed chain's state where a loop cannot close is NaN: it contributes nothing (0) to the maxima
        Mt = np.nan_to_num(np.abs(b.M) * a[None, None, :])
        Bt = np.stack([np.abs(2 * b.gamma[:, :, j, k]) * v[j] * v[k] for j, k in pairs], axis=2) if pairs \
            else np.zeros((b.size, n, 0))
        Bt = np.nan_to_num(Bt)
        Ct = np.nan_to_num(np.abs(np.einsum("nijj->nij", b.gamma)) * (v**2)[None, None, :])
        Gt = np.nan_to_num(np.abs(b.G))
        total = Mt.sum(axis=2) + Bt.sum(axis=2) + Ct.sum(axis=2) + Gt
        T = np.maximum(T, total.max(axis=0))
        better = Mt.max(axis=0) > cM
        where = Mt.argmax(axis=0)
        tra, rot = np.abs(b.D_tra), np.abs(b.D_rot)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = tra / (tra + rot)
        pick = np.take_along_axis(share, where[None], axis=0)[0]
        share_at = np.where(better, pick, share_at)
        cM = np.maximum(cM, Mt.max(axis=0))
        cB = np.maximum(cB, Bt.max(axis=0))
        cC = np.maximum(cC, Ct.max(axis=0))
        cG = np.maximum(cG, Gt.max(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = lambda c, i: float(c / T[i]) if T[i] > 0 else 0.0  # noqa: E731
    terms = []
    for i in range(n):
        terms += [Term("M", i, (j,), float(cM[i, j]), rel(cM[i, j], i), float(share_at[i, j])) for j in range(n)]
        terms += [Term("B", i, p, float(cB[i, k]), rel(cB[i, k], i)) for k, p in enumerate(pairs)]
        terms += [Term("C", i, (j,), float(cC[i, j]), rel(cC[i, j], i)) for j in range(n)]
        terms.append(Term("G", i, (), float(cG[i]), rel(cG[i], i)))
    return Significance(v.copy(), a.copy(), T, tuple(terms), threshold)


def check_bound(arm: NumericArm, sig: Significance, samples: int = 2000, seed: int = 1) -> dict[str, np.ndarray]:
    """Fresh random states of the envelope: the largest |tau_full - tau_simplified| per joint, the
    stated bound E_i, their ratio and whether the bound holds (up to 1e-9 T_i of round-off)."""
    rng = np.random.default_rng(seed)
    lim = joint_limits(arm)
    q = lim[:, 0] + rng.random((samples, arm.n)) * (lim[:, 1] - lim[:, 0])
    qd = rng.uniform(-1, 1, (samples, arm.n)) * sig.speed
    qdd = rng.uniform(-1, 1, (samples, arm.n)) * sig.acceleration
    # half the states at the envelope's corners of speed and acceleration, where errors are largest
    half = samples // 2
    qd[:half] = np.sign(qd[:half]) * sig.speed
    qdd[:half] = np.sign(qdd[:half]) * sig.acceleration
    err = np.zeros(arm.n)
    for s in range(0, samples, CHUNK):
        b = batch_of(arm, q[s:s + CHUNK])
        sl = slice(s, s + b.size)
        full = b.torque(qd[sl], qdd[sl])
        # fmax: a closed chain's state where a loop cannot close (NaN) checks nothing
        err = np.fmax(err, np.fmax.reduce(np.abs(full - sig.simplified_torque(b, qd[sl], qdd[sl])), axis=0))
    bound = sig.bound()
    # dropped terms that are zero up to round-off leave a round-off error: allow 1e-9 of T_i
    slack = bound + 1e-9 * np.maximum(sig.reference, 1.0)
    return {"error": err, "bound": bound, "ratio": err / slack, "holds": err <= slack}


def _ops(exprs, token: CancelToken = NEVER) -> int:
    # one sympy.cse over all entries (what they share is the point), seconds for six joints:
    # a cancel stops it from outside (pieces checked in turn would share less and count more)
    with interruptible(token):
        replacements, reduced = sp.cse([e for e in exprs if e != 0])
        return int(sum(sp.count_ops(r) for _, r in replacements) + sum(sp.count_ops(e) for e in reduced))


def operation_counts(model, sig: Significance, overrides=None, token: CancelToken = NEVER) -> tuple[int, int]:
    """(full, simplified) operation counts of tau after common-subexpression elimination, with the
    parameters at their values (what a controller would evaluate); ``token`` is checked within the
    derivation and stops each count's CSE within :data:`~designer.jobs.interrupt.POLL` seconds."""
    from ..dynamics.engine import derive
    from ..dynamics.results import Form, Method, SimplifyMode, velocity_products, velocity_squares
    from ..dynamics.size import ClosedFormTooSlow, ExpansionTooLarge
    from ..errors import DesignerError
    try:
        # a closed chain's closed form is in its actuated joints (a four-bar's in loop quantities)
        eq = derive(model.numeric(overrides), Method.LAGRANGE, SimplifyMode.FAST, token=token, form=Form.CLOSED)
        model = eq.model
    except ExpansionTooLarge as exc:  # counts of terms in a closed form are what this reports
        raise DesignerError(f"operation counts: the expanded {exc.entry} has about {exc.terms:.2g} terms, "
                            "too large to count") from None
    except ClosedFormTooSlow as exc:
        raise DesignerError(f"operation counts: the closed form did not finish within {exc.seconds:g} s, "
                            "too large to count") from None
    n = model.n
    qd, qdd = sp.Matrix(model.qd), sp.Matrix(model.qdd)
    M, B, C, G = (eq[k] for k in ("M", "B", "C", "G"))
    full = M * qdd + (2 * B * velocity_products(model.qd) if n > 1 else sp.zeros(n, 1)) + C * velocity_squares(qd) + G
    keep = {(t.matrix, t.joint, t.index) for t in sig.kept()}
    pairs = [(j, k) for j in range(n) for k in range(j + 1, n)]
    simple = []
    for i in range(n):
        e = sum((M[i, j] * qdd[j] for j in range(n) if ("M", i, (j,)) in keep), sp.Integer(0))
        e += sum((2 * B[i, p] * qd[j] * qd[k] for p, (j, k) in enumerate(pairs) if ("B", i, (j, k)) in keep),
                 sp.Integer(0))
        e += sum((C[i, j] * qd[j] ** 2 for j in range(n) if ("C", i, (j,)) in keep), sp.Integer(0))
        if ("G", i, ()) in keep:
            e += G[i]
        simple.append(e)
    defs = _loop_definitions(eq)
    return _ops(list(full) + defs, token), _ops(simple + defs, token)


def _loop_definitions(eq) -> list:
    """The loop quantities' definitions a closed form reads (detJp, W, dW; the passive positions come from
    the closure), counted with both forms of tau."""
    loops = eq.extras.get("loop_quantities")
    return [] if loops is None else [it.value for it in loops.items if it.kind in ("det", "W", "dW")]


@dataclass(frozen=True)
class SignificanceResult:
    """What the window's Significance view shows: the ranking, its sampled check, and the operation counts
    (full, simplified) when they were asked for."""

    significance: Significance
    check: dict[str, np.ndarray]
    operations: tuple[int, int] | None


def significance_job(model, arm: NumericArm, speed, acceleration, threshold: float, samples: int,
                     count_operations: bool, token: CancelToken, *, check: int = 2000) -> Job[SignificanceResult]:
    """:func:`term_significance`, :func:`check_bound` at ``check`` states (0: no check, an empty dict) and,
    if asked, :func:`operation_counts` (a symbolic derivation: minutes for a six-joint arm) as one job; the
    window runs it in a worker process, the command line in its own."""
    yield Progress("terms", 0.0, f"largest contributions over {samples} samples")
    sig = term_significance(arm, speed, acceleration, threshold, samples)
    token.check()
    checked: dict[str, np.ndarray] = {}
    if check > 0:
        yield Progress("bound check", 0.5 if count_operations else 0.7, "sampling the simplified model's error")
        checked = check_bound(arm, sig, check)
    ops = None
    if count_operations:
        token.check()
        yield Progress("operation counts", 0.6, "deriving the symbolic model")
        ops = operation_counts(model, sig, token=token)
    yield Progress("done", 1.0)
    return SignificanceResult(sig, checked, ops)
