"""Generated code holds no temporary that nothing reads: a term that cancels (the centrifugal qd1**2 of
a one-joint arm) left ``const double x0 = (qd1*qd1);`` behind, an error under gcc -Wall -Werror."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import sympy as sp

from designer.codegen import plan_code
from tests.support.codegen import generate
from designer.dynamics import Method, derive
from designer.model import Convention, Inertia, Link, Manipulator, PointMass, symbol


def _one_joint(symbolic: bool) -> Manipulator:
    izz = symbol("Izz1") if symbolic else 0.29
    link = Link(a=-0.3, alpha=1.72, theta=1.73, mass=4.6, com=(-0.0003, 0.19, symbol("cz1")),
                inertia=Inertia(0.36, 0.38, izz, -0.0096, 0.068, -0.026))
    params = (("cz1", -0.22),) + ((("Izz1", 0.29),) if symbolic else ())
    return Manipulator(links=(link,), convention=Convention.MODIFIED, gravity=(-1.07, -9.28, 3.01),
                       parameters=params)


def _two_joint() -> Manipulator:
    links = (Link(a=0.2, alpha=0.4, mass=1.0, com=(0.1, 0, 0), inertia=Inertia(0.01, 0.02, 0.03)),
             Link(a=0.3, mass=0.0))
    return Manipulator(links=links, gravity=(0, 0, -9.81), point_masses=(PointMass(2, 0.5, (0.0, 0.0, 0.0)),))


ARMS = [lambda: _one_joint(True), lambda: _one_joint(False), _two_joint]


@pytest.mark.parametrize("make", ARMS)
def test_every_temporary_is_read(make):
    plan = plan_code(derive(make(), Method.NEWTON_EULER))
    for f in plan.functions:
        reads = set()
        for e in [v for _, v in f.temps] + [e for _, e in f.outputs]:
            reads |= sp.sympify(e).free_symbols
        unused = [str(s) for s, _ in f.temps if s not in reads]
        assert not unused, (f.name, unused)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
@pytest.mark.parametrize("make", ARMS)
def test_c_compiles_under_wall_werror(make, tmp_path):
    src = tmp_path / "arm.c"
    src.write_text(generate(derive(make(), Method.NEWTON_EULER), "c", prefix="arm"), encoding="utf-8")
    run = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", str(src), "-o",
                          str(tmp_path / "arm.o")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
