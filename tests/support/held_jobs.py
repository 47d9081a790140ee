"""Runs that cannot end before the test cancels them: a test of Cancel must not race the clock.

``hold_jobs(monkeypatch)`` makes every thread job the window starts from then on (through
``designer.gui.job_runner.start_job``) run as itself until it reports progress a bar shows inside its
span (1% to 99%: a first step of 0.02% draws nothing on a bar of 1000), and then wait for its cancel
token: however fast, or however loaded, the machine, the run is still going when Cancel is pressed,
and it ends as the window's Cancel ends it (the token's Cancelled). A job that ends before such a step
ends as it would. Process jobs (:class:`~designer.jobs.process.ProcessJob`) run in another process
and pass unchanged.
"""

from __future__ import annotations

import threading

__all__ = ["hold_jobs", "held"]


def held(job, token, low: float = 0.01, high: float = 0.99):
    """``job``'s steps up to its first one with a fraction from ``low`` to ``high``, then nothing until ``token``
    is cancelled."""
    while True:
        try:
            step = next(job)
        except StopIteration as end:
            return end.value
        yield step
        if step.fraction is not None and low <= step.fraction <= high:
            break
    wake = threading.Event()
    while not token.cancelled:
        wake.wait(0.005)
    token.check()   # raises Cancelled
    raise AssertionError("the token was cancelled but check() did not raise")


def hold_jobs(monkeypatch) -> None:
    from designer.gui import job_runner
    from designer.jobs.process import ProcessJob
    start = job_runner.start_job

    def start_held(make_job, *args, **kwargs):
        if callable(make_job) and not isinstance(make_job, ProcessJob):
            inner = make_job

            def make_job(token):
                return held(inner(token), token)
        return start(make_job, *args, **kwargs)
    monkeypatch.setattr(job_runner, "start_job", start_held)
