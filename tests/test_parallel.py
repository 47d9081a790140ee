"""`make test` runs the suite in parallel processes (pytest-xdist, `-n auto`): each must have its own X
server and its own user folders, or the window tests of one worker would draw on, and save into, another's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_this_process_draws_on_its_own_x_server():
    pytest_xvfb = pytest.importorskip("pytest_xvfb")
    xvfb = pytest_xvfb.xvfb_instance
    if xvfb is None:
        pytest.skip("pytest-xvfb did not start an X server here (no Xvfb, or --no-xvfb)")
    # the server this process started, not one inherited from the controller of the workers
    assert os.environ["DISPLAY"] == f":{xvfb.display}"


def test_the_user_folders_are_this_process_own(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    for key in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        assert Path(os.environ[key]).is_relative_to(base), key


@pytest.mark.slow
def test_two_workers_have_two_x_servers_and_two_folders(tmp_path):
    """Two xdist workers report different displays and different user folders."""
    pytest.importorskip("xdist")
    if shutil.which("Xvfb") is None:
        pytest.skip("no Xvfb: pytest-xvfb starts no X server")
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import os, time\n"
        "import pytest\n"
        "@pytest.mark.parametrize('k', range(4))\n"
        "def test_where(k):\n"
        "    with open(os.environ['PROBE_OUT'], 'a') as f:\n"
        "        f.write(f\"{os.environ.get('PYTEST_XDIST_WORKER')} {os.environ.get('DISPLAY')} "
        "{os.environ.get('XDG_DATA_HOME')}\\n\")\n"
        "    time.sleep(0.2)\n")
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text().replace(
        "from tests.support import HYPOTHESIS_PROFILE, ROBOTS", "HYPOTHESIS_PROFILE, ROBOTS = 'suite', None"))
    out = tmp_path / "where.txt"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider",
                          "--dist", "load", str(probe)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PROBE_OUT": str(out)})
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    seen = {tuple(line.split()) for line in out.read_text().splitlines()}
    workers = {w for w, _, _ in seen}
    assert workers == {"gw0", "gw1"}, seen
    by_worker = {w: (d, x) for w, d, x in seen}
    assert len(by_worker) == 2 and len({d for d, _ in by_worker.values()}) == 2   # a display per worker
    assert len({x for _, x in by_worker.values()}) == 2                           # folders per worker
