"""The optimizer: the best design over parameters (continuous) and materials (discrete choices), an objective and
requirements, each any explore metric or a design quantity (docs/optimize.md).

A quantity is ``mass`` (the mechanism's total mass, plus the masses of the catalog items its drives name),
``peak_torque`` / ``rms_torque`` (along a cycle, the largest
over the driven joints, or ``peak_torque[2]`` for one) or an ``explore metric`` spec (``frequency``,
``deflection``, ``gravity[2]``), evaluated where ``explore metric`` evaluates it by default: one pose (every
joint at zero unless given), the drive data's ratings and the payload, through ``explore.joints.explore_arm``
(a serial arm or a closed chain, rigid or elastic, asked the same way). A requirement is ``QUANTITY<=VALUE`` or
``QUANTITY>=VALUE``.

Continuous variables are scaled to [0, 1]; SciPy's SLSQP starts from the middle
of the box and from ``starts - 1`` seeded random points, with the requirements as inequality constraints scaled by their
bounds (exact gradients where the model has them, :mod:`designer.optimize.gradients`, else finite
differences, the result's ``method`` says which); every discrete combination
is optimised in turn (they are enumerated, so keep them few). The best
feasible design wins; each result is checked again by a fresh evaluation.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..catalog import Catalog, CatalogError
from ..errors import DesignerError
from ..explore.sizing import Trajectory
from ..model.extras import DRIVE_FIELDS
from ..model.manipulator import Manipulator
from .gradients import CYCLE_RE as _CYCLE_RE
from .design_gradients import rows, setup_for
from .gradients import exact_gradient, exact_possible
from .sizing import _trapezoid

__all__ = ["Variable", "Choice", "Requirement", "Problem", "Design", "OptimizeResult", "OptimizeError",
           "parse_requirement", "optimize", "optimize_job", "evaluate_design", "safe_evaluate", "DESIGN_QUANTITIES"]

DESIGN_QUANTITIES = ("mass", "peak_torque", "rms_torque")
#: a requirement holds when its margin is at least -TOLERANCE times its bound; the search aims INSIDE within
TOLERANCE = 1e-6
INSIDE = 2e-6
#: a later start whose SLSQP iterate comes within JOIN (in the [0, 1]-scaled box, every variable) of where an earlier
#: start of the same combination ended is stopped there: it would end at the same optimum (its designs count)
JOIN = 1e-2
_REQ_RE = re.compile(r"^\s*([^<>=]+?)\s*(<=|>=)\s*([^<>=]+?)\s*$")


class OptimizeError(DesignerError):
    """A problem that cannot be set up (a name that is no parameter, a quantity that needs a cycle ...)."""


@dataclass(frozen=True)
class Variable:
    name: str
    low: float
    high: float


@dataclass(frozen=True)
class Choice:
    """A discrete choice: ``target`` is ``LINK.material`` (LINK: the link's number or name), ``options`` the
    materials' names; or ``JOINT.drive`` (the joint's link number or name), ``options`` catalog items, each a
    gearbox, a motor or ``GEARBOX+MOTOR``."""

    target: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class Requirement:
    quantity: str
    upper: bool     # True: quantity <= bound
    bound: float
    #: a requirement of the project itself (format version 4, evaluated as ``review`` evaluates it, where it
    #: says: poses, box, cycle) and its 1-based place in the project's list; None: a ``--require``
    project: Any = None
    index: int = 0

    @property
    def text(self) -> str:
        if self.project is not None:
            label = f" {self.project.name}:" if self.project.name else ""
            return (f"requirements[{self.index}]{label} {self.quantity}{'<=' if self.upper else '>='}{self.bound:g}"
                    f" at {self.project.where.text}")
        return f"{self.quantity}{'<=' if self.upper else '>='}{self.bound:g}"

    @staticmethod
    def of_project(model: Manipulator) -> tuple[Requirement, ...]:
        """The project's own requirements (``model.requirements``) as constraints."""
        return tuple(Requirement(r.metric, r.bound == "<=", float(r.value), r, k)
                     for k, r in enumerate(model.requirements.items, start=1))

    def margin(self, value: float) -> float:
        """bound - value for <=, value - bound for >= (in the quantity's unit); >= 0 holds."""
        return self.bound - value if self.upper else value - self.bound


def parse_requirement(text: str) -> Requirement:
    m = _REQ_RE.match(text or "")
    if not m:
        raise OptimizeError(f"requirement '{text}': write QUANTITY<=VALUE or QUANTITY>=VALUE")
    name, op, value = m.groups()
    try:
        bound = float(value)
    except ValueError:
        raise OptimizeError(f"requirement '{text}': '{value}' is not a number") from None
    if not math.isfinite(bound):
        raise OptimizeError(f"requirement '{text}': the bound must be finite")
    return Requirement(name.strip(), op == "<=", bound)


@dataclass(frozen=True)
class Problem:
    model: Manipulator
    variables: tuple[Variable, ...]
    objective: str
    requirements: tuple[Requirement, ...] = ()
    choices: tuple[Choice, ...] = ()
    maximize: bool = False
    payload: float = 0.0
    q: tuple[float, ...] | None = None      # the metrics' pose (default: every joint at zero)
    cycle: Trajectory | None = None
    catalog: Catalog | None = None          # for JOINT.drive choices and drives naming catalog items


@dataclass(frozen=True)
class Design:
    """One evaluated design: parameter values, the options picked, the objective and every requirement's value."""

    values: dict[str, float]
    picks: tuple[str, ...]
    objective: float
    quantities: tuple[float, ...]       # the requirements' values, in order
    feasible: bool
    #: every objective's value when there are several (a Pareto front, :mod:`designer.optimize.pareto`);
    #: ``objective`` is the first
    objectives: tuple[float, ...] = ()


@dataclass(frozen=True)
class OptimizeResult:
    best: Design | None
    model: Manipulator | None       # the best design as a model (None when no design meets the requirements)
    method: str
    iterations: int
    evaluations: int
    starts: int
    combinations: int
    closest: Design | None = None   # without a feasible design: the one violating the requirements least
    log: list[str] = field(default_factory=list)
    #: the designs at which the gradients were computed from the numeric model (each also among ``evaluations``)
    gradient_evaluations: int = 0


# -- designs ---------------------------------------------------------------------------------------------
def _link_index(model: Manipulator, ref: str, where: str) -> int:
    ref = ref.strip()
    if ref.isdigit() and 1 <= int(ref) <= model.n:
        return int(ref) - 1
    for i, link in enumerate(model.links):
        if link.name == ref:
            return i
    raise OptimizeError(f"{where}: no link '{ref}' (a number 1..{model.n} or a link's name)")


def _apply_drive(model: Manipulator, i: int, choice: Choice, option: str, catalog: Catalog | None) -> Manipulator:
    """Joint ``i``'s drive naming the option's items; the drive's own figures that no item gave stay."""
    from ..model.extras import Drive
    from ..project.catalog_drives import drive_from_items
    if catalog is None:
        raise OptimizeError(f"--choose {choice.target}: no catalogs")
    gearbox = motor = None
    for name in option.split("+"):
        name = name.strip()
        if name in catalog.gearboxes and gearbox is None:
            gearbox = catalog.gearboxes[name]
        elif name in catalog.motors and motor is None:
            motor = catalog.motors[name]
        else:
            try:
                catalog.gearbox(name)
            except CatalogError as exc:
                raise OptimizeError(f"--choose {choice.target}: '{name}' is neither a gearbox nor a motor of the "
                                    f"catalogs ({exc})") from None
            raise OptimizeError(f"--choose {choice.target}: '{option}' names two gearboxes")
    link = model.links[i]
    old = link.drive or Drive()
    own = {k: getattr(old, k) for k in DRIVE_FIELDS if getattr(old, k) is not None and k not in old.catalog_fields}
    drive = drive_from_items(Drive(**own, gearbox=gearbox.name if gearbox else None,
                                   motor=motor.name if motor else None), gearbox, motor)
    links = list(model.links)
    links[i] = replace(link, drive=drive)
    return replace(model, links=tuple(links))


def _apply_choice(model: Manipulator, choice: Choice, option: str, catalog: Catalog | None = None) -> Manipulator:
    from ..model.parts import material_table
    ref, _, what = choice.target.rpartition(".")
    i = _link_index(model, ref, f"--choose {choice.target}")
    link = model.links[i]
    if what == "drive":
        return _apply_drive(model, i, choice, option, catalog)
    if what != "material":
        raise OptimizeError(f"--choose {choice.target}: choose LINK.material or JOINT.drive")
    if link.part is None:
        raise OptimizeError(f"--choose {choice.target}: link {i + 1} is not a part (docs/project-format.md, parts)")
    table = material_table(model)
    if option not in table:
        raise OptimizeError(f"--choose {choice.target}: no material '{option}' (known: {', '.join(table)})")
    part = replace(link.part, material=table[option])   # type: ignore[type-var]
    links = list(model.links)
    links[i] = replace(link, part=part)
    return replace(model, links=tuple(links))


def chosen_model(problem: Problem, picks: Sequence[str]) -> Manipulator:
    """The project with the discrete picks applied (the parameters' values come as overrides)."""
    model = problem.model
    for choice, option in zip(problem.choices, picks):
        model = _apply_choice(model, choice, option, problem.catalog)
    return model


def design_model(problem: Problem, values: dict[str, float], picks: Sequence[str]) -> Manipulator:
    """The design as a project: the picks applied and the parameters at ``values`` (what ``--out`` writes)."""
    return chosen_model(problem, picks).with_parameters(values)


def items_mass(model: Manipulator, catalog: Catalog | None) -> float:
    """The masses of the catalog items the drives name (those with a figure)."""
    if catalog is None:
        return 0.0
    total = 0.0
    for link in model.links:
        d = link.drive
        if d is None:
            continue
        for item in (catalog.gearboxes.get(d.gearbox or ""), catalog.motors.get(d.motor or "")):
            if item is not None and item.mass is not None:
                total += item.mass
    return total


def _ratings(model: Manipulator, arm, payload: float):
    from ..explore.metrics import Ratings, drive_ratings, explored_drive_values
    values = explored_drive_values(model)
    return Ratings.of(arm.n, values["torque"], values["speed"], None, payload=payload, **drive_ratings(model))


def quantities(problem: Problem, model: Manipulator, names: Sequence[str],
               values: dict[str, float] | None = None, keep: dict | None = None) -> list[float]:
    """The values of ``names`` for one design: ``model`` with its parameters at ``values`` (module docstring).
    The values are overrides, as a sweep's designs are (the model is not rebuilt per design). ``keep``: a dict
    that gets what the evaluation built (``arm``, the cycle's ``loads``, the metrics' ``ratings``), for the
    design's gradients (:mod:`designer.optimize.design_gradients`)."""
    from ..explore.metrics import METRICS, design_ratings, evaluate, joint_numbers, parse_metric
    from ..numeric.mechanism import load_dynamics
    values = dict(values or {})
    if problem.cycle is not None and problem.catalog is not None:
        from .sizing import at_cycle_load
        model = at_cycle_load(model, problem.cycle, problem.catalog, values)   # a strain-wave curve at its load
    # the rigid dynamics built once per design: their arm is the metrics' (explore_arm), the cycle's loads use both
    dyn: Any = load_dynamics(model, values, springs=False)   # a serial or closed engine, both with .arm
    arm = dyn.arm
    ratings = None
    loads = None
    if keep is not None:
        keep["arm"] = arm
    q = np.zeros(arm.n) if problem.q is None else np.asarray(problem.q, float)
    out = []
    for name in names:
        if name.strip() == "mass":
            out.append(float(arm.total_mass()) + items_mass(model, problem.catalog))
            continue
        m = _CYCLE_RE.match(name)
        if m:
            if loads is None:
                from .sizing import cycle_loads
                cycle = _cycle(problem, model, values, name)
                loads = cycle_loads(model, cycle, values, dyn)
                if keep is not None:
                    keep["loads"] = loads
            rows = loads if m.group(2) is None else [ld for ld in loads if ld.joint == int(m.group(2))]
            if not rows:
                raise OptimizeError(f"'{name}': the driven joints are {', '.join(str(ld.joint) for ld in loads)}")
            if m.group(1) == "peak_torque":
                out.append(max(float(np.max(np.abs(ld.torque))) for ld in rows))
            else:
                t = cycle.t
                out.append(max(float(np.sqrt(_trapezoid(ld.torque**2, t) / (t[-1] - t[0]))) for ld in rows))
            continue
        if name.strip() in ("cycle_time", "cost"):   # the review's own, over the project's cycle and catalogs
            from ..review import review_value
            out.append(review_value(model.with_parameters(values), name, problem.catalog))
            continue
        if name.partition("[")[0].strip() not in METRICS:
            raise OptimizeError(f"unknown quantity '{name}': mass, peak_torque, rms_torque or an explore metric "
                                f"({', '.join(METRICS)})")
        if ratings is None:   # a named stiffness (k2) at the design's value
            ratings = design_ratings(model, _ratings(model, arm, problem.payload), values)
            if keep is not None:
                keep["ratings"] = ratings
        spec = parse_metric(name, arm.n, joint_numbers(arm))
        out.append(float(evaluate(arm, [q], spec, ratings)[0]))
    return out


def _cycle(problem: Problem, model: Manipulator, values: dict[str, float], name: str) -> Trajectory:
    """The cycle a quantity along it takes: ``--cycle`` as given, else the project's own as the review times it
    for this design (:func:`designer.review.cycle_motion`: a time-optimal cycle re-timed for the design's drives)."""
    if problem.cycle is not None:
        return problem.cycle
    if model.requirements.cycle is None:
        raise OptimizeError(f"'{name}' is taken along a cycle: give --cycle or a cycle in the project")
    from ..review import ReviewError, cycle_motion
    try:
        return cycle_motion(model.with_parameters(values), problem.catalog)[0]
    except ReviewError as exc:
        raise OptimizeError(f"'{name}': {exc}") from None


def project_values(problem: Problem, model: Manipulator, values: dict[str, float]) -> list[float]:
    """The values of the project's own requirements among ``problem.requirements`` for one design (``model``
    with its parameters at ``values``), as ``review`` gives them (the worst over where each holds)."""
    from ..model.requirements import Requirements
    from ..review import ReviewError, review
    items = tuple(r.project for r in problem.requirements if r.project is not None)
    if not items:
        return []
    reqs = model.requirements
    design = replace(model.with_parameters(values), requirements=Requirements(items, reqs.payload, reqs.cycle))
    try:
        outcomes = review(design, catalog=problem.catalog)   # the choices' items: their prices (cost)
    except ReviewError as exc:
        raise OptimizeError(f"the project's requirements: {exc} (leave them out: --no-project-requirements)") from None
    return [math.nan if o.value is None else float(o.value) for o in outcomes]


def evaluate_design(problem: Problem, values: dict[str, float], picks: Sequence[str],
                    chosen: Manipulator | None = None, objectives: Sequence[str] | None = None,
                    keep: dict | None = None) -> Design:
    """A fresh evaluation of one design (NaN values count as violating); ``chosen``: the model with the picks
    applied, when the caller has it; ``objectives``: several objectives' quantities instead of
    ``problem.objective`` (``Design.objectives`` holds them, ``Design.objective`` the first); ``keep``: as
    :func:`quantities` takes it."""
    model = chosen_model(problem, picks) if chosen is None else chosen
    own = [r for r in problem.requirements if r.project is None]
    names = [problem.objective] if objectives is None else list(objectives)
    k = len(names)
    vals = quantities(problem, model, [*names, *(r.quantity for r in own)], values, keep)
    given = iter(vals[k:])
    reviewed = iter(project_values(problem, model, values))
    req = tuple(next(reviewed) if r.project is not None else next(given) for r in problem.requirements)
    # a project requirement holds as `review` says it does (margin >= 0); a --require within TOLERANCE
    ok = all(math.isfinite(v) and r.margin(v) >= (0.0 if r.project is not None else
                                                   -TOLERANCE * max(abs(r.bound), 1e-12))
             for r, v in zip(problem.requirements, req))
    return Design(dict(values), tuple(picks), vals[0], req, ok and all(math.isfinite(v) for v in vals[:k]),
                  tuple(vals[:k]) if objectives is not None else ())


def safe_evaluate(problem: Problem, values: dict[str, float], picks: Sequence[str],
                  chosen: Manipulator | None = None, objectives: Sequence[str] | None = None,
                  keep: dict | None = None) -> Design:
    """:func:`evaluate_design`, a design the model cannot take (a singular matrix, a negative size ...) given
    NaN values (infeasible) instead of an error."""
    try:
        return evaluate_design(problem, values, picks, chosen, objectives, keep)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError):
        nan = tuple(math.nan for _ in problem.requirements)
        k = 1 if objectives is None else len(objectives)
        return Design(dict(values), tuple(picks), math.nan, nan, False,
                      () if objectives is None else (math.nan,) * k)


def check_problem(problem: Problem, keep: dict | None = None) -> Design:
    """Refuse what cannot be evaluated, naming it, before any work: unknown parameters, empty ranges, bad
    quantities (evaluated once at the middle of the box, the first options picked: that design is returned, the
    search's first; ``keep`` as :func:`quantities` takes it)."""
    names = set(problem.model.symbol_names())
    for v in problem.variables:
        if v.name not in names:
            raise OptimizeError(f"--vary {v.name}: not a parameter of the project")
        if not (math.isfinite(v.low) and math.isfinite(v.high) and v.low < v.high):
            raise OptimizeError(f"--vary {v.name}: give LO < HI, finite")
    if len({v.name for v in problem.variables}) != len(problem.variables):
        raise OptimizeError("--vary: a parameter is given twice")
    if not problem.variables and not problem.choices:
        raise OptimizeError("nothing to vary: give --vary or --choose")
    for c in problem.choices:
        if not c.options:
            raise OptimizeError(f"--choose {c.target}: no options")
    start = {v.name: v.low + (v.high - v.low) * 0.5 for v in problem.variables}   # as _Combination.design has it
    return evaluate_design(problem, start, [c.options[0] for c in problem.choices], keep=keep)


# -- the search ------------------------------------------------------------------------------------------
def _violation(problem: Problem, d: Design) -> float:
    out = 0.0
    for r, v in zip(problem.requirements, d.quantities):
        out += 1e9 if not math.isfinite(v) else max(0.0, -r.margin(v)) / max(abs(r.bound), 1e-12)
    return out


class _Combination:
    """The continuous search for one combination of discrete picks: evaluations cached by the scaled point."""

    def __init__(self, problem: Problem, picks: tuple[str, ...], cancelled: Callable[[], bool] | None):
        self.problem, self.picks, self.cancelled = problem, picks, cancelled
        self.names = [v.name for v in problem.variables]
        self.lo = np.array([v.low for v in problem.variables])
        self.span = np.array([v.high for v in problem.variables]) - self.lo
        self.sign = -1.0 if problem.maximize else 1.0
        self.cache: dict[tuple, Design] = {}
        self.ends: list[np.ndarray] = []    # where the finished starts ended (scaled)
        self.joins = 0                      # starts stopped on joining one of them
        self.scale = 1.0
        self.cscale = [1.0 for _ in problem.requirements]
        self.model = chosen_model(problem, picks)
        # exact gradients where the model has them (designer.optimize.gradients), else None: finite differences.
        # A strain-wave gearbox's stiffness at the cycle's load (sizing.at_cycle_load) moves with the design: no
        # exact frequency gradient then. When one quantity has none, SLSQP's finite differences of it evaluate
        # the designs the others' would need anyway: only the cheap mass gradient is built then.
        loaded = problem.cycle is not None and problem.catalog is not None

        def possible(quantity: str, project=None) -> bool:
            return project is None and exact_possible(quantity, problem.cycle) and \
                not (loaded and quantity.strip() == "frequency")
        every = possible(problem.objective) and all(possible(r.quantity, r.project) for r in problem.requirements)

        def built(quantity: str, project=None) -> bool:
            """The rule, once: a possible exact gradient is built when every quantity has one, and mass's always."""
            return possible(quantity, project) and (every or quantity.strip() == "mass")
        labelled = [(problem.objective, problem.objective, None)] + \
            [(r.text, r.quantity, r.project) for r in problem.requirements]
        #: the possible quantities whose exact gradient was not built (by ``built``: it would save no evaluation)
        self.skipped = [label for label, quantity, project in labelled
                        if possible(quantity, project) and not built(quantity, project)]
        #: every quantity's exact gradient from each design's own numeric arm, when the model allows
        #: (:mod:`designer.optimize.design_gradients`: a few symbolic derivatives set up, none per design)
        self.numeric = None
        self.kept: dict[tuple, dict] = {}        # what each design's evaluation built, for its gradients
        self.rows: dict[tuple, np.ndarray] = {}  # each design's gradients (objective, requirements), computed once
        if not loaded and all(r.project is None for r in problem.requirements):
            self.numeric = setup_for(self.model, self.names, [q for _, q, _ in labelled], problem.cycle)
        if self.numeric is not None:
            self.skipped = []
            self.gradient = self._row(0)
            self.gradients = [self._row(k + 1) for k in range(len(problem.requirements))]
            return

        def gradient(quantity: str, project=None):
            if not self.names or not built(quantity, project):
                return None
            return exact_gradient(self.model, quantity, self.names, problem.q, problem.cycle)
        self.gradient = gradient(problem.objective)
        self.gradients = [gradient(r.quantity, r.project) for r in problem.requirements]

    @staticmethod
    def _key(u: np.ndarray) -> tuple:
        return tuple(np.round(np.clip(u, 0, 1), 14))

    def _values(self, point) -> dict[str, float]:
        """The variables' values at a point of the box scaled to [0, 1] (a design's key, or a clipped iterate)."""
        return {n: float(x) for n, x in zip(self.names, self.lo + self.span * np.asarray(point, dtype=float))}

    def _row(self, i: int) -> Callable[[np.ndarray], np.ndarray]:
        """The numeric path's gradient of quantity ``i`` (0: the objective) at a scaled point, in the variables'
        units: one computation per design for all quantities, from the arm its evaluation built."""
        def gradient(u: np.ndarray) -> np.ndarray:
            key = self._key(u)
            design = self.design(u)
            if key not in self.rows:
                kept = self.kept.get(key)
                p = self.problem
                values = self._values(key)
                try:
                    if kept is None or "arm" not in kept or self.numeric is None or \
                            not all(map(math.isfinite, (design.objective, *design.quantities))):
                        raise ValueError("the design has no values (the model cannot take it)")
                    self.rows[key] = rows(self.numeric, [p.objective, *(r.quantity for r in p.requirements)],
                                          kept, values, p.q, p.payload, p.cycle)
                except (ValueError, ArithmeticError, np.linalg.LinAlgError):
                    self.rows[key] = np.zeros((1 + len(p.requirements), len(self.names)))
            return self.rows[key][i]
        return gradient

    def design(self, u: np.ndarray) -> Design:
        key = self._key(u)
        if key not in self.cache:
            if self.cancelled is not None and self.cancelled():
                raise KeyboardInterrupt
            values = self._values(key)
            kept = None if self.numeric is None else self.kept.setdefault(key, {})
            self.cache[key] = safe_evaluate(self.problem, values, self.picks, self.model, keep=kept)
        return self.cache[key]

    def _at(self, gradient, u) -> np.ndarray:
        """A gradient at the scaled point u: the numeric path's takes u, the symbolic one the values."""
        if self.numeric is not None:
            return gradient(u)
        return gradient(self._values(np.clip(u, 0, 1)))

    def objective(self, u) -> float:
        v = self.design(u).objective
        return self.sign * v / self.scale if math.isfinite(v) else 1e12

    def objective_gradient(self, u) -> np.ndarray:
        assert self.gradient is not None
        return self.sign * self._at(self.gradient, u) * self.span / self.scale

    def constraint(self, u, k: int, r: Requirement) -> float:
        v = self.design(u).quantities[k]
        # scaled by the bound (by the value at the start for a bound of 0), aiming a little inside so that the
        # result holds on a fresh evaluation
        return r.margin(v) / self.cscale[k] - INSIDE if math.isfinite(v) else -1e6

    def constraint_gradient(self, u, k: int, r: Requirement) -> np.ndarray:
        gradient = self.gradients[k]
        assert gradient is not None
        return (-1.0 if r.upper else 1.0) * self._at(gradient, u) * self.span / self.cscale[k]

    def run(self, u0: np.ndarray, max_iterations: int) -> tuple[Design, int]:
        """(the design SLSQP ends at from ``u0``, its iterations)."""
        from scipy.optimize import minimize
        if not self.names:
            return self.design(u0), 0
        cons = [{"type": "ineq", "fun": self.constraint, "args": (k, r)}
                | ({"jac": self.constraint_gradient} if self.gradients[k] is not None else {})
                for k, r in enumerate(self.problem.requirements)]
        jac = self.objective_gradient if self.gradient is not None else None

        def joined(xk: np.ndarray) -> None:
            """A start whose iterate comes within JOIN of an earlier start's end converges there: stop it."""
            if any(float(np.max(np.abs(np.clip(xk, 0, 1) - end))) < JOIN for end in self.ends):
                self.joins += 1
                raise StopIteration
        res = minimize(self.objective, u0, jac=jac, method="SLSQP", bounds=[(0.0, 1.0)] * len(self.names),
                       constraints=cons, options={"maxiter": max_iterations, "ftol": 1e-10, "eps": 1e-7},
                       callback=joined if self.ends else None)
        end = np.clip(res.x, 0, 1)
        if res.status != 99:    # scipy's status when the callback stopped the start
            self.ends.append(end)
        return self.design(end), int(res.nit)


def optimize(problem: Problem, starts: int = 4, seed: int = 0, max_iterations: int = 100,
             progress: Callable[[str], None] | None = None, cancelled: Callable[[], bool] | None = None
             ) -> OptimizeResult:
    """The best design of ``problem`` (module docstring); ``progress`` gets a line after each start."""
    steps = _search(problem, starts, seed, max_iterations, cancelled)
    while True:
        try:
            _, line = next(steps)
        except StopIteration as stop:
            return stop.value
        if progress is not None:
            progress(line)


def _search(problem: Problem, starts: int, seed: int, max_iterations: int, cancelled: Callable[[], bool] | None
            ) -> Generator[tuple[float, str], None, OptimizeResult]:
    """:func:`optimize`'s search, yielding (the fraction of the starts done, a line) after each start."""
    kept: dict = {}
    checked = check_problem(problem, kept)
    n = len(problem.variables)
    sign = -1.0 if problem.maximize else 1.0
    evaluations = iterations = gradient_evaluations = 0
    numeric = False
    best: Design | None = None
    closest: Design | None = None
    log: list[str] = []
    points = [np.full(n, 0.5)]
    if n and starts > 1:
        points += list(np.random.default_rng(seed).random((starts - 1, n)))   # scipy.stats would take seconds to import
    combos = list(itertools.product(*(c.options for c in problem.choices)))
    done, total = 0, len(combos) * (len(points) if n else 1)
    exact: list[str] = []
    skipped: list[str] = []
    for picks in combos:
        search = _Combination(problem, tuple(picks), cancelled)
        skipped = search.skipped
        if not exact:
            exact = ([problem.objective] if search.gradient is not None else []) + \
                [r.text for r, g in zip(problem.requirements, search.gradients) if g is not None]
        if picks == combos[0]:   # the design check_problem evaluated: the search's first
            key = search._key(points[0])
            search.cache[key] = checked
            if search.numeric is not None:
                search.kept[key] = kept
        start = search.design(points[0])
        first = start.objective
        search.scale = abs(first) if math.isfinite(first) and first != 0 else 1.0
        search.cscale = [abs(r.bound) if r.bound != 0 else (abs(v) if math.isfinite(v) and v != 0 else 1.0)
                         for r, v in zip(problem.requirements, start.quantities)]
        for s, u0 in enumerate(points):
            joins = search.joins
            found, nit = search.run(u0, max_iterations)
            iterations += nit
            line = (f"{'/'.join(picks) or 'start'} {s + 1}: objective {found.objective:.6g}, "
                    f"{'feasible' if found.feasible else 'infeasible'}"
                    + (", stopped on joining an earlier start's optimum" if search.joins > joins else ""))
            log.append(line)
            done += 1
            yield done / total, line
            if not n:
                break
        evaluations += len(search.cache)
        gradient_evaluations += len(search.rows)
        numeric = numeric or search.numeric is not None
        for d in search.cache.values():
            if d.feasible and (best is None or sign * d.objective < sign * best.objective):
                best = d
            elif not d.feasible and (closest is None or _violation(problem, d) < _violation(problem, closest)):
                closest = d
    model = None
    if best is not None:
        best = evaluate_design(problem, best.values, best.picks)   # checked again, fresh
        model = design_model(problem, best.values, best.picks)
    names = [problem.objective] + [r.text for r in problem.requirements]
    differenced = [q for q in names if q not in exact]
    if not n:
        gradients = "no continuous variable"
    elif not differenced:
        gradients = "every gradient exact" + (" (from each design's numeric model)" if numeric else "")
    else:
        others = [q for q in differenced if q in skipped]
        gradients = (f"exact gradients of {', '.join(exact)}; " if exact else "") + \
            f"finite differences for {', '.join(q for q in differenced if q not in skipped)} (no exact " \
            "derivative in the model)" + \
            (f" and so for {', '.join(others)} (exact ones would save no evaluation)" if others else "")
    return OptimizeResult(best, model, f"SLSQP (scipy.optimize), {gradients}, multi-start"
                          + (", discrete choices enumerated" if problem.choices else ""),
                          iterations, evaluations, len(points) if n else 1, len(combos), closest, log,
                          gradient_evaluations)


def optimize_job(problem: Problem, starts: int = 4, seed: int = 0, max_iterations: int = 100,
                 token=None):
    """:func:`optimize` as a job (:mod:`designer.jobs`, for the window's worker): a :class:`~designer.jobs.Progress`
    before the search, the :class:`OptimizeResult` returned; cancelling ``token`` stops the search at its next
    evaluation (:class:`~designer.jobs.Cancelled`)."""
    from ..jobs import Cancelled, Progress
    combos = math.prod(len(c.options) for c in problem.choices)
    yield Progress("optimize", 0.0, f"{starts if problem.variables else 1} start(s) x {combos} combination(s)")
    steps = _search(problem, starts, seed, max_iterations, None if token is None else (lambda: token.cancelled))
    try:
        while True:
            try:
                fraction, line = next(steps)
            except StopIteration as stop:
                return stop.value
            yield Progress("optimize", fraction, line)
    except KeyboardInterrupt:   # what the search raises when cancelled
        raise Cancelled("cancelled") from None
