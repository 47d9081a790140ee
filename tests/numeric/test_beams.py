"""The links' bending at the tool against beam theory by hand (Euler-Bernoulli cantilevers)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from designer.kinematics.numeric import NumericArm
from designer.model import Link
from designer.model.manipulator import Convention, PointMass
from designer.model.parts import MATERIALS, Part
from designer.model.parts import link_beams
from designer.numeric.beams import beams_compliance, beams_sag

STEEL = MATERIALS["steel"]
D, T = 0.06, 0.004
R, r = D / 2, D / 2 - T
AREA = np.pi * (R**2 - r**2)
I_TUBE = np.pi * (R**4 - r**4) / 4


def Manipulator(links, gravity=(0, 0, -9.81), **kw):
    from designer.model import Manipulator as Model
    return Model(links=links, gravity=gravity, **kw)


def _tube(**kw) -> Part:
    return Part("tube", STEEL, {"outer_diameter": D, "wall": T}, **kw)


def _cantilever(L: float, gravity=(0, 0, -9.81)) -> tuple[NumericArm, tuple]:
    """One revolute joint about z, its link a tube along x of length L (standard DH, a = L)."""
    model = Manipulator((Link(a=L, part=_tube()),), gravity=gravity)
    return NumericArm.from_model(model), link_beams(model)


def test_tip_compliance_of_a_cantilever_tube_is_the_handbook_one():
    L = 0.8
    arm, beams = _cantilever(L)
    C = beams_compliance(arm, beams, [0.3])   # the joint angle only turns the beam
    c, s = np.cos(0.3), np.sin(0.3)
    R0 = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    local = np.zeros((6, 6))
    EI, EA, GJ = STEEL.young * I_TUBE, STEEL.young * AREA, STEEL.shear * 2 * I_TUBE
    local[0, 0] = L / EA                                  # axial
    local[1, 1] = local[2, 2] = L**3 / (3 * EI)           # tip force across
    local[3, 3] = L / GJ                                  # twist
    local[4, 4] = local[5, 5] = L / EI                    # tip moment across
    local[2, 4] = local[4, 2] = -L**2 / (2 * EI)          # a force along z turns the tip about -y
    local[1, 5] = local[5, 1] = L**2 / (2 * EI)           # a force along y turns it about +z
    X = np.zeros((6, 6))
    X[:3, :3] = X[3:, 3:] = R0
    assert np.allclose(C, X @ local @ X.T, rtol=1e-10, atol=1e-16)


def test_compliance_is_symmetric_positive_semidefinite_on_random_arms():
    rng = np.random.default_rng(4)
    for _ in range(10):
        n = int(rng.integers(2, 6))
        links = []
        for _ in range(n):
            a, d = rng.uniform(0.1, 0.6), rng.uniform(-0.3, 0.3)
            links.append(Link(a=a, d=d, alpha=float(rng.choice([0, np.pi / 2, -np.pi / 2, 0.4])), part=_tube()))
        conv = Convention.STANDARD if rng.random() < 0.5 else Convention.MODIFIED
        if conv is Convention.MODIFIED:   # the last link's segment runs to a tool frame
            links[-1] = Link(a=links[-1].a, alpha=links[-1].alpha, mass=2)
        model = Manipulator(tuple(links), convention=conv)
        arm, beams = NumericArm.from_model(model), link_beams(model)
        C = beams_compliance(arm, beams, rng.uniform(-np.pi, np.pi, n))
        assert np.allclose(C, C.T, atol=1e-14 * np.abs(C).max())
        assert np.linalg.eigvalsh(C).min() > -1e-12 * np.abs(C).max()


def test_compliance_moves_the_tool_as_the_deflected_beams_do():
    """Reciprocity check: the tool's deflection from C equals the deflection of the tool point
    computed link by link (each beam's tip deflection and rotation carried rigidly outwards)."""
    L1, L2 = 0.5, 0.4
    model = Manipulator((Link(a=L1, part=_tube()), Link(a=L2, part=_tube())))
    arm, beams = NumericArm.from_model(model), link_beams(model)
    q = [0.0, 0.0]   # both links along x: a force F along z at the tool (x = L1 + L2)
    C = beams_compliance(arm, beams, q)
    EI = STEEL.young * I_TUBE
    # link 2: a cantilever of L2 with the force at its tip; link 1: force F at distance L1 + L2,
    # so its tip sees F and a moment F L2 about -y: deflection F L1^3/3EI + F L2 L1^2/2EI, and its
    # tip rotation F L1^2/2EI + F L2 L1/EI carried over L2
    expected = (L2**3 / (3 * EI) + L1**3 / (3 * EI) + L2 * L1**2 / (2 * EI)
                + L2 * (L1**2 / (2 * EI) + L2 * L1 / EI))
    assert C[2, 2] == pytest.approx(expected, rel=1e-10)


def test_sag_under_own_weight_and_payload_is_the_handbook_one():
    L = 1.2
    arm, beams = _cantilever(L)
    w = STEEL.density * AREA * 9.81   # N/m
    EI = STEEL.young * I_TUBE
    sag = beams_sag(arm, beams, [0.0])
    assert sag[2] == pytest.approx(-w * L**4 / (8 * EI), rel=1e-10)          # uniform load: w L^4 / 8EI
    assert sag[4] == pytest.approx(w * L**3 / (6 * EI), rel=1e-10)           # tip slope: w L^3 / 6EI
    P = 5.0 * 9.81
    with_payload = beams_sag(arm, beams, [0.0], payload=5.0)
    assert with_payload[2] - sag[2] == pytest.approx(-P * L**3 / (3 * EI), rel=1e-10)
    # pointing straight up, the weight only shortens the tube: (w L^2 / 2 + P L) / EA
    up = Manipulator((Link(a=L, alpha=0, part=_tube()),), gravity=(-9.81, 0, 0))
    arm_up, beams_up = NumericArm.from_model(up), link_beams(up)
    axial = beams_sag(arm_up, beams_up, [0.0], payload=5.0)
    EA = STEEL.young * AREA
    assert axial[0] == pytest.approx(-(w * L**2 / 2 + P * L) / EA, rel=1e-10)
    assert np.allclose(axial[1:], 0, atol=1e-15)


def test_point_masses_between_the_joint_and_a_section_are_not_carried_by_it():
    """A motor mass at the root of the link hangs from the joint, not from the beam."""
    L = 0.8
    model = Manipulator((Link(a=L, part=_tube()),))
    at_root = Manipulator(model.links, point_masses=(PointMass(1, 10.0, (-L, 0, 0)),))
    at_tip = Manipulator(model.links, point_masses=(PointMass(1, 10.0, (0, 0, 0)),))
    base = beams_sag(NumericArm.from_model(model), link_beams(model), [0.0])
    root = beams_sag(NumericArm.from_model(at_root), link_beams(at_root), [0.0])
    tip = beams_sag(NumericArm.from_model(at_tip), link_beams(at_tip), [0.0])
    assert root[2] == pytest.approx(base[2], rel=1e-12)
    EI = STEEL.young * I_TUBE
    assert tip[2] - base[2] == pytest.approx(-10 * 9.81 * L**3 / (3 * EI), rel=1e-10)


def test_no_part_no_bending():
    model = Manipulator((Link(a=0.5, mass=2), Link(a=0.3, mass=sp.Integer(1))))
    arm = NumericArm.from_model(model)
    assert link_beams(model) == ()
    assert np.all(beams_compliance(arm, (), [0.1, 0.2]) == 0)


def test_explore_metrics_and_a_sweep_over_the_tube_diameter():
    """The sweep's mass is the sum of the parts (and point masses); the sag metric is the beams' own
    sag at each design, and thicker tubes sag less."""
    from designer.explore.metrics import evaluate
    from designer.explore.sweep import SweepAxis, SweepSpec, sweep
    from designer.project.io import load_project
    from tests.support import robot_path

    model = load_project(robot_path("tube_arm"))
    arm = NumericArm.from_model(model)
    q = np.array([[0.0, -0.3, 0.5], [0.4, -1.2, 1.0]])
    sag = evaluate(arm, q, "deflection_links")
    for row, value in zip(q, sag):
        assert value == pytest.approx(1e3 * np.linalg.norm(beams_sag(arm, arm.beams, row)[:3]), rel=1e-12)
    spec = SweepSpec(axes=(SweepAxis("D2", (0.06, 0.09, 0.12)),), metrics=("deflection_links",), samples=64)
    import concurrent.futures as cf

    from designer.jobs import run
    with cf.ThreadPoolExecutor(1) as pool:
        result = run(sweep(model, spec, executor=pool))
    values = model.parameter_values
    for k, D in enumerate((0.06, 0.09, 0.12)):
        expected = 0.0   # the parts, by hand: rho * pi (R^2 - r^2) * L
        for rho, Dk, t, L in ((2680, values["D1"], values["t1"], values["d1"]),
                              (2700, D, values["t2"], values["L2"]), (1600, values["D3"], values["t3"], values["L3"])):
            expected += rho * np.pi * ((Dk / 2) ** 2 - (Dk / 2 - t) ** 2) * L
        expected += sum(float(p.mass) for p in model.point_masses)
        assert result.column("total_mass")[k] == pytest.approx(expected, rel=1e-12)
    worst = result.column("deflection_links:max")
    assert worst[0] > worst[1] > worst[2] > 0


def test_a_sweep_over_materials_equals_each_material_set_by_hand():
    import concurrent.futures as cf
    from dataclasses import replace

    from designer.explore.metrics import evaluate
    from designer.explore.maps import Sampling, sample_configurations
    from designer.explore.sweep import SweepAxis, SweepSpec, sweep
    from designer.jobs import run
    from designer.project.io import load_project
    from tests.support import robot_path

    model = load_project(robot_path("tube_arm"))
    names = ("steel", "CFRP", "titanium Ti-6Al-4V")
    spec = SweepSpec(axes=(SweepAxis.materials(2, names),), metrics=("deflection_links",), stats=("max",), samples=32)
    with cf.ThreadPoolExecutor(1) as pool:
        result = run(sweep(model, spec, executor=pool))
    for k, name in enumerate(names):
        link = model.links[1]
        by_hand = model.with_link(1, replace(link, part=replace(link.part, material=MATERIALS[name])))
        arm = NumericArm.from_model(by_hand)
        assert result.column("total_mass")[k] == pytest.approx(arm.total_mass(), rel=1e-12)
        q = sample_configurations(arm, 32, Sampling.SOBOL, 0)
        by_hand = np.nanmax(evaluate(arm, q, "deflection_links"))
        assert result.column("deflection_links:max")[k] == pytest.approx(by_hand, rel=1e-12)


@pytest.mark.parametrize("axis, message", [
    (("material[9]", ("steel",)), "link 9 is not made as a part"),
    (("material[2]", ("wood",)), "unknown material(s) wood"),
])
def test_a_bad_material_axis_is_refused(axis, message):
    from designer.explore.sweep import SweepAxis, SweepSpec, sweep
    from designer.jobs import run
    from designer.project.io import load_project
    from tests.support import robot_path

    model = load_project(robot_path("tube_arm"))
    spec = SweepSpec(axes=(SweepAxis(axis[0], (0.0,), axis[1]),), metrics=("deflection_links",), samples=8)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run(sweep(model, spec))


def test_deflection_and_compliance_add_the_gearboxes_and_the_links():
    """With joint stiffness and part-made links, the totals are the two shares superposed; a
    cantilever on a joint of stiffness k sags by the beam's w L^4/8EI plus the joint's (m g L/2) L/k."""
    from designer.explore.metrics import Ratings, evaluate
    L, k = 1.0, 2e4
    arm, beams = _cantilever(L, gravity=(0, -9.81, 0))   # in the joint's plane: the gearbox feels it
    q = np.array([[0.0]])
    rigid = Ratings.of(1)
    springy = Ratings.of(1, stiffness=k)
    links = evaluate(arm, q, "deflection_links", rigid)[0]
    assert evaluate(arm, q, "deflection", rigid)[0] == pytest.approx(links, rel=1e-12)
    w = STEEL.density * AREA * 9.81
    EI = STEEL.young * I_TUBE
    assert links == pytest.approx(1e3 * w * L**4 / (8 * EI), rel=1e-10)
    joint = 1e3 * (w * L * L / 2) * L / k   # the holding torque m g L/2 over k, times the lever L
    assert evaluate(arm, q, "deflection", springy)[0] == pytest.approx(links + joint, rel=1e-9)
    C_links = evaluate(arm, q, "compliance_links", rigid)[0]
    assert C_links == pytest.approx(1e3 * L**3 / (3 * EI), rel=1e-10)   # mm/N: a tip force across
    assert evaluate(arm, q, "compliance", springy)[0] == pytest.approx(C_links + 1e3 * L**2 / k, rel=1e-9)


def test_a_beams_section_axes_at_numbers_are_the_symbolic_ones():
    """link_beams takes a beam's axes from numpy (section_axes_at, no SymPy matrix per evaluation): the same axes as
    the symbolic section_axes of the part's body, on random segments, along each axis and along z (e1 then x)."""
    from designer.model.parts import section_axes, section_axes_at
    rng = np.random.default_rng(3)
    segments = list(rng.uniform(-1, 1, (20, 3))) + [np.array(v, float) for v in
                                                     ((0, 0, 0.4), (0, 0, -2), (0.3, 0, 0), (0, -0.2, 0), (1e-9, 0, 1))]
    for r in segments:
        expected = np.array([[float(c) for c in v] for v in section_axes(sp.Matrix(r))])
        axes = section_axes_at(r)
        assert np.allclose(axes, expected, rtol=0, atol=1e-15), r
        assert np.allclose(axes @ axes.T, np.eye(3), atol=1e-8) and np.linalg.det(axes) == pytest.approx(1)
    from designer.project import load_project
    from tests.support import robot_path
    model = load_project(robot_path("tube_arm_requirements"))
    for beam in link_beams(model, {"L2": 0.45}):   # the beams' axes are the symbolic ones at those values
        expected = np.array([[float(c) for c in v] for v in section_axes(sp.Matrix(beam.end - beam.start))])
        assert np.allclose(beam.axes, expected, rtol=0, atol=1e-15)
