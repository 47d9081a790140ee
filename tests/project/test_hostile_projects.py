"""Corrupt and hostile project files, generated: every field of a project that uses every feature of the
format (parts, materials, catalog drives, elastic joints, visual meshes, base and tool, requirements, cycle,
payload; a closed chain's loops) replaced by a value of the wrong kind, removed, or set to null, and the
file-level ways a project goes wrong (a byte-order mark, bytes that are not UTF-8, NaN tokens, duplicate keys,
deep nesting, a truncated or empty file, a folder, a URDF). The reader must end each in its own error, one
line naming the file, of bounded length, with no warning printed and no expression run as code; or read the
file (a field that is optional, a null that means the default).

The cases are drawn with a fixed seed (``random.Random``), a few hundred reads in a few seconds.
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pytest

from designer.project import ProjectError, load_project, loads_project
from designer.project.source import MAX_PROBLEM_CHARS, MAX_PROBLEMS_SHOWN

ROOT = Path(__file__).resolve().parents[2]
#: the longest message: MAX_PROBLEMS_SHOWN problems of MAX_PROBLEM_CHARS characters (escapes may make a
#: character four), the file's name and the count
LONGEST = MAX_PROBLEMS_SHOWN * (MAX_PROBLEM_CHARS * 4 + 2) + 200


def _everything() -> dict:
    """A version-4 project that uses every field of the format but loops (the tube arm with requirements)."""
    doc = json.loads((ROOT / "robots" / "tube_arm_requirements.json").read_text())
    doc["base"] = {"xyz": [0.1, 0, 0.2], "rpy": [0, 0, 0.5]}
    doc["tool"] = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.1], [0, 0, 0, 1]]
    doc["gravity_frame"] = "world"
    doc["materials"] = {"mine": {"density": 2700, "young": 7e10, "shear": 2.6e10}}
    doc["links"][2]["part"]["material"] = "mine"
    doc["links"][0]["drive"] = {"gearbox": "NPT025-MF-5", "motor": "SGMSH-10A", "viscous": 0.5}
    doc["links"][1]["visual"] = [{"mesh": "m.stl", "scale": [1, 1, 1], "xyz": [0, 0, 0], "rpy": [0, 0, 0],
                                  "color": [1, 1, 1, 1]}]
    doc["base_visual"] = [{"mesh": "b.stl", "xyz": [0, 0, 0], "rpy": [0, 0, 0]}]
    return doc


def _four_bar() -> dict:
    return json.loads((ROOT / "robots" / "four_bar.json").read_text())


def _paths(node, path=()):
    """The path of every value in a document (objects' keys, lists' indices)."""
    if path:
        yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for k, value in enumerate(node):
            yield from _paths(value, (*path, k))


SENTINEL = "/tmp/hostile17_project_ran_code"   # an expression that ran would create it

#: what a hand-edited or hostile file puts where a value goes: None stands for "the key removed"
HOSTILE = [None, "null", [], {}, [[[[]]]], [None, None, None], {"xyz": None}, True, "", "x" * 20_000, "a\nb\x1b[2J",
           1e308, -1e308, 5e-324, -1, 0, 10**30, [1e308] * 16, {"k" * 5000: 1, "\n": 2}, "1e999", "10**10**10",
           "(" * 3000 + "1" + ")" * 3000, f"__import__('os').system('touch {SENTINEL}')",
           "().__class__.__base__.__subclasses__()", "(lambda: 1)()", "[x for x in (1,)]", "g.real",
           "'NPT025-MF-5'", list(range(3000)), {"a": {"b": {"c": {"d": []}}}}]


def _hostile(doc: dict, path: tuple, value) -> dict:
    out = json.loads(json.dumps(doc))
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = None if value == "null" else value
    return out


def _read(text: str | bytes, name: str = "hostile.json"):
    """The model, or the reader's own error; a warning printed on the way is a failure."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # numpy's "overflow encountered" is a second line on the terminal
        try:
            return loads_project(text, name)
        except ProjectError as exc:
            return exc


def _one_line(result, name: str = "hostile.json") -> None:
    if isinstance(result, ProjectError):
        message = str(result)
        assert "\n" not in message and "\r" not in message and "\x1b" not in message, message[:500]
        assert message.startswith(f"{name}: "), message[:200]
        assert len(message) <= LONGEST, (len(message), message[:300])


def _cases(doc: dict, seed: int, count: int):
    rng = random.Random(seed)
    paths = list(_paths(doc))
    return [(path, rng.choice(HOSTILE)) for path in rng.sample(paths, min(count, len(paths)))]


@pytest.mark.parametrize("make, seed, count", [(_everything, 17, 60), (_four_bar, 18, 30)],
                         ids=["every field", "closed chain"])
def test_a_hostile_value_in_any_field_ends_in_one_line_or_reads(make, seed, count):
    doc = make()
    assert not isinstance(_read(json.dumps(doc)), ProjectError)   # the file as made reads: the cases alone fail
    Path(SENTINEL).unlink(missing_ok=True)
    for path, value in _cases(doc, seed, count):
        _one_line(_read(json.dumps(_hostile(doc, path, value))))
    assert not Path(SENTINEL).exists()


@pytest.mark.parametrize("value", [[], {}, ["tube"], {"tube": 1}])
def test_a_part_shape_that_is_a_list_or_object_is_refused_naming_it(value):
    """A shape written as a list or object is refused like a shape of no name (it raised TypeError:
    unhashable type before)."""
    doc = _everything()
    doc["links"][1]["part"]["shape"] = value
    result = _read(json.dumps(doc))
    assert isinstance(result, ProjectError) and "links[2].part.shape: must be one of" in str(result), result


def test_a_rotation_of_huge_numbers_is_refused_without_a_warning():
    """A 4x4 tool of 1e308 entries is no rotation: refused without numpy's overflow warning (it printed
    two lines of RuntimeWarning before the message)."""
    doc = _everything()
    doc["tool"] = [[1e308, 0, 0, 0], [0, 1e308, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    result = _read(json.dumps(doc))
    assert isinstance(result, ProjectError) and "tool: not a rigid transform" in str(result)


def test_a_long_value_the_message_repeats_is_clipped_keeping_field_and_hint():
    """An unknown key of 30,000 characters used to come back whole, a 30 kB line."""
    doc = _everything()
    doc["base"] = {"xyz": [0, 0, 0], "k" * 30_000: 1}
    message = str(_read(json.dumps(doc)))
    assert message.startswith("hostile.json: base: unknown key(s) kkk") and message.endswith("(use xyz, rpy)")
    assert len(message) < 400, len(message)


def test_many_problems_are_counted_not_all_listed():
    doc = _everything()
    doc["point_masses"] = [{"link": "x", "mass": "y"}] * 500
    message = str(_read(json.dumps(doc)))
    count = int(message.split(": ", 1)[1].split(" problems")[0])
    assert count >= 500 and message.endswith(f"; and {count - MAX_PROBLEMS_SHOWN} more"), message[-200:]
    assert message.count("; ") == MAX_PROBLEMS_SHOWN, message


def test_a_line_break_or_escape_sequence_in_a_name_is_written_escaped():
    """A key holding a line break (or a terminal's escape sequence) would split the one line or act on the
    terminal: it is written as its escape."""
    doc = _everything()
    doc["links"][0]["evil\nkey\x1b[2J"] = 1
    message = str(_read(json.dumps(doc)))
    assert "unknown field(s) evil\\nkey\\x1b[2J" in message, message


def test_a_reference_to_what_is_not_there_names_it():
    doc = _everything()
    doc["links"][2]["part"]["material"] = "unobtainium"
    doc["links"][0]["drive"]["gearbox"] = "NOPE-1"
    message = str(_read(json.dumps(doc)))
    assert "links[3].part.material: unknown material 'unobtainium'" in message, message
    assert "links[1].drive.gearbox: no gearbox named 'NOPE-1'" in message, message
    closed = _four_bar()
    closed["links"][2]["parent"] = 9
    closed["loops"][0]["link_i"] = 7
    message = str(_read(json.dumps(closed)))
    assert "links[3].parent" in message and "loops[1]" in message, message


def _whole_file_cases(doc: dict) -> dict[str, str | bytes]:
    text = json.dumps(doc)
    urdf = (ROOT / "tests" / "urdf" / "files").glob("*.urdf")
    return {
        "empty": "", "spaces": "  \n ", "truncated": text[: len(text) // 2], "a list": "[]", "a number": "1e999",
        "NaN token": text.replace('"viscous": 0.5', '"viscous": NaN'),
        "Infinity token": text.replace('"viscous": 0.5', '"viscous": -Infinity'),
        "duplicate key": text.replace('"viscous": 0.5', '"viscous": 0.5, "viscous": 5'),
        "deep nesting": '{"links": ' + "[" * 50_000 + "]" * 50_000 + "}",
        "not UTF-8": text.encode().replace(b"Tube", b"\xff\xfeTube"),
        "UTF-16": text.encode("utf-16"),
        "lone surrogate": text.replace('"Tube', '"\\ud800Tube'),
        "a number of 5000 digits": text.replace('"viscous": 0.5', '"viscous": ' + "9" * 5000),
        "a URDF": next(iter(sorted(urdf))).read_text(),
        "binary": bytes(range(256)) * 8,
        "a version from the future": text.replace('"version": 4', '"version": 99'),
        "a version of text": text.replace('"version": 4', '"version": "4"'),
    }


def test_whole_file_corruption_ends_in_one_line():
    for case, content in _whole_file_cases(_everything()).items():
        result = _read(content)
        assert isinstance(result, ProjectError), case
        _one_line(result)


def test_a_bom_is_read():
    text = json.dumps(_everything())
    assert not isinstance(_read("\ufeff" + text), ProjectError)
    assert not isinstance(_read(b"\xef\xbb\xbf" + text.encode()), ProjectError)


def test_a_robot_description_given_as_project_says_to_import_it():
    urdf = sorted((ROOT / "tests" / "urdf" / "files").glob("*.urdf"))[0]
    message = str(_read(urdf.read_bytes(), urdf.name))
    assert message.startswith(f"{urdf.name}: not valid JSON") and "it is XML" in message and "import" in message


def test_files_that_are_not_projects_on_disk(tmp_path):
    (tmp_path / "folder.json").mkdir()
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
    for name in ("folder.json", "zero.json", "dangling.json", "loop.json", "missing.json"):
        with pytest.raises(ProjectError) as info:
            load_project(tmp_path / name)
        _one_line(info.value, str(tmp_path / name))


@pytest.mark.parametrize("key, field", [("base", "xyz"), ("tool", "rpy")])
def test_a_base_or_tool_beyond_the_largest_quantity_is_refused_naming_it(key, field):
    """A base at x = 1e308 was read, and fk overflowed on it (numpy's RuntimeWarning on the terminal, then inf):
    base and tool are quantities of the arm like the others, at most 1e50 in size."""
    doc = _everything()
    doc[key] = {"xyz": [0, 0, 0], "rpy": [0, 0, 0]}
    doc[key][field][0] = 1e308
    result = _read(json.dumps(doc))
    assert isinstance(result, ProjectError) and f"{key}.{field}[0]: 1e+308 is too large" in str(result), result
