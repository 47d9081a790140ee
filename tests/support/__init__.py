"""Helpers the tests and benchmarks share (import as ``from tests.support import robot_path``).

``pin_reference``: the Pinocchio model of a DH table and random arms; ``dyn_reference``: arms built in
code and the Pinocchio rnea/crba comparison of derived equations; ``explore_pin``: the tool Jacobian
and M, G, h for the exploration tests; ``report_equations``: equations built by hand for the report
and code generation tests; ``arms``: the PUMA 560 built in code for the GUI tests; ``urdf_reference``:
Pinocchio models of URDF chains for the URDF import and export tests; ``codegen``: one source text
of generated code (single-file C, a Python module) for the code generation tests; ``closed_reference``:
random four-bars and parallelogram arms and their Pinocchio models with loop constraints (closed chains);
``random_models``: random arms, and random projects of every shape the format allows (``random_project``).
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROBOTS = ROOT / "robots"

# Property tests: the suite (`make test`, CI) replays the same examples every run, so a red
# run is reproducible and never a draw of the dice; `make fuzz` explores with fresh random
# examples, twenty times as many, to find new counterexamples (then fix them, add them here).
HYPOTHESIS_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "suite")


def examples(n: int) -> int:
    """A property test's example count: n in the suite, 20 n when fuzzing."""
    return n * 20 if HYPOTHESIS_PROFILE == "fuzz" else n


def robot_path(name: str) -> Path:
    """The project file of a bundled robot, robots/<name>.json."""
    return ROBOTS / f"{name}.json"


def is_closed_chain(path: Path) -> bool:
    """Whether a bundled robot is a closed-chain project (format version 3 with a tree or loops):
    the tests of serial-only machinery (symbolic frames, URDF export) leave those out."""
    import json
    doc = json.loads(path.read_text(encoding="utf-8"))
    return bool(doc.get("loops")) or any("parent" in l or l.get("actuated") is False for l in doc.get("links", []))


def serial_robots() -> list[Path]:
    """The bundled serial arms (every example but the closed chains)."""
    return [p for p in sorted(ROBOTS.glob("*.json")) if not is_closed_chain(p)]
