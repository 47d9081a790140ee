"""The bundled example robots: they load, validate, round-trip, and match their sources.

Structure and mass facts are taken from the source documents named in each
file's description (ROBMAT, Duarte, Horn's memo, Lee's report, Corke's toolbox).
"""

from __future__ import annotations

import json

import pytest
import sympy as sp

from tests.support import ROBOTS, robot_path
from designer.model import symbol, validate
from designer.model.validation import Severity
from designer.project.io import written_version
from designer.project import load_project, save_project

EXPECTED = {"double_pendulum", "planar_two_link", "stanford_modified", "horn_three_dof",
            "horn_three_dof_offsets", "puma560_three_link", "puma560", "scara",
            "palletizer_parallelogram", "palletizer_serial", "acma_sr400", "four_bar"}
ALL = sorted(p.stem for p in ROBOTS.glob("*.json"))


def S(name: str) -> sp.Symbol:
    return symbol(name)


def model(name: str):
    return load_project(robot_path(name))


def test_every_expected_robot_is_bundled():
    assert EXPECTED <= set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_loads_validates_and_round_trips(name, tmp_path):
    m = model(name)
    errs = [str(p) for p in validate(m) if p.severity is Severity.ERROR]
    assert errs == []
    out = tmp_path / f"{name}.json"
    save_project(m, out)
    again = load_project(out)
    assert again == m
    # saving the reloaded model again gives the same text: the writer is stable
    out2 = tmp_path / "again.json"
    save_project(again, out2)
    assert out2.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ALL)
def test_has_provenance_and_defaults(name):
    raw = json.loads(robot_path(name).read_text(encoding="utf-8"))
    m = model(name)
    # version 1, what every release reads, unless the example shows a field of version 3 (or 4: requirements)
    assert raw["format"] == "manipulator-designer" and raw["version"] == (written_version(m) if written_version(m) >= 3
                                                                          else 1)
    assert m.name.strip()
    assert len(m.description) > 80  # source, section and assumptions, not a one-word label
    # every symbol has a default, so numeric work runs on the file as shipped
    assert m.unvalued_symbols() == []
    assert not [p for p in validate(m) if p.where == "parameters"]
    # every link carries a name, and every actuated joint a range (a passive joint may turn all the way round: the
    # four-bar's coupler, whose range of +-pi made every fall of the crank warn that it passed it)
    for link in m.links:
        assert link.name
        assert link.limits is not None or not link.actuated


def joint_types(m) -> str:
    return "".join(l.joint.value for l in m.links)


def test_planar_two_link_matches_duarte():
    m = model("planar_two_link")
    assert joint_types(m) == "RR"
    assert m.gravity == (0, -S("g"), 0)
    L1, L2, d1, d2 = S("L1"), S("L2"), S("d1"), S("d2")
    assert [l.a for l in m.links] == [L1, L2]
    assert all(l.alpha == 0 and l.d == 0 and l.theta == 0 for l in m.links)
    # COM a distance d_i from the proximal joint: frame i sits at the distal end, x along the link
    assert sp.simplify(m.links[0].com[0] + L1 - d1) == 0
    assert sp.simplify(m.links[1].com[0] + L2 - d2) == 0
    # I_i about the COM about the plane normal (z)
    assert m.links[0].inertia.matrix()[2, 2] == S("I1")
    assert m.links[1].inertia.matrix()[2, 2] == S("I2")
    assert [l.mass for l in m.links] == [S("m1"), S("m2")]


def test_stanford_matches_robmat_in13():
    m = model("stanford_modified")
    assert joint_types(m) == "RRP"
    assert m.convention.value == "standard"
    assert m.gravity == (0, 0, -S("g"))
    assert [l.alpha for l in m.links] == [-sp.pi / 2, sp.pi / 2, 0]
    assert all(l.a == 0 for l in m.links)
    # ROBMAT's fixed values: d for the R joints (0, d[2]), theta for the P joint (0)
    assert [m.links[0].d, m.links[1].d, m.links[2].theta] == [0, S("d2"), 0]
    assert m.links[0].com == (0, S("y1"), S("z1"))
    assert m.links[1].com == (0, S("y2"), 0)
    assert m.links[2].com == (0, 0, S("z3"))
    for i, link in enumerate(m.links, start=1):
        assert link.mass == S(f"m{i}")
        assert link.inertia.matrix() == sp.diag(S(f"Ixx{i}"), S(f"Iyy{i}"), S(f"Izz{i}"))


@pytest.mark.parametrize("name", ["horn_three_dof", "horn_three_dof_offsets"])
def test_horn_structure_and_memo_inertias(name):
    m = model(name)
    assert joint_types(m) == "RRR"
    loads = {p.link: p for p in m.point_masses}
    assert set(loads) == {2, 3}
    assert loads[2].mass == S("M2") and loads[3].mass == S("M3")
    # at the ends of links 2 and 3: the origins of the distal frames (standard DH)
    assert loads[2].position == (0, 0, 0) and loads[3].position == (0, 0, 0)
    m1, R = S("m1"), S("R")
    column = m.links[0]
    # the column axis (base z) is -y1 in frame 1; the memo's I1 = m1 R^2 / 2 about it
    assert sp.simplify(column.inertia.matrix()[1, 1] - m1 * R**2 / 2) == 0
    assert column.com[0] == 0 and column.com[2] == 0  # COM on the axis: no gravity torque on joint 1
    for i, (mi, Li) in enumerate([(S("m2"), S("L2")), (S("m3"), S("L3"))], start=2):
        link = m.links[i - 1]
        assert link.a == Li
        I = link.inertia.matrix()
        # thin rod along x: nothing about its own axis; the memo's m L^2/3 about the joint
        assert I[0, 0] == 0
        com = sp.Matrix(link.com)
        assert sp.simplify(com[0] + Li / 2) == 0 and com[1] == 0 and com[2] == 0
        about_joint = I[2, 2] + mi * (Li / 2) ** 2
        assert sp.simplify(about_joint - mi * Li**2 / 3) == 0
    if name.endswith("offsets"):
        assert m.links[1].d == S("delta2")
        assert sp.simplify(m.links[1].d + m.links[2].d - S("delta3")) == 0
    else:
        assert all(l.d == 0 for l in m.links)


def test_puma560_three_link_matches_lee_table():
    m = model("puma560_three_link")
    assert joint_types(m) == "RRR"
    assert [l.alpha for l in m.links] == [-sp.pi / 2, 0, sp.pi / 2]
    values = m.parameter_values
    # Lee's table: a2 = 431.8 mm, d2 = 149.09 mm, a3 = -20.32 mm
    assert values["a2"] == pytest.approx(0.4318)
    assert values["d2"] == pytest.approx(0.14909)
    assert values["a3"] == pytest.approx(-0.02032)
    lims = [[float(v) * 180 / float(sp.pi) for v in l.limits] for l in m.links]
    assert lims == [pytest.approx([-160, 160]), pytest.approx([-225, 45]), pytest.approx([-45, 225])]
    # Lee keeps the COM general (r_ix, r_iy, r_iz) and the inertia diagonal
    for i, link in enumerate(m.links, start=1):
        assert link.com == (S(f"r{i}x"), S(f"r{i}y"), S(f"r{i}z"))
        assert link.inertia.matrix() == sp.diag(S(f"I{i}xx"), S(f"I{i}yy"), S(f"I{i}zz"))


def test_puma560_matches_corke_armstrong():
    m = model("puma560")
    assert joint_types(m) == "RRRRRR"
    assert [l.alpha for l in m.links] == [sp.pi / 2, 0, -sp.pi / 2, sp.pi / 2, -sp.pi / 2, 0]
    num = m.numeric()
    a = [float(l.a) for l in num.links]
    d = [float(l.d) for l in num.links]
    assert a == pytest.approx([0, 0.4318, 0.0203, 0, 0, 0])
    assert d == pytest.approx([0, 0, 0.15005, 0.4318, 0, 0])
    masses = [float(l.mass) for l in num.links]
    assert masses == pytest.approx([0, 17.4, 4.8, 0.82, 0.34, 0.09])
    assert sum(masses) == pytest.approx(23.45)
    coms = [[float(c) for c in l.com] for l in num.links]
    assert coms[1] == pytest.approx([-0.3638, 0.006, 0.2275])
    assert coms[2] == pytest.approx([-0.0203, -0.0141, 0.070])
    assert coms[3] == pytest.approx([0, 0.019, 0])
    assert coms[5] == pytest.approx([0, 0, 0.032])
    diag = [[float(l.inertia.matrix()[k, k]) for k in range(3)] for l in num.links]
    assert diag == [pytest.approx(v) for v in ([0, 0.35, 0], [0.13, 0.524, 0.539], [0.066, 0.086, 0.0125],
                                               [1.8e-3, 1.3e-3, 1.8e-3], [0.3e-3, 0.4e-3, 0.3e-3],
                                               [0.15e-3, 0.15e-3, 0.04e-3])]
    # lengths and inertial data stay symbolic so the designer can sweep them
    assert {"a2", "a3", "d3", "d4", "m2", "Ixx2"} <= set(m.symbol_names())
    # Corke's link-1 inertia is not a physical body: a warning, never an error
    problems = validate(m)
    assert any(p.severity is Severity.WARNING and p.where == "links[1].inertia" for p in problems)
    assert not [p for p in problems if p.severity is Severity.ERROR]


def test_scara_structure():
    m = model("scara")
    assert joint_types(m) == "RRPR"
    assert m.gravity == (0, 0, -S("g"))
    assert m.links[1].alpha == sp.pi  # z2 points down: the quill descends as q3 grows
    lo, hi = (float(v) for v in m.links[2].limits)
    assert lo == 0 and hi == pytest.approx(0.21)
    assert all(float(l.mass.xreplace(m.substitutions())) > 0 for l in m.links)


def test_horn_total_mass_is_links_plus_loads():
    from designer.kinematics import NumericArm

    for name in ("horn_three_dof", "horn_three_dof_offsets"):
        m = model(name)
        v = m.parameter_values
        arm = NumericArm.from_model(m)
        assert arm.total_mass() == pytest.approx(v["m1"] + v["m2"] + v["m3"] + v["M2"] + v["M3"])


def test_lee_defaults_carry_armstrong_masses():
    lee = model("puma560_three_link").numeric()
    corke = model("puma560").numeric()
    for k in range(3):
        assert float(lee.links[k].mass) == pytest.approx(float(corke.links[k].mass))
        # same principal moments: the frames differ by rotations about the principal axes
        assert sorted(float(lee.links[k].inertia.matrix()[i, i]) for i in range(3)) == pytest.approx(
            sorted(float(corke.links[k].inertia.matrix()[i, i]) for i in range(3)))
