"""Exact gradients of the optimizer's quantities from the numeric model, with no symbolic derivative to set up
(docs/optimize.md): for a serial arm whose varied parameters (part dimensions, a link's own mass properties, a
drive's stiffness) leave its kinematics alone.

The joint torques are linear in the links' standard inertial parameters pi (ten per link, point masses folded
in: tau = Y(q, qd, qdd) pi, :func:`designer.identification.regressor.regressor`), so with dpi/dp from the
links' mass, centre-of-mass and inertia expressions (forward-mode differentiation over their trees at each
design, :class:`ForwardDiff`):

* ``mass``: the sum of d m / dp;
* ``M(q)``, ``G(q)`` and the cycle's torques: Y dpi/dp (the drives' rotor and friction terms do not move);
* ``frequency`` (lowest, motors locked, K v = lambda M v): d lambda = v^T (dK - lambda dM) v / v^T M v;
* ``compliance`` (mm/N, the largest translational one): the top eigenvalue of (J K^-1 J^T + C_links)_vv, d lambda =
  v^T dC_vv v, C_links linear in the sections' flexibilities;
* ``deflection`` (mm, the tool's sag: the gearboxes' J_v dq, dq = -K^-1 (G - J_v^T m_p g), plus the links'
  bending, :func:`designer.numeric.beams.beams_sag`): d dq = K^-1 dK K^-1 hold - K^-1 dG, and the links' sag
  taken twice, once with the sections' flexibilities' derivatives d(1/EI) = -d(EI)/EI^2 (EI, EA, GJ from the
  section's closed form, :func:`designer.model.parts.section_properties`) and once with the loads' derivatives
  (links' masses, masses per length); the norm's derivative is t . dt / |t|;
* ``peak_torque[j]`` / ``rms_torque[j]`` along a given cycle: the peak's at its arg-max sample, the RMS's
  integral(tau dtau) / (T rms).

Each design's value and gradient come from one numeric arm: :class:`DesignGradients` takes the arm, the
cycle's torques and the ratings the evaluation built (``designer.optimize.problem.quantities``' ``keep``); what
the varied parameters leave alone (:class:`Fixed`: the regressor at the pose and along the cycle, the tool
Jacobian, the links' sag terms) is computed once per search and checked at each design.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import sympy as sp

from ..model.expr import symbol
from ..model.manipulator import Manipulator
from .gradients import CYCLE_RE

__all__ = ["DesignGradients", "ForwardDiff", "rows", "setup_for", "supported"]



def supported(quantity: str, cycle) -> bool:
    """Whether :class:`DesignGradients` differentiates ``quantity`` (``cycle``: the search's given cycle)."""
    name = quantity.strip()
    if name in ("mass", "frequency", "deflection", "compliance"):
        return True
    return bool(CYCLE_RE.match(name)) and cycle is not None


class ForwardDiff:
    """Expressions compiled once into a list of operations (shared sub-expressions once), then run at each
    design with their gradients by the parameters ``names``: forward-mode differentiation, exact, without a
    symbolic derivative (the nodes :func:`designer.model.evaluate.evaluate` takes: numbers, symbols, sums,
    products, powers, Abs, sin, cos, tan, exp; any other raises ValueError when compiled)."""

    _FUNCS = {sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.exp: "exp", sp.Abs: "abs"}

    def __init__(self, exprs: Sequence, names: Sequence[str]):
        self.names = list(names)
        self.ops: list[tuple] = []
        self._slots: dict = {}
        self.outs = [self._compile(sp.sympify(e)) for e in exprs]

    def _compile(self, e) -> int:
        if e in self._slots:
            return self._slots[e]
        if e.is_Number or e.is_NumberSymbol:
            op: tuple = ("c", float(e))
        elif e.is_Symbol:
            op = ("s", e.name)
        elif e.is_Add or e.is_Mul:
            op = ("+" if e.is_Add else "*", [self._compile(a) for a in e.args])
        elif e.is_Pow:
            base = self._compile(e.base)
            op = ("^", base, float(e.exp)) if e.exp.is_Number else ("^^", base, self._compile(e.exp))
        elif e.func in self._FUNCS:
            op = (self._FUNCS[e.func], self._compile(e.args[0]))
        else:
            raise ValueError(f"cannot differentiate {type(e).__name__}")
        self.ops.append(op)
        self._slots[e] = len(self.ops) - 1
        return len(self.ops) - 1

    def run(self, env: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
        """(values (outs,), gradients (k, outs)) at ``env`` (every symbol's value)."""
        k = len(self.names)
        unit = {n: tuple(1.0 if j == i else 0.0 for j in range(k)) for i, n in enumerate(self.names)}
        v: list[float] = []
        g: list = []        # None: a zero gradient (most nodes: constants, parameters not varied)
        for op in self.ops:
            code = op[0]
            if code == "c":
                v.append(op[1])
                g.append(None)
            elif code == "s":
                if op[1] not in env:
                    raise ValueError(f"no value for {op[1]}")
                v.append(float(env[op[1]]))
                g.append(unit.get(op[1]))
            elif code == "+":
                v.append(math.fsum(v[a] for a in op[1]))
                parts = [g[a] for a in op[1] if g[a] is not None]
                g.append(tuple(map(sum, zip(*parts))) if parts else None)
            elif code == "*":
                x, gx = 1.0, None
                for a in op[1]:
                    va, ga = v[a], g[a]
                    if gx is None:
                        gx = None if ga is None else tuple(x * d for d in ga)
                    elif ga is None:
                        gx = tuple(va * d for d in gx)
                    else:
                        gx = tuple(va * d + x * e for d, e in zip(gx, ga))
                    x *= va
                v.append(x)
                g.append(gx)
            elif code == "^":
                b, n = v[op[1]], op[2]
                if b < 0 and n != int(n):
                    raise ValueError("a negative number to a fractional power")
                if b == 0 and n < 1:
                    raise ZeroDivisionError
                v.append(b**n)
                gb = g[op[1]]
                g.append(None if gb is None else tuple(n * b ** (n - 1) * d for d in gb))
            elif code == "^^":
                b, x = v[op[1]], v[op[2]]
                if b <= 0:
                    raise ValueError("a power of a number not positive")
                value = b**x
                gb = g[op[1]] or (0.0,) * k
                gx = g[op[2]] or (0.0,) * k
                v.append(value)
                g.append(tuple(value * (e * math.log(b) + x * d / b) for d, e in zip(gb, gx)))
            else:
                x, gx = v[op[1]], g[op[1]]
                value, slope = {"sin": (math.sin(x), math.cos(x)), "cos": (math.cos(x), -math.sin(x)),
                                "tan": (math.tan(x), 1.0 / math.cos(x) ** 2), "exp": (math.exp(x), math.exp(x)),
                                "abs": (abs(x), math.copysign(1.0, x))}[code]
                v.append(value)
                g.append(None if gx is None else tuple(slope * d for d in gx))
        values = np.array([v[i] for i in self.outs])
        grads = np.array([g[i] or (0.0,) * k for i in self.outs], dtype=float).reshape(len(self.outs), k).T
        return values, grads


class DesignGradients:
    """The set-up (the expressions to differentiate, no derivative taken) and the gradients at each design."""

    def __init__(self, model: Manipulator, names: Sequence[str], beams: bool):
        from ..model.parts import parts_of, section_properties
        self.model, self.names = model, list(names)
        self.fixed = dict(model.parameters)
        self.k = len(names)
        from ..dynamics.inertial import link_parameters
        self.pi = [sp.sympify(e) for link in model.links for e in link_parameters(link)]
        self.stiffness = [sp.sympify(link.drive.stiffness if link.drive is not None and
                                     link.drive.stiffness is not None else 0) for link in model.links]
        self.section: list[sp.Expr] = []
        if beams:
            for _, part in parts_of(model):
                sec = section_properties(part)
                E, G, rho = part.material.young, part.material.shear, part.material.density
                self.section += [sp.sympify(e) for e in
                                 (E * sec.area, G * sec.torsion, E * sec.i1, E * sec.i2, rho * sec.area)]
        self.forward = ForwardDiff([*self.pi, *self.stiffness, *self.section], names)
        self._fixed: Fixed | None = None

    def derivatives(self, values: dict[str, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The gradients (k, ...) at ``values`` of the links' standard parameters (10 n), the drives'
        stiffness (n) and the beams' section figures (EA, GJ, EI1, EI2, mass per length: 5 a beam)."""
        _, grads = self.forward.run({**self.fixed, **values})
        a, b = len(self.pi), len(self.pi) + len(self.stiffness)
        return grads[:, :a], grads[:, a:b], grads[:, b:]

    @staticmethod
    def refusal(model: Manipulator, names: Sequence[str]) -> str | None:
        """Why the numeric path cannot take ``names`` (None: it can): a closed chain, or a parameter in the
        kinematics, the parts' segments, the point masses, the drives' other figures or the links' centre of
        mass without a part (the links' sag puts their weight there)."""
        from ..model.extras import DRIVE_FIELDS
        from ..model.parts import parts_of, part_segment
        if not model.is_serial:
            return "a closed chain"
        wanted = {symbol(n) for n in names}
        exprs: list = [*model.gravity_frame0]
        parts = dict(parts_of(model))
        for i, link in enumerate(model.links):
            exprs += [link.a, link.alpha, link.d, link.theta]
            if i in parts:
                start, end = part_segment(model, i, parts[i])
                exprs += [*start, *end]
            else:
                exprs += list(link.com)
            if link.drive is not None:
                exprs += [getattr(link.drive, f) for f in DRIVE_FIELDS
                          if f != "stiffness" and isinstance(getattr(link.drive, f), sp.Basic)]
        for p in model.point_masses:
            exprs += [p.mass, *p.position]
        if model.tool is not None:
            exprs += list(model.tool.expressions())
        used = set().union(*(sp.sympify(e).free_symbols for e in exprs))
        hit = sorted(s.name for s in wanted & used)
        return f"{', '.join(hit)} move the kinematics or loads" if hit else None

    def kinematics(self, arm, q: np.ndarray, cycle) -> Fixed:
        """The kinematic part (:class:`Fixed`), computed once for the search (again if it ever differs)."""
        if self._fixed is None or not self._fixed.same(arm, q, cycle):
            self._fixed = Fixed(arm, q, cycle)
        return self._fixed

    def at(self, arm, values: dict[str, float], q: np.ndarray, payload: float, stiffness, cycle=None,
           torques=None) -> Design:
        """The design's derivative data: ``arm`` the numeric arm its evaluation built, ``stiffness`` the joints'
        (n,) (inf where rigid; None: no drive stiffness), ``torques`` the cycle's (N, n) when one is asked."""
        return Design(self, arm, values, q, payload, stiffness, cycle, torques)


class Design:
    """One design's gradients (each a (k,) array over the search's variables)."""

    def __init__(self, setup: DesignGradients, arm, values, q, payload, stiffness, cycle, torques):
        from ..dynamics.inertial import standard_parameter_values
        self.setup, self.arm, self.values, self.payload = setup, arm, values, payload
        self.q = np.asarray(q, float)
        self.stiffness = None if stiffness is None else np.asarray(stiffness, float)
        self.cycle, self.torques = cycle, torques
        self.pi = standard_parameter_values(arm)
        self.dpi, self.dk, self.dsection = setup.derivatives(values)      # (k, 10 n), (k, n), (k, 5 beams)
        self.fixed = setup.kinematics(arm, self.q, cycle)
        self.YG, self.YM = self.fixed.YG, self.fixed.YM

    def _M(self, p: np.ndarray) -> np.ndarray:
        return np.einsum("jik,k->ij", self.YM, p)

    def mass(self) -> np.ndarray:
        return self.dpi[:, 0::10].sum(axis=1)

    def frequency(self) -> np.ndarray | None:
        """d(lowest frequency, Hz), motors locked; None unless every joint has a stiffness."""
        from scipy.linalg import eigh
        K = self.stiffness
        if K is None or not np.all(np.isfinite(K)):
            return None
        dK = self.dk
        M = self._M(self.pi)
        lam, vec = eigh(np.diag(K), M)
        v, lowest = vec[:, 0], float(lam[0])
        out = np.empty(self.setup.k)
        for k in range(self.setup.k):
            dM = self._M(self.dpi[k])
            out[k] = float(v @ (np.diag(dK[k]) - lowest * dM) @ v / (v @ M @ v)) / (4 * math.pi * math.sqrt(lowest))
        return out

    def _joint_compliance(self) -> tuple[np.ndarray, np.ndarray]:
        """(1/k per joint, its derivatives (k_vars, n)): zero where a joint is rigid (no or infinite stiffness)."""
        n, k = self.arm.n, self.setup.k
        if self.stiffness is None:
            return np.zeros(n), np.zeros((k, n))
        finite = np.isfinite(self.stiffness)
        c = np.where(finite, 1.0 / np.where(finite, self.stiffness, 1.0), 0.0)
        return c, -self.dk * c**2

    def deflection(self) -> np.ndarray:
        """d(the tool's sag, mm) at the pose: the gearboxes' share and the links' bending."""
        from ..numeric.beams import beams_sag_derivatives
        arm, setup = self.arm, self.setup
        J = self.fixed.J
        G = self.YG @ self.pi
        hold = G - J.T @ (self.payload * np.asarray(arm.gravity, float))
        c, dc = self._joint_compliance()
        total = J @ (-c * hold)
        dtotal = np.array([J @ (-dc[k] * hold - c * (self.YG @ self.dpi[k])) for k in range(setup.k)])
        beams = arm.beams
        if beams:
            sec = np.array([[b.ea, b.gj, b.ei1, b.ei2] for b in beams])
            dsec = self.dsection.reshape(setup.k, len(beams), 5)
            flex = -dsec[:, :, :4] / sec**2                     # d(1/EA) ... d(1/EI2)
            loads = np.hstack([self.dpi[:, 0::10], dsec[:, :, 4], np.zeros((setup.k, len(arm.point_masses) + 1))])
            value, derivatives = beams_sag_derivatives(arm, beams, self.q, self.payload, flex, loads,
                                                       self.fixed.sag_terms())
            total = total + value[:3]
            dtotal += derivatives[:, :3]
        norm = float(np.linalg.norm(total))
        return 1e3 * dtotal @ total / norm

    def compliance(self) -> np.ndarray:
        """d(the tool's largest translational compliance, mm/N) at the pose: the top eigenvalue of
        (J K^-1 J^T + C_links)_vv, d lambda = v^T dC_vv v (C_links linear in the sections' flexibilities)."""
        from ..numeric.beams import beams_compliance
        arm, setup = self.arm, self.setup
        J = self.fixed.J6
        c, dc = self._joint_compliance()
        C = (J * c) @ J.T
        dC = np.array([(J * dc[k]) @ J.T for k in range(setup.k)])
        beams = arm.beams
        if beams:
            sec = np.array([[b.ea, b.gj, b.ei1, b.ei2] for b in beams])
            flex = -self.dsection.reshape(setup.k, len(beams), 5)[:, :, :4] / sec**2
            C = C + beams_compliance(arm, beams, self.q)
            dC += np.array([beams_compliance(arm, beams, self.q, flex[k]) for k in range(setup.k)])
        w, V = np.linalg.eigh(C[:3, :3])
        v = V[:, -1]
        return 1e3 * np.einsum("i,kij,j->k", v, dC[:, :3, :3], v)

    def cycle_quantity(self, kind: str, joint: int | None, numbers: Sequence[int]) -> np.ndarray:
        """d(peak or RMS torque of joint number ``joint``, the largest over the joints when None) along the
        cycle; ``numbers``: the joints' numbers (the torques' columns)."""
        from .sizing import _trapezoid
        c = self.cycle
        tau = np.asarray(self.torques, float)                   # (N, n)
        cols = list(range(tau.shape[1])) if joint is None else [list(numbers).index(joint)]
        Y = self.fixed.cycle()                                  # (N, n, 10 n)
        if kind == "peak_torque":   # at the arg-max sample
            part = np.abs(tau[:, cols])
            i, j = np.unravel_index(int(np.argmax(part)), part.shape)
            col = cols[j]
            return float(np.sign(tau[i, col])) * (Y[i, col] @ self.dpi.T)
        t = np.asarray(c.t, float)
        duration = t[-1] - t[0]
        rms = [math.sqrt(_trapezoid(tau[:, j] ** 2, t) / duration) for j in cols]
        col = cols[int(np.argmax(rms))]
        dtau = Y[:, col] @ self.dpi.T                            # (N, k)
        return _trapezoid(tau[:, col, None] * dtau, t, axis=0) / (duration * max(rms))


class Fixed:
    """What the varied parameters leave alone (:meth:`DesignGradients.refusal`: the kinematics, gravity, the
    beams' geometry), computed at the search's first design and reused at every other: the regressor at the
    pose (M's columns and G), the tool Jacobian, along the cycle, and the links' sag terms."""

    def __init__(self, arm, q: np.ndarray, cycle):
        from ..identification.regressor import regressor
        self.arm, self.q, self._cycle = arm, q, cycle
        n = arm.n
        # one regressor over n + 1 states at q: qdd = e_j (M's column j plus G) and at rest (G)
        Q = np.repeat(q[:, None], n + 1, axis=1)
        Y = regressor(arm, Q, np.zeros_like(Q), np.hstack([np.eye(n), np.zeros((n, 1))]))
        self.YG = Y[n]
        self.YM = Y[:n] - Y[n]                                  # row j: M[:, j]'s regressor
        self.J6 = arm.tool_jacobian(q)
        self.J = self.J6[:3]
        self._Y: np.ndarray | None = None
        self._terms = None

    def same(self, arm, q: np.ndarray, cycle) -> bool:
        """Whether ``arm`` at ``q`` along ``cycle`` has this kinematics (checked, not assumed)."""
        a = self.arm
        return cycle is self._cycle and np.array_equal(q, self.q) and np.array_equal(arm.dh, a.dh) and \
            np.array_equal(arm.gravity, a.gravity) and np.array_equal(arm.tool, a.tool) and \
            np.array_equal(arm.revolute, a.revolute) and len(arm.beams) == len(a.beams) and \
            all(np.array_equal(b.start, c.start) and np.array_equal(b.end, c.end) and np.array_equal(b.axes, c.axes)
                for b, c in zip(arm.beams, a.beams))

    def cycle(self) -> np.ndarray:
        """(N, n, 10 n): the regressor at the cycle's samples."""
        if self._Y is None:
            from ..identification.regressor import regressor
            c = self._cycle
            q, qd, qdd = (np.asarray(x, float).T for x in (c.q, c.qd, c.qdd))
            self._Y = regressor(self.arm, q, qd, qdd)
        return self._Y

    def sag_terms(self):
        if self._terms is None:
            from ..numeric.beams import sag_terms
            self._terms = sag_terms(self.arm, self.arm.beams, self.q)
        return self._terms


def setup_for(model: Manipulator, names: Sequence[str], quantities: Sequence[str], cycle) -> DesignGradients | None:
    """The set-up when every one of ``quantities`` has a gradient here (None otherwise: the search takes another
    path): :func:`supported`, :meth:`DesignGradients.refusal`, and for ``frequency`` a stiffness at every joint."""
    if not names or not all(supported(q, cycle) for q in quantities):
        return None
    if DesignGradients.refusal(model, names) is not None:
        return None
    if any(q.strip() == "frequency" for q in quantities) and \
            any(link.drive is None or link.drive.stiffness is None for link in model.links):
        return None
    try:    # every expression compiled (a node ForwardDiff does not know: no numeric path)
        setup = DesignGradients(model, names, any(link.part is not None for link in model.links))
    except ValueError:
        return None
    return setup


def rows(setup: DesignGradients, quantities: Sequence[str], kept: dict, values: dict[str, float],
         q: Sequence[float] | None, payload: float, cycle) -> np.ndarray:
    """(len(quantities), k): the gradients of ``quantities`` at one design, from what its evaluation built
    (``kept``: :func:`designer.optimize.problem.quantities`' ``keep``)."""
    arm = kept["arm"]
    ratings = kept.get("ratings")
    loads = kept.get("loads")
    torques = None if loads is None else np.stack([ld.torque for ld in loads], axis=1)
    pose = np.zeros(arm.n) if q is None else np.asarray(q, float)
    stiffness = None if ratings is None or ratings.stiffness is None else ratings.stiffness
    d = setup.at(arm, values, pose, payload, stiffness, cycle, torques)
    out = []
    g: np.ndarray | None
    for quantity in quantities:
        name = quantity.strip()
        m = CYCLE_RE.match(name)
        if name == "mass":
            g = d.mass()
        elif name == "frequency":
            g = d.frequency()
        elif name == "compliance":
            g = d.compliance()
        elif m:
            g = d.cycle_quantity(m.group(1), None if m.group(2) is None else int(m.group(2)),
                                 [ld.joint for ld in loads or ()])
        else:
            g = d.deflection()
        if g is None:
            raise ValueError(f"no gradient of {quantity} at this design")
        out.append(np.asarray(g, float))
    return np.array(out)
