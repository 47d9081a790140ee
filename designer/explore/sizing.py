"""Motor sizing along a trajectory, and the payload envelope (docs/metrics.md, "Motor sizing and payload").

Trajectories are sampled joint motions (t, q, qd, qdd): a quintic rest-to-rest move or a CSV. Torques come
from :class:`~designer.explore.batch.Batch` with the reflected rotor inertia N^2 Jm added to M_ii. Torque is
affine in the payload mass, tau = tau0 + m tau1, so the payload limit is exact."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..kinematics import NumericArm
from ..numeric.batch import CHUNK
from ..numeric.engine import inverse_dynamics
from ..tables import read_text
from .metrics import batch_of

_trapezoid = getattr(np, "trapezoid", None) or np.trapz  # type: ignore[attr-defined]  # numpy < 2 has only trapz

__all__ = ["Trajectory", "quintic", "read_trajectory", "SizingResult", "size_motors", "payload_envelope"]


@dataclass(frozen=True)
class Trajectory:
    t: np.ndarray     # (N,)
    q: np.ndarray     # (N, n)
    qd: np.ndarray
    qdd: np.ndarray


def quintic(q0, q1, duration: float, steps: int = 201) -> Trajectory:
    """Point-to-point move with s(u) = 10u^3 - 15u^4 + 6u^5: rest to rest, zero end accelerations."""
    q0, q1 = np.asarray(q0, float), np.asarray(q1, float)
    if q0.shape != q1.shape:
        raise ValueError("the two poses need the same number of joint values")
    if duration <= 0 or steps < 2:
        raise ValueError("the move needs a positive duration and at least 2 steps")
    t = np.linspace(0.0, duration, steps)
    u = t / duration
    s = 10 * u**3 - 15 * u**4 + 6 * u**5
    sd = (30 * u**2 - 60 * u**3 + 30 * u**4) / duration
    sdd = (60 * u - 180 * u**2 + 120 * u**3) / duration**2
    d = q1 - q0
    return Trajectory(t, q0 + s[:, None] * d, sd[:, None] * d, sdd[:, None] * d)


def read_trajectory(path: str | Path, n: int, numbers: Sequence[int] = ()) -> Trajectory:
    """CSV with a header: ``t, q1..qn`` and optionally ``qd1..qdn, qdd1..qddn``; rates that are
    missing are differentiated numerically (second-order central differences). ``numbers``: the
    joints' names when not 1..n (a closed chain's actuated links: ``t, q1, q2, q4, q6``)."""
    # bounded, a device (/dev/zero) or folder refused, UTF-8 checked: a project's cycle.trajectory is the
    # file's to name, and /dev/zero was read until the memory ran out
    text = read_text(str(path), "the trajectory")
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
    except csv.Error as exc:   # a field over the csv module's limit (131,072 characters)
        raise ValueError(f"{path}: not a CSV table ({exc})") from None
    if not rows:
        raise ValueError(f"{path}: no rows")
    names = list(numbers) or list(range(1, n + 1))
    need = ["t"] + [f"q{i}" for i in names]
    missing = [c for c in need if c not in rows[0]]
    if missing:
        raise ValueError(f"{path}: missing column(s) {', '.join(missing)} (need {', '.join(need)})")

    def col(name):
        try:
            values = np.array([float(r[name]) for r in rows])
        except (TypeError, ValueError):
            bad = next(k for k, r in enumerate(rows, start=2) if not _is_number(r.get(name)))
            raise ValueError(f"{path}: line {bad}, column {name}: not a number") from None
        if not np.all(np.isfinite(values)):   # nan, inf, and 1e999 or 5000 digits, which float() reads as inf
            bad = 2 + int(np.flatnonzero(~np.isfinite(values))[0])
            raise ValueError(f"{path}: line {bad}, column {name}: not a finite number")
        return values
    t = col("t")
    if len(t) < 3 or np.any(np.diff(t) <= 0):
        raise ValueError(f"{path}: t must increase strictly, with at least 3 rows")
    q = np.column_stack([col(f"q{i}") for i in names])
    has = lambda p: all(f"{p}{i}" in rows[0] for i in names)  # noqa: E731
    qd = np.column_stack([col(f"qd{i}") for i in names]) if has("qd") else np.gradient(q, t, axis=0)
    qdd = np.column_stack([col(f"qdd{i}") for i in names]) if has("qdd") else np.gradient(qd, t, axis=0)
    return Trajectory(t, q, qd, qdd)


def _is_number(text) -> bool:
    try:
        float(text)
        return True
    except (TypeError, ValueError):
        return False


def _torque(arm: NumericArm, q, qd, qdd) -> np.ndarray:
    return inverse_dynamics(arm, q, np.asarray(qd, float), np.asarray(qdd, float))


@dataclass(frozen=True)
class SizingResult:
    """Along the trajectory: joint-side torque, speed and power (N, n); per joint summaries."""

    traj: Trajectory
    torque: np.ndarray          # joint side, including the reflected rotor inertia
    power: np.ndarray           # torque * qd (W)
    gear: np.ndarray            # N_i (1 without gears)
    rotor: np.ndarray           # Jm_i (0 without)
    inertia_ratio: np.ndarray   # (N, n) M_ii(q) / (N_i^2 Jm_i): load-to-motor inertia (nan without rotor)

    def table(self, numbers: Sequence[int] = ()) -> list[dict[str, float]]:
        """One row per joint (named by ``numbers`` when given, else 1..n): peak and RMS torque, peak speed
        and power, motor-side figures."""
        t = self.traj.t
        duration = t[-1] - t[0]
        rows = []
        for i in range(self.torque.shape[1]):
            tau, qd, p = self.torque[:, i], self.traj.qd[:, i], self.power[:, i]
            rms = float(np.sqrt(_trapezoid(tau**2, t) / duration))
            rows.append({
                "joint": numbers[i] if numbers else i + 1, "peak_torque": float(np.abs(tau).max()), "rms_torque": rms,
                "peak_speed": float(np.abs(qd).max()), "peak_power": float(np.abs(p).max()),
                "motor_peak_torque": float(np.abs(tau).max() / self.gear[i]), "motor_rms_torque": rms / self.gear[i],
                "motor_peak_speed": float(np.abs(qd).max() * self.gear[i]),
                "inertia_ratio_max": (float(np.nanmax(self.inertia_ratio[:, i]))
                                      if np.isfinite(self.inertia_ratio[:, i]).any() else float("nan")),
                "inertia_ratio_mean": (float(np.nanmean(self.inertia_ratio[:, i]))
                                       if np.isfinite(self.inertia_ratio[:, i]).any() else float("nan")),
            })
        return rows


def size_motors(arm: NumericArm, traj: Trajectory, gear=None, rotor=None) -> SizingResult:
    """Torque, speed and power along ``traj``, with gear ratios and rotor inertias where given."""
    n = arm.n
    N = np.ones(n) if gear is None else np.broadcast_to(np.asarray(gear, float), (n,)).copy()
    Jm = np.zeros(n) if rotor is None else np.broadcast_to(np.asarray(rotor, float), (n,)).copy()
    if np.any(N <= 0) or np.any(Jm < 0):
        raise ValueError("gear ratios must be positive and rotor inertias not negative")
    if traj.q.shape[1] != n:
        raise ValueError(f"the trajectory has {traj.q.shape[1]} joints, the arm {n}")
    reflected = N**2 * Jm
    tau = _torque(arm, traj.q, traj.qd, traj.qdd) + reflected * traj.qdd
    Mdiag = np.concatenate([np.einsum("nii->ni", batch_of(arm, traj.q[s:s + CHUNK]).M)
                            for s in range(0, len(traj.q), CHUNK)])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(reflected > 0, Mdiag / np.where(reflected > 0, reflected, 1.0), np.nan)
    return SizingResult(traj, tau, tau * traj.qd, N, Jm, ratio)


def payload_envelope(arm: NumericArm, offsets: np.ndarray, torque, q, qd=None, qdd=None) -> np.ndarray:
    """Largest payload mass (kg) at each offset (K, 3) from the last frame's origin (in that frame; a closed
    chain's tool link, :meth:`~designer.numeric.actuated_arm.ActuatedArm.with_load`),
    keeping |tau_i| <= torque_i at every state q (with rates qd, qdd; zero = holding still).

    0 where the arm alone already exceeds a rating; inf where the payload loads no joint.
    """
    q = np.atleast_2d(np.asarray(q, float))
    qd = np.zeros_like(q) if qd is None else np.asarray(qd, float)
    qdd = np.zeros_like(q) if qdd is None else np.asarray(qdd, float)
    T = np.broadcast_to(np.asarray(torque, float), (arm.n,))
    tau0 = _torque(arm, q, qd, qdd)
    over = np.any(np.abs(tau0) > T * (1 + 1e-12))
    out = np.empty(len(offsets))
    for k, r in enumerate(np.asarray(offsets, float).reshape(-1, 3)):
        loaded = arm.with_load(1.0, r)   # a closed chain's payload sits on its tool link
        tau1 = _torque(loaded, q, qd, qdd) - tau0
        if over:
            out[k] = 0.0
            continue
        mag = np.abs(tau1)
        with np.errstate(divide="ignore", invalid="ignore"):
            limit = np.where(mag > 1e-12 * (1 + np.abs(tau0)), (T - np.sign(tau1) * tau0) / mag, np.inf)
        # a state where a closed chain's loop cannot close (NaN) bounds nothing
        out[k] = max(0.0, float(np.nanmin(limit)))
    return out
