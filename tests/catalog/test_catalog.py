"""Catalog files: published figures round-trip into SI, the strain-wave torsion curve against the maker's
worked example, strict reading naming every bad field, user catalogs beside a project."""

from __future__ import annotations

import json
import math

import pytest

from designer.catalog import CatalogError, StiffnessCurve, bundled_catalog_files, load_catalog, read_catalog

ARCMIN = math.pi / 10800


def _write(path, gearboxes=(), motors=()):
    path.write_text(json.dumps({"format": "manipulator-designer catalog", "version": 1,
                                "gearboxes": list(gearboxes), "motors": list(motors)}), encoding="utf-8")
    return path


GEAR = {"name": "G-1", "kind": "strain-wave", "ratio": 100, "rated_torque_Nm": 50, "peak_torque_Nm": 100,
        "source": "test", "date": "2026"}
MOTOR = {"name": "M-1", "rated_torque_Nm": 1, "peak_torque_Nm": 3, "rated_speed_rpm": 3000, "max_speed_rpm": 5000,
         "rotor_inertia_kgcm2": 0.5}


def test_torsion_angle_matches_the_makers_worked_example(tmp_path):
    # Harmonic Drive CHA manual (1018854 12/2015), 4.2 "Calculation of the torsion angle": T = 60 Nm with
    # K1 = 6.7e4, T1 = 29, K2 = 1.1e5, T2 = 108, K3 = 1.2e5 gives 7.15e-4 rad = 2.5 arcmin
    entry = dict(GEAR, stiffness_curve={"K1_Nm_per_rad": 6.7e4, "T1_Nm": 29, "K2_Nm_per_rad": 1.1e5, "T2_Nm": 108,
                                        "K3_Nm_per_rad": 1.2e5})
    g = read_catalog(_write(tmp_path / "c.json", [entry])).gearbox("G-1")
    assert float(g.stiffness.angle(60.0)) == pytest.approx(7.15e-4, rel=2e-3)
    assert float(g.stiffness.angle(60.0)) / ARCMIN == pytest.approx(2.5, abs=0.05)
    assert float(g.stiffness.angle(-60.0)) == pytest.approx(-7.15e-4, rel=2e-3)   # odd in the torque
    # the secant stiffness rises from K1 at no load towards K3
    assert g.stiffness.secant(0.0) == 6.7e4
    assert 6.7e4 < g.stiffness.secant(60.0) < g.stiffness.secant(500.0) < 1.2e5


#: the CHA manual's worked example (1018854 12/2015, 4.2), the one curve printed with all five figures here
CHA_CURVE = {"K1_Nm_per_rad": 6.7e4, "T1_Nm": 29, "K2_Nm_per_rad": 1.1e5, "T2_Nm": 108, "K3_Nm_per_rad": 1.2e5}


def test_tangent_and_secant_stiffness_in_each_region_are_the_cited_figures(tmp_path):
    """Read from a file (the curve's fields and each one's printed text round-trip), the slope dT/dphi of the
    torsion angle, by central differences, is K1 below T1, K2 between T1 and T2 and K3 above T2; the secant T/phi
    is K1 up to T1 and, at T2, T2 over the angle summed by hand from the two first segments."""
    printed = {"K1_Nm_per_rad": "K1 = 6,7 . 10^4 Nm/rad", "T1_Nm": "T1 = 29 Nm",
               "K2_Nm_per_rad": "K2 = 1,1 . 10^5 Nm/rad", "T2_Nm": "T2 = 108 Nm",
               "K3_Nm_per_rad": "K3 = 1,2 . 10^5 Nm/rad"}
    g = read_catalog(_write(tmp_path / "c.json", [dict(GEAR, stiffness_curve=CHA_CURVE, printed=printed)])).gearbox(
        "G-1")
    c = g.stiffness
    assert (c.k1, c.t1, c.k2, c.t2, c.k3) == (6.7e4, 29.0, 1.1e5, 108.0, 1.2e5) and not c.is_linear
    assert dict(g.printed) == printed
    h = 1e-3
    for T, k in ((5.0, 6.7e4), (20.0, 6.7e4), (40.0, 1.1e5), (100.0, 1.1e5), (150.0, 1.2e5), (-150.0, 1.2e5)):
        slope = 2 * h / (float(c.angle(T + h)) - float(c.angle(T - h)))
        assert slope == pytest.approx(k, rel=1e-6), T
    assert c.secant(10.0) == c.secant(29.0) == 6.7e4
    assert c.secant(108.0) == pytest.approx(108.0 / (29 / 6.7e4 + 79 / 1.1e5), rel=1e-12)
    assert c.secant(-108.0) == c.secant(108.0)


def test_the_curve_is_continuous_at_its_corners():
    c = StiffnessCurve(1e4, 2e4, 3e4, 10.0, 50.0)
    for T in (10.0, 50.0):
        assert float(c.angle(T - 1e-9)) == pytest.approx(float(c.angle(T + 1e-9)), abs=1e-12)


def test_bundled_figures_round_trip_into_si():
    files = bundled_catalog_files()
    assert len(files) >= 2
    cat = load_catalog()
    raw = {}
    for f in files:
        data = json.loads(f.read_text())
        raw.update({e["name"]: e for e in data.get("gearboxes", []) + data.get("motors", [])})
    for name, g in cat.gearboxes.items():
        e = raw[name]
        assert g.ratio == e["ratio"] and g.rated_torque == e["rated_torque_Nm"] and g.peak_torque == e["peak_torque_Nm"]
        if "stiffness_Nm_per_arcmin" in e:   # 1 arcmin = pi/10800 rad
            assert g.stiffness.k1 == pytest.approx(e["stiffness_Nm_per_arcmin"] * 10800 / math.pi)
        if "max_input_speed_rpm" in e:
            assert g.max_input_speed == pytest.approx(e["max_input_speed_rpm"] * math.pi / 30)
        if "inertia_kgcm2" in e:
            assert g.inertia == pytest.approx(e["inertia_kgcm2"] * 1e-4)
        assert g.source and g.date
    for name, m in cat.motors.items():
        e = raw[name]
        assert m.rotor_inertia == pytest.approx(e["rotor_inertia_kgcm2"] * 1e-4)
        assert m.rated_speed == pytest.approx(e["rated_speed_rpm"] * math.pi / 30)
        assert m.source and m.date
    # a figure from the datasheet, by hand: Yaskawa SGMSH-10A, 3.18 N m rated, 1.74e-4 kg m^2
    assert cat.motor("SGMSH-10A").rated_torque == 3.18
    assert cat.motor("SGMSH-10A").rotor_inertia == pytest.approx(1.74e-4)


@pytest.mark.parametrize("change, message", [
    ({"ratio": -1}, "gearboxes[0].ratio: must be a finite number > 0"),
    ({"ratio": True}, "gearboxes[0].ratio: must be a number"),
    ({"ratio": "100"}, "gearboxes[0].ratio: must be a number"),
    ({"kind": "worm"}, "gearboxes[0].kind: must be one of"),
    ({"colour": "red"}, "gearboxes[0]: unknown field(s) colour"),
    ({"rated_torque_Nm": None}, "gearboxes[0].rated_torque_Nm: must be a number"),
    ({"peak_torque_Nm": 10}, "gearboxes[0].peak_torque_Nm: below rated_torque_Nm"),
    ({"stiffness_Nm_per_rad": 1e4, "stiffness_Nm_per_arcmin": 3}, "give one of"),
    ({"stiffness_curve": {"K1_Nm_per_rad": 1, "K2_Nm_per_rad": 2, "K3_Nm_per_rad": 3, "T1_Nm": 5, "T2_Nm": 4}},
     "stiffness_curve: T1_Nm (5) must be below T2_Nm (4)"),
    ({"stiffness_curve": {"K1_Nm_per_rad": 1}}, "stiffness_curve: missing field(s) K2_Nm_per_rad"),
    ({"max_input_speed_rpm": 1e300}, "max_input_speed_rpm: must be a finite number > 0 and at most"),
])
def test_every_bad_gearbox_field_is_named(tmp_path, change, message):
    entry = {k: v for k, v in {**GEAR, **change}.items() if v is not None}
    if change.get("rated_torque_Nm", 0) is None:
        entry["rated_torque_Nm"] = None
    path = _write(tmp_path / "c.json", [entry])
    with pytest.raises(CatalogError) as exc:
        read_catalog(path)
    assert message in str(exc.value) and str(path) in str(exc.value)


@pytest.mark.parametrize("text, message", [
    ('{"format": "manipulator-designer catalog", "version": 1, "motors": [{"name": "a", "name": "b"}]}',
     "key 'name' given twice"),
    ('{"format": "manipulator-designer catalog", "version": 1, "motors": [{"rated_torque_Nm": NaN}]}',
     "NaN is not a number JSON allows"),
    ('{"format": "other", "version": 1}', "format: must be"),
    ('{"format": "manipulator-designer catalog", "version": 2}', "version: must be 1"),
    ('[1, 2]', "must be a JSON object"),
    ('{"format": "manipulator-designer catalog", "version": 1, "motors": {}}', "motors: must be a list"),
    ('{"format": "manipulator-designer catalog"', "not JSON"),
])
def test_bad_files_are_refused_in_one_line(tmp_path, text, message):
    path = tmp_path / "c.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError) as exc:
        read_catalog(path)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_motor_fields_are_checked(tmp_path):
    for change, message in [({"max_speed_rpm": 100}, "max_speed_rpm: below rated_speed_rpm"),
                            ({"rotor_inertia_kgcm2": 0}, "rotor_inertia_kgcm2: must be a finite number > 0"),
                            ({"voltage_V": "high"}, "voltage_V: must be a number")]:
        with pytest.raises(CatalogError, match=message.replace("(", r"\(")):
            read_catalog(_write(tmp_path / "c.json", motors=[{**MOTOR, **change}]))
    missing = {k: v for k, v in MOTOR.items() if k != "peak_torque_Nm"}
    with pytest.raises(CatalogError, match=r"motors\[0\]: missing field peak_torque_Nm"):
        read_catalog(_write(tmp_path / "c.json", motors=[missing]))
    with pytest.raises(CatalogError, match="'M-1' given twice in this file"):
        read_catalog(_write(tmp_path / "c.json", motors=[MOTOR, MOTOR]))


def test_user_catalogs_beside_the_project_come_after_the_bundled_ones(tmp_path):
    project = tmp_path / "arm.json"
    project.write_text("{}")
    mine = dict(MOTOR, name="SGMSH-10A", rated_torque_Nm=3.0)
    _write(tmp_path / "shop.catalog.json", [GEAR], [mine])
    _write(tmp_path / "not-a-catalog.json", [dict(GEAR, name="G-2")])   # other JSON files are not read
    cat = load_catalog(project)
    assert cat.gearbox("G-1").ratio == 100
    assert "G-2" not in cat.gearboxes
    assert cat.motor("SGMSH-10A").rated_torque == 3.0   # the user's item replaces the bundled one
    assert str(tmp_path / "shop.catalog.json") in cat.files[-1]
    with pytest.raises(CatalogError, match="no gearbox named 'XYZ'"):
        cat.gearbox("XYZ", "links[0].drive.gearbox")


def test_hostile_files_are_refused_without_a_traceback(tmp_path, monkeypatch):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CatalogError, match="nested too deeply|must be a JSON object"):
        read_catalog(deep)
    import designer.catalog.read as read
    monkeypatch.setattr(read, "MAX_BYTES", 100)
    big = _write(tmp_path / "big.json", motors=[MOTOR, dict(MOTOR, name="M-2")])
    with pytest.raises(CatalogError, match="not a catalog"):
        read_catalog(big)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(CatalogError, match="not UTF-8"):
        read_catalog(binary)
    with pytest.raises(CatalogError, match="cannot read"):
        read_catalog(tmp_path / "missing.json")
