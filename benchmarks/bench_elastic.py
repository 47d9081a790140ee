"""Elastic joints on the PUMA 560: a 10 s simulation and a 100 x 100 frequency map, each beside Pinocchio.

Run: ``python -m benchmarks.bench_elastic [--runs R] [--t T] [--grid G]`` (prints figures; not a test).

The arm: the PUMA 560 of robots/puma560.json with Corke's motor data (gear ratios |G| = 62.6, 107.8,
53.7, 76.0, 71.9, 76.7; rotor inertias 200e-6 kg m^2 for the arm motors, 33e-6 for the wrist) and
strain-wave-like gearboxes, k = 5e4, 5e4, 3e4, 1e4, 1e4, 1e4 N m/rad, damped at 10 % of critical
on the motor side (d = 0.2 sqrt(k N^2 Jm)).

1. 10 s under the motor-side PD (designer.numeric.simulate.PDControl, on the motors): a 2 s quintic move of
   every joint, then holding. Ours: ``simulate`` of ``ElasticDynamics`` (Radau with the analytic Jacobian of the
   stiff part). Peer: ``scipy.integrate.solve_ivp`` with the same method, tolerances, control law
   and Jacobian approximation, over ``pinocchio.aba`` for the link side (the spring torques as joint
   torques) and the motor side by hand. Target: ours under 5 s. Also printed: the largest
   difference of the two final link angles, and the tool's largest deviation from the rigid arm's
   (the same run with every stiffness infinite and the reflected inertias on M).
2. The lowest natural frequency (motors locked) over a 100 x 100 grid of joints 2 and 3:
   ours (batched M from the numeric engine, one batched eigh) against a loop of ``pinocchio.crba``
   and ``scipy.linalg.eigh(K, M)``. Target: ours under 1 s.
3. One evaluation of the integrators' right-hand side and of Radau's Jacobian (``--per-call``, the default): the
   4-joint palletizer (robots/palletizer_serial.json) with every joint elastic and with joint 4 rigid, its rotor's
   reflected inertia on M (issue 30: that case lost the generated path, 298 against 140 us), and the elastic PUMA's
   Jacobian; each beside the same quantity over Pinocchio (aba with the rigid joint's ``armature``, the motor side
   by hand; crba and an inverse for the Jacobian). Target: the two palletizer cases equal.
Runs are interleaved; medians are printed, and the worst of ours against the limit.
"""

from __future__ import annotations

import argparse
import statistics
import time
from functools import partial
from pathlib import Path

import numpy as np

from designer.kinematics import NumericArm
from designer.numeric import arm_dynamics
from designer.numeric.elastic import ElasticArm, ElasticJoints
from designer.numeric.elastic import ElasticDynamics
from designer.numeric.simulate import PDControl, quintic, simulate, tool_deviation
from designer.numeric.modes import lowest_frequency
from designer.project import load_project

ROOT = Path(__file__).resolve().parent.parent

GEAR = np.array([62.6111, 107.815, 53.7063, 76.0364, 71.923, 76.686])
ROTOR = np.array([200e-6] * 3 + [33e-6] * 3)
STIFFNESS = np.array([5e4, 5e4, 3e4, 1e4, 1e4, 1e4])
DAMPING = 0.2 * np.sqrt(STIFFNESS * GEAR ** 2 * ROTOR)
KP = np.array([2000.0, 2000.0, 1000.0, 200.0, 200.0, 100.0])
KD = 1.6 * np.sqrt(KP * (GEAR ** 2 * ROTOR + np.array([3.0, 3.0, 1.0, 0.1, 0.1, 0.05])))
START, TARGET, MOVE = np.zeros(6), np.array([0.8, 0.6, -1.2, 0.5, 0.7, 1.0]), 2.0
METHOD, RTOL, ATOL = "Radau", 1e-6, 1e-8


def puma() -> tuple[NumericArm, ElasticJoints]:
    arm = NumericArm.from_model(load_project(ROOT / "robots" / "puma560.json"))
    return arm, ElasticJoints.of(6, STIFFNESS, DAMPING, GEAR, ROTOR)


def control() -> PDControl:
    return PDControl(KP, KD, TARGET, START, MOVE)


def pin_jacobian(model, data, q, joints: ElasticJoints) -> np.ndarray:
    """The peer's analytic Jacobian of the elastic PUMA under the motor PD at link angles q (Pinocchio's crba)."""
    import pinocchio as pin
    n, k, d, N, Jm = len(q), joints.stiffness, joints.damping, joints.gear, joints.rotor
    M = pin.crba(model, data, q)
    Minv = np.linalg.inv(np.triu(M) + np.triu(M, 1).T)
    J = np.zeros((4 * n, 4 * n))
    eye = np.eye(n)
    J[:n, 2 * n:3 * n] = J[n:2 * n, 3 * n:] = eye
    J[2 * n:3 * n] = np.hstack([-Minv * k, Minv * (k / N), -Minv * d, Minv * (d / N)])
    J[3 * n:] = np.hstack([np.diag(k / N / Jm), np.diag(-(k + KP) / N ** 2 / Jm),
                           np.diag(d / N / Jm), np.diag(-(d + KD) / N ** 2 / Jm)])
    return J


def pinocchio_run(arm: NumericArm, joints: ElasticJoints, T: float):
    """The peer: scipy's solve_ivp over pin.aba (link side) and the motor side by hand."""
    import pinocchio as pin
    from scipy.integrate import solve_ivp

    from tests.support.pin_reference import pin_model
    model = pin_model(arm)
    data = model.createData()
    n, k, d, N, Jm = 6, joints.stiffness, joints.damping, joints.gear, joints.rotor
    inv_k = 1.0 / k

    def law(t, th, thd):
        qr, vr = (np.array(v) for v in quintic(START, TARGET, MOVE, t))
        g = pin.computeGeneralizedGravity(model, data, qr)
        return (KP * (qr + g * inv_k - th / N) + KD * (vr - thd / N) + g) / N

    def rhs(t, y):
        q, th, qd, thd = y[:n], y[n:2 * n], y[2 * n:3 * n], y[3 * n:]
        ts = k * (th / N - q) + d * (thd / N - qd)
        qdd = pin.aba(model, data, q, qd, ts)
        thdd = (law(t, th, thd) - ts / N) / Jm
        return np.concatenate([qd, thd, qdd, thdd])

    def jac(t, y):
        return pin_jacobian(model, data, y[:n], joints)

    g0 = pin.computeGeneralizedGravity(model, data, START)
    y0 = np.concatenate([START, N * (START + g0 / k), np.zeros(2 * n)])
    return solve_ivp(rhs, (0.0, T), y0, method=METHOD, rtol=RTOL, atol=ATOL, jac=jac)


def frequency_map_ours(arm, joints, Q) -> np.ndarray:
    return lowest_frequency(arm_dynamics(arm).M(Q), joints)


def frequency_map_pin(arm, joints, Q) -> np.ndarray:
    import pinocchio as pin
    from scipy.linalg import eigh

    from tests.support.pin_reference import pin_model
    model = pin_model(arm)
    data = model.createData()
    K = np.diag(joints.stiffness)
    out = np.empty(len(Q))
    for r, q in enumerate(Q):
        M = pin.crba(model, data, q)
        out[r] = np.sqrt(eigh(K, np.triu(M) + np.triu(M, 1).T, eigvals_only=True)[0]) / (2 * np.pi)
    return out


def _per_call(fn, calls: int = 2000) -> float:
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls


def per_call(runs: int, peer: bool) -> None:
    """Section 3 of the module docstring: us per right-hand side and per Jacobian, ours and Pinocchio's."""
    arm = NumericArm.from_model(load_project(ROOT / "robots" / "palletizer_serial.json"))
    rng = np.random.default_rng(0)
    gear, rotor = np.array([100.0, 80.0, 60.0, 50.0]), np.array([2e-4, 2e-4, 1e-4, 5e-5])
    cases = {"all elastic": np.array([3e4, 2e4, 1e4, 5e3]),
             "joint 4 rigid with its rotor": np.array([3e4, 2e4, 1e4, np.inf])}
    tau_m = [0.1, -0.2, 0.05, 0.01]
    print("one right-hand side of the 4-joint palletizer (us, median of runs):")
    for name, k in cases.items():
        joints = ElasticJoints.of(4, k, 0.2 * np.sqrt(np.where(np.isfinite(k), k, 0) * gear ** 2 * rotor), gear, rotor)
        model = ElasticArm(arm, joints)
        rhs = model.scalar_rhs(lambda t, s: tau_m)
        y = np.concatenate([rng.uniform(-1, 1, 4), rng.uniform(-50, 50, model.m), rng.normal(size=4 + model.m)])
        for _ in range(1100):   # hot: the machine code is built
            rhs(0.0, y)
        ours = statistics.median(_per_call(partial(rhs, 0.0, y)) for _ in range(runs)) * 1e6
        line = f"  {name:30s} ours {ours:6.2f}"
        if peer:
            theirs_fn = _pin_rhs(arm, joints, np.array(tau_m))
            np.testing.assert_allclose(theirs_fn(y), rhs(0.0, y), rtol=1e-8, atol=1e-8 * np.abs(rhs(0.0, y)).max())
            theirs = statistics.median(_per_call(partial(theirs_fn, y)) for _ in range(runs)) * 1e6
            line += f"   Pinocchio {theirs:6.2f}   ratio {ours / theirs:.2f}"
        print(line)
    parm, joints = puma()
    model = ElasticArm(parm, joints)
    jac = model.jacobian_function(KP, KD)
    q = rng.uniform(-1, 1, 6)
    arm_dynamics(parm).native   # noqa: B018  (the machine code built, as in a long run)
    ours = statistics.median(_per_call(lambda: jac(q)) for _ in range(runs)) * 1e6
    line = f"Radau's Jacobian of the elastic PUMA (us): ours {ours:.1f}"
    if peer:
        from tests.support.pin_reference import pin_model
        pm = pin_model(parm)
        data = pm.createData()

        def theirs_jac():   # pinocchio_run's jac
            return pin_jacobian(pm, data, q, joints)
        np.testing.assert_allclose(jac(q), theirs_jac(), rtol=1e-9, atol=1e-9 * np.abs(theirs_jac()).max())
        theirs = statistics.median(_per_call(theirs_jac) for _ in range(runs)) * 1e6
        line += f", Pinocchio {theirs:.1f}, ratio {ours / theirs:.2f}"
    print(line)


def _pin_rhs(arm: NumericArm, joints: ElasticJoints, tau_m: np.ndarray):
    """The peer's right-hand side at a state: aba (the rigid joints' reflected inertia as armature) and the motors."""
    import pinocchio as pin

    from tests.support.pin_reference import pin_model
    model = pin_model(arm)
    model.armature = joints.reflected.copy()
    data = model.createData()
    E, n, m = joints.elastic, joints.n, joints.m
    k, d, N, Jm = joints.stiffness[E], joints.damping[E], joints.gear, joints.rotor[E]

    def rhs(y):
        q, th, qd, thd = y[:n], y[n:n + m], y[n + m:2 * n + m], y[2 * n + m:]
        ts = k * (th / N[E] - q[E]) + d * (thd / N[E] - qd[E])
        tau = N * tau_m
        tau[E] = ts
        qdd = pin.aba(model, data, q, qd, tau)
        return np.concatenate([qd, thd, qdd, (tau_m[E] - ts / N[E]) / Jm])
    return rhs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--t", type=float, default=10.0, help="simulated seconds")
    ap.add_argument("--grid", type=int, default=100, help="grid points per joint of the frequency map")
    ap.add_argument("--plot", metavar="PNG", help="also plot the tool's deviation from the rigid arm over time")
    ap.add_argument("--per-call-only", action="store_true", help="only section 3 (one right-hand side, one Jacobian)")
    args = ap.parse_args(argv)
    try:
        import pinocchio  # noqa: F401
        peer = True
    except ImportError:
        print("Pinocchio not installed (pip install pin): no peer figures")
        peer = False
    per_call(max(args.runs, 5), peer)
    if args.per_call_only:
        return 0
    arm, joints = puma()
    ElasticArm(arm, joints).equilibrium(START)   # generate the engine's code before timing
    ours_t, peer_t, ours_m, peer_m = [], [], [], []
    a = np.linspace(-np.pi, np.pi, args.grid)
    Q = np.zeros((args.grid, args.grid, 6))
    Q[..., 1], Q[..., 2] = np.meshgrid(a, a, indexing="ij")
    Q = Q.reshape(-1, 6)
    for _ in range(args.runs):
        t0 = time.perf_counter()
        ours = simulate(ElasticDynamics(arm_dynamics(arm), joints), START, None, (0.0, args.t), control(),
                        method=METHOD, rtol=RTOL, atol=ATOL)
        ours_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        f_ours = frequency_map_ours(arm, joints, Q)
        ours_m.append(time.perf_counter() - t0)
        if peer:
            t0 = time.perf_counter()
            theirs = pinocchio_run(arm, joints, args.t)
            peer_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            f_pin = frequency_map_pin(arm, joints, Q)
            peer_m.append(time.perf_counter() - t0)
    rigid = simulate(ElasticDynamics(arm_dynamics(arm), joints.stiffened(np.inf)), START, None, (0.0, args.t),
                     control(), method=METHOD, rtol=RTOL, atol=ATOL, t_eval=ours.t)
    deviation = tool_deviation(arm, ours.q, rigid.q)   # m
    print(f"elastic PUMA 560, {args.t:g} s under a motor-side PD move ({METHOD}, rtol {RTOL:g}, atol {ATOL:g}):")
    print(f"  ours      median {statistics.median(ours_t):.3f} s, worst {max(ours_t):.3f} s "
          f"({ours.steps} steps, {ours.evaluations} right-hand sides); target < 5 s")
    if peer:
        print(f"  Pinocchio median {statistics.median(peer_t):.3f} s ({theirs.t.size - 1} steps, {theirs.nfev} "
              f"right-hand sides); ratio ours/peer {statistics.median(ours_t) / statistics.median(peer_t):.2f}")
        print(f"  final link angles differ by {np.abs(ours.q[-1] - theirs.y[:6, -1]).max():.2e} rad")
    print(f"  tool deviation from the rigid arm: max {1e3 * deviation.max():.3f} mm, "
          f"at the end {1e3 * deviation[-1]:.4f} mm")
    print(f"frequency map, {args.grid} x {args.grid} poses of joints 2 and 3 (motors locked): "
          f"{f_ours.min():.2f} to {f_ours.max():.2f} Hz")
    print(f"  ours      median {statistics.median(ours_m) * 1e3:.1f} ms, worst {max(ours_m) * 1e3:.1f} ms; "
          "target < 1000 ms")
    if peer:
        print(f"  Pinocchio median {statistics.median(peer_m) * 1e3:.1f} ms (crba + scipy eigh per pose); "
              f"ratio ours/peer {statistics.median(ours_m) / statistics.median(peer_m):.3f}; "
              f"largest difference {np.abs(f_ours - f_pin).max():.2e} Hz")
    if args.plot:
        plot_deviation(ours.t, deviation, args.plot)
    return 0


def plot_deviation(t, deviation, path: str) -> None:
    """The tool's distance from the rigid arm's over time (mm), as a PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3), dpi=100)
    ax.plot(t, 1e3 * deviation, lw=1)
    ax.axvline(MOVE, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("tool deviation (mm)")
    ax.set_title("PUMA 560, elastic joints against the rigid arm, motor-side PD move of 2 s")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
