"""Speed benchmarks: each bench_*.py module prints its figures beside a peer's (``python -m benchmarks``).

``python -m benchmarks.bench_x`` imports this package first: importing designer here sets the product's one BLAS
thread (designer/__init__.py) before numpy loads, so the figures are the product's, peers included."""

import designer  # noqa: F401
