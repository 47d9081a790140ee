"""Sweeps at scale: on a real Dask cluster by address, a worker lost mid-sweep, streamed files resumed after
Ctrl+C, progress bars only on a terminal."""

from __future__ import annotations

import concurrent.futures as cf
import csv
import json
import os
import pty
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from tests.support import robot_path
from tests.support.terminal import cli as _cli, read_pty as _read_pty
from designer.explore.distribute import Compute, ComputeError, check_scheduler, open_executor
from designer.explore.sweep import SweepAxis, SweepSpec, design_count, sweep
from designer.explore.sweep_file import (SweepFileError, part_path, rows_on_disk, sidecar_path, sweep_to_csv,
                                         sweep_to_json)
from designer.jobs import CancelToken, Cancelled, run
from designer.project import load_project

TWO = str(robot_path("planar_two_link"))
PUMA = str(robot_path("puma560"))
distributed = pytest.importorskip("distributed")


def _finish(proc: subprocess.Popen, timeout: float = 600) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, (out or b"").decode(), (err or b"").decode()


def _rows(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


SWEEP = ("sweep", "--param", "L2", "0.4", "1.2", "6", "--param", "m2", "0.5", "2", "5",
         "--metric", "coupling[1,2]", "--metric", "gravity[1]", "--stats", "max,mean,p95", "--samples", "128")


def _rho_max(p, m2):
    """Planar two-link: |rho_12| is largest at q2 = 0 (cos q2 = 1); it does not depend on L2."""
    m12 = p["I2"] + m2 * (p["d2"]**2 + p["L1"] * p["d2"])
    m22 = p["I2"] + m2 * p["d2"]**2
    m11 = p["I1"] + p["I2"] + p["m1"] * p["d1"]**2 + m2 * (p["L1"]**2 + p["d2"]**2 + 2 * p["L1"] * p["d2"])
    return m12 / np.sqrt(m11 * m22)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0") as c:
        yield c


@pytest.mark.slow
def test_cli_sweep_on_a_cluster_by_address_equals_the_local_run(cluster, tmp_path):
    local, remote, by_env = tmp_path / "local.csv", tmp_path / "remote.csv", tmp_path / "env.csv"
    procs = [_cli("explore", TWO, *SWEEP, "--workers", "2", "--out", str(local), stderr=subprocess.PIPE),
             _cli("explore", TWO, *SWEEP, "--scheduler", cluster.scheduler_address, "--out", str(remote),
                  stderr=subprocess.PIPE),
             _cli("explore", TWO, *SWEEP, "--out", str(by_env), stderr=subprocess.PIPE,
                  env={"DASK_SCHEDULER_ADDRESS": cluster.scheduler_address})]
    for proc in procs:
        code, _, err = _finish(proc)
        assert code == 0, err
    assert remote.read_bytes() == local.read_bytes() == by_env.read_bytes()
    rows = _rows(remote)
    assert len(rows) == 30 and not any(r["error"] for r in rows)
    p = load_project(TWO).parameter_values
    for r in rows:   # and right, not only equal: the hand formula of the planar arm
        assert float(r["coupling[1,2]:max"]) == pytest.approx(_rho_max(p, float(r["m2"])), rel=2e-3)
    assert "2 workers" in check_scheduler(cluster.scheduler_address)


@pytest.mark.slow
def test_cli_map_on_a_cluster_and_on_processes_equals_the_map_here(cluster, tmp_path, capsys):
    from designer.cli import main
    for extra in (["--joints", "2", "3", "--steps", "23"], ["--samples", "700"]):
        argv = ["explore", PUMA, "map", "--metric", "coupling", *extra, "--quiet"]
        assert main([*argv, "--out", str(tmp_path / "here.csv")]) == 0
        assert main([*argv, "--workers", "2", "--out", str(tmp_path / "procs.csv")]) == 0
        code, _, err = _finish(_cli(*argv, "--scheduler", cluster.scheduler_address, "--out",
                                    str(tmp_path / "dask.csv"), stderr=subprocess.PIPE))
        assert code == 0, err
        here = (tmp_path / "here.csv").read_bytes()
        assert here == (tmp_path / "procs.csv").read_bytes() == (tmp_path / "dask.csv").read_bytes()
        values = [float(r["coupling"]) for r in _rows(tmp_path / "here.csv")]
        assert len(values) in (23 * 23, 700) and all(0 <= v < 1 for v in values)   # |rho| < 1: M is positive definite


def test_an_unreachable_scheduler_is_one_clear_line(tmp_path):
    address = f"tcp://127.0.0.1:{_free_port()}"
    with pytest.raises(ComputeError, match="cannot reach the Dask scheduler at tcp://127.0.0.1"):
        check_scheduler(address, timeout=1.0)
    code, _, err = _finish(_cli("explore", TWO, *SWEEP, "--scheduler", address, "--out", str(tmp_path / "x.csv"),
                                stderr=subprocess.PIPE, env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}))
    assert code == 2 and err.count("\n") == 1 and "cannot reach the Dask scheduler" in err
    code, _, err = _finish(_cli("explore", TWO, *SWEEP, "--scheduler", "tcp://x:1", "--workers", "2",
                                stderr=subprocess.PIPE))
    assert code == 2 and "leave out --workers" in err


def _free_port() -> int:
    """A localhost port nobody listens on (bound, then released)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_rows(path: Path, at_least: int, proc: subprocess.Popen, timeout: float = 300) -> int:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, "the sweep ended before it could be interrupted"
        if path.exists():
            n = path.read_bytes().count(b"\n") - 1
            if n >= at_least:
                return n
        time.sleep(0.05)
    raise AssertionError(f"fewer than {at_least} rows after {timeout} s")


@pytest.mark.slow
def test_a_worker_killed_mid_sweep_and_every_row_still_comes(tmp_path):
    spec = ("sweep", "--param", "a2", "0.3", "0.6", "12", "--param", "m3", "2", "8", "5", "--metric", "coupling",
            "--samples", "512")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0") as c, \
            distributed.Client(c) as client:
        pids = client.run(os.getpid)
        out = tmp_path / "killed.csv"
        proc = _cli("explore", PUMA, *spec, "--scheduler", c.scheduler_address, "--out", str(out),
                    stderr=subprocess.PIPE)
        _wait_rows(out, 3, proc)
        victim = next(iter(pids.values()))
        os.kill(victim, signal.SIGKILL)          # the nanny starts a new one; the scheduler reruns its tasks
        code, _, err = _finish(proc)
        assert code == 0, err
        assert victim not in client.run(os.getpid).values()
    ref = tmp_path / "ref.csv"
    code, _, err = _finish(_cli("explore", PUMA, *spec, "--workers", "2", "--out", str(ref), stderr=subprocess.PIPE))
    assert code == 0, err
    assert out.read_bytes() == ref.read_bytes()
    assert len(_rows(out)) == 60


@pytest.mark.slow
def test_ctrl_c_leaves_a_file_that_resumes_to_the_uninterrupted_one(tmp_path):
    # big enough that the rest cannot finish between the fifth row and the signal on a quiet machine
    spec = ("sweep", "--param", "a2", "0.3", "0.6", "40", "--param", "m3", "2", "8", "5", "--metric", "coupling",
            "--metric", "dyn_manipulability", "--torque", "60", "--samples", "2048", "--workers", "1")
    part, whole = tmp_path / "part.csv", tmp_path / "whole.csv"
    proc = _cli("explore", PUMA, *spec, "--out", str(part), stderr=subprocess.PIPE)
    _wait_rows(part, 5, proc)
    proc.send_signal(signal.SIGINT)
    code, _, err = _finish(proc, 120)
    assert code == 130
    assert err.count("\n") == 1 and "interrupted" in err and "--resume" in err, err
    done = rows_on_disk(part, _spec_of_cli())
    assert 5 <= done < 200 and sidecar_path(part).exists()
    assert f"{done} of 200 designs" in err
    code, _, err = _finish(_cli("explore", PUMA, *spec, "--out", str(part), "--resume", stderr=subprocess.PIPE))
    assert code == 0, err
    code, _, err = _finish(_cli("explore", PUMA, *spec, "--out", str(whole), stderr=subprocess.PIPE))
    assert code == 0, err
    assert part.read_bytes() == whole.read_bytes() and not sidecar_path(part).exists()


def _spec_of_cli() -> SweepSpec:
    from designer.explore.metrics import Ratings
    return SweepSpec((SweepAxis.linspace("a2", 0.3, 0.6, 40), SweepAxis.linspace("m3", 2, 8, 5)),
                     ("coupling", "dyn_manipulability"), ("max", "mean"), 2048,
                     ratings=Ratings.of(6, np.full(6, 60.0), None, None))


class CountingExecutor(cf.ThreadPoolExecutor):
    """Threads that count the designs they are sent."""

    designs = 0

    def submit(self, fn, *args, **kwargs):
        CountingExecutor.designs += len(args[3])   # timed, evaluate_designs, model, names, rows, spec
        return super().submit(fn, *args, **kwargs)


def _resume_then_compare(to_file, model, spec, path, ref, resume: dict, **options):
    """Resume the interrupted ``path`` (``resume``: extra arguments of that call), then write the same
    sweep uninterrupted to ``ref``: the two files are equal byte for byte. Returns (the resumed
    call's summary, how many designs it computed)."""
    CountingExecutor.designs = 0
    with CountingExecutor(2) as ex:
        summary = run(to_file(model, spec, path, ex, resume=True, **resume, **options))
    designs = CountingExecutor.designs
    with cf.ThreadPoolExecutor(2) as ex:
        run(to_file(model, spec, ref, ex, **options))
    assert path.read_bytes() == ref.read_bytes()
    return summary, designs


def test_resume_computes_only_what_is_not_on_disk_and_survives_a_torn_line(tmp_path):
    model = load_project(TWO)
    spec = SweepSpec((SweepAxis.linspace("m2", 0.5, 2.0, 30),), ("coupling[1,2]", "cond"), ("max",), samples=64)
    path, ref = tmp_path / "s.csv", tmp_path / "ref.csv"
    token = CancelToken()

    class Stop(cf.ThreadPoolExecutor):
        def submit(self, fn, *args, **kwargs):
            fut = super().submit(fn, *args, **kwargs)
            if len(rows_written()) >= 8:
                token.cancel()
            return fut

    def rows_written():
        return path.read_text().splitlines()[1:] if path.exists() else []

    with Stop(1) as ex, pytest.raises(Cancelled):
        run(sweep_to_csv(model, spec, path, ex, slots=1, block=2, token=token))
    with open(path, "a") as f:
        f.write("1.7,0.12")                  # a row torn by a killed writer
    done = rows_on_disk(path, spec)
    assert 8 <= done < 30 and path.read_text().endswith("\n")
    with open(path, "a") as f:
        f.write("1.7,0.12")
    summary, designs = _resume_then_compare(sweep_to_csv, model, spec, path, ref, {"slots": 2})
    assert summary.resumed_from == done and designs == 30 - done
    # the rows agree with the in-memory sweep
    mem = run(sweep(model, spec, cf.ThreadPoolExecutor(1)))
    assert [float(r["cond:max"]) for r in _rows(ref)] == list(mem.column("cond:max"))
    # another sweep's file is refused, by its sidecar or its rows
    sidecar_path(path).write_text("{}")
    with pytest.raises(SweepFileError, match="another sweep"):
        run(sweep_to_csv(model, spec, path, None, resume=True))
    with pytest.raises(SweepFileError, match="should have m2="):
        rows_on_disk(ref, SweepSpec((SweepAxis.linspace("m2", 0.5, 2.5, 30),), spec.metrics, spec.stats, 64))


def test_design_order_is_kept_whatever_order_blocks_finish(tmp_path):
    """Blocks that finish out of order (threads, blocks of one) still reach the file in grid order."""
    model = load_project(TWO)
    spec = SweepSpec((SweepAxis.linspace("L2", 0.4, 1.2, 4), SweepAxis.linspace("m2", 0.5, 2.0, 5)),
                     ("gravity[1]",), ("max",), samples=32)
    with cf.ThreadPoolExecutor(4) as ex:
        run(sweep_to_csv(model, spec, tmp_path / "o.csv", ex, slots=8, block=1))
    rows = _rows(tmp_path / "o.csv")
    assert [(float(r["L2"]), float(r["m2"])) for r in rows] == \
        [(a, b) for a in spec.axes[0].values for b in spec.axes[1].values]
    assert design_count(spec) == 20
    p = model.parameter_values
    for r in rows:   # gravity on joint 1 is largest with the arm straight out
        g1 = p["g"] * (p["m1"] * p["d1"] + float(r["m2"]) * (p["L1"] + p["d2"]))
        assert float(r["gravity[1]:max"]) <= g1 * (1 + 1e-12)


def test_local_compute_places(tmp_path):
    for compute in (Compute("threads", 2), Compute("processes", 1)):
        with open_executor(compute) as (ex, slots):
            assert slots == 2 * compute.workers
            assert ex.submit(sum, [1, 2]).result() == 3
    with pytest.raises(ValueError, match="scheduler address"):
        Compute("dask")


@pytest.mark.slow
def test_progress_bar_on_a_terminal_and_none_through_a_pipe(tmp_path):
    args = ("explore", TWO, "sweep", "--param", "m2", "0.5", "2", "40", "--metric", "cond", "--samples", "4096",
            "--workers", "1")
    master, slave = pty.openpty()
    proc = _cli(*args, "--out", str(tmp_path / "a.csv"), stderr=slave, stdout=subprocess.DEVNULL)
    os.close(slave)
    text = _read_pty(master, proc).decode(errors="replace")
    os.close(master)
    assert proc.wait(60) == 0
    assert "sweep:" in text and "design/s" in text and "40/40" in text, text    # rate and count
    assert "<" in text     # elapsed<remaining
    code, _, err = _finish(_cli(*args, "--out", str(tmp_path / "b.csv"), stderr=subprocess.PIPE))
    assert code == 0 and err == ""
    master, slave = pty.openpty()
    proc = _cli(*args, "--out", str(tmp_path / "c.csv"), "--quiet", stderr=slave, stdout=subprocess.DEVNULL)
    os.close(slave)
    text = _read_pty(master, proc).decode(errors="replace")
    os.close(master)
    assert proc.wait(60) == 0 and text == ""
    master, slave = pty.openpty()
    proc = _cli("derive", TWO, stderr=slave, stdout=subprocess.DEVNULL)
    os.close(slave)
    text = _read_pty(master, proc).decode(errors="replace")
    os.close(master)
    assert proc.wait(120) == 0 and "%|" in text


# -- JSON files stream too ------------------------------------------------------------------------------
def test_a_sweep_to_standard_output_is_the_file_byte_for_byte(tmp_path, capsys):
    """Standard output gets a temporary file's bytes (memory stays flat); the rows' values against the
    in-memory sweep are checked by the resume tests."""
    from designer.cli import main
    args = [TWO, *SWEEP[:-2], "--samples", "64", "--threads", "--pareto", "coupling[1,2]:max", "reach",
            "--maximize", "reach"]
    assert main(["explore", *args, "--format", "csv"]) == 0
    as_csv, _ = capsys.readouterr()
    assert main(["explore", *args, "--out", str(tmp_path / "s.csv")]) == 0
    assert (tmp_path / "s.csv").read_text() == as_csv
    assert main(["explore", *args, "--format", "json"]) == 0
    in_memory, _ = capsys.readouterr()
    out = tmp_path / "s.json"
    assert main(["explore", *args, "--out", str(out)]) == 0
    assert out.read_text() == in_memory
    data = json.loads(in_memory)
    assert data["parameters"] == ["L2", "m2"] and len(data["rows"]) == 30
    assert [(r["L2"], r["m2"]) for r in data["rows"][:2]] == [(0.4, 0.5), (0.4, 0.875)]
    assert any(r["pareto"] for r in data["rows"])
    assert not part_path(out).exists() and not sidecar_path(part_path(out)).exists()


def test_json_rows_are_written_as_the_command_line_writes_numbers(tmp_path):
    from designer.cli.explore_io import _clean
    from designer.explore.sweep_file import _csv_to_json
    source = tmp_path / "rows.csv"
    source.write_text("a,m:max,reach,pareto,error\n"
                      "0.1,1.5,inf,True,\n"
                      "0.2,nan,-inf,False,\n"
                      "0.30000000000000004,,,False,ValueError: no \"inertia\" for link 2\n")
    rows = [{"a": 0.1, "m:max": 1.5, "reach": float("inf"), "pareto": True, "error": ""},
            {"a": 0.2, "m:max": float("nan"), "reach": float("-inf"), "pareto": False, "error": ""},
            {"a": 0.30000000000000004, "m:max": float("nan"), "reach": float("nan"), "pareto": False,
             "error": 'ValueError: no "inertia" for link 2'}]
    _csv_to_json(source, tmp_path / "rows.json", ["a"])
    expected = json.dumps(_clean({"parameters": ["a"], "rows": rows}), indent=1) + "\n"
    assert (tmp_path / "rows.json").read_text() == expected


def test_an_interrupted_json_sweep_resumes_to_the_uninterrupted_file(tmp_path):
    model = load_project(TWO)
    spec = SweepSpec((SweepAxis.linspace("m2", 0.5, 2.0, 24),), ("coupling[1,2]",), ("max", "mean"), samples=64)
    path, ref = tmp_path / "s.json", tmp_path / "ref.json"
    token = CancelToken()
    part = part_path(path)

    class Stop(cf.ThreadPoolExecutor):
        def submit(self, fn, *args, **kwargs):
            if part.exists() and len(part.read_text().splitlines()) > 6:
                token.cancel()
            return super().submit(fn, *args, **kwargs)

    with Stop(1) as ex, pytest.raises(Cancelled):
        run(sweep_to_json(model, spec, path, ex, slots=1, block=2, token=token))
    assert not path.exists() and sidecar_path(part).exists()
    done = rows_on_disk(part, spec)
    assert 6 <= done < 24
    summary, designs = _resume_then_compare(sweep_to_json, model, spec, path, ref, {"slots": 2})
    assert summary.resumed_from == done and designs == 24 - done and not part.exists()
    mem = run(sweep(model, spec, cf.ThreadPoolExecutor(1)))
    assert [r["coupling[1,2]:mean"] for r in json.loads(ref.read_text())["rows"]] == \
        list(mem.column("coupling[1,2]:mean"))


def test_a_json_sweep_stopped_while_its_json_was_written_resumes_without_recomputing(tmp_path, monkeypatch):
    from designer.explore import sweep_file
    model = load_project(TWO)
    spec = SweepSpec((SweepAxis.linspace("m2", 0.5, 2.0, 10),), ("coupling[1,2]",), ("max",), samples=32)
    path, ref = tmp_path / "s.json", tmp_path / "ref.json"
    convert = sweep_file._csv_to_json

    def stopped(*args):
        raise KeyboardInterrupt
    monkeypatch.setattr(sweep_file, "_csv_to_json", stopped)
    with cf.ThreadPoolExecutor(2) as ex, pytest.raises(KeyboardInterrupt):
        run(sweep_to_json(model, spec, path, ex, pareto=("coupling[1,2]:max", "reach")))
    assert not path.exists() and rows_on_disk(part_path(path), spec) == 10
    monkeypatch.setattr(sweep_file, "_csv_to_json", convert)
    _, designs = _resume_then_compare(sweep_to_json, model, spec, path, ref, {}, pareto=("coupling[1,2]:max", "reach"))
    assert designs == 0
    assert [r["pareto"] for r in json.loads(ref.read_text())["rows"]].count(True) >= 1
