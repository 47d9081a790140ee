"""Every numeric option of the command line has a range (designer/cli/ranges.py): a value outside it, or
a grid or sample count beyond the memory, is refused in one line naming the option, before anything
is computed or allocated."""

from __future__ import annotations

import argparse

import pytest

from designer.cli import build_parser, main, ranges
from designer.cli.common import UserError
from designer.cli.ranges import Bounded

from tests.support import robot_path

PUMA = str(robot_path("puma560"))
PENDULUM = str(robot_path("double_pendulum"))
FOUR_BAR = str(robot_path("four_bar"))


def _one_line(capsys, argv: list[str], *fragments: str) -> str:
    """Run the command line; it must refuse with exit 2 and one line on standard error holding ``fragments``."""
    try:
        code = main(argv)
    except SystemExit as exc:   # argparse's own refusal
        code = exc.code
    out = capsys.readouterr()
    assert code == 2, (argv, out.err)
    assert out.err.count("\n") == 1, out.err
    for fragment in fragments:
        assert fragment in out.err, (fragment, out.err)
    return out.err


def _actions(parser: argparse.ArgumentParser, path: str = ""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{path} {name}".strip())
        else:
            yield path, action


def test_no_option_reads_a_bare_int_or_float():
    """argparse's int and float take any size (1e300 s, --max-terms -5): every typed option is a Bounded."""
    bare = [(path, a.option_strings) for path, a in _actions(build_parser()) if a.type in (int, float)]
    assert bare == []
    typed = {a.option_strings[0] for _, a in _actions(build_parser()) if isinstance(a.type, Bounded)}
    assert {"--steps", "--samples", "--seed", "--max-terms", "--time-limit", "--workers", "--segments", "--density",
            "--harmonics", "--period", "--threshold", "--check", "--choose", "--duration", "--joints"} <= typed


@pytest.mark.parametrize("argv, fragments", [
    (["explore", PUMA, "map", "--metric", "cond", "--joints", "2", "3", "--steps", "1e8"],
     ["--steps", "100,000,000 is out of range", "2 to 100,000"]),
    (["explore", PUMA, "map", "--metric", "cond", "--steps", "2.5"], ["--steps", "'2.5' is not a whole number"]),
    (["derive", PENDULUM, "--max-terms", "-5"], ["--max-terms", "-5 is out of range", "1 to "]),
    (["derive", PENDULUM, "--time-limit", "inf"], ["--time-limit", "'inf' is not a finite number"]),
    (["derive", PENDULUM, "--time-limit", "1e9"], ["--time-limit", "1e9 is out of range"]),
    (["simulate", PENDULUM, "--q0", "0", "0", "--t", "1e300"], ["--t: 1e300 is out of range: give above 0 up to 1e6"]),
    (["simulate", PENDULUM, "--q0", "0", "0", "--t", "0"], ["--t: 0 is out of range"]),
    (["simulate", PENDULUM, "--q0", "0", "0", "--t", "1", "--dt", "-1"], ["--dt: -1 is out of range"]),
    (["simulate", PENDULUM, "--q0", "0", "0", "--t", "1", "--rtol", "1e-20"], ["--rtol: 1e-20 is out of range"]),
    (["simulate", PENDULUM, "--q0", "0", "0", "--t", "1", "--atol", "2"], ["--atol: 2 is out of range"]),
    (["simulate", PENDULUM, "--q0", "0", "1e300", "--t", "1"], ["--q0: 1e300 is out of range"]),
    (["simulate", PENDULUM, "--q0", "0", "0", "--t", "1", "--pd", "10", "-1"], ["--pd KD: -1 is out of range"]),
    (["simulate", FOUR_BAR, "--q0", "0", "--t", "1e7"], ["--t: 1e7 is out of range"]),
    (["explore", PUMA, "map", "--metric", "cond", "--samples", "0"], ["--samples", "0 is out of range"]),
    (["explore", PUMA, "map", "--metric", "cond", "--seed", "-1"], ["--seed", "-1 is out of range"]),
    (["explore", PUMA, "map", "--metric", "cond", "--workers", "0"], ["--workers", "0 is out of range"]),
    (["explore", PUMA, "sweep", "--param", "a2", "0", "1", "0", "--metric", "cond"], ["--param a2 COUNT: 0 is out"]),
    (["explore", PUMA, "sweep", "--param", "a2", "0", "inf", "3", "--metric", "cond"], ["--param a2 STOP"]),
    (["explore", PUMA, "payload", "--torque", "100", "--z", "0", "1", "1e9"], ["--z COUNT: 1,000,000,000 is out"]),
    (["explore", PUMA, "metric", "--torque", "-3"], ["--torque: -3 is out of range"]),
    (["explore", PUMA, "metric", "--payload", "-1"], ["--payload: -1 is out of range"]),
    (["explore", PUMA, "significance", "--threshold", "2"], ["--threshold", "2 is out of range: give from 0 to 1"]),
    (["explore", PUMA, "sizing", "--from", "0", "0", "0", "0", "0", "0", "--to", "1", "1", "1", "1", "1", "1",
      "--duration", "0"], ["--duration", "0 is out of range"]),
    (["regressor", PUMA, "--excite", "--harmonics", "0"], ["--harmonics", "0 is out of range: give 1 to 50"]),
    (["regressor", PUMA, "--excite", "--period", "-10"], ["--period", "-10 is out of range"]),
    (["linearize", PENDULUM, "--dt", "0"], ["--dt: 0 is out of range"]),
    (["modes", PUMA, "--segments", "65"], ["--segments", "65 is out of range: give 1 to 64"]),
    (["import-urdf", "x.urdf", "--density", "0"], ["--density", "0 is out of range"]),
    (["fk", PENDULUM, "--q", "0", "nan"], ["--q[2]"]),
])
def test_a_number_out_of_range_is_one_line_naming_the_option(capsys, argv, fragments):
    _one_line(capsys, argv, *fragments)


def test_a_grid_beyond_the_memory_is_refused_before_it_is_allocated(capsys, monkeypatch):
    """The estimate is checked against the memory available (here said to be 1 GB): 41 kB a state of a
    six-joint arm, so a 200 x 200 grid (1.6 GB) is refused and a 50 x 50 one computed."""
    monkeypatch.setattr(ranges, "available_memory", lambda: 10**9)
    base = ["explore", PUMA, "map", "--metric", "cond", "--joints", "2", "3", "--quiet"]
    err = _one_line(capsys, base + ["--steps", "200"], "--steps: a grid of 200 x 200 = 40,000 joint states",
                    "would take about 1.6", "of the 1 GB available")
    assert "Traceback" not in err
    _one_line(capsys, ["explore", PUMA, "map", "--metric", "cond", "--samples", "100000"],
              "--samples: 100,000 joint states would take about")
    assert main(base + ["--steps", "5"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1 + 25


def test_the_estimate_is_above_what_a_map_takes():
    """states_bytes bounds the peak memory of evaluating the heaviest metric (the check of the estimate the
    refusals rest on): tracemalloc's peak over 512 states of the PUMA 560."""
    import tracemalloc

    import numpy as np

    from designer.explore.maps import sample_configurations
    from designer.explore.metrics import Ratings, evaluate, parse_metric
    from designer.kinematics import NumericArm
    from designer.project import load_project
    arm = NumericArm.from_model(load_project(PUMA))
    Q = sample_configurations(arm, 512)
    rated = Ratings.of(6, np.ones(6), np.ones(6), np.ones(6))
    for name in ("torque_bound", "coriolis", "dyn_manipulability"):
        tracemalloc.start()
        try:
            evaluate(arm, Q, parse_metric(name, 6, tuple(range(1, 7))), rated)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < ranges.states_bytes(len(Q), 6), name


def test_bounded_reads_and_refuses():
    whole = Bounded(int, 2, 100)
    assert whole("1e1") == 10 and whole(" 7 ") == 7
    for bad in ("1", "101", "2.5", "x", "inf", "nan"):
        with pytest.raises(argparse.ArgumentTypeError):
            whole(bad)
    real = Bounded(float, 0, 1e6, above=True)
    assert real.parse("pi/2", "--t") == pytest.approx(1.5707963267948966)
    with pytest.raises(UserError, match=r"^--t: 0 is out of range: give above 0 up to 1e6$"):
        real.parse("0", "--t")
    with pytest.raises(UserError, match=r"^--t: 1e300 is out of range"):
        real.parse("1e300", "--t")
    with pytest.raises(UserError, match=r"^--t: "):
        real.parse("q1", "--t")
    assert real.check(1e6, "--t") == 1e6
