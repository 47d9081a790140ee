"""Assembling a closed chain whose nominal pose does not close (designer/kinematics/closure.py, ``assemble``).

Run: ``python -m benchmarks.bench_assembly [--runs R]`` from the repository root (prints figures; not a test).

For the bundled four-bar (robots/four_bar.json) with its coupler 20 mm longer, 100 mm longer, and too short to reach
(0.05 m: every way of assembling is tried before the refusal), and for a random spatial loop cut at a fixed joint
(6 passive joints) with a link 20 mm longer: the median time of ``assemble`` beside the peer measured in the same run,
scipy's ``least_squares`` (trust region, the same residual and Jacobian, from the nominal pose; no continuation or
restarts, so it may stop at a local minimum: its gap is printed), and the ratio. Then the median time of a whole
sweep design of the four-bar (``ClosedDynamics`` built, every check included) nominal and assembled.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designer.kinematics.closure import ClosureError, assemble  # noqa: E402
from designer.kinematics.tree import TreeArm  # noqa: E402
from designer.numeric.closed import ClosedDynamics  # noqa: E402
from designer.project import load_project  # noqa: E402
from benchmarks.clock import median_seconds  # noqa: E402




def scipy_peer(tree: TreeArm):
    """scipy's least squares on the passive joints from the nominal pose: (the largest residual left)."""
    from scipy.optimize import least_squares
    pas = list(tree.passive)

    def full(p):
        q = np.zeros(tree.n)
        q[pas] = p
        return q

    fit = least_squares(lambda p: tree.loop_terms(full(p)).residual, np.zeros(len(pas)),
                        jac=lambda p: tree.loop_terms(full(p)).jacobian[:, pas], xtol=1e-15, ftol=1e-15, gtol=1e-15)
    return float(np.abs(fit.fun).max())


def ours(tree: TreeArm) -> None:
    try:
        assemble(tree)
    except ClosureError:
        pass


def spatial_case():
    from tests.support.random_models import Shapes, random_project
    rng = np.random.default_rng(102)
    model = random_project(rng, Shapes(joints="RRRR", loops=("F",), planar=False)).numeric()
    links = list(model.links)
    links[0] = replace(links[0], a=float(links[0].a) + 0.02)
    return replace(model, links=tuple(links))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    four_bar = load_project(ROOT / "robots" / "four_bar.json")
    cases = [(f"four-bar, coupler L2 = {v} m", TreeArm.from_model(four_bar, {"L2": v})) for v in (0.47, 0.55, 0.05)]
    cases.append(("spatial F loop (6 passive), a link 20 mm longer", TreeArm.from_model(spatial_case())))
    print(f"assemble (median of {args.runs}) beside scipy least_squares from the nominal pose:")
    for name, tree in cases:
        ours(tree)   # traced loop terms, warm
        t_ours = median_seconds(lambda tree=tree: ours(tree), args.runs)
        t_peer = median_seconds(lambda tree=tree: scipy_peer(tree), args.runs)
        gap = scipy_peer(tree)
        try:
            left = "assembled"
            assemble(tree)
        except ClosureError as exc:
            left = "refused: " + str(exc).split(": ", 2)[-1].split(" (")[0]
        print(f"  {name}: {t_ours * 1e3:.2f} ms ({left}); scipy {t_peer * 1e3:.2f} ms (gap left {gap:.2e}); "
              f"ratio {t_ours / t_peer:.2f}")
    for label, values in (("nominal", {}), ("assembled (L2 = 0.47 m)", {"L2": 0.47})):
        t = median_seconds(lambda values=values: ClosedDynamics(four_bar, values), args.runs)
        print(f"ClosedDynamics of the four-bar, {label}: {t * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
