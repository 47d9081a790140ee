"""Mass helpers against textbook formulas and against integration over the solid."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from designer.model import Inertia, symbol, validate, Link, Manipulator
from designer.model.mass import Body, box, combine, point_mass, solid_cylinder, thin_rod


def as_array(body: Body) -> tuple[float, np.ndarray, np.ndarray]:
    m = float(body.mass)
    com = np.array([float(c) for c in body.com])
    return m, com, np.array(body.inertia.matrix().evalf(), dtype=float)


def cloud_inertia(points: np.ndarray, weights: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, COM and inertia about the COM of weighted points: sum m (|r|^2 1 - r r^T)."""
    m = weights.sum()
    com = weights @ points / m
    r = points - com
    r2 = np.einsum("ni,ni->n", r, r)
    inertia = np.einsum("n,ij->ij", weights * r2, np.eye(3)) - np.einsum("n,ni,nj->ij", weights, r, r)
    return m, com, inertia


def midpoints(lo: float, hi: float, n: int) -> np.ndarray:
    return lo + (np.arange(n) + 0.5) * (hi - lo) / n


def rod_cloud(mass, start, end, n=4000):
    t = midpoints(0, 1, n)
    pts = np.outer(1 - t, start) + np.outer(t, end)
    return pts, np.full(n, mass / n)


def box_cloud(mass, sx, sy, sz, center, n=40):
    g = np.stack(np.meshgrid(midpoints(-sx / 2, sx / 2, n), midpoints(-sy / 2, sy / 2, n),
                             midpoints(-sz / 2, sz / 2, n), indexing="ij"), -1).reshape(-1, 3)
    return g + center, np.full(len(g), mass / len(g))


def cylinder_cloud(mass, radius, length, axis, center, nr=120, nphi=96, nz=60):
    r, phi, z = np.meshgrid(midpoints(0, radius, nr), midpoints(0, 2 * np.pi, nphi),
                            midpoints(-length / 2, length / 2, nz), indexing="ij")
    w = r.ravel()  # the polar area element r dr dphi
    local = np.stack([r.ravel() * np.cos(phi.ravel()), r.ravel() * np.sin(phi.ravel()), z.ravel()], -1)
    k = "xyz".index(axis)
    # put the cylinder's own axis (local z) on ``axis``, keeping a right-handed frame
    order = {0: [2, 0, 1], 1: [1, 2, 0], 2: [0, 1, 2]}[k]
    pts = local[:, order] + center
    return pts, mass * w / w.sum()


# -- textbook formulas -------------------------------------------------------------------

def test_thin_rod_textbook():
    m, L = symbol("m"), symbol("L")
    rod = thin_rod(m, (0, 0, 0), (L, 0, 0))
    assert rod.mass == m
    assert rod.com == (L / 2, 0, 0)
    assert rod.inertia.matrix() == sp.diag(0, m * L**2 / 12, m * L**2 / 12)


def test_solid_cylinder_textbook():
    m, r, h = symbol("m"), symbol("r"), symbol("h")
    for axis, k in (("x", 0), ("y", 1), ("z", 2)):
        cyl = solid_cylinder(m, r, h, axis=axis)
        diag = [m * (3 * r**2 + h**2) / 12] * 3
        diag[k] = m * r**2 / 2
        assert sp.simplify(cyl.inertia.matrix() - sp.diag(*diag)) == sp.zeros(3, 3), axis


def test_box_textbook():
    m, x, y, z = (symbol(n) for n in ("m", "x", "y", "z"))
    b = box(m, x, y, z, center=(1, 2, 3))
    assert b.com == (1, 2, 3)
    assert b.inertia.matrix() == sp.diag(m * (y**2 + z**2) / 12, m * (x**2 + z**2) / 12, m * (x**2 + y**2) / 12)
    # a cube: m a^2 / 6 about every axis
    cube = box(6, 2, 2, 2)
    assert cube.inertia == Inertia(4, 4, 4)


def test_point_mass_has_no_own_inertia():
    p = point_mass("M", (1, 2, 3))
    assert p.mass == symbol("M") and p.com == (1, 2, 3) and p.inertia.is_zero


# -- against integration over the solid -------------------------------------------------

@pytest.mark.parametrize("start, end", [((0, 0, 0), (1, 0, 0)), ((0.1, -0.2, 0.3), (0.7, 0.5, -0.4)),
                                        ((1, 1, 1), (1, 1, 3))])
def test_thin_rod_by_quadrature(start, end):
    m, com, inertia = as_array(thin_rod(2.5, start, end))
    mq, comq, iq = cloud_inertia(*rod_cloud(2.5, np.array(start, float), np.array(end, float)))
    assert m == pytest.approx(mq)
    np.testing.assert_allclose(com, comq, atol=1e-12)
    np.testing.assert_allclose(inertia, iq, atol=1e-6)


@pytest.mark.parametrize("size, center", [((0.3, 0.5, 0.8), (0, 0, 0)), ((1.0, 0.2, 0.1), (0.5, -1, 2))])
def test_box_by_quadrature(size, center):
    m, com, inertia = as_array(box(3.0, *size, center=center))
    mq, comq, iq = cloud_inertia(*box_cloud(3.0, *size, np.array(center, float)))
    np.testing.assert_allclose(com, comq, atol=1e-12)
    np.testing.assert_allclose(inertia, iq, rtol=2e-3, atol=1e-9)


@pytest.mark.parametrize("axis", ["x", "y", "z"])
def test_cylinder_by_quadrature(axis):
    center = np.array([0.2, -0.1, 0.4])
    m, com, inertia = as_array(solid_cylinder(4.0, 0.15, 0.6, axis=axis, center=tuple(center)))
    mq, comq, iq = cloud_inertia(*cylinder_cloud(4.0, 0.15, 0.6, axis, center))
    np.testing.assert_allclose(com, comq, atol=1e-9)
    np.testing.assert_allclose(inertia, iq, rtol=2e-3, atol=1e-9)


def test_unknown_cylinder_axis():
    with pytest.raises(ValueError, match="axis"):
        solid_cylinder(1, 1, 1, axis="w")


# -- combine: the parallel-axis theorem against direct computation -------------------------

def test_two_boxes_make_one():
    m, a, b, c = (symbol(n) for n in ("m", "a", "b", "c"))
    joined = combine([box(m, a, b, c, center=(0, 0, c / 2)), box(m, a, b, c, center=(0, 0, -c / 2))])
    whole = box(2 * m, a, b, 2 * c)
    assert sp.simplify(joined.mass - whole.mass) == 0
    assert all(sp.simplify(x - y) == 0 for x, y in zip(joined.com, whole.com))
    assert sp.simplify(joined.inertia.matrix() - whole.inertia.matrix()) == sp.zeros(3, 3)


def test_two_point_masses_reduced_mass():
    m1, m2, L = symbol("m1"), symbol("m2"), symbol("L")
    body = combine([point_mass(m1), point_mass(m2, (L, 0, 0))])
    assert sp.simplify(body.com[0] - m2 * L / (m1 + m2)) == 0
    # about the COM: I = mu L^2 with the reduced mass mu = m1 m2 / (m1 + m2)
    assert sp.simplify(body.inertia.zz - m1 * m2 * L**2 / (m1 + m2)) == 0
    assert sp.simplify(body.inertia.yy - body.inertia.zz) == 0 and body.inertia.xx == 0


def test_combine_matches_the_union_of_point_clouds():
    rng = np.random.default_rng(7)
    bodies, clouds = [], []
    for k in range(4):
        center = rng.uniform(-1, 1, 3)
        if k % 2:
            size = rng.uniform(0.1, 0.6, 3)
            bodies.append(box(float(k + 1), *size, center=tuple(center)))
            clouds.append(box_cloud(float(k + 1), *size, center, n=30))
        else:
            start, end = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)
            bodies.append(thin_rod(float(k + 1), tuple(start), tuple(end)))
            clouds.append(rod_cloud(float(k + 1), start, end))
    bodies.append(point_mass(0.7, (0.3, 0.3, -0.2)))
    clouds.append((np.array([[0.3, 0.3, -0.2]]), np.array([0.7])))
    m, com, inertia = as_array(combine(bodies))
    pts = np.concatenate([c[0] for c in clouds])
    w = np.concatenate([c[1] for c in clouds])
    mq, comq, iq = cloud_inertia(pts, w)
    assert m == pytest.approx(mq)
    np.testing.assert_allclose(com, comq, atol=1e-9)
    np.testing.assert_allclose(inertia, iq, rtol=3e-3, atol=1e-6)


def test_combine_empty_and_massless():
    assert combine([]).mass == 0
    body = combine([point_mass(0, (1, 2, 3))])
    assert body.mass == 0 and body.inertia.is_zero


def test_helper_bodies_pass_validation_without_warnings():
    # real bodies obey PSD and the triangle inequalities: validation must agree
    for body in (thin_rod(1, (0, 0, 0), (0.3, 0.4, 0.5)), solid_cylinder(2, 0.1, 0.5, axis="y"),
                 box(1, 0.1, 0.2, 0.9), combine([box(1, 0.1, 0.2, 0.3, center=(0.5, 0, 0)),
                                                 thin_rod(2, (0, 0, 0), (0, 1, 1))])):
        model = Manipulator(links=(Link(mass=body.mass, com=body.com, inertia=body.inertia),), gravity=(0, 0, -9.81))
        assert validate(model) == [], body
