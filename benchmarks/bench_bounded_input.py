"""What refusing a hostile text costs: the expression parser and the project reader stop at a fixed budget.

Run: ``python benchmarks/bench_bounded_input.py [--runs N]``. Not a test (the tests assert the refusal).
Each hostile text (deep nesting, long chains, the project's 100,000-character total) is refused; printed:
the median and worst time of the refusal over N runs, and the ratio to parsing one ordinary DH entry
(``L2*cos(alpha2) + d3``) in the same run, the peer every cell edit pays.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designer.errors import DesignerError  # noqa: E402
from designer.model import parse_expr  # noqa: E402
from designer.project import from_dict, load_project  # noqa: E402
from designer.project.io import to_dict  # noqa: E402

TEXTS = {
    "10,000 nested parentheses": "(" * 10000 + "1" + ")" * 10000,
    "5,000 nested negations": "-(" * 5000 + "1" + ")" * 5000,
    "10,000 signs": "-" * 10000 + "1",
    "100,000 digits": "1" * 100000,
    "a+a+... 100,000 terms": "a+" * 100000 + "a",
    "41 nested sin(": "sin(" * 41 + "1" + ")" * 41,
}


def timed(action, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        try:
            action()
        except DesignerError:
            pass
        else:
            raise SystemExit("a hostile text was accepted")
        out.append(time.perf_counter() - start)
    return sorted(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    peer = []
    for _ in range(args.runs):
        start = time.perf_counter()
        parse_expr("L2*cos(alpha2) + d3", "a")
        peer.append(time.perf_counter() - start)
    base = statistics.median(peer)
    print(f"ordinary entry 'L2*cos(alpha2) + d3': median {1e3 * base:.3f} ms over {args.runs} runs")
    for name, text in TEXTS.items():
        t = timed(lambda text=text: parse_expr(text, "f"), args.runs)
        print(f"{name:28s}: refused in median {1e3 * statistics.median(t):8.3f} ms, worst {1e3 * t[-1]:8.3f} ms; "
              f"ratio {statistics.median(t) / base:8.3g}")
    doc = to_dict(load_project(ROOT / "robots" / "double_pendulum.json"))
    heavy = "+".join(["1"] * 900)
    link = dict(doc["links"][0], a=heavy, d=heavy, theta=heavy)
    doc["links"] = [dict(link) for _ in range(60)]
    t = timed(lambda: from_dict(doc), args.runs)
    print(f"{'project, 162,000 chars':28s}: refused in median {1e3 * statistics.median(t):8.3f} ms, worst "
          f"{1e3 * t[-1]:8.3f} ms; ratio {statistics.median(t) / base:8.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
