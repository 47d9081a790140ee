"""simulate --drives of closed chains: physical laws. With rotors only (reflected inertia N^2 Jm on
actuated and passive joints) a passive mechanism conserves its energy counted with the rotors'
kinetic energy 1/2 N^2 Jm qd_i^2; with viscous friction it loses exactly the friction's work
sum_i b_i qd_i^2 integrated over time, the tree rates qd_i from W differenced off the closure (a
four-bar's W changes with the pose: its rotor terms include R W' qd_a)."""

from __future__ import annotations

import csv
import io
from dataclasses import replace

import numpy as np
import pytest
from scipy.integrate import simpson

from designer.cli import main
from designer.model import Convention, Drive
from designer.numeric.closed import ClosedDynamics
from designer.numeric.simulate import simulate
from designer.project import save_project
from tests.support.closed_reference import four_bar, parallelogram_arm


def fd_W(cd, qa, eps=1e-6):
    return np.array([(cd.positions(qa + e) - cd.positions(qa - e)) / (2 * eps) for e in np.eye(cd.n) * eps]).T


def with_drives(model, rotors: dict, viscous: dict | None = None):
    links = list(model.links)
    for i, (N, Jm) in rotors.items():
        links[i] = replace(links[i], drive=Drive(gear_ratio=N, motor_inertia=Jm))
    for i, b in (viscous or {}).items():
        old = links[i].drive
        links[i] = replace(links[i], drive=replace(old, viscous=b) if old else Drive(viscous=b))
    return replace(model, links=tuple(links))


MECHANISMS = {"four-bar": lambda: four_bar(np.random.default_rng(1), Convention.STANDARD),
              "parallelogram": lambda: parallelogram_arm(np.random.default_rng(2), Convention.MODIFIED)}


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_rotors_conserve_the_energy_counted_with_them(name):
    base = MECHANISMS[name]()
    passive = [i for i, link in enumerate(base.links) if not link.actuated]
    model = with_drives(base, {0: (30.0, 2e-4), passive[0]: (10.0, 5e-4)})
    cd = ClosedDynamics(model)
    q0, qd0 = np.zeros(cd.n), np.full(cd.n, 1.5)
    traj = simulate(cd, q0, qd0, (0.0, 1.0), rtol=1e-10, atol=1e-12, drives=True)
    energy = traj.kinetic + traj.potential
    assert np.abs(energy - energy[0]).max() < 1e-6 * max(1.0, abs(energy[0]))
    rigid = simulate(ClosedDynamics(base), q0, qd0, (0.0, 1.0), rtol=1e-10, atol=1e-12, t_eval=traj.t)
    assert np.abs(rigid.q - traj.q).max() > 1e-3      # the rotors are felt
    # the rotors' energy is part of the total: 1/2 N^2 Jm qd^2 at the start
    qd_tree = fd_W(cd, q0) @ qd0
    rotors = 0.5 * (30.0**2 * 2e-4 * qd_tree[0] ** 2 + 10.0**2 * 5e-4 * qd_tree[passive[0]] ** 2)
    assert traj.kinetic[0] == pytest.approx(cd.energy(q0, qd0)[0] + rotors, rel=1e-6)


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_friction_takes_exactly_its_work(name):
    base = MECHANISMS[name]()
    passive = [i for i, link in enumerate(base.links) if not link.actuated]
    b = {0: 0.8, passive[0]: 1.5}
    model = with_drives(base, {0: (20.0, 1e-4)}, b)
    cd = ClosedDynamics(model)
    q0, qd0 = np.zeros(cd.n), np.full(cd.n, 2.0)
    t = np.linspace(0.0, 0.6, 601)
    traj = simulate(cd, q0, qd0, (0.0, 0.6), rtol=1e-11, atol=1e-12, t_eval=t, drives=True)
    energy = traj.kinetic + traj.potential
    power = []
    for qa, qda in zip(traj.q, traj.qd):
        qd_tree = fd_W(cd, qa) @ qda
        power.append(sum(c * qd_tree[i] ** 2 for i, c in b.items()))
    work = simpson(np.array(power), x=t)
    assert work > 1e-3
    assert energy[0] - energy[-1] == pytest.approx(work, rel=1e-5)


def test_simulate_drives_on_the_command_line(tmp_path, capsys):
    model = with_drives(MECHANISMS["four-bar"](), {0: (20.0, 1e-4)}, {0: 0.5})
    save_project(model, tmp_path / "fb.json")
    out = tmp_path / "sim.csv"
    args = ["simulate", str(tmp_path / "fb.json"), "--q0", "0", "--qd0", "3", "--t", "0.3", "--dt", "0.05",
            "--out", str(out), "--quiet"]
    assert main(args + ["--drives"]) == 0
    assert "with the drive terms" in capsys.readouterr().out
    energy = [float(r["energy"]) for r in csv.DictReader(io.StringIO(out.read_text()))]
    assert energy[-1] < energy[0] - 1e-3                   # friction takes energy out
    assert main(args) == 0                                 # without --drives: rigid bodies, conserved
    energy = [float(r["energy"]) for r in csv.DictReader(io.StringIO(out.read_text()))]
    assert abs(energy[-1] - energy[0]) < 1e-5 * max(1.0, abs(energy[0]))
    capsys.readouterr()
    from tests.support import robot_path
    assert main(["simulate", str(robot_path("planar_two_link")), "--q0", "0", "0", "--t", "1", "--drives"]) == 2
    err = capsys.readouterr().err
    assert "closed chains only" in err and len(err.strip().splitlines()) == 1
