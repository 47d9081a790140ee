"""Model checks: every problem at once, each with its field; warnings never block."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.model import (Convention, Inertia, JointType, Link, Manipulator, PointMass, Severity, symbol,
                            validate)
from designer.project import ProjectError, from_dict
from tests.support import examples

GOOD = Link(a=1, mass=1, inertia=Inertia(0.1, 0.1, 0.1))


def arm(*links, **kw) -> Manipulator:
    kw.setdefault("gravity", (0, 0, -9.81))
    return Manipulator(links=links or (GOOD,), **kw)


def fields(problems, severity=Severity.ERROR) -> list[str]:
    return sorted(p.where for p in problems if p.severity is severity)


def test_a_good_model_has_no_problems():
    assert validate(arm(GOOD, GOOD)) == []


def test_every_error_at_once_with_its_field():
    model = arm(
        Link(mass=-1),
        Link(mass=1, inertia=Inertia(1, -2, 1)),
        Link(mass="m3", limits=(1, -1)),
        parameters={"m3": -0.5, "pi": 1.0, "q1": 1.0, "qd2": 1.0, "1a": 1.0, "a b": 1.0, "sin": 1.0,
                    "bad_value": float("nan")},
        point_masses=(PointMass(4, 1), PointMass(0, 1), PointMass(1, -2)),
    )
    problems = validate(model)
    assert fields(problems) == sorted([
        "links[1].mass", "links[2].inertia", "links[3].mass", "links[3].limits",
        "parameters.pi", "parameters.q1", "parameters.qd2", "parameters.1a", "parameters.a b", "parameters.sin",
        "parameters.bad_value",
        "point_masses[1].link", "point_masses[2].link", "point_masses[3].mass",
    ])
    text = {p.where: str(p) for p in problems}
    assert text["links[1].mass"] == "links[1].mass: must be >= 0, is -1"
    assert "not positive semi-definite" in text["links[2].inertia"]
    assert "no link 4" in text["point_masses[1].link"]
    assert "lower limit 1" in text["links[3].limits"]


def test_no_links():
    problems = validate(Manipulator(links=(), gravity=(0, 0, -9.81)))
    assert [(p.severity, p.where) for p in problems] == [(Severity.ERROR, "links")]


def test_parameters_names_that_are_fine():
    model = arm(Link(a="L_1", mass="m2", d="Ixx3"), parameters={"L_1": 1, "m2": 2, "Ixx3": 0.1})
    assert validate(model) == []


def test_not_psd_off_diagonal():
    # diagonal fine, but the off-diagonal makes a negative eigenvalue (1 - 2 < 0)
    problems = validate(arm(Link(mass=1, inertia=Inertia(1, 1, 1, xy=2))))
    assert fields(problems) == ["links[1].inertia"]


def test_rounding_noise_is_not_an_error():
    problems = validate(arm(Link(mass=1, inertia=Inertia(1, 1, 0, xy=0, xz=1e-12))))
    assert fields(problems) == []


def test_symbolic_values_use_defaults():
    # negative only through the default value
    model = arm(Link(mass="m", inertia=Inertia("I1", "I1", "I1")), parameters={"m": -2.0, "I1": -1.0})
    assert fields(validate(model)) == ["links[1].inertia", "links[1].mass"]
    # without defaults the numeric checks are skipped and the missing names are a warning
    problems = validate(arm(Link(mass="m", inertia=Inertia("I1", "I1", "I1"))))
    assert fields(problems) == []
    assert fields(problems, Severity.WARNING) == ["parameters"]
    assert "I1, m" in str(problems[0])


# -- warnings ---------------------------------------------------------------------------

def test_triangle_inequality_warning():
    problems = validate(arm(Link(mass=1, inertia=Inertia(1, 1, 3))))
    assert fields(problems) == []
    assert fields(problems, Severity.WARNING) == ["links[1].inertia"]
    assert "Ixx + Iyy >= Izz" in str(problems[0])


def test_massless_link_with_inertia_warning():
    problems = validate(arm(Link(mass=0, inertia=Inertia(1, 1, 1))))
    assert fields(problems) == [] and fields(problems, Severity.WARNING) == ["links[1].mass"]


def test_warnings_do_not_block_loading():
    doc = {"format": "manipulator-designer", "version": 1,
           "links": [{"joint": "R", "mass": 0, "inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 3]]},
                     {"joint": "P", "mass": "M"}]}
    model = from_dict(doc)
    warnings = [p for p in validate(model) if p.severity is Severity.WARNING]
    assert sorted(p.where for p in warnings) == ["links[1].inertia", "links[1].mass", "parameters"]


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.floats(0.01, 10), min_size=3, max_size=3), st.integers(0, 2**32 - 1), st.floats(0.01, 5))
def test_real_bodies_never_warn(extent, seed, mass):
    """A rotated body of point masses: PSD and the triangle inequality hold by physics."""
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(8, 3)) * extent
    pts -= pts.mean(axis=0)
    r2 = np.einsum("ni,ni->n", pts, pts)
    inertia = mass / 8 * (r2.sum() * np.eye(3) - pts.T @ pts)
    link = Link(mass=mass, inertia=Inertia.from_matrix(inertia.tolist()))
    problems = validate(arm(link))
    assert problems == []


# -- what the constructors and the loader refuse ------------------------------------------

def test_constructors_refuse_bad_values():
    with pytest.raises(ValueError):
        Link(joint="X")
    with pytest.raises(ValueError):
        Link(com=(1, 2))
    with pytest.raises(ValueError):
        Manipulator(links=(GOOD,), convention="craig")
    assert Link(joint="P").joint is JointType.PRISMATIC
    assert Manipulator(links=(GOOD,), convention="modified").convention is Convention.MODIFIED


@pytest.mark.parametrize("change, message", [
    (lambda d: d["links"][1].update(inertia=[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]),
     "links[2].inertia: not symmetric ([0][1] = 0.5 but [1][0] = 0)"),
    (lambda d: d["links"][0].update(com=[1, 2]), "links[1].com: must be a list of three numbers or expressions"),
    (lambda d: d["links"][0].update(joint="Q"), 'links[1].joint: must be "R" (revolute) or "P" (prismatic), not "Q"'),
    (lambda d: d.update(convention="dh"), 'convention: must be "standard" or "modified", not "dh"'),
    (lambda d: d.update(point_masses=[{"link": 3, "mass": 1}]),
     "point_masses[1].link: no link 3 (links are numbered 1 to 2)"),
])
def test_loader_messages(change, message):
    doc = {"format": "manipulator-designer", "version": 1, "parameters": {"g": 9.81},
           "links": [{"joint": "R", "a": 1, "mass": 1}, {"joint": "R", "a": 1, "mass": 1}]}
    change(doc)
    with pytest.raises(ProjectError) as info:
        from_dict(json.loads(json.dumps(doc)))
    assert info.value.problems == [message]


def test_symbol_helper():
    assert symbol("L1").is_real and symbol("L1") is symbol("L1")


# -- values with the defaults must be finite real numbers ----------------------------------------

@pytest.mark.parametrize("field, text, reason", [
    ("a", "sqrt(L - 2)", "not a real number"),
    ("d", "(L - 2)**(1/3)", "not a real number"),
    ("theta", "1/(L - 1)", "infinite"),
    ("mass", "exp(exp(exp(100*L)))", "too large"),        # sympy's own evaluation overflows here
    ("alpha", "L**(-1) * (L - 1)**(-2)", "infinite"),
    ("mass", "exp(1000*L)", "too large"),
])
def test_values_must_be_finite_and_real_with_the_defaults(field, text, reason):
    doc = {"format": "manipulator-designer", "version": 1, "gravity": [0, 0, -9.81], "parameters": {"L": 1.0},
           "links": [{"joint": "R", "mass": 1, field: text}]}
    with pytest.raises(ProjectError) as info:
        from_dict(doc)
    assert len(info.value.problems) == 1
    problem = info.value.problems[0]
    assert problem.startswith(f"links[1].{field}: ") and reason in problem, problem
    # with another default the same text is fine
    doc["parameters"]["L"] = 3.0 if field != "mass" else 0.001
    assert from_dict(doc).n == 1


def test_evaluate_matches_sympy():
    from designer.model.evaluate import NotANumber, evaluate, real_value
    from designer.model import parse_expr
    values = {"a": 0.7, "b": -1.3, "L1": 2.0}
    for text in ("a + b*L1", "sin(a)*cos(b)/tan(L1)", "sqrt(a**2 + b**2)", "exp(-a)*b**3", "(a - b)**(1/3)",
                 "sqrt(b**2)", "pi*L1**-2", "exp(1)*a", "2**(1/2) + 1/3"):
        e = parse_expr(text)
        expected = complex(e.subs({symbol(k): v for k, v in values.items()}).evalf(30))
        assert evaluate(e, values) == pytest.approx(expected, rel=1e-13, abs=1e-15), text
        assert real_value(e, values) == pytest.approx(expected.real, rel=1e-13, abs=1e-15)
    with pytest.raises(NotANumber, match="not a real"):
        real_value(parse_expr("sqrt(b)"), values)
    from designer.model import MissingParameterError
    with pytest.raises(MissingParameterError):
        evaluate(parse_expr("a + c"), values)


def test_numeric_arm_with_bad_overrides():
    from designer.kinematics import NumericArm
    model = arm(Link(a="sqrt(L)", mass=1), parameters={"L": 1.0})
    assert NumericArm.from_model(model).dh[0, 0] == 1.0
    assert NumericArm.from_model(model, {"L": 4.0}).dh[0, 0] == 2.0
    with pytest.raises(ValueError, match="not a real number"):
        NumericArm.from_model(model, {"L": -1.0})


def test_never_real_expression_is_caught_with_defaults():
    doc = {"format": "manipulator-designer", "version": 1, "gravity": [0, 0, -9.81], "parameters": {"L": 3.0},
           "links": [{"joint": "R", "mass": 1, "a": "sqrt(-L**2 - 1)"}]}
    with pytest.raises(ProjectError, match=r"links\[1\].a: not a real number"):
        from_dict(doc)
