"""sub_job: a job run inside another, its progress mapped onto a share of the whole."""

from __future__ import annotations

from designer.jobs import Progress, run, sub_job


def _inner(log: list):
    try:
        yield Progress("inner", 0.0, "a")
        yield Progress("inner", None, "b")
        yield Progress("inner", 1.0, "c")
        return 42
    finally:
        log.append("closed")


def test_fractions_map_onto_the_share_and_the_result_comes_back():
    seen: list[Progress] = []
    assert run(sub_job(_inner([]), 0.25, 0.5, "outer"), seen.append) == 42
    assert [(p.stage, p.fraction, p.detail) for p in seen] == [
        ("outer", 0.25, "a"), ("outer", None, "b"), ("outer", 0.75, "c")]


def test_the_stage_is_kept_without_a_name_and_closing_the_outer_job_closes_the_inner():
    log: list = []
    outer = sub_job(_inner(log), 0.0, 1.0)
    assert next(outer).stage == "inner"
    outer.close()
    assert log == ["closed"]
