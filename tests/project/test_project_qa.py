"""Project files as other tools write them: numbers with rounding in them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.project import ProjectError, from_dict


def _doc(inertia) -> dict:
    return {"format": "manipulator-designer", "version": 1, "convention": "standard",
            "links": [{"joint": "R", "a": 0.3, "alpha": 0, "d": 0, "theta": 0, "mass": 1.0,
                       "inertia": inertia}]}


def _rotated(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return q @ np.diag([0.2, 0.3, 0.4]) @ q.T  # R D R^T: asymmetric by rounding


@given(st.integers(0, 2**32 - 1))
def test_an_inertia_computed_as_r_d_rt_is_read(seed):
    tensor = _rotated(seed)
    model = from_dict(_doc(tensor.tolist()))
    read = np.array(model.links[0].inertia.matrix(), dtype=float)
    assert np.array_equal(read, read.T)
    assert np.abs(read - tensor).max() <= 1e-15


def test_the_rounding_case_is_really_asymmetric():
    # the property above is only worth something if the tensors it reads are not exactly symmetric
    assert any(not np.array_equal(_rotated(s), _rotated(s).T) for s in range(20))


@pytest.mark.parametrize("off", [1e-9, 1e-3])
def test_a_tensor_asymmetric_beyond_rounding_is_still_refused(off):
    tensor = _rotated(1)
    tensor[0][1] += off
    with pytest.raises(ProjectError, match=r"links\[1\]\.inertia: not symmetric"):
        from_dict(_doc(tensor.tolist()))


def test_a_symbolic_asymmetry_is_refused():
    with pytest.raises(ProjectError, match="not symmetric"):
        from_dict(_doc([[1, "b", 0], ["b + 1e-20", 1, 0], [0, 0, 1]]) | {"parameters": {"b": 0.1}})


def test_a_rounded_pair_is_read_when_another_entry_is_a_symbol():
    # a CAD tensor with one entry made a parameter: the other pairs still differ only by rounding
    tensor = _rotated(1).tolist()
    assert any(tensor[r][c] != tensor[c][r] for r, c in ((0, 1), (0, 2), (1, 2)))
    tensor[2][2] = "Izz1"
    model = from_dict(_doc(tensor) | {"parameters": {"Izz1": 0.4}})
    read = model.links[0].inertia.matrix()
    assert read == read.T


@pytest.mark.parametrize("text,message", [
    # before: Python's own advice ("use sys.set_int_max_str_digits() to increase the limit") and
    # "maximum recursion depth exceeded while decoding a JSON array from a unicode string"
    ('{"format": "manipulator-designer", "version": 1' + "0" * 5000 + "}",
     "not valid JSON: a number of more than 4300 digits"),
    ("[" * 100_000 + "]" * 100_000, "not valid JSON: nested too deeply"),
])
def test_json_the_reader_cannot_take_is_said_plainly(text, message):
    from designer.project import loads_project
    with pytest.raises(ProjectError) as info:
        loads_project(text)
    assert str(info.value) == message


def test_a_missing_joint_type_is_called_missing():
    doc = _doc([[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]])
    del doc["links"][0]["joint"]
    with pytest.raises(ProjectError, match=r'links\[1\]\.joint: missing \("R" for revolute or "P" for prismatic\)'):
        from_dict(doc)


@pytest.mark.parametrize("field,value", [("a", 1e308), ("mass", 1e200), ("d", "1e60")])
def test_a_quantity_beyond_the_computable_range_is_refused_naming_it(field, value):
    # before: the file loaded, and regressor, linearize (NameError 'inf' in traced code) failed with tracebacks
    doc = _doc([[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]])
    doc["links"][0][field] = value
    with pytest.raises(ProjectError, match=rf"links\[1\]\.{field}: .* is too large \(at most 1e\+50"):
        from_dict(doc)


def test_ordinary_large_units_are_kept():
    # inertia in g mm^2 and lengths in mm: large numbers that are still far from the limit
    model = from_dict(_doc([[2e9, 0, 0], [0, 3e9, 0], [0, 0, 4e9]]) | {"gravity": [0, 0, -9810]})
    assert float(model.links[0].inertia.zz) == 4e9
