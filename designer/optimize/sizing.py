"""Sizing along a cycle: the feasible motor-gearbox pairs of each joint, ranked, as motor-sizing programs do.

The joint torque along the cycle is the link side's inverse dynamics tau(q, q', q'') of the mechanism
(``numeric.mechanism.load_dynamics(model, springs=False)``: a serial arm or a closed chain's actuated
joints alike). A pair (gearbox of ratio N, motor) adds its reflected rotor N^2 (Jm + Jg) q'' (motor rotor and
the gearbox's input inertia), efficiency 1 and no friction; the motor sees tau/N at N q'. A pair is
feasible when, along the whole cycle,

- gearbox: max |tau| <= repeated peak torque, RMS(tau) <= rated torque, max N |q'| <= input speed limit;
- motor: max |tau|/N <= peak torque, RMS(tau)/N <= rated torque (thermal load), max N |q'| <= maximum speed;
- inertia ratio: max over the cycle of M_jj(q) / (N^2 (Jm + Jg)) <= the limit (default 10).

Each check's margin is allowed/actual - 1 (0.2: 20 % to spare); a pair's margin is its smallest. Feasible pairs
are ranked by mass (motor + gearbox, of the items whose datasheet gives one: a row says when a mass is
missing), then the larger margin, then the smaller inertia ratio.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..catalog import Catalog, Gearbox, Motor
from ..explore.sizing import Trajectory
from ..model.manipulator import Manipulator

__all__ = ["JointLoad", "PairSizing", "JointSizing", "cycle_loads", "size_pair", "size_joint", "size_cycle",
           "DEFAULT_INERTIA_RATIO", "CycleStiffness", "cycle_stiffness", "at_cycle_load", "current_pairs"]

DEFAULT_INERTIA_RATIO = 10.0

_trapezoid = getattr(np, "trapezoid", None) or np.trapz  # type: ignore[attr-defined]  # numpy < 2 has only trapz


@dataclass(frozen=True)
class JointLoad:
    """One joint's load along the cycle, joint side, link dynamics only: torque, speed, acceleration and the
    diagonal entry of M (the load's inertia at that joint), each (N,); ``joint`` its number as explore names it."""

    joint: int
    t: np.ndarray
    torque: np.ndarray
    speed: np.ndarray
    acceleration: np.ndarray
    inertia: np.ndarray


def cycle_loads(model: Manipulator, traj: Trajectory, overrides=None, dyn=None) -> list[JointLoad]:
    """The load of every joint the trajectory drives (a closed chain's actuated joints), from the mechanism's
    numeric dynamics (``dyn``: the rigid ones of ``model`` at ``overrides``, when the caller has them already);
    the trajectory's branch is kept (``following``)."""
    from ..explore.joints import explore_joints
    from ..numeric.engine import tau_and_inertia
    from ..numeric.mechanism import load_dynamics
    if dyn is None:
        dyn = load_dynamics(model, overrides, springs=False)
    if traj.q.shape[1] != dyn.n:
        raise ValueError(f"the cycle has {traj.q.shape[1]} joints, the mechanism {dyn.n}")
    tau, diagonal = tau_and_inertia(dyn, traj.q, traj.qd, traj.qdd)
    if not (np.all(np.isfinite(tau)) and np.all(np.isfinite(diagonal))):
        raise ValueError("the dynamics are not finite along the cycle (a pose where the loops cannot close?)")
    numbers = explore_joints(model).numbers
    return [JointLoad(numbers[j], traj.t, tau[:, j], traj.qd[:, j], traj.qdd[:, j], diagonal[:, j])
            for j in range(dyn.n)]


def _rms(values: np.ndarray, t: np.ndarray) -> float:
    duration = float(t[-1] - t[0])
    return float(math.sqrt(_trapezoid(values**2, t) / duration))


@dataclass(frozen=True)
class PairSizing:
    """A gearbox-motor pair on one joint along the cycle: the figures and each check's margin."""

    joint: int
    gearbox: Gearbox
    motor: Motor
    peak_torque: float         # joint side, with the reflected rotor
    rms_torque: float
    motor_peak_torque: float
    motor_rms_torque: float
    motor_peak_speed: float    # rad/s
    inertia_ratio: float       # max over the cycle
    margins: dict[str, float] = field(default_factory=dict)

    @property
    def margin(self) -> float:
        return min(self.margins.values())

    @property
    def feasible(self) -> bool:
        return self.margin >= 0

    @property
    def failed(self) -> list[str]:
        return [k for k, v in self.margins.items() if v < 0]

    @property
    def mass(self) -> float:
        """Motor and gearbox mass (kg), of those whose datasheet gives one (:attr:`mass_complete`)."""
        return (self.gearbox.mass or 0.0) + (self.motor.mass or 0.0)

    @property
    def mass_complete(self) -> bool:
        return self.gearbox.mass is not None and self.motor.mass is not None

    def row(self) -> dict:
        return {"joint": self.joint, "gearbox": self.gearbox.name, "motor": self.motor.name,
                "ratio": self.gearbox.ratio, "mass": self.mass, "mass_complete": self.mass_complete,
                "margin": self.margin,
                "inertia_ratio": self.inertia_ratio, "peak_torque": self.peak_torque, "rms_torque": self.rms_torque,
                "motor_peak_torque": self.motor_peak_torque, "motor_rms_torque": self.motor_rms_torque,
                "motor_peak_speed": self.motor_peak_speed, "limiting": min(self.margins, key=self.margins.__getitem__),
                "margins": dict(self.margins)}


def size_pair(load: JointLoad, gearbox: Gearbox, motor: Motor,
              inertia_ratio_limit: float = DEFAULT_INERTIA_RATIO) -> PairSizing:
    """The figures and margins of one pair on one joint (module docstring)."""
    N = gearbox.ratio
    rotor = motor.rotor_inertia + (gearbox.inertia or 0.0)
    tau = load.torque + N**2 * rotor * load.acceleration
    peak, rms = float(np.max(np.abs(tau))), _rms(tau, load.t)
    speed = float(np.max(np.abs(load.speed))) * N
    ratio = float(np.max(load.inertia)) / (N**2 * rotor)

    def margin(allowed: float, actual: float) -> float:
        return math.inf if actual == 0 else allowed / actual - 1.0
    m = {"gearbox peak torque": margin(gearbox.peak_torque, peak),
         "gearbox rated torque (RMS)": margin(gearbox.rated_torque, rms),
         "motor peak torque": margin(motor.peak_torque, peak / N),
         "motor rated torque (RMS)": margin(motor.rated_torque, rms / N),
         "motor speed": margin(motor.max_speed, speed),
         "inertia ratio": margin(inertia_ratio_limit, ratio)}
    if gearbox.max_input_speed is not None:
        m["gearbox input speed"] = margin(gearbox.max_input_speed, speed)
    return PairSizing(load.joint, gearbox, motor, peak, rms, peak / N, rms / N, speed, ratio, m)


def _rank_key(p: PairSizing):
    # an item whose datasheet gives no mass is not taken as light: pairs with a gearbox (then a motor) of unknown
    # mass rank after those whose mass is known, and by the known part among themselves
    return (p.gearbox.mass is None, p.motor.mass is None, p.mass, -p.margin, p.inertia_ratio, p.gearbox.name,
            p.motor.name)


@dataclass(frozen=True)
class JointSizing:
    """One joint's result: the feasible pairs ranked, how many pairs were tried, and the pair closest to
    feasible (the largest margin) when none is: what limits it says what to look for."""

    ranked: list[PairSizing]
    tried: int
    closest: PairSizing | None


def size_joint(load: JointLoad, gearboxes: Iterable[Gearbox], motors: Sequence[Motor],
               inertia_ratio_limit: float = DEFAULT_INERTIA_RATIO) -> JointSizing:
    tried = [size_pair(load, g, m, inertia_ratio_limit) for g in gearboxes for m in motors]
    ranked = sorted((p for p in tried if p.feasible), key=_rank_key)
    closest = None if ranked or not tried else max(tried, key=lambda p: p.margin)
    return JointSizing(ranked, len(tried), closest)


def size_cycle(model: Manipulator, traj: Trajectory, catalog: Catalog,
               inertia_ratio_limit: float = DEFAULT_INERTIA_RATIO, overrides=None) -> dict[int, JointSizing]:
    """Every driven joint's ranking, by joint number."""
    gearboxes, motors = list(catalog.gearboxes.values()), list(catalog.motors.values())
    if not gearboxes or not motors:
        raise ValueError("the catalogs hold no gearbox or no motor to pair")
    return {load.joint: size_joint(load, gearboxes, motors, inertia_ratio_limit)
            for load in cycle_loads(model, traj, overrides)}


# -- a named gearbox's stiffness at the cycle's load ------------------------------------------------------
@dataclass(frozen=True)
class CycleStiffness:
    """The torsional stiffness of a joint's catalog gearbox (N m/rad): at no load (K1), at the cycle's peak
    joint torque (the secant of the curve there, the linear spring that twists as far), at its rated torque
    (what the project reads: project/catalog_drives.py)."""

    joint: int
    gearbox: str
    low_load: float
    at_cycle: float
    at_rated: float
    peak_torque: float


def cycle_stiffness(model: Manipulator, traj: Trajectory, catalog: Catalog, overrides=None) -> list[CycleStiffness]:
    """For every driven joint whose drive names a gearbox with a stiffness figure."""
    out = []
    for load in cycle_loads(model, traj, overrides):
        drive = model.links[load.joint - 1].drive
        if drive is None or drive.gearbox is None or drive.gearbox not in catalog.gearboxes:
            continue
        g = catalog.gearboxes[drive.gearbox]
        if g.stiffness is None:
            continue
        peak = float(np.max(np.abs(load.torque)))
        out.append(CycleStiffness(load.joint, g.name, g.stiffness.k1, g.stiffness.secant(peak),
                                  g.stiffness.secant(g.rated_torque), peak))
    return out


def at_cycle_load(model: Manipulator, traj: Trajectory, catalog: Catalog, overrides=None) -> Manipulator:
    """The model whose catalog-given stiffnesses are those at the cycle's load (a stiffness the project gives
    itself stays)."""
    from dataclasses import replace
    links = list(model.links)
    for s in cycle_stiffness(model, traj, catalog, overrides):
        link = links[s.joint - 1]
        if link.drive is not None and "stiffness" in link.drive.catalog_fields:
            links[s.joint - 1] = replace(link, drive=replace(link.drive, stiffness=s.at_cycle))
    return replace(model, links=tuple(links))


def current_pairs(model: Manipulator, traj: Trajectory, catalog: Catalog,
                  inertia_ratio_limit: float = DEFAULT_INERTIA_RATIO, overrides=None) -> dict[int, PairSizing]:
    """The pair each driven joint's drive names now (a gearbox and a motor of the catalogs), sized along the
    cycle: is the project's own choice feasible, and what limits it."""
    out = {}
    for load in cycle_loads(model, traj, overrides):
        d = model.links[load.joint - 1].drive
        if d is not None and d.gearbox in catalog.gearboxes and d.motor in catalog.motors:
            out[load.joint] = size_pair(load, catalog.gearboxes[d.gearbox], catalog.motors[d.motor],
                                        inertia_ratio_limit)
    return out
