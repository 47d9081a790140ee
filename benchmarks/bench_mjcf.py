"""MJCF import figures: for each hand-written file of tests/mjcf/files, the median time of
import-mjcf (MuJoCo's parse and compile, the DH model, both checks) beside MuJoCo's own load of the
same file (the peer: ``MjModel.from_xml_path``), and how much of the import the two checks take.

Run: ``.venv/bin/python -m benchmarks.bench_mjcf [--repeat N]`` (needs mujoco, a runtime dependency).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.clock import median_seconds

FILES = Path(__file__).resolve().parents[1] / "tests" / "mjcf" / "files"




def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    import mujoco

    import designer.mjcf.importer as importer
    import designer.urdf.importer as urdf_importer
    from designer.mjcf import import_mjcf

    cases = [("frames.xml", None), ("defaults.xml", None), ("ur5e.xml", "attachment_site"), ("panda.xml", "hand"),
             ("gen3.xml", "pinch_site"), ("iiwa14.xml", None)]
    import_mjcf(FILES / cases[0][0])   # warm: the first import loads MuJoCo and traces the numeric code
    print(f"{'file':<14} {'import ms':>9} {'MuJoCo load ms':>14} {'ratio':>6} {'without checks ms':>17}")
    for name, tip in cases:
        path = FILES / name
        ours = median_seconds(lambda p=path, t=tip: import_mjcf(p, tip=t), args.repeat)
        peer = median_seconds(lambda p=path: mujoco.MjModel.from_xml_path(str(p)), args.repeat)
        saved = urdf_importer.check_against_tree, importer.check_against_mujoco
        urdf_importer.check_against_tree = lambda *a, **k: 0.0
        importer.check_against_mujoco = lambda *a, **k: 0.0
        try:
            bare = median_seconds(lambda p=path, t=tip: import_mjcf(p, tip=t), args.repeat)
        finally:
            urdf_importer.check_against_tree, importer.check_against_mujoco = saved
        print(f"{name:<14} {1000 * ours:>9.1f} {1000 * peer:>14.2f} {ours / peer:>6.0f} {1000 * bare:>17.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
