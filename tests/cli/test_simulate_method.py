"""``simulate --method``: auto by default, the summary says which integrator ran and why; a named one is forced."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from designer.cli import main
from designer.cli.numeric_commands import INTEGRATORS
from designer.numeric.integrate import SOLVERS
from tests.support import robot_path
from tests.support.stiff_arm import Q0, write_stiff_arm


def _rows(text: str) -> np.ndarray:
    rows = list(csv.DictReader(io.StringIO(text)))
    return np.array([[float(r[f"q{j}"]) for j in range(1, 5)] for r in rows])


def test_the_elastic_summary_names_the_chosen_integrator_and_a_forced_one(tmp_path, capsys):
    path = str(write_stiff_arm(tmp_path))
    common = ["simulate", path, "--elastic", "--q0", *map(str, Q0), "--t", "0.05", "--dt", "0.01", "--rtol", "1e-10",
              "--quiet"]
    assert main(common) == 0
    out = capsys.readouterr()
    assert "(DOP853: not stiff (stiffness ratio 1" in out.err
    assert main([*common, "--method", "Radau"]) == 0
    forced = capsys.readouterr()
    assert "(Radau: as asked (--method))" in forced.err
    assert np.abs(_rows(out.out) - _rows(forced.out)).max() < 1e-9


def test_the_rigid_summary_says_it_too_and_a_bad_method_is_refused(capsys):
    assert main(["simulate", str(robot_path("puma560")), "--q0", "0", "0.3", "-0.4", "0", "0.5", "0", "--t", "0.1",
                 "--dt", "0.05", "--quiet"]) == 0
    assert "; DOP853: not stiff (stiffness ratio" in capsys.readouterr().err
    assert sorted(INTEGRATORS) == sorted(["auto", *SOLVERS])
    with pytest.raises(SystemExit) as exc:
        main(["simulate", str(robot_path("puma560")), "--q0", "0", "0", "0", "0", "0", "0", "--t", "0.1",
              "--method", "Euler"])
    assert exc.value.code == 2
    assert "invalid choice: 'Euler'" in capsys.readouterr().err
