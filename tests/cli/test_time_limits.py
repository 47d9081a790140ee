"""Long commands on large mechanisms stop at their --time-limit with one line, or do not need one.

``codegen`` has a default limit for its whole run, checked inside the derivation and the common subexpressions;
``eval --form closed`` stops a closed chain's closed form in the step it had reached (dW/dq of a nonlinear loop),
also inside a step that has no check of its own.

No test waits for the clock: a limit that must trigger (1e-9 s), or a deadline that expires at its n-th check
(:class:`_Checks`), so the step a limit stops in is the same on a busy machine.
"""

from __future__ import annotations

import json

import pytest

import designer.dynamics.engine as engine
import designer.dynamics.size as size
from designer.cli import main
from designer.dynamics import Form, Method, derive
from designer.jobs import NEVER, Progress
from designer.project import load_project

from tests.support import ROBOTS


class _Checks(size.Deadline):
    """A deadline that expires at its ``at``-th check (None: never) and counts its checks; a real clock never
    decides. ``made`` keeps every one made (the command makes its own)."""

    at: int | None = None
    made: list = []

    def __init__(self, parent=NEVER, seconds=None):
        super().__init__(parent, None)
        self.seconds, self.count = seconds, 0
        type(self).made.append(self)

    @property
    def expired(self) -> bool:
        return self.at is not None and self.count >= self.at

    def check(self) -> None:
        self.count += 1
        super().check()


def _checks(monkeypatch, where, at: int | None) -> type[_Checks]:
    cls = type("Checks", (_Checks,), {"at": at, "made": []})
    monkeypatch.setattr(where, "Deadline", cls)
    return cls


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- codegen ----------------------------------------------------------------------------------------------------

def test_codegen_has_a_default_time_limit_for_its_whole_run(monkeypatch, capsys, tmp_path):
    """Without --time-limit, codegen runs under a deadline of its default seconds (it had none: an 18-link closed
    chain ran past 10 min); 0 means none."""
    made = _checks(monkeypatch, size, None).made
    for limit, seconds in ((None, 300.0), ("0", None), ("12", 12.0)):
        extra = [] if limit is None else ["--time-limit", limit]
        code, _, err = _run(capsys, "codegen", ROBOTS / "double_pendulum.json", "--lang", "python", "--quiet",
                            "--out", tmp_path / "pend.py", *extra)
        assert code == 0, err
        assert made[-1].seconds == seconds and made[-1].count > 0   # the command's deadline, and checked


@pytest.mark.parametrize("robot", ["palletizer_parallelogram", "double_pendulum"])
def test_codegen_past_its_limit_says_so_in_one_line_and_writes_nothing(capsys, tmp_path, robot):
    """A closed chain (its closed form) and a serial arm (its compact form), in C: status 2, one line naming the
    limit and what to ask for instead; neither the source nor the header exists."""
    out = tmp_path / "arm.c"
    code, text, err = _run(capsys, "codegen", ROBOTS / f"{robot}.json", "--lang", "c", "--out", out, "--quiet",
                           "--time-limit", "1e-9")
    assert code == 2 and not text
    assert len(err.strip().splitlines()) == 1, err
    assert "codegen did not finish within 1e-09 s (--time-limit" in err
    assert "--functions" in err and "--time-limit 0" in err
    # the compact form is the way out where the closed form was being derived, not where it is the default
    assert ("--form compact" in err) is (robot == "palletizer_parallelogram")
    assert not out.exists() and not out.with_suffix(".h").exists()


def test_codegen_checks_its_limit_inside_the_common_subexpressions(monkeypatch, capsys, tmp_path):
    """The limit is checked where the work is, not only between stages: a deadline expiring at the last check
    but one of a whole run stops it after the derivation, in the common subexpressions (no progress step comes
    between them and the files), with nothing written."""
    project = ROBOTS / "palletizer_parallelogram.json"
    whole = _checks(monkeypatch, size, None).made
    assert _run(capsys, "codegen", project, "--lang", "c", "--out", tmp_path / "all.c", "--quiet")[0] == 0
    total = whole[-1].count
    assert total > 100   # checked per expression, not a handful of times per stage
    _checks(monkeypatch, size, total - 1)
    out = tmp_path / "late.c"
    code, _, err = _run(capsys, "codegen", project, "--lang", "c", "--out", out, "--quiet")
    assert code == 2 and "stopped at common subexpressions" in err, err
    assert not out.exists() and not out.with_suffix(".h").exists()


def test_codegen_stops_inside_a_long_call_without_checks(monkeypatch, capsys, tmp_path):
    """The plan's passes include long sympy calls with no check (the peephole pass over a large tau): the limit
    passing inside one (made long here) stops codegen there, with the one line and nothing written."""
    import designer.codegen.plan as plan
    state = {"expired": False, "finished": False}

    class Budget(size.Deadline):
        @property
        def expired(self) -> bool:
            return state["expired"]
    monkeypatch.setattr(size, "Deadline", Budget)
    polish = plan.polish

    def long_polish(*args):
        state["expired"] = True   # the limit passes now, inside the call
        for _ in range(200_000_000):   # work without a check (a safety net: stopped long before its end)
            pass
        state["finished"] = True
        return polish(*args)
    monkeypatch.setattr(plan, "polish", long_polish)
    out = tmp_path / "arm.c"
    code, _, err = _run(capsys, "codegen", ROBOTS / "double_pendulum.json", "--lang", "c", "--out", out, "--quiet")
    assert code == 2 and "stopped at common subexpressions" in err, err
    assert state["expired"] and not state["finished"]
    assert not out.exists() and not out.with_suffix(".h").exists()


def test_a_linear_closures_closed_form_keeps_the_time_limit():
    """A parallelogram closes linearly: its closed form had no time budget at all (a large one ran minutes past
    --time-limit). Now auto falls back to the compact form and says why; closed refuses."""
    model = load_project(ROBOTS / "palletizer_parallelogram.json")
    eq = derive(model, Method.LAGRANGE, form=Form.AUTO, time_limit=1e-9)
    assert eq.form is Form.COMPACT and eq.extras["too_slow"][0] == 1e-9
    with pytest.raises(size.ClosedFormTooSlow, match=r"did not finish within 1e-09 s"):
        derive(model, Method.LAGRANGE, form=Form.CLOSED, time_limit=1e-9)
    assert derive(model, Method.LAGRANGE, form=Form.AUTO).form is Form.CLOSED   # within the default budget


# -- eval --form closed -----------------------------------------------------------------------------------------

def test_eval_closed_stops_in_the_dw_dq_step_at_its_limit(monkeypatch, capsys, tmp_path):
    """A four-bar's closed form in loop quantities: a deadline expiring inside dW/dq (counted in checks, found
    from a run that reports its steps) stops eval there, status 2, one line naming the step and the way out."""
    model = load_project(ROBOTS / "four_bar.json")
    counter = _checks(monkeypatch, engine, None)
    at: list[int] = []

    def progress(step: Progress) -> None:
        if step.stage == "dW/dq" and not at:
            at.append(counter.made[-1].count)
    derive(model, Method.LAGRANGE, "fast", progress, form=Form.CLOSED, time_limit=1000.0)
    assert at, "the four-bar's closed form has no dW/dq step"
    _checks(monkeypatch, engine, at[0] + 2)   # two checks into the step
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": [0.3], "qd": [0.1], "qdd": [0.2]}]}))
    code, out, err = _run(capsys, "eval", ROBOTS / "four_bar.json", "--states", states, "--form", "closed",
                          "--time-limit", "20", "--quiet")
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1, err
    assert "did not finish within 20 s (stopped at dW/dq" in err and "--form compact" in err


def test_a_closed_form_stops_inside_a_step_without_checks(monkeypatch):
    """One step of a loop's closed form can hold minutes of ring products with no ``check()`` (a random spatial
    loop's W numerators: eval --form closed --time-limit 20 ran 400 s). The budget runs out inside such a step
    (the adjugate of J_p, here made long): the step is stopped there, not run to its end."""
    import designer.dynamics.closed_nonlinear as nonlinear
    state = {"expired": False, "finished": False}

    class Budget(size.Deadline):
        @property
        def expired(self) -> bool:
            return state["expired"]
    monkeypatch.setattr(engine, "Deadline", Budget)
    det_adj = nonlinear._det_adj

    def long_det_adj(tr, A):
        state["expired"] = True   # the limit passes now, inside the step
        for _ in range(200_000_000):   # work without a check (a safety net: stopped long before its end)
            pass
        state["finished"] = True
        return det_adj(tr, A)
    monkeypatch.setattr(nonlinear, "_det_adj", long_det_adj)
    with pytest.raises(size.ClosedFormTooSlow, match=r"stopped at loop Jacobian"):
        derive(load_project(ROBOTS / "four_bar.json"), Method.LAGRANGE, form=Form.CLOSED, time_limit=20.0)
    assert state["expired"] and not state["finished"]


def test_eval_closed_with_a_limit_that_must_trigger(capsys, tmp_path):
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": [0.3], "qd": [0.1], "qdd": [0.2]}]}))
    code, out, err = _run(capsys, "eval", ROBOTS / "four_bar.json", "--states", states, "--form", "closed",
                          "--time-limit", "1e-9", "--quiet")
    assert code == 2 and not out
    assert "did not finish within 1e-09 s" in err and "--time-limit to wait longer" in err
