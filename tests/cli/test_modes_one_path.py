"""``modes`` is one command body for every mechanism (numeric/modes.py: elastic_at): a serial arm's output, the tube
arm's links included, against the closed-chain engine run on the same arm as a tree without loops
(numeric/closed_flex.py: ClosedFlex, its own virtual-joint model with the gearboxes, W over no loops), an
implementation the serial path does not use (it takes the beams' exact integral and numeric/flex_modes.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from designer.cli import main
from designer.kinematics.tree import TreeArm
from designer.numeric.closed_flex import ClosedFlex
from designer.numeric.elastic import elastic_joints
from designer.project import load_project
from tests.support import robot_path

Q = (0.3, -0.5, 0.8)


def test_a_serial_arms_modes_compliance_and_links_sag_agree_with_the_tree_model_without_loops(capsys):
    path = robot_path("tube_arm")
    assert main(["modes", str(path), "--q", *map(str, Q), "--payload", "2", "--segments", "3", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    model = load_project(path)
    model = getattr(model, "model", model)
    tree = TreeArm.from_model(model)
    assert tree.passive == () and out["joints"] == ["q1", "q2", "q3"]
    both = ClosedFlex(tree, elastic_joints(model).stiffness, 3)
    # the virtual joints' static compliance is the beams' integral for any slice count (plus J K^-1 J^T)
    C = both.compliance(np.array(Q))
    np.testing.assert_allclose(out["compliance"]["matrix"], C, rtol=0, atol=1e-10 * np.abs(C).max())
    freq, _, energy, groups = both.modes(np.array(Q))
    np.testing.assert_allclose(out["links"]["frequency_hz"], freq, rtol=1e-9)
    assert [list(row) for row in out["links"]["strain_energy"]] == [list(groups)] * len(freq)
    np.testing.assert_allclose([[row[g] for g in groups] for row in out["links"]["strain_energy"]], energy,
                               atol=1e-8)
    # the links' sag: the lumped slices converge (second order) to the beams' exact solution the command prints
    sag = 1e3 * ClosedFlex(tree, np.full(tree.n, np.inf), 32).sag(np.array(Q), 2.0)[:3]
    assert out["links"]["sag_mm"] == pytest.approx(sag, rel=1e-4, abs=1e-4 * np.abs(sag).max())
    coarse = 1e3 * ClosedFlex(tree, np.full(tree.n, np.inf), 3).sag(np.array(Q), 2.0)[:3]
    assert np.abs(coarse - out["links"]["sag_mm"]).max() > 10 * np.abs(sag - out["links"]["sag_mm"]).max()
