"""tools/chroot-mounts.sh, the mounts and the removal of tools/check-fresh.sh's chroot, on scratch trees:
a run interrupted after its mounts, then a second run, leaves the bound directory as it was and
nothing mounted. The bound "device directory" is a scratch directory with a sentinel file in it,
never the host's /dev; before any removal the test reads /proc/self/mounts itself."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.support import ROOT

SCRIPT = ROOT / "tools" / "chroot-mounts.sh"

root_only = pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="mounting needs root")


def test_check_fresh_mounts_and_removes_only_through_the_helpers():
    """No bare mount, umount or rm -rf left in tools/check-fresh.sh: every one goes through the
    functions tested below."""
    text = (ROOT / "tools" / "check-fresh.sh").read_text()
    code = [line.split("#")[0] for line in text.splitlines()]
    assert not [line for line in code if re.search(r"\b(u?mount|rm\s+-\w*r\w*)\s", line)]
    assert re.search(r'^\. "\$\(dirname "\$0"\)/chroot-mounts.sh"$', text, re.M)
    assert "remove_tree \"$root\"" in text and "mount_once \"$root\"" in text


def mounted_below(path: Path) -> list[str]:
    """Mount points at or below ``path``, read here independently of the script."""
    tree = os.path.realpath(path)
    points = []
    with open("/proc/self/mounts") as f:
        for line in f:
            point = line.split()[1].encode().decode("unicode_escape")
            if point == tree or point.startswith(tree + "/"):
                points.append(point)
    return points


def script(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=60)


@pytest.fixture
def scratch(tmp_path):
    """A chroot-like tree and a 'device directory' with a sentinel, all under tmp_path; whatever the
    test leaves mounted below tmp_path is taken off afterwards (pytest removes tmp_path later)."""
    tree, devices = tmp_path / "root", tmp_path / "host-dev"
    for d in (tree / "dev", tree / "proc", devices / "pts"):
        d.mkdir(parents=True)
    (devices / "null").write_text("sentinel: the host's device nodes\n")
    (devices / "pts" / "0").write_text("sentinel too\n")
    assert str(devices).startswith(str(tmp_path)) and str(tmp_path) != "/"
    yield tree, devices
    for point in sorted(mounted_below(tmp_path), reverse=True):
        assert point.startswith(str(os.path.realpath(tmp_path)) + "/")   # never anything outside the scratch
        subprocess.run(["umount", "-l", point], check=False)
    assert mounted_below(tmp_path) == []


def specs(devices: Path) -> list[str]:
    """check-fresh's set (bind /dev, bind /dev/pts, a tmpfs on dev/shm) with the scratch directory as /dev."""
    return [f"bind:{devices}:dev", f"bind:{devices / 'pts'}:dev/pts", "tmpfs:dev/shm"]


@pytest.mark.slow
@root_only
def test_an_interrupted_run_then_a_second_run_leave_the_devices_alone(scratch):
    tree, devices = scratch
    # run 1 mounts, and mounts again (the start of a run that found the mounts of an earlier one)
    for _ in range(2):
        done = script("mount", tree, *specs(devices))
        assert done.returncode == 0, done.stderr
    assert sorted(mounted_below(tree)) == sorted(os.path.realpath(tree / p) for p in ("dev", "dev/pts", "dev/shm"))
    assert "mounted already: not mounting it again" in done.stderr
    # ... and is interrupted: nothing unmounted. Somebody binds the devices once more on top.
    subprocess.run(["mount", "--bind", str(devices), str(tree / "dev")], check=True)
    assert len(mounted_below(tree)) == 4
    assert (tree / "dev" / "null").exists()           # through the mount: what rm -rf would have deleted
    # run 2 starts by removing what run 1 left
    done = script("remove", tree)
    assert done.returncode == 0, done.stderr
    assert mounted_below(tree) == [] and not tree.exists()
    assert (devices / "null").read_text().startswith("sentinel") and (devices / "pts" / "0").exists()
    # ... then mounts afresh and cleans up at its end
    (tree / "dev").mkdir(parents=True)
    assert script("mount", tree, *specs(devices)).returncode == 0
    assert script("unmount", tree).returncode == 0
    assert mounted_below(tree) == [] and (devices / "null").exists()


@pytest.mark.slow
@root_only
def test_removal_refuses_while_anything_stays_mounted(scratch, tmp_path):
    tree, devices = scratch
    assert script("mount", tree, f"bind:{devices}:dev").returncode == 0
    done = script("check", tree)
    assert done.returncode == 1 and "refusing to remove" in done.stderr and str(tree / "dev") in done.stderr
    # an unmount that fails (a busy mount, say): the tree is kept, the devices too
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "umount").write_text("#!/bin/sh\nexit 32\n")
    (fake / "umount").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    done = script("remove", tree, env=env)
    assert done.returncode == 1 and "still mounted below it" in done.stderr, done.stderr
    assert tree.exists() and (devices / "null").exists() and mounted_below(tree) == [os.path.realpath(tree / "dev")]
