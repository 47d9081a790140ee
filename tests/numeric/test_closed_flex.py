"""The links' bending of a closed chain (numeric/closed_flex.py) against independent sides.

- No part-made link: the modes are the gearboxes' over M_a = W^T M_tree W of ClosedDynamics (the tree's CRBA
  and the closure's W, both held to Pinocchio in tests/numeric/test_closed*.py), on the palletizer and random
  parallelogram arms and four-bars.
- A tree without loops (the tube arm read as a tree): the tool compliance is numeric/beams.py's beam integral
  plus J K^-1 J^T for any number of slices, the sag converges to beams.py's exact integral.
- The static tool compliance and sag with the loops closed: a Lagrange-multiplier (KKT) solve written here, over
  the loop residuals and the tool point of a forward kinematics with the slices' twists applied as finite
  rotations (Rodrigues), differentiated by central differences; its own rule of which slices carry what.
- Euler-Bernoulli: a steel tube outside the loop (the palletizer's wrist), everything else rigid: the tool
  compliance L^3/(3 EI) and L/(EA), the first bending frequency with the 60 kg load the clamped-free beam's with a
  tip mass (root finding here).
- A slider-crank's rod at the dead centre: the textbook's pinned-pinned, clamped-clamped and axial bar frequencies.
- The parallelogram's coupler is pinned at both ends: its bending in the plane of the loop (about the pins' axes)
  carries no moment from a tool force and leaves the compliance unchanged; its axial stiffness does not.
- Convergence of the lowest bending frequency as the slices multiply; E x 1e6 approaches the rigid-link modes.
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.spatial.transform import Rotation

from designer.kinematics.tree import _PAIRS
from designer.model.parts import MATERIALS, Part
from designer.numeric.beams import beams_compliance, beams_sag
from designer.numeric.closed import ClosedDynamics
from designer.numeric.closed_flex import ClosedFlex, closed_flex
from designer.numeric.elastic import elastic_joints
from designer.numeric.modes import locked_modes
from designer.numeric.stiffness import sag as joints_sag
from designer.project.io import dumps_project, load_project, loads_project
from tests.support import robot_path
from tests.support.closed_reference import four_bar, parallelogram_arm
from designer.model.manipulator import Convention

STEEL = MATERIALS["steel"]
GEARS = {0: 3e5, 1: 4e5, 3: 2e5, 5: 5e4}   # the palletizer's actuated joints (0-based): N m/rad


def palletizer_tubes(upper=("aluminium 6061-T6", 0.16, 0.006), rod=("steel", 0.05, 0.004), wrist=None,
                     gears=True, materials=None):
    """The bundled palletizer with the upper arm and the coupler rod as tubes (material, outer diameter, wall),
    optionally the wrist too, gearboxes on the actuated joints."""
    d = json.loads(robot_path("palletizer_parallelogram").read_text())
    for i, spec in ((1, upper), (4, rod), (5, wrist)):
        if spec is None:
            continue
        for key in ("mass", "com", "inertia"):
            d["links"][i].pop(key)
        d["links"][i]["part"] = {"shape": "tube", "material": spec[0], "outer_diameter": spec[1], "wall": spec[2]}
    if gears:
        for i, k in GEARS.items():
            d["links"][i]["drive"] = {"stiffness": k}
    if materials:
        d["materials"] = materials
    return loads_project(json.dumps(d))


def tree_stiffness(cd, model):
    return np.array([math.inf if l.drive is None or l.drive.stiffness is None or not l.actuated
                     else float(l.drive.stiffness) for l in model.links])


# -- the independent static solve ---------------------------------------------------------------------
def _arc(beam, x):
    u = (beam.end - beam.start) / beam.length
    return float(np.dot(np.asarray(x) - beam.start, u))


class Bent:
    """A forward kinematics of the tree with the slices' twists applied as finite rotations about their points,
    written apart from closed_flex: coordinates z = (q_tree, u), u the slices' twists scaled by sqrt(C)."""

    def __init__(self, cf: ClosedFlex):
        self.cf, self.tree, self.fm = cf, cf.tree, cf.fm
        self.n, self.V = self.tree.n, len(self.fm.vj_link)
        beams = {b.index: b for b in self.tree.arm.beams}
        T0 = self.tree.frames(np.zeros(self.n))
        origins = self.tree.joint_axes(T0)[0]

        def slices(link, x):   # the slices carrying the point x of link: before it along the beams down to the base
            out = []
            while link >= 0:
                if link in beams:
                    s = _arc(beams[link], x)
                    out += [k for k in range(self.V) if self.fm.vj_link[k] == link
                            and _arc(beams[link], self.fm.vj_pos[k]) < s]
                parent = self.tree.parent[link]
                Tp = T0[parent + 1]
                x, link = Tp[:3, :3].T @ (origins[link] - Tp[:3, 3]), parent
            return out
        self.slices = slices

    def place(self, z, link, x, R_local=None):
        q, u = z[:self.n], z[self.n:].reshape(-1, 6)
        T = self.tree.frames(q)
        p = T[link + 1][:3, :3] @ x + T[link + 1][:3, 3]
        R = T[link + 1][:3, :3] @ (np.eye(3) if R_local is None else R_local)
        for k in self.slices(link, x):
            Tk = T[self.fm.vj_link[k] + 1]
            Rk = Tk[:3, :3]
            pk = Rk @ self.fm.vj_pos[k] + Tk[:3, 3]
            twist = self.fm.vj_sqrt[k] @ u[k]
            rot = Rotation.from_rotvec(Rk @ twist[3:]).as_matrix()
            p = pk + rot @ (p - pk) + Rk @ twist[:3]
            R = rot @ R
        return p, R

    def residual(self, z):
        out = []
        for i, j, Fi, Fj, kind in self.tree.loops:
            pi, Ri = self.place(z, i, Fi[:3, 3], Fi[:3, :3]) if i >= 0 else (Fi[:3, 3], Fi[:3, :3])
            pj, Rj = self.place(z, j, Fj[:3, 3], Fj[:3, :3]) if j >= 0 else (Fj[:3, 3], Fj[:3, :3])
            out += list(pi - pj) + [float(Rj[:, a] @ Ri[:, b]) for a, b in _PAIRS[kind]]
        return np.array(out)

    def tool(self, z):
        return self.place(z, self.cf.tool_link, self.tree.arm.tool[:3, 3])[0]

    def jac(self, f, z, h=1e-6):
        cols = []
        for d in range(len(z)):
            e = np.zeros(len(z))
            e[d] = h
            cols.append((f(z + e) - f(z - e)) / (2 * h))
        return np.array(cols).T

    def solve(self, q, stiffness, loads):
        """z for generalised loads (D, k): min 1/2 z^T H z - z^T loads s.t. the loops (linearised) and the locked
        motors, by the KKT system; H = k on the gearboxes, 1 on the scaled slices, 0 on the passive joints."""
        z0 = np.concatenate([q, np.zeros(6 * self.V)])
        D = len(z0)
        H = np.zeros(D)
        H[self.n:] = 1.0
        locked = []
        for i in self.tree.actuated:
            if np.isfinite(stiffness[i]):
                H[i] = stiffness[i]
            else:
                locked.append(i)
        A = self.jac(self.residual, z0)
        A = np.vstack([A, np.eye(D)[locked]]) if locked else A
        K = np.block([[np.diag(H), A.T], [A, np.zeros((len(A), len(A)))]])
        rhs = np.vstack([loads, np.zeros((len(A), loads.shape[1]))])
        return np.linalg.lstsq(K, rhs, rcond=None)[0][:D], z0

    def compliance(self, q, stiffness):
        z0 = np.concatenate([q, np.zeros(6 * self.V)])
        Jt = self.jac(self.tool, z0)
        z, _ = self.solve(q, stiffness, Jt.T)
        return Jt @ z

    def sag(self, q, stiffness, payload):
        z0 = np.concatenate([q, np.zeros(6 * self.V)])
        g = np.asarray(self.tree.arm.gravity, float)
        Q = payload * (self.jac(self.tool, z0).T @ g)
        for link, pos, m in zip(self.fm.body_link, self.fm.body_pos, self.fm.body_mass):
            Q = Q + m * (self.jac(lambda zz, link=int(link), pos=pos: self.place(zz, link, pos)[0], z0).T @ g)
        z, _ = self.solve(q, stiffness, Q[:, None])
        return self.jac(self.tool, z0) @ z[:, 0]


# -- tests ----------------------------------------------------------------------------------------------
def test_without_parts_the_modes_are_the_gearboxes_over_the_closed_mass_matrix():
    rng = np.random.default_rng(11)
    models = [load_project(robot_path("palletizer_parallelogram"))]
    models += [parallelogram_arm(rng, conv) for conv in (Convention.STANDARD, Convention.MODIFIED)]
    models += [four_bar(rng, mounted=True)]
    for model in models:
        cd = ClosedDynamics(model)
        k = np.full(cd.n_tree, math.inf)
        k[cd.act] = rng.uniform(2e3, 2e5, cd.n)
        cf = closed_flex(cd, k, 3)
        for _ in range(3):
            qa = rng.uniform(-0.3, 0.3, cd.n)
            q = cd.positions(qa)
            freq = cf.modes(q)[0]
            from designer.numeric.elastic import ElasticJoints
            rigid = locked_modes(cd.M(qa), ElasticJoints.of(cd.n, k[cd.act])).frequency
            np.testing.assert_allclose(np.sort(freq), np.sort(rigid), rtol=1e-9)


def test_a_tree_without_loops_is_the_serial_beam_model():
    """The tube arm as a tree: compliance = beams.py's integral + J K^-1 J^T for 1 to 5 slices; the links' sag
    converges to beams.py's exact integral (lumped half-slices: 0.1 % at 8)."""
    model = load_project(robot_path("tube_arm"))
    cd = ClosedDynamics(model)
    arm = cd.tree.arm
    joints = elastic_joints(model)
    rng = np.random.default_rng(2)
    for _ in range(3):
        q = rng.uniform(-2, 2, arm.n)
        J = arm.tool_jacobian(q)
        C = beams_compliance(arm, arm.beams, q) + J @ np.diag(1 / joints.stiffness) @ J.T
        for segments in (1, 3, 5):
            np.testing.assert_allclose(closed_flex(cd, joints.stiffness, segments).compliance(q), C, rtol=1e-9,
                                       atol=1e-12 * np.abs(C).max())
        exact = beams_sag(arm, arm.beams, q, 2.0)
        errors = [np.linalg.norm(closed_flex(cd, None, s).sag(q, 2.0)[:3] - exact[:3]) / np.linalg.norm(exact[:3])
                  for s in (2, 8)]
        assert errors[1] < 1e-3 and errors[1] < errors[0]
        # the gearboxes' share is stiffness.sag's (motors holding), the two add
        both = closed_flex(cd, joints.stiffness, 8).sag(q, 2.0)[:3]
        np.testing.assert_allclose(both, closed_flex(cd, None, 8).sag(q, 2.0)[:3] + joints_sag(arm, joints, q, 2.0),
                                   rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("case", ["palletizer", "forearm", "random_std", "random_mod", "four_bar"])
def test_compliance_and_sag_against_a_kkt_solve_of_the_bent_loops(case):
    """``forearm``: the palletizer's forearm a tube too, its cut joint on the rear extension behind the elbow
    (before the beam's start: no slice of the forearm carries it, all carry the wrist)."""
    rng = np.random.default_rng({"palletizer": 1, "forearm": 5, "random_std": 2, "random_mod": 3, "four_bar": 4}[case])
    if case == "palletizer":
        model = palletizer_tubes()
    elif case == "forearm":
        d = json.loads(dumps_project(palletizer_tubes()))
        for key in ("mass", "com", "inertia"):
            d["links"][2].pop(key)
        d["links"][2]["part"] = {"shape": "tube", "material": "aluminium 6061-T6", "outer_diameter": 0.12,
                                 "wall": 0.005}
        model = loads_project(json.dumps(d))
    else:
        base = (four_bar(rng, mounted=True) if case == "four_bar" else
                parallelogram_arm(rng, Convention.STANDARD if case == "random_std" else Convention.MODIFIED))
        tube = Part("tube", STEEL, (("outer_diameter", 0.04), ("wall", 0.003)))
        links = list(base.links)
        for i in rng.choice(len(links), size=min(3, len(links)), replace=False):
            links[i] = dataclasses.replace(links[i], part=tube, mass=0, com=(0, 0, 0),
                                           inertia=type(links[i].inertia)())
        for i, link in enumerate(links):
            if link.actuated:
                links[i] = dataclasses.replace(link, drive=dataclasses.replace(
                    link.drive or type_drive(), stiffness=float(rng.uniform(2e4, 2e5))))
        model = dataclasses.replace(base, links=tuple(links))
    cd = ClosedDynamics(model)
    k = tree_stiffness(cd, model)
    cf = closed_flex(cd, k, 2)
    assert len(cf.fm.vj_link)
    bent = Bent(cf)
    for _ in range(2):
        q = cd.positions(rng.uniform(-0.3, 0.3, cd.n))
        C = cf.compliance(q)[:3, :3]
        ref = bent.compliance(q, k)
        np.testing.assert_allclose(C, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
        s = cf.sag(q, 3.0)[:3]
        ref_s = bent.sag(q, k, 3.0)
        np.testing.assert_allclose(s, ref_s, rtol=1e-5, atol=1e-5 * np.abs(ref_s).max())


def type_drive():
    from designer.model.extras import Drive
    return Drive()


def _euler_bernoulli(L, EI, mu, tip):
    r = tip / (mu * L)

    def f(x):
        return 1 + math.cos(x) * math.cosh(x) + r * x * (math.cos(x) * math.sinh(x) - math.sin(x) * math.cosh(x))
    x = brentq(f, 1e-6, 1.8751041 + 1e-9)
    return x ** 2 * math.sqrt(EI / (mu * L ** 4)) / (2 * math.pi)


def test_a_tube_outside_the_loop_is_an_euler_bernoulli_cantilever():
    """The wrist (Lw = 0.25 m, along the tool's z) as a steel tube, every other link rigid (no gearbox, E x 1e9 in
    the loop's tubes): C = L^3/(3 EI) across, L/(EA) along; f1 with the 60 kg load at its end by the frequency
    equation of a clamped-free beam with a tip mass."""
    stiff = {"stiff": {"density": 2700.0, "young": 69e18, "shear": 26e18}}
    model = palletizer_tubes(upper=("stiff", 0.16, 0.006), rod=("stiff", 0.05, 0.004), wrist=("steel", 0.03, 0.003),
                             gears=False, materials=stiff)
    cd = ClosedDynamics(model)
    beam = next(b for b in cd.tree.arm.beams if b.index == 5)
    qa = np.array([0.2, -0.3, 0.4, 0.1])
    q = cd.positions(qa)
    T = cd.tree.frames(q)
    axis = T[6][:3, 2]   # the wrist's z, along the tube
    for segments in (1, 4):
        C = closed_flex(cd, None, segments).compliance(q)[:3, :3]
        along = float(axis @ C @ axis)
        assert along == pytest.approx(beam.length / beam.ea, rel=1e-6)
        across = np.linalg.eigvalsh(C)[1:]   # the smallest is the axial L/(EA)
        np.testing.assert_allclose(across, beam.length ** 3 / (3 * beam.ei1), rtol=1e-6)
    hand = _euler_bernoulli(beam.length, beam.ei1, beam.mass_per_length, 60.0)
    f = closed_flex(cd, None, 16).modes(q)[0]
    assert f[0] == pytest.approx(hand, rel=2e-3)
    assert f[1] == pytest.approx(hand, rel=2e-3)   # the tube's two bending planes


def test_the_coupler_pinned_at_both_ends_bends_in_the_plane_without_effect_on_the_compliance():
    model = palletizer_tubes()
    cd = ClosedDynamics(model)
    k = tree_stiffness(cd, model)
    q = cd.positions(np.array([0.2, -0.3, 0.4, 0.1]))
    rod = next(b for b in cd.tree.arm.beams if b.index == 4)
    T = cd.tree.frames(q)
    # the pins' axis (the loop's normal) is the rod frame's z: the section's first axis e1 (model/parts.py)
    assert abs(abs(float((T[5][:3, :3] @ rod.axes[1]) @ T[5][:3, 2])) - 1) < 1e-12

    def compliance(**scale):
        beams = tuple(dataclasses.replace(b, **{f: getattr(b, f) * v for f, v in scale.items()}) if b.index == 4 else b
                      for b in cd.tree.arm.beams)
        tree = dataclasses.replace(cd.tree, arm=dataclasses.replace(cd.tree.arm, beams=beams))
        return ClosedFlex(tree, k, 4).compliance(q)
    C = compliance()
    for factor in (1e-3, 1e3):
        np.testing.assert_allclose(compliance(ei1=factor), C, rtol=1e-8, atol=1e-8 * np.abs(C).max())
    assert np.abs(compliance(ea=1e-2) - C).max() > 1e-3 * np.abs(C).max()
    # the out-of-plane bending (about e2) is held by the pins' bearings: it matters
    assert np.abs(compliance(ei2=1e-3) - C).max() > 1e-3 * np.abs(C).max()


def test_the_lowest_bending_frequency_converges_as_the_slices_multiply():
    model = palletizer_tubes()
    cd = ClosedDynamics(model)
    k = tree_stiffness(cd, model)
    q = cd.positions(np.array([0.2, -0.3, 0.4, 0.1]))

    def bending(segments):   # the lowest mode whose strain energy lies mostly in the links
        freq, _, energy, groups = closed_flex(cd, k, segments).modes(q, count=8)
        links = energy[:, [g != "joints" for g in groups]].sum(axis=1)
        return freq[np.argmax(links > 0.5)]
    f = [bending(s) for s in (2, 4, 8, 16, 32)]
    steps = np.abs(np.diff(f))
    assert np.all(steps[1:] < steps[:-1]), f   # the changes shrink
    assert steps[-1] < 2e-3 * f[-1]
    # the static compliance is exact for any slices: every slice of the rod carries its cut point, where the loop's
    # wrench enters (no load along the rod)
    C = closed_flex(cd, k, 1).compliance(q)
    np.testing.assert_allclose(closed_flex(cd, k, 7).compliance(q), C, rtol=1e-9, atol=1e-12 * np.abs(C).max())


def test_a_very_stiff_material_gives_the_rigid_link_gearbox_modes():
    """E and G x 1e6: the modes with the links' slices approach those of `modes` without them (M_a of the tree's
    CRBA): the tubes' bending lies 1e3 higher in frequency."""
    steel, alu = MATERIALS["steel"], MATERIALS["aluminium 6061-T6"]
    mats = {"steel x1e6": {"density": steel.density, "young": steel.young * 1e6, "shear": steel.shear * 1e6},
            "alu x1e6": {"density": alu.density, "young": alu.young * 1e6, "shear": alu.shear * 1e6}}
    soft = palletizer_tubes()
    stiff = palletizer_tubes(upper=("alu x1e6", 0.16, 0.006), rod=("steel x1e6", 0.05, 0.004), materials=mats)
    qa = np.array([0.2, -0.3, 0.4, 0.1])
    for model, tol in ((stiff, 1e-5),):
        cd = ClosedDynamics(model)
        k = tree_stiffness(cd, model)
        from designer.numeric.elastic import ElasticJoints
        rigid = locked_modes(cd.M(qa), ElasticJoints.of(cd.n, k[cd.act])).frequency
        f = closed_flex(cd, k, 4).modes(cd.positions(qa), count=cd.n)[0]
        np.testing.assert_allclose(f, rigid, rtol=tol)
    cd = ClosedDynamics(soft)
    k = tree_stiffness(cd, soft)
    rigid = locked_modes(cd.M(qa), ElasticJoints.of(cd.n, k[cd.act])).frequency
    assert closed_flex(cd, k, 4).modes(cd.positions(qa))[0][0] < rigid[0] * (1 - 1e-3)   # Rayleigh: softer, lower


def test_a_serial_column_along_its_own_z_bends():
    """A part along the link frame's z (a standard link of d only): beams.py's compliance across it is L^3/(3 EI)
    (it was 0 while SymPy's Float(0.0) != 0 left the section's first axis the zero vector, model/parts.py)."""
    from designer.kinematics import NumericArm
    from designer.model import Link, Manipulator
    L = 0.8
    link = Link(d=L, part=Part("tube", STEEL, (("outer_diameter", 0.05), ("wall", 0.004))))
    arm = NumericArm.from_model(Manipulator(links=(link,), name="column", parameters={"g": 9.81}))
    beam = arm.beams[0]
    C = beams_compliance(arm, arm.beams, np.array([0.3]))
    np.testing.assert_allclose(np.diag(C)[:3], [L ** 3 / (3 * beam.ei1), L ** 3 / (3 * beam.ei2), L / beam.ea],
                               rtol=1e-9)


def test_a_slider_cranks_rod_at_the_dead_centre_vibrates_as_the_textbooks_bar():
    """The slider-crank of tests/dynamics/test_slider_crank.py (a passive prismatic joint in the loop, a branch
    turned by gamma, modified DH) with its connecting rod a steel tube, the crank locked along the slider's line:
    the rod is pinned at the crank pin and at the slider (free along the rod, 2 kg). In the plane it bends as a
    pinned-pinned beam, w = pi^2 sqrt(EI / (mu L^4)); out of the plane both revolute pins hold it clamped,
    w = 22.373 sqrt(EI / (mu L^4)); along it, a bar fixed at one end with the slider's mass at the other,
    b tan b = m_rod / m_slider, w = b c / L. Euler-Bernoulli leaves out the slices' rotary inertia (0.2 % here)."""
    from tests.dynamics.test_slider_crank import _slider_crank
    base = _slider_crank(0.1, 0.5, [1.0, 1.0, 2.0], [1e-3, 1e-3, 1e-3])
    links = list(base.links)
    links[1] = dataclasses.replace(links[1], part=Part("tube", STEEL, (("outer_diameter", 0.03), ("wall", 0.003))),
                                   mass=0, com=(0, 0, 0), inertia=type(links[1].inertia)())
    cd = ClosedDynamics(dataclasses.replace(base, links=tuple(links)))
    rod = cd.tree.arm.beams[0]
    mu, L = rod.mass_per_length, rod.length
    q = cd.positions(np.array([-math.pi / 2]))
    T = cd.tree.frames(q)
    assert abs(T[3][1, 3]) < 1e-12 and T[3][0, 3] == pytest.approx(0.1 + L)   # the rod lies along the slider's line
    f = closed_flex(cd, None, 16).modes(q, count=4)[0]
    bend = math.sqrt(rod.ei1 / (mu * L ** 4)) / (2 * math.pi)
    beta = brentq(lambda x: x * math.tan(x) - mu * L / 2.0, 1e-9, math.pi / 2 - 1e-9)
    axial = beta * math.sqrt(rod.ea / mu) / L / (2 * math.pi)
    assert f[0] == pytest.approx(math.pi ** 2 * bend, rel=5e-3)
    assert f[1] == pytest.approx(22.373 * bend, rel=5e-3)
    assert f[2] == pytest.approx(axial, rel=1e-3)


@pytest.mark.parametrize("mounted", [False, True])
def test_the_links_compliance_is_at_the_tool_the_gearboxes_compliance_is_at(mounted):
    """compliance = the gearboxes' share + the links' share, so both must be taken at one tool point: a
    four-bar's is on its coupler (its rocker's end is pinned), for the links' model as for ActuatedArm."""
    from designer.explore.joints import explore_arm
    model = four_bar(np.random.default_rng(6), mounted=mounted)
    cf = closed_flex(ClosedDynamics(model), None, 2)
    assert cf.tool_link == explore_arm(model).tool_link == (2 if mounted else 1)
