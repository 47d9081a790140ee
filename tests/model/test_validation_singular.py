"""check_model (the model's validation and the numeric M check) warns about an arm whose mass matrix
is singular at every pose (issue 9, item 4)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from designer.model import Convention, Inertia, JointType, Link, Manipulator
from designer.model.validation import Severity
from designer.numeric.checks import check_model


def _arm(tip_inertia_zz: float, tip_joint: JointType = JointType.REVOLUTE, seed: int = 0) -> Manipulator:
    rng = np.random.default_rng(seed)
    links = [Link(JointType.REVOLUTE, a=float(rng.uniform(0.1, 0.5)), alpha=float(rng.uniform(-3, 3)),
                  d=float(rng.uniform(-0.2, 0.2)), theta=0, mass=float(rng.uniform(1, 3)),
                  com=tuple(float(c) for c in rng.uniform(-0.1, 0.1, 3)),
                  inertia=Inertia(0.1, 0.12, 0.08, 0.01, 0.0, -0.005)) for _ in range(3)]
    # last link: its mass on its own joint axis (standard DH: frame i-1's z is joint i's axis, and
    # with a = alpha = 0 frame i's z is the same line), and no inertia about that axis
    links.append(Link(tip_joint, a=0, alpha=0, d=0, theta=0, mass=1.0, com=(0, 0, 0.1),
                      inertia=Inertia(0.1, 0.1, tip_inertia_zz)))
    return Manipulator(links=tuple(links), convention=Convention.STANDARD, gravity=(0, 0, -9.81))


def _singular_warnings(model: Manipulator) -> list:
    return [p for p in check_model(model) if p.severity is Severity.WARNING and "singular" in p.message]


def test_a_point_mass_on_the_last_joint_axis_is_warned_about_naming_the_joint():
    found = _singular_warnings(_arm(0.0))
    assert [p.where for p in found] == ["links[4]"]


def test_the_same_arm_with_inertia_about_the_axis_is_not():
    assert _singular_warnings(_arm(1e-4)) == []


def test_a_prismatic_tip_with_mass_is_not_singular():
    # along its axis a prismatic joint moves the link's mass: no inertia about the axis is needed
    assert _singular_warnings(_arm(0.0, JointType.PRISMATIC)) == []


@given(st.integers(0, 2**32 - 1))
def test_random_arms_with_full_inertias_are_never_warned_about(seed):
    assert _singular_warnings(_arm(0.05, seed=seed)) == []


def _warned_joints(model: Manipulator) -> list[str]:
    return [p.where for p in _singular_warnings(model)]


def test_two_coaxial_revolute_joints_are_warned_about():
    # standard DH: a = alpha = 0 on link 1 puts joint 2's axis on joint 1's; with link 1 massless
    # (a motor housing counted elsewhere) M has the null vector (1, -1, 0)
    inertia = Inertia(0.1, 0.12, 0.08, 0.01, 0.0, -0.005)
    links = (Link(JointType.REVOLUTE, d=0.2, mass=0.0),
             Link(JointType.REVOLUTE, a=0.4, alpha=1.0, mass=2.0, com=(0.1, 0.1, 0), inertia=inertia),
             Link(JointType.REVOLUTE, a=0.3, mass=1.0, com=(0.1, 0, 0), inertia=inertia))
    model = Manipulator(links=links, gravity=(0, 0, -9.81))
    assert _warned_joints(model) == ["links[2]"]
    assert "joints 1, 2" in _singular_warnings(model)[0].message


def test_two_parallel_prismatic_joints_are_warned_about():
    # standard DH, alpha = 0 on link 1: both slide along z0; link 1 massless, so (1, -1, 0) moves nothing
    links = (Link(JointType.PRISMATIC, alpha=0.0, mass=0.0), Link(JointType.PRISMATIC, alpha=1.2, mass=1.0),
             Link(JointType.PRISMATIC, mass=1.0))
    assert _warned_joints(Manipulator(links=links, gravity=(0, 0, -9.81))) == ["links[2]"]


def test_a_massless_arm_is_warned_about():
    links = (Link(JointType.REVOLUTE, a=0.5, mass=0), Link(JointType.REVOLUTE, a=0.5, mass=0))
    found = _singular_warnings(Manipulator(links=links, gravity=(0, 0, -9.81)))
    assert len(found) == 1 and "zero at every pose" in found[0].message


def test_a_drive_on_the_singular_joint_is_named_as_what_makes_m_regular():
    """With a motor inertia on the joint that moves no inertia, M + diag(N^2 Jm) is regular: the
    warning says so instead of leaving a user of --drives to think the model is broken."""
    import dataclasses

    from designer.model.drives import reflected_inertia
    from designer.kinematics import NumericArm
    from designer.model import Drive
    from designer.numeric.batch import Batch
    bare = _arm(0.0)
    [plain] = _singular_warnings(bare)
    assert "--drives" not in plain.message and "singular" in plain.message
    links = list(bare.links)
    links[3] = dataclasses.replace(links[3], drive=Drive(gear_ratio=50.0, motor_inertia=2e-5))
    driven = dataclasses.replace(bare, links=tuple(links))
    [found] = _singular_warnings(driven)
    assert found.where == "links[4]" and "--drives" in found.message and "joint 4 makes it regular" in found.message
    # and it is so: M + diag(N^2 Jm) has a clearly positive smallest eigenvalue, M alone does not
    M = Batch(NumericArm.from_model(driven), np.random.default_rng(2).uniform(-3, 3, (5, 4))).M
    assert np.all(np.linalg.eigvalsh(M)[:, 0] < 1e-12 * np.linalg.eigvalsh(M)[:, -1])
    assert np.all(np.linalg.eigvalsh(M + reflected_inertia(driven))[:, 0] > 1e-3)
    # a drive on another joint does not help: no such claim
    links[3] = bare.links[3]
    links[1] = dataclasses.replace(links[1], drive=Drive(gear_ratio=50.0, motor_inertia=2e-5))
    [other] = _singular_warnings(dataclasses.replace(bare, links=tuple(links)))
    assert "--drives" not in other.message
