"""Speed benchmarks: each bench_*.py module prints its figures beside a peer's (``python -m benchmarks``)."""
