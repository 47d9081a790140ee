"""The Coriolis matrix of closed chains' compact code (polarization of h: codegen/compact_coriolis.py),
generated in Python and run: C qd = h against the numeric projection (ClosedDynamics.h, no gravity; with
drives plus the rotors' term of drive_terms at qdd_a = 0, friction out), and dM/dt - 2C skew-symmetric
with dM/dt from central differences of the generated M along the motion (positions from a fresh closure
solve), on the four-bar, random four-bars (on a turning column: two actuated joints), a loop whose passive
positions are inputs, and the palletizer's compact form (four actuated joints)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from designer.codegen.files import code_files, full_plan
from designer.dynamics.closed_compact import closed_compact_equations_job
from designer.jobs import run
from designer.model.manipulator import Convention
from designer.numeric.closed import ClosedDynamics
from designer.project import load_project
from tests.codegen.test_closed_compact_drives import _drives_on_every_joint
from tests.dynamics.test_closed_compact import fixed_cut_four_bar
from tests.support import robot_path
from tests.support.closed_reference import four_bar


def _generated(model, tmp_path, drives: bool, name: str):
    eq = run(closed_compact_equations_job(model))
    target = tmp_path / f"{name}.py"
    target.write_text(code_files(full_plan(eq, "compact", drives=drives), "python", target)[str(target)])
    spec = importlib.util.spec_from_file_location(name, target)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _check(mod, model, drives: bool, qp_input: bool, seed: int = 2, eps: float = 1e-6) -> None:
    cd = ClosedDynamics(model)
    n, rng = cd.n, np.random.default_rng(seed)

    def first(qa):
        return (qa, cd.positions(qa)[cd.pas]) if qp_input else (qa,)

    def M(qa):
        return np.asarray(mod.mass_matrix(*first(qa)), dtype=float).reshape(n, n)
    for _ in range(4):
        qa, qda = rng.uniform(-0.5, 0.5, n), rng.normal(size=n)
        C = np.asarray(mod.coriolis_matrix(*first(qa), qda), dtype=float).reshape(n, n)
        want = cd.h(qa, qda)
        if drives:   # the rotors' part of h (friction is not C's): tau at qdd_a = 0 minus the friction
            d = cd.drive_parts(qa, qda, np.zeros(n))
            want = want + d["h"] - d["friction"]
        assert np.abs(C @ qda - want).max() < 1e-9 * max(1.0, np.abs(want).max())
        Mdot = (M(qa + eps * qda) - M(qa - eps * qda)) / (2 * eps)
        S = Mdot - 2 * C
        assert np.abs(S + S.T).max() < 1e-6 * max(1.0, np.abs(Mdot).max(), np.abs(C).max())
        assert np.abs(C).max() > 1e-6   # a C of zeros would pass neither check on a moving mechanism


@pytest.mark.parametrize("seed, convention, mounted, drives", [(0, Convention.STANDARD, False, False),
                                                               (1, Convention.MODIFIED, True, False),
                                                               (2, Convention.STANDARD, True, True),
                                                               (3, Convention.MODIFIED, False, True)])
def test_random_four_bar_coriolis_matrix(tmp_path, seed, convention, mounted, drives):
    rng = np.random.default_rng(seed)
    model = four_bar(rng, convention, mounted=mounted)
    model = _drives_on_every_joint(model, rng) if drives else model
    _check(_generated(model, tmp_path, drives, f"fb{seed}"), model, drives, False, seed)


def test_bundled_four_bar_and_a_loop_with_input_positions(tmp_path):
    model = load_project(robot_path("four_bar"))
    _check(_generated(model, tmp_path, False, "fb"), model, False, False)
    cut = fixed_cut_four_bar(2)
    _check(_generated(cut, tmp_path, False, "cut"), cut, False, True)


def test_palletizer_compact_coriolis_matrix(tmp_path):
    """Four actuated joints (every pair of unit rates polarized), a linear closure's compact form."""
    model = load_project(robot_path("palletizer_parallelogram"))
    _check(_generated(model, tmp_path, False, "pal"), model, False, False)
