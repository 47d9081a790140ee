"""The window draws a project's arm before sympy is imported (issue 29): the numeric kinematics, the model's
enums and beams, the 3D view's modules and the joint sliders import, and compute an arm's frames, in a process
where sympy cannot be imported (the frames checked against the DH product written out here). designer.model and
designer.kinematics load their names on first use: each is still there, the same object as its module's."""

from __future__ import annotations

import importlib

import numpy as np

from tests.support.no_sympy import run_without_sympy

DH = [(0.0, np.pi / 2, 0.3, 0.0), (0.4, 0.0, 0.0, 0.1), (0.0, 0.0, 0.2, 0.0)]   # a, alpha, d, theta
REVOLUTE = (True, True, False)
Q = [0.5, -0.7, 0.15]

_SCRIPT = f"""
import numpy as np
import designer.kinematics.numeric as numeric
import designer.model.kinds as kinds
import designer.model.beam
import designer.gui.arm_scene
import designer.gui.view3d
import designer.gui.joint_sliders
from designer.model import Convention

arm = numeric.NumericArm(
    convention=Convention.STANDARD, revolute=np.array({list(REVOLUTE)}), dh=np.array({DH}),
    mass=np.ones(3), com=np.zeros((3, 3)), inertia=np.tile(np.eye(3), (3, 1, 1)),
    gravity=np.array([0.0, 0.0, -9.81]), limits=np.full((3, 2), np.nan), point_masses=())
result({{"frames": arm.frames({Q}).tolist(), "same_enum": kinds.Convention.STANDARD is Convention.STANDARD}})
"""


def _dh(a, alpha, d, theta) -> np.ndarray:
    """Rz(theta) Tz(d) Tx(a) Rx(alpha) as four separate matrices multiplied."""
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    Rz = np.array([[ct, -st, 0, 0], [st, ct, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    Tz, Tx = np.eye(4), np.eye(4)
    Tz[2, 3], Tx[0, 3] = d, a
    Rx = np.array([[1, 0, 0, 0], [0, ca, -sa, 0], [0, sa, ca, 0], [0, 0, 0, 1]])
    return Rz @ Tz @ Tx @ Rx


def test_the_numeric_arm_and_the_view_modules_import_and_compute_without_sympy(tmp_path):
    out = run_without_sympy(_SCRIPT, tmp_path)
    assert out["same_enum"] is True
    expected = [np.eye(4)]
    for (a, alpha, d, theta), qi, revolute in zip(DH, Q, REVOLUTE):
        expected.append(expected[-1] @ _dh(a, alpha, d + (0 if revolute else qi), theta + (qi if revolute else 0)))
    np.testing.assert_allclose(np.array(out["frames"]), np.array(expected), atol=1e-12)


def test_the_lazy_packages_give_every_name_they_list_from_its_module():
    import designer.kinematics
    import designer.model
    from designer.model import kinds, manipulator

    for package in (designer.model, designer.kinematics):
        for name in package.__all__:
            value = getattr(package, name)
            home = importlib.import_module(getattr(value, "__module__", None) or package.__name__)
            assert getattr(home, name, value) is value, f"{package.__name__}.{name}"
            assert name in dir(package)
    assert designer.model.Convention.STANDARD is manipulator.Convention.STANDARD is kinds.Convention.STANDARD
    assert designer.model.JointType is manipulator.JointType is kinds.JointType
    assert not hasattr(designer.model, "no_such_name")
