"""Drive terms added to the rigid-body equations on request (off by default; docs/urdf.md).

The reflected motor inertia N^2 Jm of each joint adds to the diagonal of M(q), and joint
friction (viscous b qd plus Coulomb fc sign(qd)) adds to tau. They are kept apart from the
derivations: a caller that wants them adds these terms to what a derivation or the numeric
dynamics returned, and says so in its report.
"""

from __future__ import annotations

import numpy as np

from ..model.manipulator import Manipulator

__all__ = ["drive_arrays", "reflected_inertia", "friction_torque", "with_drives"]


def drive_arrays(model: Manipulator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N^2 Jm, viscous b, Coulomb fc) per joint; 0 where the project has no value."""
    refl, visc, coul = (np.zeros(model.n) for _ in range(3))
    for i, link in enumerate(model.links):
        if link.drive is not None:
            refl[i] = link.drive.reflected_inertia
            visc[i] = link.drive.viscous or 0.0
            coul[i] = link.drive.coulomb or 0.0
    return refl, visc, coul


def reflected_inertia(model: Manipulator) -> np.ndarray:
    """The n x n diagonal matrix of N^2 Jm to add to M(q)."""
    return np.diag(drive_arrays(model)[0])


def friction_torque(model: Manipulator, qd) -> np.ndarray:
    """b qd + fc sign(qd) per joint."""
    _, visc, coul = drive_arrays(model)
    qd = np.asarray(qd, dtype=float)
    return visc * qd + coul * np.sign(qd)


def with_drives(model: Manipulator, M: np.ndarray, tau: np.ndarray, qd, qdd) -> tuple[np.ndarray, np.ndarray]:
    """(M + diag(N^2 Jm), tau + N^2 Jm qdd + friction) for one state."""
    refl = drive_arrays(model)[0]
    return M + np.diag(refl), tau + refl * np.asarray(qdd, dtype=float) + friction_torque(model, qd)
