"""`codegen --drives` of closed chains' compact form: the generated Python against the numeric projection
of the drive data (designer.numeric.closed.ClosedDynamics: tau, M, h plus drive_terms, what eval --drives
adds), on the bundled four-bar and random four-bars with random drive data on passive and actuated joints."""

from __future__ import annotations

import importlib.util
from dataclasses import replace

import numpy as np
import pytest

from designer.cli import main
from designer.codegen.files import code_files, full_plan
from designer.dynamics.closed_compact import closed_compact_equations_job
from designer.jobs import run
from designer.model.drives import has_drive_terms
from designer.model.extras import Drive
from designer.model.manipulator import Convention
from designer.numeric.closed import ClosedDynamics
from designer.project import load_project
from tests.dynamics.test_closed_compact import fixed_cut_four_bar
from tests.support import robot_path
from tests.support.closed_reference import four_bar


def _module(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _check(mod, model, qp_input: bool, seed: int = 4) -> None:
    """tau, M, h (and G, which the drives leave alone) at random states against the numeric side."""
    cd = ClosedDynamics(model)
    n, rng = cd.n, np.random.default_rng(seed)
    for _ in range(4):
        qa, qda, qdda = rng.uniform(-0.6, 0.6, n), rng.normal(size=n), rng.normal(size=n)
        first = (qa, cd.positions(qa)[cd.pas]) if qp_input else (qa,)
        dM, dtau, dh = cd.drive_terms(qa, qda, qdda)   # dh: the rotors' W' qd term and the friction
        want = {"tau": cd.tau(qa, qda, qdda) + dtau, "M": cd.M(qa) + dM, "G": cd.G(qa), "h": cd.h(qa, qda) + dh}
        got = {"tau": np.asarray(mod.tau(*first, qda, qdda), dtype=float),
               "M": np.asarray(mod.mass_matrix(*first), dtype=float).reshape(n, n),
               "G": np.asarray(mod.gravity(*first), dtype=float),
               "h": np.asarray(mod.bias(*first, qda), dtype=float)}
        for key, value in want.items():
            assert np.abs(got[key] - value).max() < 1e-9 * max(1.0, np.abs(value).max()), key
        assert np.abs(dtau).max() > 1e-6   # the drive data is felt: the check could fail without it


def _drives_on_every_joint(model, rng):
    """Random drive data on every joint, the passive ones too (a rotor and friction on a passive joint
    project through the state-dependent W)."""
    links = tuple(replace(link, drive=Drive(gear_ratio=float(rng.uniform(5, 100)),
                                            motor_inertia=float(rng.uniform(1e-5, 1e-3)),
                                            viscous=float(rng.uniform(0, 20)), coulomb=float(rng.uniform(0, 5))))
                  for link in model.links)
    return replace(model, links=links)


def test_four_bar_codegen_drives_from_the_command_line(tmp_path):
    """`codegen --drives` on a four-bar project with drive data on the crank and the passive joints."""
    from designer.project import save_project
    model = _drives_on_every_joint(load_project(robot_path("four_bar")), np.random.default_rng(11))
    assert has_drive_terms(model)
    path = tmp_path / "fb.json"
    save_project(model, path)
    assert main(["codegen", str(path), "--lang", "python", "--quiet", "--drives",
                 "--out", str(tmp_path / "fb.py")]) == 0
    text = (tmp_path / "fb.py").read_text()
    assert "drive terms of every joint of the tree added" in text
    _check(_module(tmp_path / "fb.py"), model, False)


@pytest.mark.parametrize("seed, convention, mounted", [(0, Convention.STANDARD, False), (1, Convention.MODIFIED, False),
                                                       (2, Convention.STANDARD, True), (3, Convention.MODIFIED, True)])
def test_random_four_bar_compact_drives_match_the_numeric_projection(tmp_path, seed, convention, mounted):
    rng = np.random.default_rng(seed)
    model = _drives_on_every_joint(four_bar(rng, convention, mounted=mounted), rng)
    eq = run(closed_compact_equations_job(model))
    target = tmp_path / f"fb{seed}.py"
    target.write_text(code_files(full_plan(eq, "compact", drives=True), "python", target)[str(target)])
    _check(_module(target), model, False, seed)


def test_compact_drives_with_passive_positions_as_inputs(tmp_path):
    """A loop without a closed-form closure (the passive positions an input qp): the same projection."""
    model = _drives_on_every_joint(fixed_cut_four_bar(2), np.random.default_rng(5))
    eq = run(closed_compact_equations_job(model))
    target = tmp_path / "cut.py"
    target.write_text(code_files(full_plan(eq, "compact", drives=True), "python", target)[str(target)])
    _check(_module(target), model, True)
