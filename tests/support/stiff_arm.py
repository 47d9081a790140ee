"""A four-joint arm with moderately stiff gearboxes (2,963 to 31,730 N m/rad at the joints): issue 31's free
vibration case, where an implicit integrator at a tight tolerance crawls (Radau at rtol 1e-10: tens of seconds)
and an explicit one is quick. All numbers are assumed, plausible for a 3 kg-payload arm of 0.9 m reach."""

from __future__ import annotations

import json
from pathlib import Path

#: the joints' stiffness (N m/rad), waist to wrist
STIFFNESS = (31730.0, 17400.0, 8120.0, 2963.0)
#: a pose off every symmetry, at which the free vibration starts (the springs holding gravity: at rest)
Q0 = (0.3, 0.5, -0.9, 0.4)


def _link(name, a, alpha, d, mass, com, inertia, k, gear, rotor):
    return {"name": name, "joint": "R", "a": a, "alpha": alpha, "d": d, "theta": 0, "mass": mass, "com": com,
            "inertia": dict(zip(("xx", "yy", "zz"), inertia)), "limits": ["-pi", "pi"],
            "drive": {"gear_ratio": gear, "motor_inertia": rotor, "stiffness": k, "damping": 0}}


PROJECT = {
    "format": "manipulator-designer", "version": 3, "name": "Four-joint arm, stiff gearboxes (issue 31)",
    "description": "Waist, shoulder, elbow and wrist pitch; strain-wave gearboxes of 2,963 to 31,730 N m/rad "
                   "without damping (assumed numbers).",
    "convention": "standard", "gravity": [0, 0, "-g"], "parameters": {"g": 9.81},
    "links": [
        _link("waist", 0, "pi/2", 0.35, 8.0, [0, -0.05, 0], [0.08, 0.06, 0.07], STIFFNESS[0], 100, 1.2e-4),
        _link("shoulder", 0.45, 0, 0, 6.0, [-0.25, 0, 0.05], [0.02, 0.12, 0.12], STIFFNESS[1], 100, 1.0e-4),
        _link("elbow", 0.40, 0, 0, 3.5, [-0.2, 0, 0], [0.008, 0.05, 0.05], STIFFNESS[2], 80, 5.0e-5),
        _link("wrist", 0.10, 0, 0, 1.2, [-0.04, 0, 0.01], [0.002, 0.003, 0.003], STIFFNESS[3], 50, 2.0e-5),
    ],
}


def write_stiff_arm(folder: Path) -> Path:
    """The project written as ``stiff_arm.json`` in ``folder``; its path."""
    path = Path(folder) / "stiff_arm.json"
    path.write_text(json.dumps(PROJECT, indent=1))
    return path
