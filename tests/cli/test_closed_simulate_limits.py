"""``simulate --limits`` of a closed chain: the limits of every joint of its tree (the passive ones included) are
watched, and with ``stop`` held by end stops whose work the energy change equals (a physical law); a start past a
limit is one line, exit 2."""

from __future__ import annotations

import csv
import io

import numpy as np

from designer.cli import main
from tests.support import robot_path

PALLETIZER = str(robot_path("palletizer_parallelogram"))
Q0 = ["0", "0.4", "0.6", "0"]   # q1, q2, q4, q6: the forearm q3 = q4 - q2 = 0.2 falls to its -90° limit


def _rows(text):
    rows = list(csv.DictReader(io.StringIO(text)))
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}


def test_end_stops_hold_a_passive_joint_and_the_energy_change_is_their_work(capsys):
    assert main(["simulate", PALLETIZER, "--q0", *Q0, "--t", "1", "--dt", "0.01", "--limits", "stop", "--quiet"]) == 0
    out = capsys.readouterr()
    data = _rows(out.out)
    assert "end stop: q3 passed its lower limit (-90°)" in out.err
    energy = data["energy"]
    scale = float(np.ptp(energy))
    assert np.abs(data["stop_work"]).max() > 0.1 * scale       # the stop took energy out
    assert np.abs(energy - energy[0] - data["stop_work"]).max() < 1e-6 * scale
    assert data["q3"].min() > -np.pi / 2 - np.radians(5)       # held within a few degrees of -90°
    assert main(["simulate", PALLETIZER, "--q0", *Q0, "--t", "1", "--dt", "0.01", "--quiet"]) == 0
    warned = capsys.readouterr()
    assert "warning: q3 passed its lower limit" in warned.err and _rows(warned.out)["q3"].min() < -np.pi / 2 - 0.5


def test_a_start_past_a_passive_limit_is_one_line(capsys):
    assert main(["simulate", PALLETIZER, "--q0", "0", "1", "-1", "0", "--t", "0.1", "--limits", "stop",
                 "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "q3 starts at" in err
