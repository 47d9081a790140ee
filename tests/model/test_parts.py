"""Links as parts: mass, COM and inertia of sections of a material, against trimesh's mass
properties of the meshed shape (an independent integration over the triangles)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from designer.model import Link, Manipulator
from designer.model.manipulator import Convention
from designer.model.parts import MATERIALS, Part, PartError, section_properties

trimesh = pytest.importorskip("trimesh")


def _numbers(link: Link):
    m = float(link.mass)
    com = np.array([float(c) for c in link.com])
    inertia = np.array(link.inertia.matrix().tolist(), dtype=float)
    return m, com, inertia


def _placed(mesh, start, end):
    """``mesh`` built along +z from z = 0 to L, turned so that +z runs from ``start`` to ``end``."""
    start, end = np.asarray(start, float), np.asarray(end, float)
    u = (end - start) / np.linalg.norm(end - start)
    # the section axes the part uses: e1 along the link frame's z made perpendicular to u (x if u is z)
    e1 = np.array([1.0, 0, 0]) if abs(u[2]) > 1 - 1e-12 else np.array([0, 0, 1.0]) - u * u[2]
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u, e1)
    R = np.column_stack([e1, e2, u])   # mesh x -> e1, y -> e2, z -> u
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, start
    mesh.apply_transform(T)
    return mesh


def _box_section_mesh(b, h, t, L):
    """Four plates that do not overlap: two of b x t (top, bottom), two of t x (h - 2t)."""
    plates = []
    for dy in (-(h - t) / 2, (h - t) / 2):
        plates.append(trimesh.creation.box([b, t, L], trimesh.transformations.translation_matrix([0, dy, L / 2])))
    for dx in (-(b - t) / 2, (b - t) / 2):
        plates.append(trimesh.creation.box([t, h - 2 * t, L],
                                           trimesh.transformations.translation_matrix([dx, 0, L / 2])))
    return trimesh.util.concatenate(plates)


def _arm(part: Part, a=0.0, d=0.0, alpha=0.0, convention=Convention.STANDARD, n=1) -> Manipulator:
    links = [Link(a=a, d=d, alpha=alpha, part=part)] + [Link(a=0.3, mass=1)] * (n - 1)
    return Manipulator(links=tuple(links), convention=convention)


def _compare(link: Link, mesh, density):
    m, com, inertia = _numbers(link)
    mesh.density = density
    assert m == pytest.approx(mesh.mass, rel=1e-9)
    assert np.allclose(com, mesh.center_mass, atol=1e-12)
    # trimesh's moment_inertia is about the centre of mass, axes of the mesh's frame
    assert np.allclose(inertia, mesh.moment_inertia, rtol=1e-6, atol=1e-12 * np.abs(inertia).max())


@pytest.mark.parametrize("a, d, alpha", [(0.45, 0.0, 0.0), (0.3, 0.2, 0.0), (0.3, 0.2, 0.7), (0.0, 0.5, 0.0)])
def test_box_section_along_the_dh_segment_matches_the_meshed_shape(a, d, alpha):
    b, h, t = 0.06, 0.08, 0.004
    part = Part("box_section", MATERIALS["aluminium 6061-T6"], {"width": b, "height": h, "wall": t})
    link = _arm(part, a=a, d=d, alpha=alpha).links[0]
    start = -np.array([a, d * np.sin(alpha), d * np.cos(alpha)])   # standard DH: the previous origin
    L = float(np.linalg.norm(start))
    mesh = _placed(_box_section_mesh(b, h, t, L), start, np.zeros(3))
    _compare(link, mesh, MATERIALS["aluminium 6061-T6"].density)


@pytest.mark.parametrize("shape, dims", [("box", {"width": 0.05, "height": 0.03}),
                                         ("cylinder", {"diameter": 0.07})])
def test_solid_sections_match_the_meshed_shape(shape, dims):
    part = Part(shape, MATERIALS["steel"], dims, start=(0.1, -0.2, 0.05), end=(0.1, 0.3, 0.25))
    link = _arm(part).links[0]
    start, end = np.array([0.1, -0.2, 0.05]), np.array([0.1, 0.3, 0.25])
    L = float(np.linalg.norm(end - start))
    if shape == "box":
        mesh = trimesh.creation.box([dims["width"], dims["height"], L],
                                    trimesh.transformations.translation_matrix([0, 0, L / 2]))
        _compare(link, _placed(mesh, start, end), MATERIALS["steel"].density)
    else:
        # a 256-sided prism: its inertia is the circle's to about 1e-4, which is the tolerance here
        mesh = trimesh.creation.cylinder(dims["diameter"] / 2, L, sections=256,
                                         transform=trimesh.transformations.translation_matrix([0, 0, L / 2]))
        mesh = _placed(mesh, start, end)
        mesh.density = MATERIALS["steel"].density
        m, com, inertia = _numbers(link)
        assert m == pytest.approx(mesh.mass, rel=2e-4)
        assert np.allclose(com, mesh.center_mass, atol=1e-9)
        assert np.allclose(inertia, mesh.moment_inertia, rtol=5e-4, atol=1e-4 * np.abs(inertia).max())


def test_tube_matches_the_meshed_annulus_and_the_handbook_formulas():
    D, t, L = 0.1, 0.005, 0.6
    part = Part("tube", MATERIALS["CFRP"], {"outer_diameter": D, "wall": t})
    link = _arm(part, a=L).links[0]
    R, r = D / 2, D / 2 - t
    rho = MATERIALS["CFRP"].density
    mass = rho * np.pi * (R**2 - r**2) * L
    # handbook: thick-walled tube, m (R^2 + r^2)/2 about its axis, m (3 (R^2 + r^2) + L^2)/12 across
    axial, across = mass * (R**2 + r**2) / 2, mass * (3 * (R**2 + r**2) + L**2) / 12
    m, com, inertia = _numbers(link)
    assert m == pytest.approx(mass, rel=1e-12)
    assert np.allclose(com, [-L / 2, 0, 0])
    assert np.allclose(inertia, np.diag([axial, across, across]), rtol=1e-12)
    mesh = trimesh.creation.annulus(r_min=r, r_max=R, height=L, sections=512,
                                    transform=trimesh.transformations.translation_matrix([0, 0, L / 2]))
    mesh = _placed(mesh, [-L, 0, 0], [0, 0, 0])
    mesh.density = rho
    assert m == pytest.approx(mesh.mass, rel=1e-4)
    assert np.allclose(inertia, mesh.moment_inertia, rtol=1e-4)


def test_modified_convention_runs_to_the_next_joint():
    part = Part("tube", MATERIALS["steel"], {"outer_diameter": 0.05, "wall": 0.003})
    links = (Link(part=part), Link(a=0.4, alpha=sp.pi / 2, d=0.1, mass=1))
    model = Manipulator(links=links, convention=Convention.MODIFIED)
    # the next frame's origin in this frame: (a, -sin(alpha) d, cos(alpha) d)
    assert [float(c) for c in model.links[0].com] == pytest.approx([0.2, -0.05, 0.0])


def test_symbolic_dimensions_follow_the_parameters():
    part = Part("tube", MATERIALS["steel"], {"outer_diameter": "D", "wall": "tw"})
    model = Manipulator(links=(Link(a="L1", part=part),), parameters={"D": 0.08, "tw": 0.004, "L1": 0.5, "g": 9.81})
    mass = model.links[0].mass
    assert {s.name for s in mass.free_symbols} == {"D", "tw", "L1"} and not mass.has(sp.Abs)
    for D in (0.05, 0.12):
        numeric = model.numeric({"D": D})
        R, r = D / 2, D / 2 - 0.004
        assert float(numeric.links[0].mass) == pytest.approx(7850 * np.pi * (R**2 - r**2) * 0.5)
    # the sign of a length written as an expression follows its default value
    negative = replace(model, parameters=(("D", 0.08), ("tw", 0.004), ("L1", -0.5), ("g", 9.81)))
    assert float(negative.numeric().links[0].mass) == pytest.approx(float(model.numeric().links[0].mass))


def test_an_edit_of_the_dh_numbers_moves_the_part():
    part = Part("tube", MATERIALS["steel"], {"outer_diameter": 0.05, "wall": 0.003})
    model = Manipulator(links=(Link(a=0.5, part=part),))
    longer = model.with_link(0, replace(model.links[0], a=sp.Float(1.0)))
    assert float(longer.links[0].mass) == pytest.approx(2 * float(model.links[0].mass))
    assert float(longer.links[0].com[0]) == pytest.approx(-0.5)


def test_a_part_on_a_segment_of_no_length_is_an_error_naming_the_link():
    part = Part("tube", MATERIALS["steel"], {"outer_diameter": 0.05, "wall": 0.003})
    with pytest.raises(PartError, match=r"links\[2\]\.part"):
        Manipulator(links=(Link(a=0.3, mass=1), Link(part=part)))


def test_section_properties_of_a_thin_walled_box_follow_bredt():
    part = Part("box_section", MATERIALS["steel"], {"width": 0.1, "height": 0.1, "wall": 0.002})
    sec = section_properties(part)
    # a thin square tube: J = b_m^3 t and I ~ 2/3 b_m^3 t (b_m the side of the wall's mid-line)
    bm = 0.098
    assert float(sec.torsion) == pytest.approx(bm**3 * 0.002, rel=1e-12)
    assert float(sec.i1) == pytest.approx(2 / 3 * bm**3 * 0.002, rel=0.01)


def _tree_with_branch_offsets(rng, base):
    """``base`` with random Khalil-Kleinfinger gamma and b on every link that starts a branch."""
    from designer.model.mechanism import parents_of
    parents = parents_of(base.links)
    links = tuple(replace(link, gamma=float(rng.uniform(-2, 2)), b=float(rng.uniform(-0.3, 0.3)))
                  if parents[i] != i else link for i, link in enumerate(base.links))
    return replace(base, links=links)


@pytest.mark.parametrize("seed", range(6))
def test_in_a_tree_the_segment_runs_to_the_joint_of_the_link_mounted_on_it(seed):
    """Modified convention: a link's default segment ends where the first link mounted on it has its
    joint, taken from the tree's numeric frames at a random pose (a branch starts after Rz(gamma) Tz(b))."""
    from designer.kinematics.tree import TreeArm
    from designer.model.mechanism import parents_of
    from designer.model.parts import segment_from_dh
    from tests.support.closed_reference import parallelogram_arm
    rng = np.random.default_rng(seed)
    model = _tree_with_branch_offsets(rng, parallelogram_arm(rng, Convention.MODIFIED, wrist=True))
    tree = TreeArm.from_model(model)
    T = tree.frames(rng.uniform(-1, 1, model.n))
    parents = parents_of(model.links)
    for i in range(model.n):
        children = [k for k in range(model.n) if parents[k] == i + 1]
        if not children:
            continue
        expected = (np.linalg.inv(T[i + 1]) @ T[children[0] + 1])[:3, 3]
        end = [float(v) for v in segment_from_dh(model, i)[1]]
        assert end == pytest.approx(expected, abs=1e-12), f"link {i + 1}"


@pytest.mark.parametrize("seed", range(4))
def test_a_loop_bar_without_a_link_on_it_reaches_its_cut_joint(seed):
    """The parallelogram's coupler (a leaf) runs to the cut joint: at the closed nominal pose its
    segment's end, placed by the coupler's frame, meets the cut point placed by the forearm's frame."""
    from designer.kinematics.tree import TreeArm
    from designer.model.parts import segment_from_dh
    from tests.support.closed_reference import parallelogram_arm
    rng = np.random.default_rng(seed)
    model = parallelogram_arm(rng, Convention.MODIFIED, wrist=True)
    loop = model.loops[0]
    T = TreeArm.from_model(model).frames(np.zeros(model.n))
    end = np.array([float(v) for v in segment_from_dh(model, loop.link_i - 1)[1]] + [1.0])
    other = np.array([float(v) for v in loop.frame_j.xyz] + [1.0])
    assert (T[loop.link_i] @ end)[:3] == pytest.approx((T[loop.link_j] @ other)[:3], abs=1e-12)
    assert np.linalg.norm(end[:3]) > 0.1
