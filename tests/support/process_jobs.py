"""Jobs for the worker-process tests, importable by name in the worker (no Qt, no pytest)."""

from __future__ import annotations

import os
import time

from designer.jobs import Progress

__all__ = ["counting_job", "endless_allocation_job", "sleeping_job", "failing_job", "pid_job", "address_space_job",
           "ticking_job"]


def counting_job(steps: int, token):
    for k in range(steps):
        yield Progress("counting", k / steps, f"step {k + 1}")
    return ("done", os.getpid())


def sleeping_job(seconds: float, token):
    """Reports its process id, then waits (as a long sympy call would, without yielding)."""
    yield Progress("sleeping", None, str(os.getpid()))
    time.sleep(seconds)
    return "woke up"


def endless_allocation_job(token):
    """Takes 20 MB more each step, without end."""
    hoard = []
    k = 0
    while True:
        hoard.append(bytearray(20 * 2**20))
        k += 1
        if k % 5 == 0:
            yield Progress("allocating", None, f"{20 * k} MB")


def failing_job(token):
    yield Progress("about to fail", 0.5)
    raise ZeroDivisionError("1/0 in stage two")


def address_space_job(token):
    """The worker's address space in MB (Linux), what RLIMIT_AS counts."""
    yield Progress("measuring", None)
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) // 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def pid_job(token):
    yield Progress("pid", None)
    return os.getpid()


def ticking_job(token):
    """Small steps without end (cancel between steps is all that stops it in-process)."""
    k = 0
    while True:
        k += 1
        time.sleep(0.005)
        yield Progress("ticking", None, str(k))
