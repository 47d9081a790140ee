"""Closed chains whose nominal pose (every joint 0) does not close are assembled: the actuated joints kept at 0,
the passive ones moved until the loops close (designer.kinematics.closure.assemble), as a CAD assembly does.

Held to sides computed apart: the planar four-bar's circle intersection written here (the coupler's end on a circle
about the crank's tip, the rocker's end pinned to the ground point), Pinocchio's frames and constrained dynamics
(tests/support/closed_reference), and a physical bound (a coupler too short stretched straight: the gap left is
the distance minus the two bars' lengths). Before, each of these designs was refused ("cannot close at the nominal
pose"): a length sweep of the four-bar failed for every design but the nominal one, and its A/B did too."""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest

from designer.cli import main
from designer.kinematics.closure import Closure, ClosureError, mechanism_problems
from designer.kinematics.tree import TreeArm
from designer.model import Convention, Severity
from designer.numeric.closed import ClosedDynamics
from designer.project import load_project, save_project
from tests.support import robot_path
from tests.support.closed_reference import PinMechanism, four_bar, loop_conditions, pin_actuated_terms
from tests.support.random_models import Shapes, random_project


def _circles(model, L2: float):
    """The generated four-bar's passive angles (coupler, rocker) with the coupler ``L2`` long and the crank at 0,
    on the nominal pose's side (the generator's upper solution), from the two circles: its crank's tip B, the
    ground point D (standard convention, links crank, coupler, rocker of lengths links[k].a)."""
    crank, coupler, rocker = model.links
    L0 = model.loops[0].frame_j.xyz[0]
    phi = float(crank.theta)
    B = float(crank.a) * np.array([math.cos(phi), math.sin(phi)])
    D = np.array([float(L0), 0.0])
    L3 = float(rocker.a)
    dist = float(np.linalg.norm(D - B))
    a = (L2**2 - L3**2 + dist**2) / (2 * dist)
    h = math.sqrt(L2**2 - a**2)
    u = (D - B) / dist
    C = B + a * u + h * np.array([-u[1], u[0]])
    ang_bc, ang_cd = math.atan2(*(C - B)[::-1]), math.atan2(*(D - C)[::-1])
    return np.array([ang_bc - phi - float(coupler.theta), ang_cd - ang_bc - float(rocker.theta)])


def _wrap(x):
    return (np.asarray(x) + np.pi) % (2 * np.pi) - np.pi


def _coupler(model, L2: float):
    links = list(model.links)
    links[1] = replace(links[1], a=L2)
    return replace(model, links=tuple(links))


@pytest.mark.parametrize("seed", range(6))
def test_a_four_bar_with_another_coupler_is_assembled_where_the_circles_meet(seed):
    """The passive angles of the assembled pose are the circles' (to 1e-9 rad), the warning names the loop, the gap
    (the rocker's end moved along the coupler: the length's change) and those angles, and M_a, G_a, h_a there are
    Pinocchio's constrained dynamics'."""
    rng = np.random.default_rng(seed)
    model = four_bar(rng, Convention.STANDARD)
    L2 = float(model.links[1].a)
    longer = L2 * (1 + rng.choice([-1, 1]) * rng.uniform(0.03, 0.1))
    moved = _coupler(model, longer)
    tree = TreeArm.from_model(moved)
    closure = Closure(tree)
    want = _circles(model, longer)
    assert closure.reference[0] == 0.0
    assert np.abs(_wrap(closure.reference[1:] - want)).max() < 1e-9
    assert np.abs(loop_conditions(moved, closure.reference)).max() < 1e-10   # Pinocchio's frames: closed
    problems = mechanism_problems(tree)
    assert [p.severity for p in problems] == [Severity.WARNING]
    text = str(problems[0])
    assert text.startswith("loops[1] (four-bar): does not close at the nominal pose")
    gap = float(re.search(r"([-\d.e]+) mm apart", text).group(1))
    assert gap == pytest.approx(abs(longer - L2) * 1000, rel=1e-3)
    shown = [float(v) for v in re.findall(r"q\d = ([-\d.e]+) degrees", text)]
    assert np.allclose(shown, np.degrees(_wrap(want)), rtol=1e-3, atol=1e-3)
    # the dynamics at the assembled pose and at an actuated state near it, against Pinocchio's constrained dynamics
    cd, ref = ClosedDynamics(moved), PinMechanism(moved)
    for qa in (np.zeros(1), rng.uniform(-0.3, 0.3, 1)):
        q = cd.positions(qa)
        qd_a = rng.uniform(-1, 1, 1)
        M, G, h = pin_actuated_terms(ref, cd, q, qd_a)
        scale = max(1.0, float(np.abs(M).max()))
        assert np.abs(cd.M(qa) - M).max() < 1e-8 * scale
        assert np.abs(cd.G(qa) - G).max() < 1e-8 * max(1.0, float(np.abs(G).max()))
        assert np.abs(cd.h(qa, qd_a) - h).max() < 1e-8 * max(1.0, float(np.abs(h).max()))
    assert np.allclose(cd.positions(np.zeros(1)), closure.reference, atol=1e-12)


def test_a_coupler_too_short_to_reach_cannot_be_assembled():
    """Stretched straight, coupler and rocker leave |B - D| - (L2 + L3) open: the error names the loop and that gap;
    ClosedDynamics and validate refuse the design."""
    from designer.kinematics.closure import assemble
    model = four_bar(np.random.default_rng(1), Convention.STANDARD)
    crank, _, rocker = model.links
    B = float(crank.a) * np.array([math.cos(float(crank.theta)), math.sin(float(crank.theta))])
    dist = float(np.linalg.norm(np.array([float(model.loops[0].frame_j.xyz[0]), 0.0]) - B))
    short = 0.8 * (dist - float(rocker.a))
    moved = _coupler(model, short)
    with pytest.raises(ClosureError, match=r"loops\[1\] \(four-bar\): cannot be assembled") as info:
        assemble(TreeArm.from_model(moved))
    best = float(re.search(r"([-\d.e]+) mm apart at best", str(info.value)).group(1))
    assert best == pytest.approx((dist - short - float(rocker.a)) * 1000, rel=1e-3)
    problems = mechanism_problems(TreeArm.from_model(moved))
    assert [p.severity for p in problems] == [Severity.ERROR] and "at best" in problems[0].message
    with pytest.raises(ClosureError, match="cannot be assembled"):
        ClosedDynamics(moved)


def test_validate_warns_of_an_assembled_loop_and_refuses_one_that_cannot_be(tmp_path, capsys):
    doc = json.loads(robot_path("four_bar").read_text())
    doc["parameters"]["L2"] = 0.47
    path = tmp_path / "longer.json"
    path.write_text(json.dumps(doc))
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "warning: loops[1] (ground pin): does not close at the nominal pose (every joint 0)" in out
    assert "20 mm apart" in out and "1 warning(s)" in out
    doc["parameters"]["L2"] = 0.05   # crank at 90 degrees: |B - D| = 0.4272 m > 0.05 + 0.35
    path.write_text(json.dumps(doc))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "loops[1] (ground pin): cannot be assembled" in err
    best = float(re.search(r"([-\d.e]+) mm apart at best", err).group(1))
    assert best == pytest.approx((math.hypot(0.4, 0.15) - 0.4) * 1000, rel=1e-3)


def test_a_length_sweep_of_the_four_bar_gives_every_design_that_can_be_assembled(tmp_path):
    """21 coupler lengths: the two too short to reach (0.05 and 0.075 m: 0.35 m of rocker, |B - D| = 0.4272 m) are
    named, each in one line; every other design has its numbers, and one of them equals the same design opened as
    its own file. (On main: 20 of 21 designs refused.)"""
    from designer.explore.joints import explore_arm
    from designer.explore.maps import sample_configurations, summarize
    from designer.explore.metrics import compute
    from designer.explore.sweep import SweepAxis, SweepSpec, sweep
    from designer.jobs import run
    model = load_project(robot_path("four_bar"))
    spec = SweepSpec((SweepAxis.linspace("L2", 0.05, 0.55, 21),), ("gravity",), samples=16)
    with cf.ThreadPoolExecutor(1) as ex:
        res = run(sweep(model, spec, executor=ex, block=7))
    L2 = np.array([d["L2"] for d in res.designs])
    reach = L2 + 0.35 > math.hypot(0.4, 0.15)
    assert len(res.designs) == 21 and sorted(res.errors) == list(np.flatnonzero(~reach))
    assert all("cannot be assembled" in e and "\n" not in e for e in res.errors.values())
    assert np.all(np.isfinite(res.column("gravity:max")[reach]))
    k = 15
    doc = json.loads(robot_path("four_bar").read_text())
    doc["parameters"]["L2"] = float(L2[k])
    path = tmp_path / "design.json"
    path.write_text(json.dumps(doc))
    arm = explore_arm(load_project(path))
    q = sample_configurations(arm, 16)
    own = summarize(compute(arm, q, "gravity").max(axis=-1))
    assert res.column("gravity:max")[k] == pytest.approx(own["max"], rel=1e-12)
    assert res.column("gravity:mean")[k] == pytest.approx(own["mean"], rel=1e-12)
    assert res.column("total_mass")[k] == arm.total_mass()


def test_a_b_of_two_four_bars_with_different_couplers(tmp_path, capsys):
    """A/B against a variant with a 20 mm longer coupler: B's numbers are those of B opened as its own file
    (refused on main: "design B: ... cannot close at the nominal pose")."""
    from designer.explore.joints import explore_arm
    from designer.explore.metrics import compute
    model = load_project(robot_path("four_bar"))
    b_path = tmp_path / "b.json"
    save_project(model.with_parameters({"L2": 0.47}), b_path)
    assert main(["explore", str(robot_path("four_bar")), "compare", "--with", str(b_path), "--samples", "16",
                 "--format", "json"]) == 0
    rows = {(r["metric"], r["where"]): r for r in json.loads(capsys.readouterr().out)["rows"]}
    arm_a, arm_b = explore_arm(model), explore_arm(load_project(b_path))
    G_a, G_b = compute(arm_a, [np.zeros(1)], "gravity")[0], compute(arm_b, [np.zeros(1)], "gravity")[0]
    assert rows["gravity[1]", "pose"]["A"] == pytest.approx(float(np.ravel(G_a)[0]), rel=1e-12)
    assert rows["gravity[1]", "pose"]["B"] == pytest.approx(float(np.ravel(G_b)[0]), rel=1e-12)
    assert G_a != pytest.approx(G_b)


@pytest.mark.parametrize("cut", ["S", "F"])
@pytest.mark.parametrize("seed", range(3))
def test_a_spatial_loop_with_a_changed_length_assembles_and_matches_pinocchio(cut, seed):
    """A random spatial loop (ball or fixed cut) with one loop link's a or d 2 % of the mechanism longer: its
    reference pose closes on Pinocchio's frames with the actuated joints at 0, and M_a, G_a there are Pinocchio's
    constrained dynamics'."""
    rng = np.random.default_rng(100 + seed)
    model = random_project(rng, Shapes(joints="RRRR", loops=(cut,), planar=False))
    model = model.numeric()
    tree = TreeArm.from_model(model)
    i, j = tree.loops[0][:2]
    on_loop = sorted(set(tree.path(i) if i >= 0 else []) ^ set(tree.path(j) if j >= 0 else []))
    k = next(x for x in on_loop if abs(float(model.links[x].a)) > 0.05 or abs(float(model.links[x].d)) > 0.05)
    field = "a" if abs(float(model.links[k].a)) > 0.05 else "d"
    links = list(model.links)
    links[k] = replace(links[k], **{field: float(getattr(links[k], field)) + 0.02})
    moved = replace(model, links=tuple(links))
    tree = TreeArm.from_model(moved)
    problems = mechanism_problems(tree)
    assert [p.severity for p in problems] == [Severity.WARNING], problems
    q = Closure(tree).reference
    act = [x for x, link in enumerate(moved.links) if link.actuated]
    assert np.all(q[act] == 0.0) and np.any(q != 0.0)
    assert np.abs(loop_conditions(moved, q)).max() < 1e-10
    cd, ref = ClosedDynamics(moved), PinMechanism(moved, exact_cuts=True)
    qa = np.zeros(cd.n)
    assert np.allclose(cd.positions(qa), q, atol=1e-12)
    qd_a = rng.uniform(-1, 1, cd.n)
    M, G, h = pin_actuated_terms(ref, cd, q, qd_a)
    assert np.abs(cd.M(qa) - M).max() < 1e-7 * max(1.0, float(np.abs(M).max()))
    assert np.abs(cd.G(qa) - G).max() < 1e-7 * max(1.0, float(np.abs(G).max()))
