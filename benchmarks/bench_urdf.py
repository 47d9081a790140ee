"""URDF import figures: import time of each arm of example-robot-data, the largest error against
Pinocchio (on the file with its rounded angles written in full, the arm the import makes; with
--literal on the original file) and MuJoCo (our export), and how many of the package's URDF files
import or are refused, and why.

Run: ``.venv/bin/python -m benchmarks.bench_urdf`` (needs the test extra:
example-robot-data, pinocchio, mujoco). Times are the median of ``--repeat`` warm imports.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path



def mujoco_error(text: str, arm, states: int = 100) -> float:
    from tests.support.urdf_reference import mujoco_errors
    with tempfile.TemporaryDirectory() as folder:
        return mujoco_errors(text, arm, Path(folder), states)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--states", type=int, default=100)
    args = parser.parse_args()

    from designer.kinematics import NumericArm
    from designer.model import Convention
    from designer.urdf import UrdfError, import_urdf, urdf_text
    from tests.support.exact_angles import exact_urdf
    from tests.support.urdf_reference import PinChain, compare_with_pinocchio, erd
    from tests.urdf.test_urdf_arms import ARMS
    from tests.urdf.test_urdf_package import NAMED, urdf_files

    start = time.perf_counter()
    import_urdf(erd(ARMS[0][0]))
    print(f"first import (loads the URDF parser): {time.perf_counter() - start:.2f} s")
    print(f"{'arm':<22} {'n':>2} {'import ms':>9} {'Pinocchio M,G,tau':>18} {'tool pose':>10} {'literal':>9} "
          f"{'MuJoCo':>9}")
    folder = Path(tempfile.mkdtemp())
    for relative, base, tip in ARMS:
        path = erd(relative)
        times = []
        for _ in range(args.repeat):
            report = import_urdf(path, base=base, tip=tip)
            times.append(report.seconds)
        worst = pose = literal = mj = 0.0
        exact = folder / path.name
        exact.write_text(exact_urdf(path.read_text()))
        for convention in (Convention.STANDARD, Convention.MODIFIED):
            report = import_urdf(path, base=base, tip=tip, convention=convention)
            arm = NumericArm.from_model(report.model)
            w, p = compare_with_pinocchio(arm, PinChain(exact, report.chain.joints), report.chain.tip, args.states)
            worst, pose = max(worst, w), max(pose, p)
            written = import_urdf(path, base=base, tip=tip, convention=convention, literal=True)
            w, p = compare_with_pinocchio(NumericArm.from_model(written.model), PinChain(path, written.chain.joints),
                                          written.chain.tip, args.states)
            literal = max(literal, w, p)
            mj = max(mj, mujoco_error(urdf_text(report.model), arm, args.states))
        print(f"{path.name:<22} {arm.n:>2} {1000 * statistics.median(times):>9.1f} {worst:>18.1e} {pose:>10.1e} "
              f"{literal:>9.1e} {mj:>9.1e}")

    imported, refused = 0, Counter()
    for path in urdf_files():
        named = NAMED.get(path.name, (None, None))
        try:
            import_urdf(path, base=named[0], tip=named[1])
            imported += 1
        except UrdfError as exc:
            why = str(exc).split(": ", 1)[1]
            kind = ("tree without a named tip" if "branches" in why else "mimic" if "mimic" in why
                    else "floating/planar" if "floating" in why or "planar" in why
                    else "no <inertial>" if "inertial" in why else why[:60])
            refused[kind] += 1
    print(f"package: {imported} imported, {sum(refused.values())} refused")
    for kind, count in refused.most_common():
        print(f"  {count:>3} {kind}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
