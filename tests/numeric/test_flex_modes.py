"""Natural frequencies with the links' bending (numeric/flex_modes.py): the virtual-joint model against the
Euler-Bernoulli cantilever with a tip mass (root finding here), its static tool compliance against
numeric/beams.py's integral, the rigid limits, and Rayleigh's monotonicity."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from designer.kinematics import NumericArm
from designer.model import Drive, Link, Manipulator, PointMass, Pose
from designer.model.parts import MATERIALS, Part
from designer.numeric.elastic import ElasticJoints, elastic_joints
from designer.numeric.engine import arm_dynamics
from designer.numeric.flex_modes import flex_mode_field, flex_modes, flex_tool_compliance, lowest_flex_frequency
from designer.numeric.modes import locked_modes
from designer.numeric.stiffness import tool_compliance
from designer.project.io import load_project
from tests.support import robot_path

STEEL = MATERIALS["steel"]


def _cantilever(L: float, D: float, t: float, tip: float, stiffness=None) -> Manipulator:
    """One steel tube of length L along x (standard DH a = L) clamped at a joint about z, ``tip`` kg at its end;
    the joint rigid unless ``stiffness`` is given."""
    link = Link(a=L, part=Part("tube", STEEL, (("outer_diameter", D), ("wall", t))),
                drive=None if stiffness is None else Drive(stiffness=stiffness))
    return Manipulator(links=(link,), name="cantilever", parameters={"g": 9.81},
                       point_masses=(PointMass(1, tip, (0, 0, 0)),) if tip else ())


def _euler_bernoulli(L: float, EI: float, mu: float, tip: float) -> float:
    """First bending frequency (Hz) of a clamped-free beam with a tip point mass:
    1 + cos bL cosh bL + (m_tip / m_beam) bL (cos bL sinh bL - sin bL cosh bL) = 0, w = (bL)^2 sqrt(EI / (mu L^4))."""
    r = tip / (mu * L)

    def f(x):
        return 1 + math.cos(x) * math.cosh(x) + r * x * (math.cos(x) * math.sinh(x) - math.sin(x) * math.cosh(x))
    x = brentq(f, 1e-6, 1.8751041 + 1e-9)   # the first root lies below the bare cantilever's 1.8751
    return x ** 2 * math.sqrt(EI / (mu * L ** 4)) / (2 * math.pi)


@pytest.mark.parametrize("tip_ratio", [0.0, 0.5, 2.0])
def test_cantilever_with_tip_mass_converges_to_euler_bernoulli(tip_ratio):
    """Error shrinks with the segments: within 1 % at 2, 0.3 % at 4, 0.1 % at 8 (second order)."""
    L, D, t = 1.0, 0.03, 0.002
    arm0 = NumericArm.from_model(_cantilever(L, D, t, 0.0))
    beam = arm0.beams[0]
    tip = tip_ratio * beam.mass_per_length * L
    arm = NumericArm.from_model(_cantilever(L, D, t, tip))
    assert beam.ei1 == pytest.approx(beam.ei2)
    # Euler-Bernoulli leaves out the section's rotary inertia: for this tube (r_g/L = 0.01) f1 lies ~2e-4 below
    hand = _euler_bernoulli(L, beam.ei1, beam.mass_per_length, tip)
    joints = ElasticJoints.of(1)
    errors = []
    for segments, tol in ((2, 1e-2), (4, 3e-3), (8, 1e-3)):
        f = flex_modes(arm, joints, np.array([0.4]), segments).frequency
        assert f[0] == pytest.approx(f[1], rel=1e-9)   # two bending planes, equal for a tube
        errors.append(abs(f[0] - hand) / hand)
        assert errors[-1] < tol, (segments, f[0], hand)
    assert errors[0] > errors[1] > errors[2]


def test_the_static_tool_compliance_is_the_beam_integral_for_any_segments():
    rng = np.random.default_rng(7)
    model = load_project(robot_path("tube_arm"))
    arm, joints = NumericArm.from_model(model), elastic_joints(model)
    for _ in range(5):
        q = rng.uniform(-2, 2, arm.n)
        C = tool_compliance(arm, joints, q)
        for segments in (1, 3, 5):
            np.testing.assert_allclose(flex_tool_compliance(arm, joints, q, segments), C, rtol=1e-10,
                                       atol=1e-12 * np.abs(C).max())


def test_without_beams_the_frequencies_are_the_rigid_link_ones():
    """No part-made link: the virtual-joint model is the joints' own problem (modes.py over the engine's M)."""
    model = load_project(robot_path("puma560"))
    rng = np.random.default_rng(3)
    arm = NumericArm.from_model(model)
    joints = ElasticJoints.of(arm.n, rng.uniform(1e3, 5e4, arm.n))
    q = rng.uniform(-2, 2, (20, arm.n))
    rigid = locked_modes(arm_dynamics(arm).M(q), joints).frequency
    np.testing.assert_allclose(flex_modes(arm, joints, q, count=6).frequency, rigid, rtol=1e-9)
    np.testing.assert_allclose(lowest_flex_frequency(arm, joints, q), rigid[:, 0], rtol=1e-9)


def test_infinitely_stiff_links_recover_the_rigid_link_frequency_and_soft_ones_lower_it():
    model = load_project(robot_path("tube_arm"))
    arm, joints = NumericArm.from_model(model), elastic_joints(model)
    q = np.random.default_rng(5).uniform(-2, 2, (16, arm.n))
    rigid = locked_modes(arm_dynamics(arm).M(q), joints).frequency
    stiff = dataclasses.replace(arm, beams=tuple(dataclasses.replace(b, ea=math.inf, gj=math.inf, ei1=math.inf,
                                                                     ei2=math.inf) for b in arm.beams))
    np.testing.assert_allclose(flex_modes(stiff, joints, q, count=3).frequency, rigid, rtol=1e-9)
    # a stiffer material approaches the rigid links from below (Rayleigh: more compliance, lower frequencies)
    previous = None
    for factor in (1.0, 10.0, 1e3, 1e6):
        harder = dataclasses.replace(arm, beams=tuple(dataclasses.replace(
            b, ea=b.ea * factor, gj=b.gj * factor, ei1=b.ei1 * factor, ei2=b.ei2 * factor) for b in arm.beams))
        f = lowest_flex_frequency(harder, joints, q)
        assert np.all(f <= rigid[:, 0] * (1 + 1e-12))
        if previous is not None:
            assert np.all(f >= previous)
        previous = f
    np.testing.assert_allclose(previous, rigid[:, 0], rtol=1e-5)


def test_the_strain_energy_splits_between_gearboxes_and_links():
    """A very stiff gearbox with a soft tube: the lowest mode is the tube's bending; a soft gearbox with a stiff
    tube: the gearbox's. The shares of each mode sum to 1."""
    L, D, t = 1.0, 0.03, 0.002
    for k, where in ((1e9, "link 1"), (50.0, "joints")):
        arm = NumericArm.from_model(_cantilever(L, D, t, 2.0, stiffness=k))
        joints = ElasticJoints.of(1, [k])
        modes = flex_modes(arm, joints, np.array([0.0]))
        np.testing.assert_allclose(modes.energy.sum(axis=-1), 1.0, rtol=1e-9)
        assert modes.energy[0, modes.groups.index(where)] > 0.99


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_compliance_consistency_and_rigid_limit_on_random_part_made_arms(convention):
    """Random DH numbers, a prismatic joint among revolute ones, tubes and a box section of different materials,
    point masses: the model's static tool compliance is beams.py's plus J K^-1 J^T, and infinitely stiff
    links give modes.py's frequencies over the engine's M."""
    rng = np.random.default_rng(21 if convention == "standard" else 22)
    for _ in range(3):
        links = []
        for i in range(4):
            box = (("width", rng.uniform(0.05, 0.1)), ("height", rng.uniform(0.05, 0.1)), ("wall", 0.005))
            shape = ("tube", (("outer_diameter", rng.uniform(0.04, 0.1)), ("wall", 0.004))) if i % 2 else \
                ("box_section", box)
            material = MATERIALS[("steel", "aluminium 6061-T6", "CFRP", "cast iron")[i]]
            links.append(Link(joint="P" if i == 2 else "R", a=rng.uniform(0.2, 0.6), alpha=rng.uniform(-1.5, 1.5),
                              d=rng.uniform(0.1, 0.4), part=Part(shape[0], material, shape[1]),
                              limits=(0.0, 0.5) if i == 2 else None))
        model = Manipulator(links=tuple(links), convention=convention, parameters={"g": 9.81},
                            point_masses=(PointMass(2, 3.0, (0, 0, 0)), PointMass(4, 1.0, (0.05, 0, 0))),
                            tool=Pose((0.3, 0.05, 0.1)))   # the modified convention's last link runs to the tool
        arm = NumericArm.from_model(model)
        joints = ElasticJoints.of(4, rng.uniform(5e3, 5e4, 4))
        q = rng.uniform(-1, 1, 4)
        q[2] = 0.2
        C = tool_compliance(arm, joints, q)
        np.testing.assert_allclose(flex_tool_compliance(arm, joints, q, 3), C, rtol=1e-9, atol=1e-12 * np.abs(C).max())
        stiff = dataclasses.replace(arm, beams=tuple(dataclasses.replace(b, ea=math.inf, gj=math.inf, ei1=math.inf,
                                                                         ei2=math.inf) for b in arm.beams))
        rigid = locked_modes(arm_dynamics(arm).M(q), joints).frequency
        np.testing.assert_allclose(flex_modes(stiff, joints, q, count=4).frequency, rigid, rtol=1e-8)
        assert lowest_flex_frequency(arm, joints, q) < rigid[0]


def test_a_modes_centre_line_is_the_euler_bernoulli_mode_shape():
    """The bare cantilever's first mode drawn as its centre line (flex_mode_field): the deflection along the tube,
    across it, follows phi(x) = cosh bx - cos bx - s (sinh bx - sin bx), bL = 1.8751, to 1 % of the tip's;
    the frequencies are flex_modes' and the root does not move."""
    L, D, t, segments = 1.0, 0.03, 0.002, 16
    arm = NumericArm.from_model(_cantilever(L, D, t, 0.0))
    joints = ElasticJoints.of(1)
    field = flex_mode_field(arm, joints, np.array([0.4]), segments)
    np.testing.assert_allclose(field.frequency, flex_modes(arm, joints, np.array([0.4]), segments).frequency,
                               rtol=1e-12)
    assert list(field.beams) == [0] and field.slices.tolist() == [0, 2 * segments + 2]
    axis = np.array([math.cos(0.4), math.sin(0.4), 0.0])
    x = field.points @ axis                                                        # arc length from the joint
    np.testing.assert_allclose(np.sort(x), x, atol=1e-15)
    d = field.displacement[:, :, 0]
    assert abs(d[:, :] @ axis).max() < 1e-9 * abs(d).max()                         # bending moves across the tube
    across = d - np.outer(d @ axis, axis)
    direction = across[-1] / np.linalg.norm(across[-1])
    w = across @ direction
    b = 1.8751040687 / L
    s = (math.cosh(b * L) + math.cos(b * L)) / (math.sinh(b * L) + math.sin(b * L))
    phi = np.cosh(b * x) - np.cos(b * x) - s * (np.sinh(b * x) - np.sin(b * x))
    np.testing.assert_allclose(w / w[-1], phi / phi[-1], atol=1e-2)
    assert abs(w[0]) < 1e-12 and np.all(field.joint_shape == 0.0)                # the rigid joint stays


def test_a_gearbox_mode_turns_the_stiff_tube_about_the_joint_axis():
    """A soft gearbox and a stout steel tube: the lowest mode is mostly the joint's turn, and every centre-line point
    moves by joint_shape * (z x p), the rigid rotation about the joint axis (z of frame 0) through the origin."""
    arm = NumericArm.from_model(_cantilever(0.8, 0.05, 0.004, 2.0, stiffness=50.0))
    field = flex_mode_field(arm, ElasticJoints.of(1, [50.0]), np.array([-0.7]), 8)
    rotation = field.joint_shape[0, 0] * np.cross([0.0, 0.0, 1.0], field.points)
    np.testing.assert_allclose(field.displacement[:, :, 0], rotation, atol=1e-3 * abs(rotation).max())
    assert field.energy[0, field.groups.index("joints")] > 0.99
