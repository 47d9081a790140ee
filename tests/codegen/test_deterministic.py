"""Generated code is the same text in every run: the order of sympy's sets changes with the hash seed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support import robot_path


@pytest.mark.parametrize("robot,lang,extra", [("puma560", "c", []), ("stanford_modified", "python", []),
                                              # base parameters: tau's steps are polished (signs, reuse)
                                              ("puma560", "c", ["--parameters", "base"]),
                                              ("stanford_modified", "python", ["--parameters", "base"])])
def test_codegen_text_does_not_depend_on_the_hash_seed(robot, lang, extra, tmp_path):
    texts = []
    for seed in ("1", "2"):
        out = tmp_path / f"out_{seed}.{'c' if lang == 'c' else 'py'}"
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run([sys.executable, "-m", "designer", "codegen", str(robot_path(robot)), "--lang", lang,
                              "--quiet", "--out", str(out), *extra], env=env, capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, run.stderr
        texts.append(out.read_text().replace(out.stem, "OUT"))
    assert texts[0] == texts[1]
