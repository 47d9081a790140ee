"""Lee, Lee & Nigam, RSD-TR-8-82: the generalized d'Alembert equations of the first three PUMA links.

Lee's frames (his link table, p. 18): alpha = -90, 0, 90 deg; a2 = 431.8 mm, d2 = 149.09 mm,
a3 = -20.32 mm. His rotation matrices R_0^2 = [[C1C2, -C1S2, -S1], [S1C2, -S1S2, C1], [-S2, -C2, 0]]
and R_0^3 = [[C1C23, -S1, C1S23], [S1C23, C1, S1S23], [-S23, 0, C23]] (p. 19) are legible and
checked below. The D_rot entries are derived from his D_ij formula with those matrices (the OCR of
pp. 21-23 is legible for D33 = I3yy + m3{...} and D22 = I2zz + I3yy + ...). On page 23 the OCR of
D11 reads like 'S2^2 I2zz + C2^2 I2yy'; the derivation (z0 in frame 2 is (-S2, -C2, 0)) gives
S2^2 I2xx + C2^2 I2yy, and Pinocchio agrees (test_dyn_agreement), so we test the derived form.
"""

from __future__ import annotations

import sympy as sp
import pytest

from designer.dynamics import Method, SimplifyMode, derive
from designer.kinematics import frames
from designer.model import Inertia, JointType, Link, Manipulator, symbol as S

q1, q2, q3 = S("q1"), S("q2"), S("q3")
d1, d2, d3 = S("qd1"), S("qd2"), S("qd3")
s2, c2 = sp.sin(q2), sp.cos(q2)
s23, c23 = sp.sin(q2 + q3), sp.cos(q2 + q3)


def lee_puma() -> Manipulator:
    links = []
    for i, (alpha, a, d) in enumerate([(-sp.pi / 2, 0, 0), (0, S("a2"), S("d2")), (sp.pi / 2, S("a3"), 0)], start=1):
        links.append(Link(JointType.REVOLUTE, a=a, alpha=alpha, d=d, mass=S(f"m{i}"),
                          com=(S(f"r{i}x"), S(f"r{i}y"), S(f"r{i}z")),
                          inertia=Inertia(S(f"I{i}xx"), S(f"I{i}yy"), S(f"I{i}zz"))))
    return Manipulator(links=tuple(links), name="Lee PUMA", gravity=(0, 0, -S("g")))


def _zero(e) -> bool:
    e = sp.expand(sp.expand_trig(sp.expand(sp.expand_trig(sp.expand(e)))))
    return sp.expand(e.subs({sp.sin(q) ** 2: 1 - sp.cos(q) ** 2 for q in (q1, q2, q3)})) == 0


@pytest.fixture(scope="module")
def lee():
    return derive(lee_puma(), Method.DALEMBERT, SimplifyMode.FULL)


def test_rotation_matrices_of_page_19():
    T = frames(lee_puma())
    c1, s1 = sp.cos(q1), sp.sin(q1)
    R02 = sp.Matrix([[c1 * c2, -c1 * s2, -s1], [s1 * c2, -s1 * s2, c1], [-s2, -c2, 0]])
    R03 = sp.Matrix([[c1 * c23, -s1, c1 * s23], [s1 * c23, c1, s1 * s23], [-s23, 0, c23]])
    assert all(_zero(e) for e in T[2][:3, :3] - R02)
    assert all(_zero(e) for e in T[3][:3, :3] - R03)


def test_rotational_inertia_terms(lee):
    I = {k: S(k) for k in ("I1yy", "I2xx", "I2yy", "I2zz", "I3xx", "I3yy", "I3zz")}
    D = lee["D_rot"]
    assert _zero(D[2, 2] - I["I3yy"])
    assert _zero(D[1, 2] - I["I3yy"])
    assert _zero(D[1, 1] - (I["I2zz"] + I["I3yy"]))
    assert _zero(D[0, 0] - (I["I1yy"] + s2**2 * I["I2xx"] + c2**2 * I["I2yy"]
                            + s23**2 * I["I3xx"] + c23**2 * I["I3zz"]))
    assert _zero(D[0, 1]) and _zero(D[0, 2])
    assert not lee["D_rot"][0, 0].has(S("m1"), S("m2"), S("m3"))  # rotational: inertias only


def test_rotational_velocity_terms_page_30(lee):
    """H_rot_1 = 2 S2C2 (I2xx - I2yy) q1'q2' + 2 S23C23 (I3xx - I3zz) q1'(q2' + q3'), as p. 30 prints it
    (up to the I2 index the OCR blurs, see the module docstring)."""
    I2xx, I2yy, I3xx, I3zz = S("I2xx"), S("I2yy"), S("I3xx"), S("I3zz")
    H = lee["H_rot"]
    assert _zero(H[0] - (2 * s2 * c2 * (I2xx - I2yy) * d1 * d2 + 2 * s23 * c23 * (I3xx - I3zz) * d1 * (d2 + d3)))
    assert _zero(H[1] - (-(s2 * c2 * (I2xx - I2yy) + s23 * c23 * (I3xx - I3zz)) * d1**2))
    assert _zero(H[2] - (-s23 * c23 * (I3xx - I3zz) * d1**2))


def test_each_part_is_the_lagrangian_of_its_own_kinetic_energy(lee):
    """H_rot (H_tra) are the Christoffel terms of D_rot (D_tra): the split is a split of the energy."""
    q, qd = (q1, q2, q3), (d1, d2, d3)
    for D, H in ((lee["D_rot"], lee["H_rot"]), (lee["D_tra"], lee["H_tra"])):
        for i in range(3):
            h = sum((sp.diff(D[i, j], q[k]) - sp.diff(D[j, k], q[i]) / 2) * qd[j] * qd[k]
                    for j in range(3) for k in range(3))
            assert _zero(H[i] - h)


def test_gravity_and_translational_parts(lee):
    g, m2, m3, a2, a3 = S("g"), S("m2"), S("m3"), S("a2"), S("a3")
    # point masses at the frame origins: G from the heights of the origins, D_tra33 = m3 a3^2
    pts = {S(f"r{i}{x}"): 0 for i in (1, 2, 3) for x in "xyz"}
    G = lee["G"].xreplace(pts)
    assert _zero(G[0])
    # heights of the origins: z2 = -a2 S2, z3 = -a2 S2 - a3 S23 (third rows of R_0^2, R_0^3)
    assert _zero(G[2] + m3 * g * a3 * c23)
    assert _zero(G[1] + g * (m2 * a2 * c2 + m3 * (a2 * c2 + a3 * c23)))
    assert _zero(lee["D_tra"][2, 2].xreplace(pts) - m3 * a3**2)


def test_full_mode_collects_by_mass(lee):
    """FULL prints each entry collected by the link masses, as Lee writes D11 = ... + m2{...} + m3{...}."""
    e = lee["D_tra"][0, 0]
    assert isinstance(e, sp.Add)
    by_mass = [t for t in e.args if t.has(S("m3"))]
    assert len(by_mass) == 1  # all of link 3's translational inertia in one m3 * (...) term
