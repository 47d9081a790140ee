"""Project files: round trips, atomic saves, and every kind of bad file."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.model import Convention, Inertia, JointType, Link, Manipulator, PointMass, symbol, to_expr
from designer.project import ProjectError, from_dict, load_project, loads_project, save_project, to_dict
from designer.project.io import MAX_FILE_BYTES, dumps_project
from tests.support import examples

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
PENDULUM = ROBOTS / "double_pendulum.json"


def pendulum_doc() -> dict:
    return {
        "format": "manipulator-designer", "version": 1, "name": "Double pendulum",
        "convention": "standard", "gravity": ["g", 0, 0],
        "parameters": {"L1": 1.0, "L2": 0.8, "m1": 2.0, "m2": 1.0, "g": 9.81},
        "links": [
            {"name": "upper", "joint": "R", "a": "L1", "alpha": 0, "d": 0, "theta": 0, "mass": "m1",
             "com": [0, 0, 0], "inertia": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]},
            {"name": "lower", "joint": "R", "a": "L2", "alpha": 0, "d": 0, "theta": 0, "mass": "m2"},
        ],
    }


# -- reading ---------------------------------------------------------------------------

def test_reads_the_example():
    model = load_project(PENDULUM)
    assert model.n == 2 and model.convention is Convention.STANDARD
    assert model.links[0].a == symbol("L1") and model.links[1].mass == symbol("m2")
    assert model.gravity == (symbol("g"), 0, 0)
    assert dict(model.parameters)["L2"] == 0.8


def test_defaults_for_com_inertia_gravity_convention():
    doc = pendulum_doc()
    del doc["gravity"], doc["convention"]
    model = from_dict(doc)
    lower = model.links[1]
    assert lower.com == (0, 0, 0) and lower.inertia.is_zero and lower.limits is None
    assert model.gravity == (0, 0, -symbol("g"))
    assert model.convention is Convention.STANDARD


def test_object_form_of_inertia_equals_matrix_form():
    doc = pendulum_doc()
    doc["links"][0]["inertia"] = {"xx": 2, "yy": "3", "zz": 4, "xy": -0.5, "yz": "0.25"}
    obj = from_dict(doc).links[0].inertia
    doc["links"][0]["inertia"] = [[2, -0.5, 0], [-0.5, 3, 0.25], [0, 0.25, 4]]
    mat = from_dict(doc).links[0].inertia
    assert obj == mat
    assert obj.matrix() == sp.Matrix([[2, -0.5, 0], [-0.5, 3, 0.25], [0, 0.25, 4]])


def test_a_byte_order_mark_is_accepted():
    text = json.dumps(pendulum_doc())
    assert loads_project(b"\xef\xbb\xbf" + text.encode()).n == 2
    assert loads_project("\ufeff" + text).n == 2


# -- bad files: always one ProjectError, naming the field ------------------------------

def _mutated(fn):
    doc = pendulum_doc()
    fn(doc)
    return json.dumps(doc)


BAD = {
    "empty": ("", "not valid JSON"),
    "truncated": (json.dumps(pendulum_doc())[:120], "not valid JSON"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not UTF-8"),
    "utf16": (json.dumps(pendulum_doc()).encode("utf-16"), "not UTF-8"),
    "a list": ("[1, 2]", "JSON object"),
    "deep json": ("[" * 100000 + "]" * 100000, "not valid JSON"),
    "NaN": (json.dumps(pendulum_doc()).replace('"m1": 2.0', '"m1": NaN'), "NaN"),
    "duplicate key": (json.dumps(pendulum_doc()).replace('"m1": 2.0', '"m1": 2.0, "m1": 20'),
                      'key "m1" appears twice'),
    "Infinity": (json.dumps(pendulum_doc()).replace('"m1": 2.0', '"m1": Infinity'), "Infinity"),
    "-Infinity": (json.dumps(pendulum_doc()).replace('"m1": 2.0', '"m1": -Infinity'), "Infinity"),
    "1e400": (json.dumps(pendulum_doc()).replace('"m1": 2.0', '"m1": 1e400'), "parameters.m1"),
    "huge int": (json.dumps(pendulum_doc()).replace('"m1": 2.0', '"m1": 1' + "0" * 5000), "not valid JSON"),
    "newer version": (_mutated(lambda d: d.update(version=5)), "newer version"),
    "version 0": (_mutated(lambda d: d.update(version=0)), "version"),
    "version text": (_mutated(lambda d: d.update(version="1")), "version"),
    "no format": (_mutated(lambda d: d.pop("format")), "format"),
    "wrong format": (_mutated(lambda d: d.update(format="urdf")), "format"),
    "hostile expression": (_mutated(lambda d: d["links"][1].update(a="__import__('os').system('true')")),
                           "links[2].a"),
    "unknown function": (_mutated(lambda d: d["links"][1].update(a="foo(1)")), "links[2].a: unknown function 'foo'"),
    "complex mass": (_mutated(lambda d: d["links"][0].update(mass="(-8)**(1/3)")), "links[1].mass"),
    "infinite mass": (_mutated(lambda d: d["links"][0].update(mass="tan(pi/2)")), "links[1].mass"),
    "huge expression": (_mutated(lambda d: d["links"][0].update(mass="((10**30)**64)**64")), "links[1].mass"),
    "long expression": (_mutated(lambda d: d["links"][0].update(mass="1+" * 5000 + "1")), "links[1].mass"),
    "non-symmetric inertia": (_mutated(lambda d: d["links"][0].update(inertia=[[1, 2, 0], [0, 1, 0], [0, 0, 1]])),
                              "links[1].inertia: not symmetric"),
    "not PSD": (_mutated(lambda d: d["links"][0].update(inertia=[[1, 0, 0], [0, -1, 0], [0, 0, 1]])),
                "links[1].inertia: not positive semi-definite"),
    "inertia 2x2": (_mutated(lambda d: d["links"][0].update(inertia=[[1, 0], [0, 1]])), "links[1].inertia"),
    "inertia key": (_mutated(lambda d: d["links"][0].update(inertia={"ixx": 1})), "links[1].inertia: unknown key"),
    "com 2": (_mutated(lambda d: d["links"][0].update(com=[0, 0])), "links[1].com"),
    "com text": (_mutated(lambda d: d["links"][0].update(com="0 0 0")), "links[1].com"),
    "negative mass": (_mutated(lambda d: d["parameters"].update(m2=-1)), "links[2].mass: must be >= 0"),
    "missing mass": (_mutated(lambda d: d["links"][1].pop("mass")), "links[2].mass: missing"),
    "bool mass": (_mutated(lambda d: d["links"][1].update(mass=True)), "links[2].mass"),
    "null mass": (_mutated(lambda d: d["links"][1].update(mass=None)), "links[2].mass"),
    "joint type": (_mutated(lambda d: d["links"][0].update(joint="revolute")), "links[1].joint"),
    "no joint": (_mutated(lambda d: d["links"][0].pop("joint")), "links[1].joint"),
    "convention": (_mutated(lambda d: d.update(convention="craig")), "convention"),
    "no links": (_mutated(lambda d: d.update(links=[])), "links"),
    "links object": (_mutated(lambda d: d.update(links={"1": {}})), "links"),
    "link not object": (_mutated(lambda d: d["links"].append(3)), "links[3]"),
    "unknown link field": (_mutated(lambda d: d["links"][0].update(lenght=1)), "links[1]: unknown field"),
    "unknown top field": (_mutated(lambda d: d.update(robot=1)), "unknown field"),
    "parameters list": (_mutated(lambda d: d.update(parameters=[1])), "parameters"),
    "parameter name": (_mutated(lambda d: d["parameters"].update(q1=1.0)), "parameters.q1"),
    "parameter symbolic": (_mutated(lambda d: d["parameters"].update(L1="L2")), "parameters.L1"),
    "parameter text": (_mutated(lambda d: d["parameters"].update(L1="one")), "parameters.L1"),
    "point mass link": (_mutated(lambda d: d.update(point_masses=[{"link": 3, "mass": 1}])), "point_masses[1].link"),
    "point mass link 0": (_mutated(lambda d: d.update(point_masses=[{"link": 0, "mass": 1}])), "point_masses[1].link"),
    "point mass position": (_mutated(lambda d: d.update(point_masses=[{"link": 1, "mass": 1, "position": 1}])),
                            "point_masses[1].position"),
    "limits": (_mutated(lambda d: d["links"][0].update(limits=[1, -1])), "links[1].limits"),
    "limits shape": (_mutated(lambda d: d["links"][0].update(limits=[1])), "links[1].limits"),
    "name number": (_mutated(lambda d: d.update(name=3)), "name"),
    "lone surrogate": (json.dumps(pendulum_doc()).replace('"upper"', '"\\ud800"'), "links[1].name"),
    "gravity": (_mutated(lambda d: d.update(gravity=[0, 0])), "gravity"),
    "joint variable": (_mutated(lambda d: d["links"][0].update(d="q1")), "links[1].d"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_file_gives_one_clear_project_error(case, tmp_path):
    content, fragment = BAD[case]
    path = tmp_path / "bad.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with pytest.raises(ProjectError) as info:
        load_project(path)
    message = str(info.value)
    assert message.startswith(str(path) + ": "), message
    assert fragment in message, message
    assert "Traceback" not in message and "\n" not in message
    assert len(message) < 2000
    assert info.value.problems and all(isinstance(p, str) for p in info.value.problems)


def test_every_problem_at_once():
    doc = pendulum_doc()
    doc["links"][0]["joint"] = "X"
    doc["links"][0]["inertia"] = [[1, 2, 0], [0, 1, 0], [0, 0, 1]]
    doc["parameters"]["m2"] = -3
    doc["parameters"]["qd1"] = 1
    doc["point_masses"] = [{"link": 9, "mass": 1}]
    with pytest.raises(ProjectError) as info:
        from_dict(doc)
    fields = sorted(p.split(":")[0] for p in info.value.problems)
    assert fields == ["links[1].inertia", "links[1].joint", "links[2].mass", "parameters.qd1",
                      "point_masses[1].link"], info.value.problems
    assert str(info.value).startswith("5 problems: ")


def test_missing_and_special_files(tmp_path):
    with pytest.raises(ProjectError, match="no such file"):
        load_project(tmp_path / "nothing.json")
    with pytest.raises(ProjectError, match="folder"):
        load_project(tmp_path)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(ProjectError, match="larger"):
        load_project(big)
    if Path("/dev/zero").exists():  # reports size 0 and never ends
        with pytest.raises(ProjectError, match="larger"):
            load_project("/dev/zero")


# -- round trips ------------------------------------------------------------------------

def test_round_trip_of_the_examples(tmp_path):
    files = sorted(ROBOTS.glob("*.json"))
    assert PENDULUM in files
    for file in files:
        model = load_project(file)
        out = tmp_path / file.name
        save_project(model, out)
        again = load_project(out)
        assert again == model, file.name
        assert to_dict(again) == to_dict(model)


def test_save_writes_readable_json_with_format_and_version(tmp_path):
    model = from_dict(pendulum_doc())
    out = tmp_path / "p.json"
    save_project(model, out)
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["format"] == "manipulator-designer" and doc["version"] == 2  # a version-1 file is saved as version 2
    assert doc["links"][0]["a"] == "L1" and doc["parameters"]["g"] == 9.81


_NAMES = ["L1", "L2", "d_3", "m1", "m_2", "r", "h", "Ixx1"]
_VALUES = st.one_of(
    st.integers(-5, 5),
    st.floats(-10, 10, allow_nan=False, allow_infinity=False),
    st.sampled_from(["pi/2", "-pi/2", "L1", "L2/2 + d_3", "sqrt(2)*r", "cos(pi/6)*h", "0.1 + 2*L1"]),
)
_MASS = st.one_of(st.floats(0, 20, allow_nan=False), st.sampled_from(["m1", "m_2/2", "m1 + m_2"]))
_MOMENT = st.one_of(st.floats(0, 5, allow_nan=False), st.sampled_from(["Ixx1", "m1*r**2/2"]))


@st.composite
def models(draw) -> Manipulator:
    n = draw(st.integers(1, 4))
    links = []
    for _ in range(n):
        ixx, iyy, izz = (to_expr(draw(_MOMENT)) for _ in range(3))
        limits = draw(st.one_of(st.none(), st.tuples(st.floats(-3, -0.1), st.floats(0.1, 3))))
        links.append(Link(
            joint=draw(st.sampled_from([JointType.REVOLUTE, JointType.PRISMATIC])),
            a=to_expr(draw(_VALUES)), alpha=to_expr(draw(_VALUES)), d=to_expr(draw(_VALUES)),
            theta=to_expr(draw(_VALUES)), mass=to_expr(draw(_MASS)),
            com=tuple(to_expr(draw(_VALUES)) for _ in range(3)),
            inertia=Inertia(ixx, iyy, izz),
            name=draw(st.sampled_from(["", "upper", "Ünïcode ✓", "a \"quoted\" name"])),
            limits=None if limits is None else tuple(to_expr(v) for v in limits),
        ))
    params = draw(st.dictionaries(st.sampled_from(_NAMES), st.floats(0.01, 10), max_size=len(_NAMES)))
    pms = tuple(PointMass(draw(st.integers(1, n)), to_expr(draw(_MASS)),
                          tuple(to_expr(draw(_VALUES)) for _ in range(3)))
                for _ in range(draw(st.integers(0, 2))))
    return Manipulator(
        links=tuple(links), name=draw(st.text(max_size=20)), description=draw(st.text(max_size=40)),
        convention=draw(st.sampled_from(list(Convention))),
        gravity=tuple(to_expr(v) for v in draw(st.sampled_from([(0, 0, "-g"), ("g", 0, 0), (0, -9.81, 0)]))),
        parameters=tuple(params.items()), point_masses=pms)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_round_trip_of_generated_models(model):
    text = dumps_project(model)
    again = loads_project(text)
    assert again == model
    assert dumps_project(again) == text


# -- atomic saves --------------------------------------------------------------------------

def _leftovers(folder: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


@pytest.mark.parametrize("crash_in", ["replace", "fsync", "write"])
def test_crash_during_save_keeps_the_old_file(tmp_path, monkeypatch, crash_in):
    path = tmp_path / "arm.json"
    old_model = from_dict(pendulum_doc())
    save_project(old_model, path)
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    if crash_in == "replace":
        monkeypatch.setattr(os, "replace", boom)
    elif crash_in == "fsync":
        monkeypatch.setattr(os, "fsync", boom)
    else:  # the disk fills up half way through the text
        real_fdopen = os.fdopen

        class HalfWriter:
            def __init__(self, fh):
                self.fh = fh

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.fh.close()

            def fileno(self):
                return self.fh.fileno()

            def write(self, text):
                self.fh.write(text[: len(text) // 2])
                self.fh.flush()
                boom()

        monkeypatch.setattr(os, "fdopen", lambda *a, **k: HalfWriter(real_fdopen(*a, **k)))
    new_model = old_model.with_parameter("L1", 5.0)
    with pytest.raises(OSError):
        save_project(new_model, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert load_project(path) == old_model
    assert _leftovers(tmp_path, {"arm.json"}) == []


def test_interrupt_during_save_leaves_no_temp_file(tmp_path, monkeypatch):
    path = tmp_path / "arm.json"

    def interrupt(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        save_project(from_dict(pendulum_doc()), path)
    monkeypatch.undo()
    assert _leftovers(tmp_path, set()) == []


def test_save_replaces_and_keeps_the_file_mode(tmp_path):
    path = tmp_path / "arm.json"
    model = from_dict(pendulum_doc())
    save_project(model, path)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask   # not mkstemp's private 0600
    os.chmod(path, 0o640)
    save_project(model.with_parameter("L1", 2.0), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert dict(load_project(path).parameters)["L1"] == 2.0
    assert _leftovers(tmp_path, {"arm.json"}) == []


def test_save_to_a_missing_folder_is_an_os_error(tmp_path):
    with pytest.raises(OSError):
        save_project(from_dict(pendulum_doc()), tmp_path / "no" / "arm.json")


def test_expression_text_in_all_is_bounded():
    # each text is legal; together they stop at a fixed budget
    heavy = "+".join(["1"] * 900)
    doc = pendulum_doc()
    doc["links"] = [{"joint": "R", "mass": 1, "a": heavy, "d": heavy, "theta": heavy} for _ in range(60)]
    with pytest.raises(ProjectError, match="longer than 100000 characters in all"):
        from_dict(doc)   # its cost: benchmarks/bench_bounded_input.py


def test_a_model_holding_nan_is_not_saved(tmp_path):
    # the parser refuses NaN, but a model built in code can hold one; the old file must survive
    import dataclasses
    path = tmp_path / "arm.json"
    model = from_dict(pendulum_doc())
    save_project(model, path)
    before = path.read_bytes()
    bad = dataclasses.replace(model, parameters=tuple((k, float("nan") if k == "m1" else v)
                                                      for k, v in model.parameters))
    with pytest.raises(ProjectError, match="NaN or infinite"):
        save_project(bad, path)
    assert path.read_bytes() == before
