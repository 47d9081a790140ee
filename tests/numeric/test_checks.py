"""The model's validation (run on every project load) computes no M; check_model, which the command
line and the window show, adds the numeric check that M is singular at every pose."""

from __future__ import annotations

import subprocess
import sys

from designer.model import Inertia, JointType, Link, Manipulator, validate
from designer.numeric.checks import check_model
from tests.support import robot_path


def _coaxial() -> Manipulator:
    # standard DH, a = alpha = 0 on a massless link 1: joint 2's axis is joint 1's, M has the null vector (1, -1)
    inertia = Inertia(0.1, 0.12, 0.08, 0.01, 0.0, -0.005)
    return Manipulator(links=(Link(JointType.REVOLUTE, d=0.2, mass=0.0),
                              Link(JointType.REVOLUTE, a=0.4, mass=2.0, com=(0.1, 0.1, 0), inertia=inertia)),
                       gravity=(0, 0, -9.81))


def test_the_general_singular_m_is_found_by_check_model_only():
    model = _coaxial()
    assert not any("singular" in p.message for p in validate(model))
    found = [p for p in check_model(model) if "singular at every pose" in p.message]
    assert [p.where for p in found] == ["links[2]"] and "joints 1, 2 together" in found[0].message


def test_loading_a_project_does_not_load_the_numeric_layer():
    code = ("import sys; from designer.project import load_project; "
            f"load_project({str(robot_path('puma560'))!r}); "
            "print(sorted(m for m in sys.modules if m.startswith(('designer.numeric', 'designer.dynamics'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
