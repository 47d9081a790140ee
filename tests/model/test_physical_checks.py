"""validate's checks of physics: the triangle inequality on the principal moments (an inertia given
in turned axes, as imports write it, used to pass with "0 warnings"), and M positive definite at
sampled poses (designer/numeric/checks.py), with the command line and the Problems panel's source."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.cli import main
from designer.model import Inertia, Link, Manipulator, Severity, validate
from designer.numeric.checks import check_model, mass_matrix_problems
from designer.project import save_project


def _turned(I: np.ndarray, seed: int) -> np.ndarray:
    Q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))
    return Q @ I @ Q.T


def _arm(*links: Link) -> Manipulator:
    return Manipulator(links=links, gravity=(0, 0, -9.81))


def test_an_impossible_inertia_in_turned_axes_is_flagged():
    # principal moments 0.01, 0.02, 0.05: 0.01 + 0.02 < 0.05, whichever axes it is written in
    def plausible(I):
        d = np.diag(I)
        return all(d[i] + d[j] >= d[k] for i, j, k in ((0, 1, 2), (1, 2, 0), (0, 2, 1)))
    # turned axes in which the diagonal looks fine (most turns do)
    inertia = next(I for I in (_turned(np.diag([0.01, 0.02, 0.05]), s) for s in range(100)) if plausible(I))
    problems = validate(_arm(Link(mass=1, inertia=Inertia.from_matrix(inertia.tolist()))))
    [p] = [p for p in problems if p.where == "links[1].inertia"]
    assert p.severity is Severity.WARNING
    assert "triangle inequality of its principal moments (0.01 + 0.02 < 0.05)" in str(p)


def test_a_negative_principal_moment_is_an_error():
    inertia = _turned(np.diag([-0.01, 0.02, 0.05]), 4)
    problems = validate(_arm(Link(mass=1, inertia=Inertia.from_matrix(inertia.tolist()))))
    assert any(p.severity is Severity.ERROR and p.where == "links[1].inertia" for p in problems)


def test_a_mass_matrix_that_is_not_positive_definite_is_an_error():
    """One joint about z turning a body with Izz = -1 and no mass: M = -1 (bypassing the loader)."""
    model = _arm(Link(mass=0, inertia=Inertia(0.5, 0.5, -1)))
    [p] = mass_matrix_problems(model)
    assert p.severity is Severity.ERROR and "not positive definite" in p.message and "eigenvalue -1" in p.message
    # check_model says it once: the inertia is the error validate names, M follows from it
    assert [q.where for q in check_model(model) if q.severity is Severity.ERROR] == ["links[1].inertia"]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_real_arms_never_get_the_mass_matrix_error(seed, n):
    from tests.support.random_models import random_model
    from designer.model import Convention
    rng = np.random.default_rng(seed)
    model = random_model(rng, n, Convention.STANDARD if seed % 2 else Convention.MODIFIED)
    assert mass_matrix_problems(model) == []


def test_validate_on_the_command_line_names_the_pose(tmp_path, capsys, monkeypatch):
    from designer.numeric import checks
    model = _arm(Link(mass=1, com=(0.1, 0, 0), inertia=Inertia(0.01, 0.01, 0.01)))
    path = tmp_path / "arm.json"
    save_project(model, path)
    assert main(["validate", str(path)]) == 0
    # what the check says about a model that passes validate but whose M is not positive definite
    # (the check itself: above) makes validate fail, naming the pose
    bad = _arm(Link(mass=0, inertia=Inertia(0.5, 0.5, -1)))
    monkeypatch.setattr(checks, "mass_matrix_problems", lambda m: mass_matrix_problems(bad))
    capsys.readouterr()
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr()
    assert out.err.count("\n") == 1 and out.err.startswith("error: ") and "not valid" in out.err
    assert "error: links: the mass matrix is not positive definite at q = (" in out.out
