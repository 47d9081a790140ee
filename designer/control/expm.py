"""The matrix exponential in numpy alone, for the zero-order-hold model.

scipy has it, but importing scipy.signal (or scipy.linalg) costs 0.2-0.7 s, which the window's
first Linearize spent in the GUI thread. Scaling and squaring with the [13/13] Padé approximant
(Higham 2005, "The scaling and squaring method for the matrix exponential revisited"): the
matrix is halved s times until its 1-norm is below theta_13, where the approximant is accurate to
double precision, and the result squared s times.
"""

from __future__ import annotations

import numpy as np

__all__ = ["expm"]

#: numerator coefficients of the [13/13] Padé approximant of exp (the denominator's alternate in sign)
_B = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
      10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
#: the largest 1-norm for which the [13/13] approximant is accurate to unit roundoff
_THETA_13 = 5.371920351148152


def expm(a: np.ndarray) -> np.ndarray:
    """exp(a) of a square float matrix."""
    a = np.asarray(a, dtype=float)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"expm: expected a square matrix, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("expm: the matrix has entries that are not finite")
    norm = np.abs(a).sum(axis=0).max() if a.size else 0.0
    s = max(0, int(np.ceil(np.log2(norm / _THETA_13)))) if norm > _THETA_13 else 0
    a = a / 2.0 ** s
    eye = np.eye(a.shape[0])
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    b = _B
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r
