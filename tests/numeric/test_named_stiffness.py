"""A drive's stiffness and damping given as a parameter's name (``k2``): the project keeps the name, every
numeric use takes its value, and a sweep varies it (issue 23, "or a symbol")."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json

import numpy as np
import pytest
import sympy as sp

from designer.cli import main
from designer.dynamics.elastic import elastic_terms
from designer.explore import SweepAxis, SweepSpec, sweep
from designer.explore.metrics import drive_ratings
from designer.explore.metrics import Ratings
from designer.jobs import run
from designer.kinematics import NumericArm
from designer.model import Drive, Link, Manipulator
from designer.model.drives import drive_values, numeric_drives
from designer.model.expr import symbol
from designer.model.manipulator import MissingParameterError
from designer.model.validation import Severity, validate
from designer.numeric.elastic import ElasticArm, elastic_joints
from designer.numeric.engine import arm_dynamics
from designer.numeric.modes import free_modes, locked_modes
from designer.project import ProjectError
from designer.project.io import dumps_project, from_dict, load_project, to_dict
from tests.support import robot_path


def _named(model: Manipulator, rng) -> tuple[Manipulator, dict[str, float]]:
    """``model`` with every drive's stiffness (and damping, where it has one) named k1.., c1.., valued as before
    or, for a drive without stiffness, at a random value."""
    links, values = [], {}
    for i, (link, resolved) in enumerate(zip(model.links, numeric_drives(model)), start=1):
        d = resolved or Drive(gear_ratio=float(rng.uniform(20, 150)), motor_inertia=float(rng.uniform(1e-5, 1e-4)))
        values[f"k{i}"] = d.stiffness if d.stiffness is not None else float(rng.uniform(1e3, 1e5))
        values[f"c{i}"] = d.damping if d.damping is not None else float(rng.uniform(0, 10))
        links.append(dataclasses.replace(link, drive=dataclasses.replace(d, stiffness=f"k{i}", damping=f"c{i}")))
    named = dataclasses.replace(model, links=tuple(links)).with_parameters(values)
    return named, values


def _numbered(named: Manipulator, values: dict[str, float]) -> Manipulator:
    """The same project with the numbers typed in (the independent side: no name anywhere)."""
    links = tuple(dataclasses.replace(l, drive=dataclasses.replace(l.drive, stiffness=values[f"k{i}"],
                                                                   damping=values[f"c{i}"]))
                  for i, l in enumerate(named.links, start=1))
    return dataclasses.replace(named, links=links)


@pytest.mark.parametrize("robot", ["tube_arm", "puma560", "planar_two_link", "scara"])
def test_a_named_stiffness_gives_the_numbers_of_the_typed_one(robot):
    rng = np.random.default_rng(len(robot))
    named, values = _named(load_project(robot_path(robot)), rng)
    typed = _numbered(named, values)
    assert all(isinstance(l.drive.stiffness, sp.Symbol) for l in named.links)
    assert {f"k{i}" for i in range(1, named.n + 1)} <= set(named.symbol_names())
    a, b = elastic_joints(named), elastic_joints(typed)
    for field in ("stiffness", "damping", "gear", "rotor"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    for key in ("stiffness", "gear", "rotor"):
        np.testing.assert_array_equal(drive_values(named)[key], drive_values(typed)[key])
    arm = NumericArm.from_model(typed)
    q = rng.uniform(-1, 1, (5, arm.n))
    M = arm_dynamics(arm).M(q)
    np.testing.assert_array_equal(locked_modes(M, a).frequency, locked_modes(M, b).frequency)
    np.testing.assert_array_equal(free_modes(M, a).frequency, free_modes(M, b).frequency)
    y = np.concatenate([q[0], rng.uniform(-1, 1, 2 * arm.n + arm.n)])
    tau = rng.uniform(-1, 1, arm.n)
    np.testing.assert_array_equal(ElasticArm(NumericArm.from_model(named), a).derivative(y, tau),
                                  ElasticArm(arm, b).derivative(y, tau))
    # the substituted model is the typed one; validation agrees on both
    assert named.numeric().links[0].drive == typed.numeric().links[0].drive
    assert [str(p) for p in validate(named)] == [str(p) for p in validate(typed)]


def test_the_project_file_keeps_the_name_and_its_value():
    named, values = _named(load_project(robot_path("tube_arm")), np.random.default_rng(1))
    doc = to_dict(named)
    assert doc["version"] == 3 and doc["links"][1]["drive"]["stiffness"] == "k2"
    assert doc["parameters"]["k2"] == values["k2"]
    back = from_dict(json.loads(dumps_project(named)))
    assert back == named
    from designer.model.units import parameter_units
    units = parameter_units(named)                       # the Parameters table's unit column
    assert units["k2"] == "N m/rad" and units["c2"] == "N m s/rad"
    # an expression of parameters is a name too
    d = dict(doc)
    d["links"][2]["drive"]["stiffness"] = "2*k2"
    assert elastic_joints(from_dict(d)).stiffness[2] == 2 * values["k2"]


def test_a_name_without_value_is_a_missing_parameter_and_a_bad_value_an_error():
    named, _ = _named(load_project(robot_path("planar_two_link")), np.random.default_rng(2))
    unvalued = dataclasses.replace(named, parameters=tuple((k, v) for k, v in named.parameters if k != "k2"))
    assert "k2" in unvalued.unvalued_symbols()
    with pytest.raises(MissingParameterError, match="k2"):
        numeric_drives(unvalued)
    assert elastic_joints(unvalued.with_parameter("k2", 5e3)).stiffness[1] == 5e3
    bad = {p.where: p for p in validate(named.with_parameter("k2", -4.0))}
    problem = bad["links[2].drive.stiffness"]
    assert problem.severity is Severity.ERROR and "-4" in problem.message
    with pytest.raises(ProjectError, match=r"links\[2\]\.drive\.stiffness"):
        doc = to_dict(named)
        doc["parameters"]["k2"] = -4.0
        from_dict(doc)


def test_derive_writes_the_name_and_lists_its_value():
    named, values = _named(load_project(robot_path("planar_two_link")), np.random.default_rng(3))
    terms = elastic_terms(named)
    assert symbol("k2") in terms.spring[1].free_symbols and symbol("c2") in terms.spring[1].free_symbols
    assert terms.values["k2"] == values["k2"] and terms.values["c2"] == values["c2"]
    assert "k_2" not in terms.values


def _one_joint(mass: float, length: float, k) -> Manipulator:
    """A horizontal bar turning about a vertical axis (gravity along the axis: no gravity stiffness), its
    centre of mass at mid-length: J = m L^2/12 + m (L/2)^2 = m L^2/3."""
    link = Link(a=length, mass=mass, com=(-length / 2, 0, 0), inertia=((0, 0, 0), (0, mass * length ** 2 / 12, 0),
                                                                         (0, 0, mass * length ** 2 / 12)),
                drive=Drive(stiffness=k, gear_ratio=80.0, motor_inertia=2e-5))
    return Manipulator(links=(link,), name="bar", parameters={"g": 9.81})


def test_a_sweep_of_k_gives_the_single_joint_hand_result():
    """f1 = sqrt(k / J_eff) / 2 pi with J_eff = m L^2 / 3, at every pose; free motors: the two-mass oscillator
    w^2 = k (J + N^2 Jm) / (J N^2 Jm)."""
    m, L = 3.0, 0.7
    model = _one_joint(m, L, "k").with_parameter("k", 1e4)
    ks = (2e3, 1e4, 5e4, 2.5e5)
    spec = SweepSpec(axes=(SweepAxis("k", ks),), metrics=("frequency", "frequency_free"), stats=("min", "max"),
                     samples=16, ratings=Ratings.of(1, **drive_ratings(model)))
    with cf.ThreadPoolExecutor(1) as pool:
        result = run(sweep(model, spec, executor=pool))
    assert not result.errors
    J = m * L ** 2 / 3
    hand = np.sqrt(np.array(ks) / J) / (2 * np.pi)
    np.testing.assert_allclose(result.column("frequency:min"), hand, rtol=1e-12)
    np.testing.assert_allclose(result.column("frequency:max"), hand, rtol=1e-12)
    Jr = 80.0 ** 2 * 2e-5
    np.testing.assert_allclose(result.column("frequency_free:min"),
                               np.sqrt(np.array(ks) * (J + Jr) / (J * Jr)) / (2 * np.pi), rtol=1e-12)


def test_the_cli_sweeps_a_named_stiffness_and_set_overrides_it(tmp_path, capsys):
    m, L = 2.0, 0.5
    path = tmp_path / "bar.json"
    path.write_text(dumps_project(_one_joint(m, L, "k_gear").with_parameter("k_gear", 1e4)))
    J = m * L ** 2 / 3
    assert main(["explore", str(path), "sweep", "--param", "k_gear", "1e3", "1e5", "3", "--metric", "frequency",
                 "--stats", "min", "--samples", "8", "--threads", "--quiet", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    got = [r["frequency:min"] for r in rows]
    np.testing.assert_allclose(got, np.sqrt(np.array([1e3, 50500.0, 1e5]) / J) / (2 * np.pi), rtol=1e-12)
    assert main(["explore", str(path), "metric", "--q", "0.2", "--metric", "frequency", "--set", "k_gear=4e4",
                 "--format", "json"]) == 0
    assert f"{np.sqrt(4e4 / J) / (2 * np.pi):.6g}"[:6] in capsys.readouterr().out


def test_mjcf_export_writes_the_named_stiffness_value():
    mujoco = pytest.importorskip("mujoco")
    from designer.mjcf.exporter import mjcf_text
    named, values = _named(load_project(robot_path("tube_arm")), np.random.default_rng(4))
    mj = mujoco.MjModel.from_xml_string(mjcf_text(named))
    data = {mj.numeric(i).name: float(mj.numeric_data[mj.numeric_adr[i]]) for i in range(mj.nnumeric)}
    for i in range(1, named.n + 1):
        assert data[f"stiffness_joint{i}"] == values[f"k{i}"] and data[f"damping_joint{i}"] == values[f"c{i}"]


def test_sensitivity_to_a_named_stiffness_is_the_hand_derivative():
    """f = sqrt(k/J)/2pi, so df/dk = f/(2k): the sensitivity over the parameter k2 moves the stiffness the metric
    reads (it read the project's fixed value before, a derivative of zero)."""
    from designer.explore.sensitivity import sensitivity_at
    m, L, k = 3.0, 0.7, 2e4
    model = _one_joint(m, L, "k2").with_parameter("k2", k)
    ratings = Ratings.of(1, **drive_ratings(model))
    (s,) = sensitivity_at(model, "frequency", [0.3], ratings, ["k2"])
    f = np.sqrt(k / (m * L ** 2 / 3)) / (2 * np.pi)
    assert s.derivative == pytest.approx(f / (2 * k), rel=1e-6)
