"""Exported names are unique whatever the project calls its links and joints: a joint named like the
exporter's own ("base_joint", "tool_joint"), or a link named like another's fallback ("link2"), made a
URDF that Pinocchio and every other reader refuse ("joint 'base_joint' is not unique")."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.model import Link, Manipulator
from designer.numeric.recursive import mass_matrix
from designer.urdf import urdf_text

pin = pytest.importorskip("pinocchio")


def _model() -> Manipulator:
    names = [("link2", "base_joint"), ("base", "tool_joint"), ("dh_frame0", "j"), ("dh_frame0", "j"),
             ("link1", "joint1")]
    links = tuple(Link(a=0.1 * (k + 1), alpha=0.3 * k, mass=1.0 + k, com=(0.05, 0, 0), name=name, joint_name=joint)
                  for k, (name, joint) in enumerate(names))
    return Manipulator(links=links, gravity=(0, 0, -9.81))


def test_names_are_unique_and_the_file_loads_with_the_same_dynamics(tmp_path):
    text = urdf_text(_model())
    root = ET.fromstring(text)
    for kind in ("link", "joint"):
        names = [el.get("name") for el in root.findall(kind)]
        assert len(names) == len(set(names)), (kind, names)
    path = tmp_path / "arm.urdf"
    path.write_text(text)
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    arm = NumericArm.from_model(_model())
    q = np.array([0.3, -0.5, 0.7, 0.2, -1.1])
    # every joint is revolute without limits: continuous in URDF, (cos, sin) in Pinocchio
    config = np.concatenate([[np.cos(v), np.sin(v)] for v in q]) if model.nq == 2 * arm.n else q
    M = pin.crba(model, data, config)
    np.testing.assert_allclose(np.triu(M) + np.triu(M, 1).T, mass_matrix(arm, q), rtol=1e-10, atol=1e-12)
