"""Arms the GUI tests share: the PUMA 560 from robots/ when it exists, else built here."""

from __future__ import annotations

from pathlib import Path

from designer.model import Inertia, Link, Manipulator

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

# Corke's standard-DH PUMA 560 (Armstrong, Khatib & Burdick masses, COMs and inertias)
_A = ["0", "a2", "a3", "0", "0", "0"]
_ALPHA = ["pi/2", "0", "-pi/2", "pi/2", "-pi/2", "0"]
_D = ["0", "0", "d3", "d4", "0", "0"]
_MASS = ["0", "m2", "m3", "m4", "m5", "m6"]
_COM = [(0, 0, 0), (-0.3638, 0.006, 0.2275), (-0.0203, -0.0141, 0.070), (0, 0.019, 0), (0, 0, 0), (0, 0, 0.032)]
_INERTIA = [(0, 0.35, 0), (0.13, 0.524, 0.539), (0.066, 0.086, 0.0125), (1.8e-3, 1.3e-3, 1.8e-3),
            (0.3e-3, 0.4e-3, 0.3e-3), (0.15e-3, 0.15e-3, 0.04e-3)]
PARAMETERS = {"a2": 0.4318, "a3": 0.0203, "d3": 0.15005, "d4": 0.4318, "m2": 17.4, "m3": 4.8, "m4": 0.82,
              "m5": 0.34, "m6": 0.09, "g": 9.81}


def puma560() -> Manipulator:
    """The six-link PUMA 560 built in code (same numbers as robots/puma560.json is meant to hold)."""
    links = [Link("R", a=_A[i], alpha=_ALPHA[i], d=_D[i], theta=0, mass=_MASS[i], com=_COM[i],
                  inertia=Inertia.diagonal(*_INERTIA[i]), name=f"link{i + 1}", limits=("-pi", "pi"))
             for i in range(6)]
    return Manipulator(links=tuple(links), name="PUMA 560", parameters=PARAMETERS)


def six_link() -> Manipulator:
    """robots/puma560.json when it is there, else :func:`puma560`."""
    path = ROBOTS / "puma560.json"
    if path.exists():
        from designer.project import load_project
        return load_project(path)
    return puma560()
