"""The glance at a project file (designer/designer/glance.py): the numbers the window's first look draws, read
without sympy, against the model's own reading (load_project, then display_arm: sympy's parser and evaluation).
The two share the file's first reading and the expression checker, not the evaluation or the assembly of the arm.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from designer.kinematics import display_arm
from designer.model import Manipulator
from designer.project import ProjectError, load_project, save_project
from designer.glance import TABLE_COLUMNS, glance
from tests.project.test_hostile_projects import HOSTILE, SENTINEL, _hostile, _paths
from tests.support.random_models import Shapes, random_project

ROOT = Path(__file__).resolve().parents[1]
ROBOTS = sorted((ROOT / "robots").glob("*.json"))


def _glanced(model: Manipulator) -> bool:
    """Whether the first look reads this model's file: a serial arm whose links give their mass properties."""
    return model.is_serial and not model.loops and all(link.part is None for link in model.links)


def _same_arm(seen, expected) -> None:
    assert seen.convention is expected.convention
    np.testing.assert_array_equal(seen.revolute, expected.revolute)
    for field in ("dh", "mass", "com", "inertia", "gravity", "limits", "base", "tool"):
        np.testing.assert_allclose(getattr(seen, field), getattr(expected, field), rtol=1e-12, atol=1e-12,
                                   err_msg=field)
    assert len(seen.point_masses) == len(expected.point_masses)
    for (i, m, p), (j, n, r) in zip(seen.point_masses, expected.point_masses, strict=True):
        assert i == j and m == pytest.approx(n, rel=1e-12)
        np.testing.assert_allclose(p, r, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("path", ROBOTS, ids=[p.stem for p in ROBOTS])
def test_every_example_is_glanced_as_the_model_reads_it_or_not_at_all(path):
    model = load_project(path)
    look = glance(path)
    if not _glanced(model):
        assert look is None
        return
    assert look is not None
    _same_arm(look.arm, display_arm(model))
    doc = json.loads(path.read_text())
    assert look.name == model.name and len(look.rows) == model.n
    for row, link in zip(look.rows, doc["links"], strict=True):   # the table's cells as the file writes them
        assert row[TABLE_COLUMNS.index("joint")] == link["joint"]
        for key in ("a", "alpha", "d", "theta", "mass"):
            value = link.get(key, 0)
            assert row[TABLE_COLUMNS.index(key)] == (value if isinstance(value, str) else json.dumps(value))


def test_random_serial_projects_of_every_shape_are_glanced_as_the_model_reads_them(tmp_path):
    rng = np.random.default_rng(29)
    seen = 0
    for k in range(60):
        flip = lambda p=0.5: bool(rng.random() < p)  # noqa: E731
        shapes = Shapes(convention=None, degenerate=flip(), offsets=flip(0.7), named=flip(), frames=flip(),
                        limits=flip(), drives=flip(), elastic=flip(0.3), parts=flip(0.2), loads=flip(),
                        branches=int(rng.integers(1, 3)) if flip(0.2) else 0, requirements=flip(0.3))
        model = random_project(rng, shapes)
        path = tmp_path / f"random{k}.json"
        save_project(model, path)
        model = load_project(path)   # as the file has it (floats as written)
        look = glance(path)
        if not _glanced(model):
            assert look is None, k
            continue
        assert look is not None, k
        _same_arm(look.arm, display_arm(model))
        seen += 1
    assert seen >= 30, seen   # most of them serial arms without parts


def test_a_file_without_parameters_is_glanced_with_gravitys_g_as_zero(tmp_path):
    """Numbers only, no parameters, gravity left at its default (0, 0, -g) without a value for g: the model draws
    the arm without gravity's names (display_arm), and so does the glance. The empty parameter list once turned
    the glance's zeros for such names into no values at all, and the file had no first look."""
    rng = random.Random(7)
    links = [{"name": f"j{i + 1}", "joint": "P" if i == 3 else "R", "a": round(rng.uniform(0, 0.3), 4),
              "alpha": round(rng.uniform(-1.6, 1.6), 6), "d": round(rng.uniform(0, 0.25), 4), "theta": 0,
              "mass": round(rng.uniform(0.5, 5), 3), "com": [0.01, 0, 0.02],
              "inertia": {"xx": 0.01, "yy": 0.01, "zz": 0.005, "xy": 0, "xz": 0, "yz": 0}} for i in range(8)]
    path = tmp_path / "eight.json"
    path.write_text(json.dumps({"format": "manipulator-designer", "version": 1, "name": "eight joints",
                                "convention": "modified", "links": links}))
    model = load_project(path)
    look = glance(path)
    assert look is not None and look.arm.n == 8
    _same_arm(look.arm, display_arm(model))


def test_a_file_the_model_refuses_or_cannot_read_is_no_glance(tmp_path):
    cases = {"missing": None, "a folder": tmp_path, "not json": "{", "other format": {"format": "x", "version": 1},
             "future": {"format": "manipulator-designer", "version": 99, "links": []}}
    for name, content in cases.items():
        path = tmp_path / f"{name}.json"
        if isinstance(content, dict):
            path.write_text(json.dumps(content))
        elif isinstance(content, str):
            path.write_text(content)
        elif content is not None:
            path = content
        assert glance(path) is None, name


def test_a_hostile_value_anywhere_in_a_serial_arm_is_no_glance_or_the_models_arm(tmp_path):
    """Each of the hostile reader tests' values put in place of a value of the PUMA 560's file (a fixed sample
    of 120): the glance never raises, warns or runs the text, and whenever both it and the model's reader read
    the file, they give the same arm. Every file the model reads is glanced: the first look is never missing
    for a serial arm the window then opens."""
    doc = json.loads((ROOT / "robots" / "puma560.json").read_text())
    rng = random.Random(29)
    paths = list(_paths(doc))
    both = 0
    for k in range(120):
        path, value = rng.choice(paths), rng.choice(HOSTILE)
        file = tmp_path / f"hostile{k}.json"
        file.write_text(json.dumps(_hostile(doc, path, value)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            look = glance(file)
            try:
                model = load_project(file)
            except ProjectError:
                model = None
        assert look is not None or model is None, (path, value)
        if look is not None and model is not None:
            _same_arm(look.arm, display_arm(model))
            both += 1
    assert not os.path.exists(SENTINEL)
    assert both >= 10   # an optional field removed, a number for a number: both read it


def test_the_glance_imports_no_sympy():
    code = ("import sys\nsys.modules['sympy'] = None\n"   # any import of sympy fails
            "from designer.glance import glance\n"
            f"look = glance({str(ROOT / 'robots' / 'puma560.json')!r})\n"
            "print(look.arm.n, look.arm.frames([0.1] * 6)[-1][:3, 3].round(6).tolist())")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    n, tip = run.stdout.split(" ", 1)
    arm = display_arm(load_project(ROOT / "robots" / "puma560.json"))
    assert int(n) == 6
    np.testing.assert_allclose(json.loads(tip), arm.frames([0.1] * 6)[-1][:3, 3], atol=1e-6)


def test_the_files_expression_text_is_bounded_in_all_as_the_model_reader_bounds_it(tmp_path):
    # sixty parameters of 1,999 characters each: every text within the parser's bound, the file's beyond the
    # 100,000 characters a project's expressions may hold in all (its parameters' too)
    doc = json.loads((ROOT / "robots" / "puma560.json").read_text())
    long = "+".join(["1"] * 1000)[:1999]
    doc["parameters"].update({f"p{k}": long for k in range(60)})
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ProjectError, match="longer than 100000 characters"):
        load_project(path)
    assert glance(path) is None
    doc["parameters"] = {k: v for k, v in doc["parameters"].items() if not k.startswith("p") or k == "p0"}
    path.write_text(json.dumps(doc))   # one such parameter: both read the file
    assert glance(path) is not None and load_project(path).n == 6
