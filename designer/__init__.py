"""Manipulator Designer: design robot arms (serial, trees, closed loops, elastic joints) from DH tables."""

import os as _os

# One BLAS thread unless the user says otherwise (before numpy loads). Our linear algebra is small matrices
# (n <= 30, stacks of them): OpenBLAS's threads gain nothing there and, on a machine busy with other work, its
# threads wait for each other: a 75 x 75 eigh took 21 ms instead of 0.45 ms (median of 20, load 12 on 2 cores),
# and the tube arm's mode dialog 0.9 s instead of 20 ms. Worker processes inherit it.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")

__version__ = "0.1.0"
