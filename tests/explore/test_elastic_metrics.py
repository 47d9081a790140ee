"""The stiffness and frequency metrics: against Pinocchio, a monotone law in a sweep, the command line."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json

import numpy as np
import pytest
from scipy.linalg import eigh

from designer.cli import main
from designer.explore.metrics import MetricError, Ratings, evaluate
from designer.explore.sweep import SweepAxis, SweepSpec, pareto_front, sweep
from designer.jobs import run
from designer.model import Convention, Drive
from designer.numeric.elastic import ElasticModelError
from designer.project import load_project
from tests.support import robot_path
from tests.support.explore_pin import PinArm, random_arm


def _ratings(rng, n, payload=0.0):
    return Ratings.of(n, stiffness=rng.uniform(1e3, 2e4, n), gear=rng.uniform(10, 80, n),
                      rotor=rng.uniform(1e-5, 1e-4, n), payload=payload)


@pytest.mark.parametrize("seed", range(3))
def test_frequency_deflection_compliance_against_pinocchio(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    arm = random_arm(rng, n, Convention.STANDARD)
    r = _ratings(rng, n, payload=2.0)
    ref = PinArm(arm)
    Q = rng.uniform(-np.pi, np.pi, (5, n))
    freq = evaluate(arm, Q, "frequency", r)
    sag = evaluate(arm, Q, "deflection", r)
    comp = evaluate(arm, Q, "compliance", r)
    K = np.diag(r.stiffness)
    for q, f, s, c in zip(Q, freq, sag, comp):
        assert f == pytest.approx(np.sqrt(eigh(K, ref.M(q), eigvals_only=True)[0]) / (2 * np.pi), rel=1e-9)
        J = ref.J(q)
        dq = -(ref.G(q) - J[:3].T @ (2.0 * arm.gravity)) / r.stiffness
        assert s == pytest.approx(1e3 * np.linalg.norm(J[:3] @ dq), rel=1e-9)
        assert c == pytest.approx(1e3 * np.linalg.eigvalsh(J[:3] @ np.linalg.inv(K) @ J[:3].T)[-1], rel=1e-9)
    assert np.all(evaluate(arm, Q, "frequency_free", r) > freq)   # free motors add no inertia at the spring


def test_metrics_without_stiffness_say_what_they_need():
    arm = random_arm(np.random.default_rng(0), 2, Convention.STANDARD)
    with pytest.raises(MetricError, match="stiffness"):
        evaluate(arm, np.zeros((1, 2)), "frequency", Ratings())
    with pytest.raises(MetricError, match="rotor inertia"):
        evaluate(arm, np.zeros((1, 2)), "frequency_free", Ratings.of(2, stiffness=1e3))
    with pytest.raises(ElasticModelError, match="rotor inertia"):
        evaluate(arm, np.zeros((1, 2)), "frequency_free", Ratings.of(2, stiffness=1e3, rotor=[1e-4, 0.0]))


def _elastic_two_link():
    model = load_project(robot_path("planar_two_link"))
    links = tuple(dataclasses.replace(l, drive=Drive(stiffness=k, gear_ratio=50.0, motor_inertia=1e-4))
                  for l, k in zip(model.links, (2e3, 1e3)))
    return dataclasses.replace(model, links=links)


def test_sweep_of_the_lowest_frequency_falls_with_the_link_mass_and_gives_a_pareto_front():
    """A heavier link can only lower every natural frequency (Rayleigh: M grows, K stays)."""
    from designer.explore.metrics import drive_ratings
    model = _elastic_two_link()
    spec = SweepSpec(axes=(SweepAxis.linspace("m2", 0.5, 3.0, 4),), metrics=("frequency", "deflection"),
                     stats=("min", "max"), samples=64, ratings=Ratings.of(2, **drive_ratings(model), payload=1.0))
    with cf.ThreadPoolExecutor(1) as pool:
        result = run(sweep(model, spec, executor=pool))
    lowest = result.column("frequency:min")
    assert np.all(np.diff(lowest) < 0) and not result.errors
    assert np.all(np.diff(result.column("deflection:max")) > 0)
    front = pareto_front(result.column("total_mass"), -lowest)
    assert front.any()


def test_cli_metric_reads_the_drive_data(capsys, tmp_path):
    from designer.project.io import dumps_project
    path = tmp_path / "elastic.json"
    path.write_text(dumps_project(_elastic_two_link()))
    code = main(["explore", str(path), "metric", "--q", "0.3", "0.5", "--metric", "frequency", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    row = out[0] if isinstance(out, list) else out
    assert "Hz" in json.dumps(row)
    code = main(["explore", str(robot_path("planar_two_link")), "metric", "--metric", "frequency"])
    err = capsys.readouterr().err
    assert code == 2 and "stiffness" in err and len(err.strip().splitlines()) == 1
