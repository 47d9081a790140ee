"""Run every benchmarks/bench_*.py as a script, one after the other (``python -m benchmarks [NAME ...]``)."""

import runpy
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
wanted = sys.argv[1:]
for path in sorted(here.glob("bench_*.py")):
    if wanted and path.stem not in wanted and path.stem.removeprefix("bench_") not in wanted:
        continue
    print(f"=== {path.stem} ===", flush=True)
    sys.argv = [str(path)]  # each script parses its own (default) options
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as exc:  # scripts end with sys.exit(main())
        if exc.code not in (0, None):
            raise
