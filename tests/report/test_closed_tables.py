"""A closed chain's part of the design report (report/tables.py closed_chain_tables) and ``design-report``.

The cut-joint forces holding a pose are checked against Pinocchio's constraint forces (lambda_c of
constraintDynamics with the actuated torques set to G_a: the mechanism holds still), on random
parallelogram arms in both DH conventions; M_a on the report is symmetric positive definite.
"""

from __future__ import annotations

import numpy as np
import pytest

from designer.cli import main
from designer.model import Convention
from designer.numeric.closed import ClosedDynamics
from designer.project import load_project
from designer.report.tables import closed_chain_tables
from tests.support import robot_path
from tests.support.closed_reference import felt, parallelogram_arm


def _table(tables, start: str):
    return next((h, rows) for title, h, rows in tables if title.startswith(start))


@pytest.mark.parametrize("conv", [Convention.STANDARD, Convention.MODIFIED])
def test_the_holding_cut_force_is_pinocchio_s_constraint_force(conv):
    pytest.importorskip("pinocchio")
    from tests.support.closed_reference import PinMechanism
    rng = np.random.default_rng(91)
    for _ in range(3):
        model = parallelogram_arm(rng, conv, wrist=True)
        cd = ClosedDynamics(model)
        q_a = rng.uniform(-0.5, 0.5, cd.n)
        tables = closed_chain_tables(model, q_a, samples=16)
        _header, M_rows = _table(tables, "M_a at the pose")
        M = np.array([[float(v) for v in row[1:]] for row in M_rows])
        assert np.allclose(M, M.T, rtol=1e-4) and np.linalg.eigvalsh(M).min() > 0
        _header, (row,) = _table(tables, "Cut-joint forces")
        # Pinocchio: the tree held by the actuated joints' G_a, the loop closed by a rigid constraint
        ref = PinMechanism(model)
        q = cd.positions(q_a)
        tau = np.zeros(cd.n_tree)
        tau[cd.act] = cd.G(q_a)
        qdd = ref.constrained(q, np.zeros(cd.n_tree), tau)
        assert np.abs(qdd).max() < 1e-6                      # it holds still
        shown = np.array([float(v) for v in row[2].split(",")])
        ours, P = felt(cd, q, shown)                          # the components a joint feels (the rest is free)
        assert np.allclose(ours, P @ ref.lambda_c[:3], rtol=1e-3, atol=1e-3 * max(1, abs(shown).max()))


def test_the_palletizer_report_names_its_actuated_joints_and_holds_a_pose():
    model = load_project(robot_path("palletizer_parallelogram"))
    tables = closed_chain_tables(model, [0.0, 0.3, 0.2, 0.5, -0.2, 0.0], samples=32)   # every joint's value
    cd = ClosedDynamics(model)
    q_a = np.array([0.0, 0.3, 0.5, 0.0])
    header, rows = _table(tables, "G_a at the pose")
    assert [r[0] for r in rows] == ["q1", "q2", "q4", "q6"]
    assert [float(r[1]) for r in rows] == pytest.approx(cd.G(q_a), rel=1e-4, abs=1e-6)
    _header, (row,) = _table(tables, "Cut-joint forces")
    median, peak = float(row[4]), float(row[5])
    assert 0 < median <= peak and float(row[1]) > 0
    assert len(row[6].split(",")) == 4                       # where the largest occurs: q1, q2, q4, q6


def test_a_loop_that_cannot_close_gets_its_structure_and_one_line():
    model = load_project(robot_path("four_bar"))
    broken = model.with_parameter("L2", 50.0)                # a coupler 50 m long cannot reach the rocker
    tables = closed_chain_tables(broken)
    assert [t.split(":")[0] for t, _h, _r in tables] == ["Tree", "Loops", "Dynamics in the actuated joints"]
    (line,), = tables[2][2]
    assert line.startswith("not computed: loops[1] (ground pin): cannot be assembled")
    # the bars stretched along one line at best: 50 m of coupler less 0.35 m of rocker and the 0.4272 m from the
    # crank's tip (0.15 m up, the crank at 90 degrees) to the rocker's pivot (0.4 m along the ground)
    best = float(line.split(" apart at best")[0].split(" are ")[-1].removesuffix(" mm"))
    assert best == pytest.approx((50.0 - 0.35 - np.hypot(0.4, 0.15)) * 1000, rel=1e-3)


def test_design_report_command(tmp_path, capsys):
    out = tmp_path / "pal.html"
    assert main(["design-report", str(robot_path("palletizer_parallelogram")), "--out", str(out),
                 "--q", "0", "0.3", "0.5", "0"]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'id="closed-chain"' in page and "q1 = 0, q2 = 0.3, q4 = 0.5, q6 = 0" in page
    assert main(["design-report", str(robot_path("puma560")), "--out", str(tmp_path / "p.pdf")]) == 0
    assert (tmp_path / "p.pdf").read_bytes().startswith(b"%PDF")
    capsys.readouterr()
    assert main(["design-report", str(robot_path("palletizer_parallelogram")), "--out", str(out), "--q", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "4 or 6 joint values" in err


def test_the_tree_and_loop_tables_say_everything_that_places_the_links():
    """Khalil-Kleinfinger's gamma and b appear where a link has them, and each cut joint's place on
    both its links: without them the report would not describe the mechanism it analyses."""
    from dataclasses import replace
    four_bar = load_project(robot_path("four_bar"))
    header, rows = _table(closed_chain_tables(four_bar), "Tree")
    assert "gamma" not in header                             # no branching frame: no empty columns
    header, (loop,) = _table(closed_chain_tables(four_bar), "Loops")
    assert header == ["loop", "cut joint", "between", "at", "and", "at"]
    lp = four_bar.loops[0]
    assert loop[2:] == [f"link {lp.link_i}", f"({', '.join(map(str, lp.frame_i.xyz))})", "the base",
                        f"({', '.join(map(str, lp.frame_j.xyz))})"]
    turned = replace(four_bar, links=four_bar.links[:2] + (replace(four_bar.links[2], gamma=0.25, b=0.1),))
    header, rows = _table(closed_chain_tables(turned, samples=4), "Tree")
    assert header[-2:] == ["gamma", "b"]
    assert [r[-2:] for r in rows] == [["0", "0"], ["0", "0"], ["0.250000000000000", "0.100000000000000"]]
