"""A large design sweep from the command line: 2 local processes against a Dask cluster of 2 workers.

Run: ``python benchmarks/bench_scale.py`` (10,000 designs x 1,000 poses of the PUMA 560, the issue's
size; several minutes per run on two idle cores) or ``--quick`` (1,000 designs). Not a test.

Both runs are the same ``explore PUMA sweep ... --out FILE.csv`` command a user types, started as a
subprocess: once with ``--workers 2``, once with ``--scheduler`` pointing at a
``distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True)`` that a helper process
started beforehand on 127.0.0.1 (a cluster is up before a user sends work to it, so its start is not
timed). Reported per run: wall time of the command, and the CPU seconds and the peak of the summed
resident memory of every process taking part (the command and its pool; for Dask also the scheduler,
nannies and workers), sampled every 0.1 s with psutil. The two output files must be byte-identical.
Target: the Dask run takes under 1.2 x the local one. Quote the load average printed alongside: on a
busy machine wall time mostly measures how the kernel shares the cores with everybody else, and the CPU
ratio is the figure to compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
PUMA = ROOT / "robots" / "puma560.json"

_CLUSTER = """
import sys
import dask
from distributed import LocalCluster
if sys.argv[2] == "no-trim":
    # Dask's nannies start workers with MALLOC_TRIM_THRESHOLD_=65536, which also pins glibc's mmap threshold
    # at 128 KiB: every large numpy temporary is then mapped and unmapped afresh
    env = dict(dask.config.get("distributed.nanny.pre-spawn-environ"))
    env.pop("MALLOC_TRIM_THRESHOLD_", None)
    dask.config.set({"distributed.nanny.pre-spawn-environ": env})
cluster = LocalCluster(n_workers=int(sys.argv[1]), threads_per_worker=1, processes=True, host="127.0.0.1",
                       dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0")
print(cluster.scheduler_address, flush=True)
sys.stdin.read()          # runs until the benchmark closes our stdin
cluster.close()
"""


class Usage:
    """Peak of the summed RSS and the CPU seconds (user + system) of some process trees, sampled every 0.1 s
    in a thread. CPU time is the figure to compare on a loaded machine: wall time there mostly measures
    how the kernel shares the cores with everybody else."""

    def __init__(self, *pids: int):
        self.pids = list(pids)
        self.peak = 0
        self.cpu_start: dict[int, float] = {}   # processes that existed before (the cluster): their baseline
        self.cpu_last: dict[int, float] = {}
        self.roots: set[int] = set()             # the command, the cluster's scheduler process; the rest work
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._sample(baseline=True)

    def _sample(self, baseline: bool = False) -> None:
        total = 0
        for pid in self.pids:
            try:
                root = psutil.Process(pid)
                procs = [root, *root.children(recursive=True)]
            except psutil.Error:
                continue
            self.roots.add(root.pid)
            for p in procs:
                try:
                    total += p.memory_info().rss
                    t = p.cpu_times()
                    cpu = t.user + t.system
                except psutil.Error:
                    continue   # a process that ended between listing and reading
                if baseline:
                    self.cpu_start[p.pid] = cpu
                self.cpu_last[p.pid] = cpu
        self.peak = max(self.peak, total)

    @property
    def cpu(self) -> float:
        return sum(v - self.cpu_start.get(pid, 0.0) for pid, v in self.cpu_last.items())

    @property
    def worker_cpu(self) -> float:
        """CPU seconds of the worker processes only (children of the command or of the cluster's process)."""
        return sum(v - self.cpu_start.get(pid, 0.0) for pid, v in self.cpu_last.items() if pid not in self.roots)

    def __enter__(self) -> Usage:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            self._sample()

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def sweep_command(grid: tuple[int, int], poses: int, out: Path, where: list[str]) -> list[str]:
    return [sys.executable, "-m", "designer", "explore", str(PUMA), "sweep",
            "--param", "a2", "0.3", "0.6", str(grid[0]), "--param", "m3", "2", "8", str(grid[1]),
            "--metric", "coupling", "--metric", "dyn_manipulability", "--torque", "100",
            "--stats", "max,mean", "--samples", str(poses), "--quiet", "--out", str(out), *where]


def timed_run(cmd: list[str], also: list[int]) -> tuple[float, int, float, float]:
    """(wall seconds, peak bytes, CPU seconds, CPU seconds of the workers) of the command's tree plus the
    trees of ``also``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DASK_SCHEDULER_ADDRESS", None)
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.PIPE)
    with Usage(proc.pid, *also) as use:
        _, err = proc.communicate()
    wall = time.perf_counter() - t
    if proc.returncode:
        raise SystemExit(f"the sweep failed ({proc.returncode}): {err.decode().strip()}")
    return wall, use.peak, use.cpu, use.worker_cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1,000 designs (40 x 25) instead of 10,000 (100 x 100)")
    ap.add_argument("--poses", type=int, default=1000, help="workspace samples per design (default 1000)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each, alternated; medians reported")
    ap.add_argument("--no-malloc-trim", action="store_true",
                    help="start the Dask workers without MALLOC_TRIM_THRESHOLD_ (see docs/scaling.md)")
    args = ap.parse_args()
    grid = (40, 25) if args.quick else (100, 100)
    designs = grid[0] * grid[1]
    print(f"load average before: {', '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} cores")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    trim = "no-trim" if args.no_malloc_trim else "default"
    cluster = subprocess.Popen([sys.executable, "-c", _CLUSTER, str(args.workers), trim], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    address = cluster.stdout.readline().strip()
    if not address:
        raise SystemExit("the LocalCluster did not start")
    local_t, dask_t, local_m, dask_m, local_c, dask_c, local_w, dask_w = [], [], [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeat):
            a, b = Path(tmp, f"local{k}.csv"), Path(tmp, f"dask{k}.csv")
            for which in (("local", "dask") if k % 2 == 0 else ("dask", "local")):   # alternated: drift cancels
                if which == "local":
                    t, m, c, w = timed_run(sweep_command(grid, args.poses, a, ["--workers", str(args.workers)]), [])
                    local_t.append(t)
                    local_m.append(m)
                    local_c.append(c)
                    local_w.append(w)
                    print(f"  local {args.workers} processes: {t:.1f} s, {c:.1f} CPU s ({w:.1f} in workers), "
                          f"peak {m / 2**20:.0f} MiB", flush=True)
                else:
                    t, m, c, w = timed_run(sweep_command(grid, args.poses, b, ["--scheduler", address]),
                                           [cluster.pid])
                    dask_t.append(t)
                    dask_m.append(m)
                    dask_c.append(c)
                    dask_w.append(w)
                    print(f"  Dask LocalCluster, {args.workers} workers ({trim}): {t:.1f} s, {c:.1f} CPU s "
                          f"({w:.1f} in workers), peak {m / 2**20:.0f} MiB", flush=True)
            if a.read_bytes() != b.read_bytes():
                raise SystemExit("the two runs wrote different files")
            rows = a.read_bytes().count(b"\n") - 1
            if rows != designs:
                raise SystemExit(f"{rows} rows for {designs} designs")
    cluster.stdin.close()
    cluster.wait(60)
    lt, dt = statistics.median(local_t), statistics.median(dask_t)
    lc, dc = statistics.median(local_c), statistics.median(dask_c)
    lw, dw = statistics.median(local_w), statistics.median(dask_w)
    print(f"{designs} designs x {args.poses} poses, PUMA 560, coupling and dynamic manipulability "
          f"(median of {args.repeat}):")
    print(f"  local {args.workers} processes: {lt:7.1f} s wall ({designs / lt:.0f} designs/s), {lc:7.1f} CPU s "
          f"({lw:.1f} in workers), peak memory {statistics.median(local_m) / 2**20:.0f} MiB")
    print(f"  Dask LocalCluster, {args.workers} workers ({trim}): {dt:7.1f} s wall ({designs / dt:.0f} designs/s), "
          f"{dc:7.1f} CPU s ({dw:.1f} in workers), peak memory {statistics.median(dask_m) / 2**20:.0f} MiB "
          f"(scheduler, nannies, workers, client)")
    print(f"  Dask overhead: {100 * (dt / lt - 1):+.1f} % wall, {100 * (dc / lc - 1):+.1f} % CPU of all processes, "
          f"{100 * (dw / lw - 1):+.1f} % CPU in the workers (target under +20 %); files identical")
    print(f"load average after: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
