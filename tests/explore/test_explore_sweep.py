"""Design sweeps: summaries against hand formulas, Pareto fronts, executors (threads, processes, Dask), cancel."""

from __future__ import annotations

import concurrent.futures as cf

import numpy as np
import pytest

from tests.support import robot_path
from designer.explore.maps import grid_map, sample_summary, variation, workspace_map, sample_configurations
from designer.explore.sweep import SweepAxis, SweepSpec, pareto_front, sweep
from designer.jobs import CancelToken, Cancelled, run
from designer.kinematics import NumericArm
from designer.project import load_project


@pytest.fixture(scope="module")
def model():
    return load_project(robot_path("planar_two_link"))


def _rho_max(p, m2):
    """Planar two-link: |rho_12| is largest at q2 = 0 (cos q2 = 1)."""
    m12 = p["I2"] + m2 * (p["d2"]**2 + p["L1"] * p["d2"])
    m22 = p["I2"] + m2 * p["d2"]**2
    m11 = p["I1"] + p["I2"] + p["m1"] * p["d1"]**2 + m2 * (p["L1"]**2 + p["d2"]**2 + 2 * p["L1"] * p["d2"])
    return m12 / np.sqrt(m11 * m22)


def test_one_parameter_sweep_on_threads(model):
    p = model.parameter_values
    spec = SweepSpec((SweepAxis("m2", (0.5, 1.0, 2.0, 4.0)),), ("coupling[1,2]", "gravity[1]"), ("max", "mean"),
                     samples=512)
    with cf.ThreadPoolExecutor(2) as ex:
        res = run(sweep(model, spec, executor=ex, block=1))
    assert res.shape == (4,) and not res.errors
    for k, m2 in enumerate((0.5, 1.0, 2.0, 4.0)):
        assert res.values["coupling[1,2]:max"][k] == pytest.approx(_rho_max(p, m2), rel=2e-3)
        # gravity on joint 1 is largest with both links horizontal and straight
        g1 = p["g"] * (p["m1"] * p["d1"] + m2 * (p["L1"] + p["d2"]))
        assert res.values["gravity[1]:max"][k] == pytest.approx(g1, rel=1e-2)
        assert res.values["gravity[1]:max"][k] <= g1 * (1 + 1e-12)
        assert res.values["total_mass"][k] == pytest.approx(p["m1"] + m2)
        assert res.values["reach"][k] == pytest.approx(p["L1"] + p["L2"], rel=1e-3)
    assert np.all(np.diff(res.values["coupling[1,2]:max"]) > 0)   # heavier outer link couples more


def test_two_parameter_sweep_in_processes_with_pareto(model):
    spec = SweepSpec((SweepAxis.linspace("L2", 0.4, 1.2, 3), SweepAxis.linspace("m2", 0.5, 2.0, 3)),
                     ("gravity[1]",), ("max",), samples=256)
    res = run(sweep(model, spec))             # default: two worker processes
    assert res.shape == (3, 3) and len(res.rows()) == 9
    peak, reach = res.column("gravity[1]:max"), res.column("reach")
    front = res.pareto("gravity[1]:max", "reach", minimize=(True, False))
    # a design is on the front iff nothing has less peak torque and at least its reach (or vice versa)
    for i in range(9):
        beaten = any(peak[j] <= peak[i] and reach[j] >= reach[i] and (peak[j] < peak[i] or reach[j] > reach[i])
                     for j in range(9) if j != i)
        assert front[i] == (not beaten)
    assert front.any()


def test_pareto_front_by_hand():
    a = [1, 2, 3, 2, np.nan, 1]
    b = [3, 2, 1, 3, 0, 4]
    assert pareto_front(a, b).tolist() == [True, True, True, False, False, False]
    assert pareto_front(a, b, (False, False)).tolist() == [False, False, True, True, False, True]


def test_sweep_cancel_and_bad_input(model):
    spec = SweepSpec((SweepAxis.linspace("m2", 0.5, 2.0, 40),), ("cond",), samples=64)
    token = CancelToken()
    with cf.ThreadPoolExecutor(1) as ex:
        job = sweep(model, spec, executor=ex, block=1, token=token)
        next(job)
        token.cancel()
        with pytest.raises(Cancelled):
            run(job)
    with pytest.raises(ValueError, match="not a symbol"):
        run(sweep(model, SweepSpec((SweepAxis("nope", (1.0,)),), ("cond",))))
    with pytest.raises(ValueError, match="statistic"):
        run(sweep(model, SweepSpec((SweepAxis("m2", (1.0,)),), ("cond",), ("median",))))


def test_sweep_on_a_local_dask_cluster(model):
    distributed = pytest.importorskip("dask.distributed")
    spec = SweepSpec((SweepAxis("m2", (0.5, 2.0)),), ("coupling[1,2]",), ("max",), samples=256)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        res = run(sweep(model, spec, executor=client.get_executor()))
    p = model.parameter_values
    assert res.values["coupling[1,2]:max"] == pytest.approx([_rho_max(p, 0.5), _rho_max(p, 2.0)], rel=2e-3)


def test_grid_map_and_samples(model):
    arm = NumericArm.from_model(model)
    gm = grid_map(arm, "coupling[1,2]", (1, 2), steps=(7, 5))
    assert gm.values.shape == (5, 7)
    # coupling depends on q2 only: constant along each row
    assert np.ptp(gm.values, axis=1) == pytest.approx(np.zeros(5), abs=1e-12)
    p = model.parameter_values
    assert gm.values[2, 0] == pytest.approx(_rho_max(p, p["m2"]))   # y = 0 is the middle row
    s = sample_summary(arm, "cond", count=128, method="random", seed=3)
    assert s.values.shape == (128,) and s.stats["min"] >= 1.0 and s.stats["min"] <= s.stats["p50"] <= s.stats["max"]
    q = sample_configurations(arm, 200)
    assert np.all(q >= -np.pi) and np.all(q <= np.pi)
    pts, vals = workspace_map(arm, "gravity[2]", count=64)
    assert np.linalg.norm(pts[:, :2], axis=1).max() <= p["L1"] + p["L2"] + 1e-12
    assert np.allclose(pts[:, 2], 0)


def test_variation_of_the_mass_matrix(model):
    """M22 is constant, M12 = I2 + m2 (d2^2 + L1 d2 cos q2) varies between its extremes at q2 = 0, pi."""
    arm = NumericArm.from_model(model)
    p = model.parameter_values
    q = np.column_stack([np.zeros(181), np.linspace(-np.pi, np.pi, 181)])
    v = variation(arm, q)
    assert v["ratio"][1, 1] == pytest.approx(1.0)
    hi = p["I2"] + p["m2"] * (p["d2"]**2 + p["L1"] * p["d2"])
    lo = p["I2"] + p["m2"] * (p["d2"]**2 - p["L1"] * p["d2"])
    assert v["max"][0, 1] == pytest.approx(hi) and v["min"][0, 1] == pytest.approx(lo)
    assert v["ratio"][0, 1] == (np.inf if lo < 0 < hi else pytest.approx(abs(hi) / abs(lo)))
