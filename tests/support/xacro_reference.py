"""The ``xacro`` package as its authors ship it (Python's eval and all), for the tests' expected URDF.

Run as ``python xacro_reference.py`` with a JSON request on standard input: ``file``, ``args``
and ``packages`` ({name: folder}, what ``$(find name)`` gives; ROS's package index is not there).
Writes the URDF to standard output. Only for the tests' own trusted files: this runs what they hold.
With ``"harden": true`` it first switches off eval/exec/compile as the designer's xacro process does
(the hostile tests show that this alone makes the shipped xacro fail at each evaluation site).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path


def main() -> None:
    request = json.loads(sys.stdin.read())
    import xacro
    from xacro import substitution_args

    folders = dict(request.get("packages", {}))

    def find(name):
        return folders[name]

    substitution_args._eval_find = find
    if request.get("harden"):
        worker = Path(__file__).resolve().parents[2] / "designer" / "urdf" / "xacro_worker.py"
        spec = importlib.util.spec_from_file_location("_worker", worker)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.harden()
    doc = xacro.process_file(request["file"], mappings=dict(request.get("args", {})))
    sys.stdout.write(doc.toprettyxml(indent="  "))


if __name__ == "__main__":
    main()
