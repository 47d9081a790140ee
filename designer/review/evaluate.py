"""Evaluating requirements (docs/project-format.md, "Requirements, version 4").

The arm is the one the explore metrics take (:func:`~designer.explore.joints.explore_arm`: a serial arm, a closed
chain in its actuated joints), loaded with the project's payload (a point mass on the last link, as
``explore payload`` places it). An ``explore metric`` spec is evaluated by :func:`designer.explore.metrics.evaluate`
at every sample of where the requirement holds, with the ratings of the project's drive data (an elastic joint's
stiffness, gear ratio and rotor inertia included); the review's own metrics (:data:`REVIEW_METRICS`) take the joint
torques along the samples from the batch's inverse dynamics plus the rotors' reflected inertia
(:func:`designer.explore.sizing.size_motors`), the speeds from the cycle. The value is the worst over the samples
(the largest for a ``<=`` bound, the smallest for ``>=``), the margin is how far it is inside the bound (negative:
failed), and the worst sample's pose and time are reported.

A cycle with ``"timing": "time-optimal"`` (its waypoints' lines, or a trajectory file's path) is timed by
:mod:`designer.review.timing` within the drives' peak torques and rated speeds (``cycle_time`` its duration);
``cost`` prices the drives' catalog items and the links' materials (:func:`cost`); with a cycle, a catalog
strain-wave stiffness is taken at the cycle's load (:meth:`_Context.cycle_stiffness`). Each outcome's ``note``
says what its value rests on.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import DesignerError
from ..jobs import CancelToken, Job, Progress, run
from ..model.requirements import Cycle, Requirement, Where

__all__ = ["REVIEW_METRICS", "Outcome", "ReviewError", "review", "review_job", "review_value", "cycle_trajectory",
           "cycle_motion"]

#: the review's own metrics: name -> (unit, needs a motion in time, description)
REVIEW_METRICS: dict[str, tuple[str, bool, str]] = {
    "peak_torque": ("N m or N", False, "largest |tau_i| (inverse dynamics with the rotors' reflected inertia)"),
    "rms_torque": ("N m or N", True, "RMS of tau_i over the cycle"),
    "peak_speed": ("rad/s or m/s", True, "largest |qd_i| along the cycle"),
    "rms_speed": ("rad/s or m/s", True, "RMS of qd_i over the cycle"),
    "torque_load": ("1", False, "largest |tau_i| / the drive's peak torque (its rated torque when no peak is given)"),
    "thermal_load": ("1", True, "RMS tau_i / the drive's rated (continuous) torque"),
    "speed_load": ("1", True, "largest |qd_i| / the drive's rated speed"),
    "mass": ("kg", False, "total mass of the arm (links and point masses, without the payload)"),
    "payload": ("kg", False, "largest payload at the project's payload offset within every drive's torque rating"),
    "cost": ("", False, "the drives' catalog items' prices plus the links' material mass x price per kg"),
    "cycle_time": ("s", True, "duration of the cycle (the time-optimal one with \"timing\": \"time-optimal\")"),
}
#: samples per segment of a waypoint cycle
CYCLE_STEPS = 101


class ReviewError(DesignerError):
    """A requirement that cannot be evaluated (unknown metric, a rating missing, no cycle): names it."""


@dataclass(frozen=True)
class Outcome:
    """One requirement reviewed. ``value`` None when it could not be evaluated (``error`` says why)."""

    index: int                 # 1-based, as the file's requirements[k]
    requirement: Requirement
    unit: str = ""
    value: float | None = None
    pose: tuple[float, ...] | None = None   # the metrics' joints where it is worst
    time: float | None = None               # the cycle's time where it is worst
    joint: int | None = None                # the joint (its metrics number) that is worst
    error: str = ""
    note: str = ""                          # what the value rests on (the cycle's timing, what a deflection holds)

    @property
    def margin(self) -> float | None:
        """How far inside the bound (value units); negative when failed."""
        if self.value is None or not np.isfinite(self.value):
            return None if self.value is None else -np.inf
        r = self.requirement
        return r.value - self.value if r.bound == "<=" else self.value - r.value

    @property
    def relative_margin(self) -> float | None:
        m = self.margin
        return None if m is None or self.requirement.value == 0 else m / abs(self.requirement.value)

    @property
    def passed(self) -> bool:
        m = self.margin
        return m is not None and m >= 0

    @property
    def where_text(self) -> str:
        parts = []
        if self.time is not None:
            parts.append(f"t = {self.time:.3g} s")
        if self.pose is not None:
            parts.append("q = (" + ", ".join(f"{v:.3g}" for v in self.pose) + ")")
        if self.joint is not None:
            parts.append(f"joint {self.joint}")
        return ", ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        r = self.requirement
        return {"requirement": self.index, "name": r.name, "metric": r.metric, "bound": r.bound, "limit": r.value,
                "where": r.where.text, "unit": self.unit, "value": self.value, "margin": self.margin,
                "relative_margin": self.relative_margin, "passed": self.passed,
                "worst": {"pose": None if self.pose is None else list(self.pose), "time": self.time,
                          "joint": self.joint}, "worst_where": self.where_text, "error": self.error, "note": self.note}


@dataclass
class _Samples:
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    t: np.ndarray | None   # None: poses (no motion in time)


class _Context:
    """What every requirement of one model shares: the loaded arm, the ratings, the drive data, the cycle."""

    def __init__(self, model, catalog=None, project=None):
        from ..explore.joints import explore_arm
        from ..explore.metrics import Ratings, drive_ratings, explored_drive_values, joint_numbers
        self.model = model
        self._catalog = catalog
        self._project = project
        self.bare = explore_arm(model)
        payload = model.requirements.payload
        self.arm = self.bare if payload is None or payload.mass == 0 else _with_load(self.bare, payload.mass,
                                                                                     payload.offset)
        self.n = self.bare.n
        self.revolute = [link.is_revolute for link in model.links if link.actuated]
        self.numbers = joint_numbers(self.bare) or tuple(range(1, self.n + 1))
        self.drives = explored_drive_values(model)
        from ..model.drives import numeric_drives
        act = [i for i, link in enumerate(model.links) if link.actuated]
        every = numeric_drives(model)
        drives = [every[i] for i in act]
        self.peak = _every(drives, "peak_torque")
        self.rated = _every(drives, "rated_torque")
        self.speed = self.drives["speed"]
        self._ratings = Ratings.of(self.n, self.drives["torque"], self.speed, **drive_ratings(model))
        self._at_cycle_load: bool | None = None
        self.stiffness_note = ""   # the gearboxes' stiffness at the cycle's load, when taken
        self._cycle: _Samples | None = None
        self._cycle_torques: np.ndarray | None = None
        self.timing = ""   # which timing the cycle's samples have (said in the outcomes along it)

    def cycle(self) -> _Samples:
        if self._cycle is None:
            c = self.model.requirements.cycle
            if c is None:
                raise ReviewError("holds along the cycle, but the project has no cycle")
            if c.timing == "time-optimal":
                tr = self._time_optimal(c)
            else:
                tr = cycle_trajectory(c, self.n, self.numbers)
                self.timing = (f"cycle from {c.trajectory}" if c.trajectory else
                               f"cycle of quintic moves sharing {c.time:g} s")
            self._cycle = _Samples(tr.q, tr.qd, tr.qdd, tr.t)
        return self._cycle

    @property
    def ratings(self):
        """The ratings the explore metrics take: the drive data, a catalog gearbox's stiffness curve taken at the
        load the cycle puts on it (:meth:`cycle_stiffness`)."""
        if self._at_cycle_load is None:
            self._at_cycle_load = False
            stiffness = self.cycle_stiffness()
            if stiffness is not None:
                self._ratings = replace(self._ratings, stiffness=stiffness)
                self._at_cycle_load = True
        return self._ratings

    def cycle_stiffness(self) -> np.ndarray | None:
        """Every joint's stiffness with a catalog strain-wave curve taken at the largest torque the cycle puts on
        its gearbox's output (the arm's inverse dynamics with the payload, without the rotor's own inertia,
        which acts before the gearbox): the secant T/phi(T), from K1 at no load towards K3 (docs/catalogs.md);
        None without a cycle or without such a joint. A stiffness the file gives itself stays."""
        from ..explore.sizing import _torque
        if self.model.requirements.cycle is None or self._ratings.stiffness is None:
            return None
        act = [i for i, link in enumerate(self.model.links) if link.actuated]
        curves = {}
        for j, i in enumerate(act):
            d = self.model.links[i].drive
            if d is None or d.gearbox is None or "stiffness" not in dict(d.from_catalog):
                continue
            g = self.catalog.gearboxes.get(d.gearbox)
            if g is not None and g.stiffness is not None and not g.stiffness.is_linear:
                curves[j] = g
        if not curves:
            return None
        s = self.cycle()
        peak = np.nanmax(np.abs(_torque(self.arm, s.q, s.qd, s.qdd)), axis=0)
        out = np.array(self._ratings.stiffness, float)
        parts = []
        for j, g in curves.items():
            assert g.stiffness is not None
            out[j] = g.stiffness.secant(peak[j])
            parts.append(f"joint {self.numbers[j]} {g.name}: {out[j]:.4g} N m/rad at {peak[j]:.4g} N m "
                         f"(K1 {g.stiffness.k1:.4g}, at the rated {g.rated_torque:g} N m "
                         f"{g.stiffness.secant(g.rated_torque):.4g})")
        self.stiffness_note = "gearbox stiffness at the cycle's peak load: " + "; ".join(parts)
        return out

    @property
    def catalog(self):
        """The catalogs the review prices from: the caller's, else the bundled ones and those beside the project
        file (when the caller names it), read when first needed."""
        if self._catalog is None:
            from ..catalog import CatalogError, load_catalog
            try:
                self._catalog = load_catalog(self._project)
            except CatalogError as exc:
                raise ReviewError(str(exc)) from None
        return self._catalog

    def _time_optimal(self, c: Cycle):
        """The waypoints (or a trajectory file's path) timed as fast as the drives' peak torques (their rated
        torques when a joint has no peak) and rated speeds (where every joint has one) allow:
        :func:`designer.review.timing.time_optimal_cycle` (``time_optimal_path`` for a file)."""
        from .timing import TimingError, time_optimal_cycle, time_optimal_path
        if c.trajectory:
            wp = cycle_trajectory(c, self.n, self.numbers).q
        else:
            wp = np.array(c.waypoints, float)
            if wp.shape[1] != self.n:
                raise ReviewError(f"cycle.waypoints: {wp.shape[1]} joint values each, the arm's metrics take "
                                  f"{self.n}")
        peak = self.peak if self.peak is not None else self.rated
        if peak is None:
            raise ReviewError("the time-optimal cycle needs every joint's peak_torque or rated_torque (drive data)")
        speed = None if self.speed is None or np.any(~np.isfinite(np.asarray(self.speed, float))) else self.speed
        timed = time_optimal_path if c.trajectory else time_optimal_cycle
        try:
            tr = timed(self.arm, wp, peak, speed, self.drives["gear"], self.drives["rotor"])
        except TimingError as exc:
            raise ReviewError(str(exc)) from None
        self.timing = (f"time-optimal {'re-timing of the path in ' + c.trajectory if c.trajectory else 'cycle'}, "
                       f"{tr.t[-1]:.3g} s: within the drives' "
                       f"{'peak' if self.peak is not None else 'rated'} torques"
                       f"{' and rated speeds' if speed is not None else ' (no rated speeds given)'}")
        return tr

    def samples(self, where: Where) -> _Samples:
        if where.kind == "cycle":
            return self.cycle()
        if where.kind == "poses":
            q = np.array(where.poses, float)
        elif where.kind == "box":
            from ..explore.maps import sample_configurations
            q = sample_configurations(self.bare, where.samples, limits=np.column_stack([where.lo, where.hi]))
        else:
            q = np.zeros((1, self.n))
        if q.shape[1] != self.n:
            raise ReviewError(f"the poses have {q.shape[1]} joint values, the arm's metrics take {self.n}")
        return _Samples(q, np.zeros_like(q), np.zeros_like(q), None)

    def torques(self, s: _Samples) -> np.ndarray:
        """The joint torques at every sample (the batch's inverse dynamics plus the rotors' reflected inertia),
        computed once for the cycle's samples however many requirements take them."""
        from ..explore.sizing import Trajectory, size_motors
        if s is self._cycle and self._cycle_torques is not None:
            return self._cycle_torques
        t = s.t if s.t is not None else np.arange(len(s.q), dtype=float)
        out = size_motors(self.arm, Trajectory(t, s.q, s.qd, s.qdd), self.drives["gear"], self.drives["rotor"]).torque
        if s is self._cycle:
            self._cycle_torques = out
        return out


def _joint_unit(ctx: _Context, unit: str, cols) -> str:
    """A per-joint unit ("N m or N", "rad/s or m/s") said for the joints it covers: the revolute one's or the
    prismatic one's, both only when the joints are of both kinds."""
    if " or " not in unit:
        return unit
    rot, lin = unit.split(" or ")
    kinds = {ctx.revolute[c] for c in cols if c < len(ctx.revolute)}
    return rot if kinds == {True} else lin if kinds == {False} else unit


def _every(drives, name: str) -> np.ndarray | None:
    values = [getattr(d, name) if d is not None else None for d in drives]
    return None if any(v is None for v in values) else np.array(values, float)


def _with_load(arm, mass: float, offset):
    if hasattr(arm, "with_load"):   # a closed chain's payload sits on its tool link (explore/closed.py)
        return arm.with_load(mass, np.asarray(offset, float))
    return replace(arm, point_masses=arm.point_masses + ((arm.n - 1, float(mass), np.asarray(offset, float)),))


def cycle_trajectory(cycle: Cycle, n: int, numbers=()):
    """The cycle as a sampled :class:`~designer.explore.sizing.Trajectory`: the waypoints joined by rest-to-rest
    quintic moves sharing the cycle time equally, or the trajectory file read (``t, q1..qn``)."""
    from ..explore.sizing import Trajectory, quintic, read_trajectory
    if cycle.trajectory:
        try:
            tr = read_trajectory(cycle.trajectory, n, tuple(numbers) if tuple(numbers) != tuple(range(1, n + 1))
                                 else ())
        except ValueError as exc:
            raise ReviewError(f"cycle.trajectory: {exc}") from None
        return tr
    wp = np.array(cycle.waypoints, float)
    if wp.shape[1] != n:
        raise ReviewError(f"cycle.waypoints: {wp.shape[1]} joint values each, the arm's metrics take {n}")
    seg = cycle.time / (len(wp) - 1)
    parts = [quintic(a, b, seg, CYCLE_STEPS) for a, b in zip(wp[:-1], wp[1:])]
    keep = [slice(None)] + [slice(1, None)] * (len(parts) - 1)   # a segment's first sample is the last one's end
    return Trajectory(np.concatenate([p.t[k] + j * seg for j, (p, k) in enumerate(zip(parts, keep))]),
                      *(np.concatenate([getattr(p, a)[k] for p, k in zip(parts, keep)]) for a in ("q", "qd", "qdd")))


def cycle_motion(model, catalog=None, project=None):
    """The motion along the project's cycle as the review takes it, a :class:`~designer.explore.sizing.Trajectory`:
    its own timing (quintic moves, or a trajectory file's samples), or with ``"timing": "time-optimal"`` the
    waypoints or the file's path re-timed for the drives (:mod:`designer.review.timing`), with the payload on
    the arm; and the sentence saying which. Sizing takes this motion, so that the motors are sized on what the
    review checks. Raises ReviewError (no cycle, no ratings for the time-optimal timing ...)."""
    from ..explore.sizing import Trajectory
    ctx = _Context(model, catalog, project)
    s = ctx.cycle()
    assert s.t is not None
    return Trajectory(s.t, s.q, s.qd, s.qdd), ctx.timing


def _split(metric: str) -> tuple[str, tuple[int, ...]]:
    name, _, rest = metric.partition("[")
    index = tuple(int(v) for v in rest.rstrip("]").split(",")) if rest else ()
    return name, index


def _rms(values: np.ndarray, t: np.ndarray) -> np.ndarray:
    duration = t[-1] - t[0]
    trapezoid = getattr(np, "trapezoid", None) or np.trapz  # type: ignore[attr-defined]
    return np.sqrt(trapezoid(values**2, t, axis=0) / duration)


def _worst(per_sample: np.ndarray, bound: str) -> tuple[int, int | None]:
    """(sample, joint) of the worst entry of per_sample (N,) or (N, k) for the bound (max for <=, min for >=)."""
    a = np.asarray(per_sample, float)
    flat = np.where(np.isnan(a), -np.inf if bound == "<=" else np.inf, a)
    k = int(np.argmax(flat) if bound == "<=" else np.argmin(flat))
    if a.ndim == 1:
        return k, None
    return np.unravel_index(k, a.shape)[0], np.unravel_index(k, a.shape)[1]   # type: ignore[return-value]


def _joint_columns(ctx: _Context, index: tuple[int, ...], metric: str) -> list[int]:
    if not index:
        return list(range(ctx.n))
    if len(index) != 1 or index[0] not in ctx.numbers:
        raise ReviewError(f"metric '{metric}' takes one joint number, one of {', '.join(map(str, ctx.numbers))}")
    return [ctx.numbers.index(index[0])]


def _evaluate(ctx: _Context, k: int, r: Requirement) -> Outcome:
    name, index = _split(r.metric)
    if name in REVIEW_METRICS:
        return _review_metric(ctx, k, r, name, index)
    from ..explore.metrics import METRICS, MetricError, evaluate, parse_metric
    if name not in METRICS:
        raise ReviewError(f"unknown metric '{name}' (known: {', '.join([*METRICS, *REVIEW_METRICS])})")
    try:
        spec = parse_metric(r.metric, ctx.n, ctx.numbers if ctx.numbers != tuple(range(1, ctx.n + 1)) else ())
    except MetricError as exc:
        raise ReviewError(str(exc)) from None
    s = ctx.samples(r.where)
    # only a metric that takes the stiffness needs the cycle's load (and evaluates the cycle for it)
    values = evaluate(ctx.arm, s.q, spec, ctx.ratings if _takes_stiffness(spec.metric.name) else ctx._ratings)
    i, _ = _worst(values, r.bound)
    cols = list(spec.index[:1]) if spec.index else list(range(ctx.n))
    return Outcome(k, r, _joint_unit(ctx, spec.metric.unit, cols), float(values[i]), tuple(map(float, s.q[i])),
                   None if s.t is None else float(s.t[i]),
                   note="; ".join(v for v in (_deflection_note(ctx, name), _stiffness_note(ctx, spec)) if v))


def _takes_stiffness(name: str) -> bool:
    """Whether the explore metric ``name`` takes the joints' stiffness (explore.metrics' ELASTIC_METRICS)."""
    from ..explore.metrics import ELASTIC_METRICS
    return any(name == entry[0] for entry in ELASTIC_METRICS)


def _stiffness_note(ctx: _Context, spec) -> str:
    """The gearboxes' stiffness at the cycle's load, said for a metric that takes the stiffness."""
    return ctx.stiffness_note if ctx._at_cycle_load and _takes_stiffness(spec.metric.name) else ""


def _deflection_note(ctx: _Context, name: str) -> str:
    """What a deflection holds: the window's read-out "tool sag" is the gearboxes' share under the arm's own
    weight, the review's takes the payload too and, with links made as parts, their bending."""
    if name not in ("deflection", "deflection_links"):
        return ""
    payload = ctx.model.requirements.payload
    load = "gravity on the arm" + ("" if payload is None or payload.mass == 0 else
                                   f" and the {payload.mass:g} kg payload")
    beams = bool(getattr(ctx.bare, "beams", ()))
    if name == "deflection_links":
        return f"the links' bending under {load}"
    return (f"tool sag under {load}: the gearboxes' share"
            + (" plus the links' bending" if beams else " (no link made as a part bends)")
            + "; the window's read-out says the gearboxes' share without the payload")


def _review_metric(ctx: _Context, k: int, r: Requirement, name: str, index: tuple[int, ...]) -> Outcome:
    unit, timed, _ = REVIEW_METRICS[name]
    if name == "mass":
        return Outcome(k, r, unit, float(ctx.bare.total_mass()))
    if name == "cost":
        value, currency, note = cost(ctx.model, ctx.catalog)
        return Outcome(k, r, currency, value, note=note)
    s = ctx.samples(r.where)
    if timed and s.t is None:
        raise ReviewError(f"metric '{name}' is a figure along a motion: give \"where\": \"cycle\"")
    if name == "cycle_time":
        assert s.t is not None
        return Outcome(k, r, unit, float(s.t[-1] - s.t[0]), note=ctx.timing)
    cols = _joint_columns(ctx, index, r.metric)
    if name == "payload":
        return _payload(ctx, k, r, s, unit)
    if name in ("peak_speed", "rms_speed", "speed_load"):
        series = np.abs(s.qd)
        if name == "speed_load":
            series = series / _rating(ctx.speed, "rated_speed", name)
    else:
        series = np.abs(ctx.torques(s))
        if name == "torque_load":
            series = series / _rating(ctx.peak if ctx.peak is not None else ctx.rated, "peak_torque or rated_torque",
                                      name)
        elif name == "thermal_load":
            series = series / _rating(ctx.rated, "rated_torque", name)
    series = series[:, cols]
    if name in ("rms_torque", "rms_speed", "thermal_load"):
        assert s.t is not None
        per_joint = _rms(series, s.t)
        _, j = _worst(per_joint[None, :], r.bound)
        i = int(np.argmax(series[:, j]))   # where that joint is loaded most
        value = float(per_joint[j])
    else:
        i, j = _worst(series, r.bound)
        value = float(series[i, j])
    return Outcome(k, r, _joint_unit(ctx, unit, [cols[int(j or 0)]]), value, tuple(map(float, s.q[i])),
                   None if s.t is None else float(s.t[i]), ctx.numbers[cols[int(j or 0)]])


def cost(model, catalog) -> tuple[float, str, str]:
    """(cost, currency, what it sums) of ``model``: the prices of the catalog items its drives name plus every
    link's mass times its material's price per kg. ReviewError naming everything that has no price (an item
    without one, a drive naming no item, a link not made as a part, a material without a price), never a
    silent 0; and prices in more than one currency."""
    from ..kinematics.numeric import NumericArm
    masses = NumericArm.from_model(model).mass
    terms: list[tuple[str, float, str]] = []   # (what, price, currency)
    lacking: list[str] = []
    for i, link in enumerate(model.links, start=1):
        d = link.drive
        if link.actuated:
            if d is None or (d.gearbox is None and d.motor is None):
                lacking.append(f"joint {i}'s drive names no catalog gearbox or motor")
            for kind in ("gearbox", "motor"):
                name = None if d is None else getattr(d, kind)
                if name is None:
                    continue
                item = (catalog.gearboxes if kind == "gearbox" else catalog.motors).get(name)
                if item is None or item.price is None:
                    lacking.append(f"{kind} {name} (joint {i}) has no price in the catalogs")
                else:
                    terms.append((f"{kind} {name}", item.price, item.currency))
        m = float(masses[i - 1])
        if m == 0:
            continue
        if link.part is None:
            lacking.append(f"link {i} is not made as a part (no material to price its {m:.3g} kg)")
            continue
        mat = link.part.material.name
        price = catalog.materials.get(mat)
        if price is None:
            lacking.append(f"material '{mat}' (link {i}) has no price per kg in the catalogs")
        else:
            terms.append((f"link {i} ({m:.3g} kg of {mat})", m * price.price_per_kg, price.currency))
    if lacking:
        raise ReviewError("cost: cannot price the design: " + "; ".join(lacking) +
                          " (prices: price_CUR fields of catalog items, materials' price_CUR_per_kg: docs/catalogs.md)")
    currencies = sorted({c for _, _, c in terms})
    if len(currencies) > 1:
        raise ReviewError(f"cost: prices in {', '.join(currencies)}; give them in one currency")
    total = float(sum(p for _, p, _ in terms))
    return total, currencies[0] if currencies else "", "cost of " + ", ".join(f"{w} {p:.4g}" for w, p, _ in terms)


def _rating(values, what: str, metric: str) -> np.ndarray:
    if values is None:
        raise ReviewError(f"metric '{metric}' needs every joint's {what} (drive data)")
    return values


def _payload(ctx: _Context, k: int, r: Requirement, s: _Samples, unit: str) -> Outcome:
    per = payload_per_sample(ctx, s)
    i, _ = _worst(per, r.bound)
    return Outcome(k, r, unit, float(per[i]), tuple(map(float, s.q[i])), None if s.t is None else float(s.t[i]))


def payload_per_sample(ctx: _Context, s: _Samples) -> np.ndarray:
    """The largest payload (kg) at the project's payload offset keeping every joint within its rated torque at
    each sample on its own (:func:`designer.explore.sizing.payload_envelope` of that one sample): the arm alone
    and the arm with 1 kg at the offset through the batch inverse dynamics once each, over every sample."""
    from ..explore.sizing import _torque
    torque = _rating(ctx.drives["torque"], "rated_torque (or peak_torque)", "payload")
    payload = ctx.model.requirements.payload
    offset = np.zeros(3) if payload is None else np.asarray(payload.offset, float)
    T = np.broadcast_to(np.asarray(torque, float), (ctx.n,))
    tau0 = _torque(ctx.bare, s.q, s.qd, s.qdd)
    tau1 = _torque(_with_load(ctx.bare, 1.0, offset), s.q, s.qd, s.qdd) - tau0   # the dynamics are affine in it
    mag = np.abs(tau1)
    with np.errstate(divide="ignore", invalid="ignore"):
        limit = np.where(mag > 1e-12 * (1 + np.abs(tau0)), (T - np.sign(tau1) * tau0) / mag, np.inf)
    # NaN (a closed chain's loop that cannot close) bounds nothing; a sample with no bound at all gives 0, as
    # payload_envelope's nanmin does
    none = np.all(np.isnan(limit), axis=1)
    per = np.maximum(0.0, np.where(np.isnan(limit), np.inf, limit).min(axis=1))
    per = np.where(none, 0.0, per)
    over = np.any(np.abs(tau0) > T * (1 + 1e-12), axis=1)   # the arm alone already exceeds a rating there
    return np.where(over, 0.0, per)


def review_job(model, token: CancelToken | None = None, catalog=None, project=None) -> Job[list[Outcome]]:
    """:func:`review` as a job (:mod:`designer.jobs`): a :class:`Progress` per requirement, the outcomes returned
    (each carrying its error when it cannot be evaluated); stops between requirements when ``token`` is cancelled.
    ``catalog``: the catalogs prices and stiffness curves come from; None: the bundled ones and those beside the
    ``project`` file when given (:func:`designer.catalog.load_catalog`), read only when a requirement needs them."""
    outcomes, _ctx = yield from _review_ctx_job(model, token, catalog, project)
    return outcomes


def review_cycle_job(model, token: CancelToken | None = None, catalog=None,
                     project=None) -> Job[tuple[list[Outcome], Any, str]]:
    """:func:`review_job` and the cycle's motion as that review took it, in one pass: ``(outcomes, motion,
    timing)``, ``motion`` the :class:`~designer.explore.sizing.Trajectory` :func:`cycle_motion` gives and
    ``timing`` its sentence; ``(outcomes, None, "")`` without a cycle, ``(outcomes, None, message)`` when the cycle
    cannot be timed. A time-optimal cycle is timed once (the review's own timing is returned, not redone)."""
    from ..explore.sizing import Trajectory
    outcomes, ctx = yield from _review_ctx_job(model, token, catalog, project)
    if model.requirements.cycle is None:
        return outcomes, None, ""
    if ctx is None:   # the arm could not be loaded: every outcome carries why
        return outcomes, None, outcomes[0].error if outcomes and outcomes[0].error else "the arm cannot be loaded"
    if token is not None:
        token.check()
    try:
        s = ctx.cycle()   # the samples the review already took, when a requirement holds along the cycle
    except (DesignerError, ValueError) as exc:
        return outcomes, None, str(exc)
    assert s.t is not None
    return outcomes, Trajectory(s.t, s.q, s.qd, s.qdd), ctx.timing


def _review_ctx_job(model, token, catalog, project) -> Job[tuple[list[Outcome], _Context | None]]:
    items = model.requirements.items
    yield Progress("review", 0.0, "preparing the arm")
    try:
        ctx = _Context(model, catalog, project)
    except (DesignerError, ValueError) as exc:
        return [Outcome(k, r, error=str(exc)) for k, r in enumerate(items, start=1)], None
    out: list[Outcome] = []
    for k, r in enumerate(items, start=1):
        if token is not None:
            token.check()
        yield Progress("review", (k - 1) / max(1, len(items)), f"requirement {k} of {len(items)}: {r.text}")
        try:
            o = _evaluate(ctx, k, r)
            out.append(replace(o, note=o.note or ctx.timing) if r.where.kind == "cycle" else o)
        except (DesignerError, ValueError, np.linalg.LinAlgError) as exc:
            out.append(Outcome(k, r, error=str(exc)))
    return out, ctx


def review_value(model, metric: str, catalog=None) -> float:
    """One of the review's own metrics (``cycle_time``, ``cost``, ``peak_torque[2]`` ...) of ``model``, as a
    requirement gives it: along the project's cycle for a metric over a motion, else at every joint zero (an
    objective the optimizer minimizes); ReviewError when it cannot be evaluated."""
    name, _ = _split(metric)
    if name not in REVIEW_METRICS:
        raise ReviewError(f"'{metric}' is none of the review's own metrics ({', '.join(REVIEW_METRICS)})")
    r = Requirement(metric.strip(), "<=", np.inf, Where("cycle") if REVIEW_METRICS[name][1] else Where())
    one = replace(model, requirements=replace(model.requirements, items=(r,)))
    value = review(one, catalog=catalog)[0].value
    assert value is not None   # strict: an outcome without a value raised
    return value


def review(model, strict: bool = True, catalog=None, project=None) -> list[Outcome]:
    """Every requirement of ``model`` reviewed. ``strict``: a requirement that cannot be evaluated raises
    :class:`ReviewError` naming it (``requirements[2]: ...``); otherwise its outcome carries the error.
    ``catalog``, ``project``: as :func:`review_job` takes them."""
    result = run(review_job(model, catalog=catalog, project=project))
    if strict:
        shared: dict[str, list[str]] = {}   # one error (a bad cycle file) said once, naming every requirement it stops
        for o in result:
            if o.error:
                shared.setdefault(o.error, []).append(f"requirements[{o.index}] ({o.requirement.metric})")
        if shared:
            raise ReviewError("; ".join(f"{', '.join(names)}: {error}" for error, names in shared.items()))
    return result
