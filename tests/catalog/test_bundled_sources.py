"""The bundled strain-wave and cycloidal catalogs against the text their sources print: every figure of an item
carries the printed text it was read from (``printed``), and the figure, turned into SI by the reader, equals
the number parsed here from that text. A figure without printed text, or one that does not match it, fails.
And sizing the tube arm's wrist picks a strain-wave unit when one fits."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from designer.catalog import CatalogError, bundled_catalog_files, load_catalog, read_catalog

SOURCED = ("strain-wave-harmonic-drive.json", "cycloidal-nabtesco.json")
_NUMBER = re.compile(r"(\d[\d,]*(?:\.\d+)?)(?:\s*x\s*10\^?(-?\d+))?")


def _numbers(text: str) -> list[float]:
    """Every number a text prints, '3,500' and '1.3 x 10^4' and '0.079 x10-4' read as such."""
    out = []
    for mantissa, exponent in _NUMBER.findall(text):
        v = float(mantissa.replace(",", ""))
        out.append(v * 10 ** int(exponent) if exponent else v)
    return out


#: a field's SI value from the printed figure: the factor for the unit the text prints it in
def _si(key: str, printed_value: float, text: str) -> float:
    if key == "inertia_kgcm2":
        return printed_value * (1.0 if "kg m2" in text else 1e-4)   # the rating table prints kg m^2
    if key == "stiffness_Nm_per_arcmin":
        return printed_value / (math.pi / 10800)
    if key == "max_input_speed_rpm":
        return printed_value * math.pi / 30
    return printed_value


_ATTR = {"ratio": "ratio", "rated_torque_Nm": "rated_torque", "peak_torque_Nm": "peak_torque",
         "momentary_torque_Nm": "momentary_torque", "mass_kg": "mass", "inertia_kgcm2": "inertia",
         "max_input_speed_rpm": "max_input_speed", "stiffness_Nm_per_rad": "stiffness",
         "stiffness_Nm_per_arcmin": "stiffness"}


def _entries():
    for f in bundled_catalog_files():
        if f.name in SOURCED:
            for e in json.loads(f.read_text(encoding="utf-8"))["gearboxes"]:
                yield f, e


def test_the_sourced_catalogs_are_bundled_and_load():
    names = {f.name for f in bundled_catalog_files()}
    assert set(SOURCED) <= names
    cat = load_catalog()
    kinds = {g.kind for g in cat.gearboxes.values()}
    assert {"strain-wave", "cycloidal", "planetary"} <= kinds
    assert len(list(_entries())) >= 4


@pytest.mark.parametrize("path, entry", list(_entries()), ids=lambda v: v["name"] if isinstance(v, dict) else "")
def test_every_figure_equals_the_text_its_source_prints(path, entry):
    g = read_catalog(path).gearbox(entry["name"])
    printed = dict(g.printed)
    figures = [k for k, v in entry.items() if isinstance(v, int | float)]
    assert figures and set(printed) == set(figures), f"{entry['name']}: a figure without its printed text"
    for key in figures:
        text = printed[key]
        stored = getattr(g, _ATTR[key])
        if key.startswith("stiffness"):
            assert stored.is_linear    # one printed figure: no piecewise curve made up around it
            stored = stored.k3
        # the reader's SI value equals one of the numbers the text prints, in the text's unit
        candidates = [_si(key, v, text) for v in _numbers(text)]
        assert any(math.isclose(stored, c, rel_tol=1e-12) for c in candidates), (entry["name"], key, text)
    # each item names its documents and says that it was transcribed, not re-read
    assert "http" in g.source and "not re-read from the manufacturer" in g.source and g.date


def test_by_hand_a_few_figures_from_the_cited_pages():
    cat = load_catalog()
    g = cat.gearbox("CSF-17-50-2UH")   # "Rated Torque L10: 16 Nm", "K3: 1.3 x 10^4 Nm/rad", table: 0.079 x10-4 kg m2
    assert (g.kind, g.ratio, g.rated_torque, g.peak_torque, g.momentary_torque) == ("strain-wave", 50, 16, 34, 70)
    assert g.stiffness.k1 == 1.3e4 and g.inertia == pytest.approx(0.079e-4) and g.mass == 0.68
    assert g.lost_motion is None and g.max_input_speed is None   # not printed: absent
    rv = cat.gearbox("RV-20E-81")
    assert (rv.kind, rv.ratio, rv.rated_torque, rv.peak_torque, rv.momentary_torque) == ("cycloidal", 81, 167, 412,
                                                                                         833)
    assert rv.mass is None and rv.stiffness is None and rv.inertia is None
    rv40 = cat.gearbox("RV-40E-105")   # "| 额定扭矩 | 412 N·m |", "| 重量 | 9.3 kg |" (a second cycloidal size)
    assert (rv40.ratio, rv40.rated_torque, rv40.peak_torque, rv40.momentary_torque, rv40.mass) == (105, 412, 1029,
                                                                                                 2058, 9.3)
    assert rv40.stiffness is None   # no torsional rigidity printed in the transcription: none made up


def test_a_bad_printed_text_is_refused(tmp_path):
    base = {"name": "G", "kind": "strain-wave", "ratio": 50, "rated_torque_Nm": 10, "peak_torque_Nm": 20}
    for printed, message in (({"mass_kg": "Mass: 1 kg"}, "printed: mass_kg is not a figure of this item"),
                             ({"ratio": 50}, "printed.ratio: must be a text"),
                             (["ratio"], "printed: must be an object")):
        path = tmp_path / "c.json"
        path.write_text(json.dumps({"format": "manipulator-designer catalog", "version": 1,
                                    "gearboxes": [dict(base, printed=printed)]}), encoding="utf-8")
        with pytest.raises(CatalogError) as exc:
            read_catalog(path)
        assert message in str(exc.value) and "gearboxes[0]" in str(exc.value)


def test_size_picks_a_strain_wave_unit_for_the_tube_arms_wrist():
    from designer.optimize.sizing import cycle_loads, size_cycle
    from designer.project.io import load_project
    from designer.review.evaluate import cycle_trajectory
    from tests.support import robot_path
    arm = load_project(robot_path("tube_arm_requirements"))
    traj = cycle_trajectory(arm.requirements.cycle, arm.n)
    cat = load_catalog()
    wrist = size_cycle(arm, traj, cat)[3]
    best = wrist.ranked[0]
    assert best.gearbox.kind == "strain-wave"
    # that it fits, by hand from the wrist's load: peak and RMS output torque with the reflected rotor, input speed
    load = cycle_loads(arm, traj)[2]
    N, J = best.gearbox.ratio, best.motor.rotor_inertia + best.gearbox.inertia
    tau = load.torque + N**2 * J * load.acceleration
    rms = math.sqrt(np.trapezoid(tau**2, load.t) / (load.t[-1] - load.t[0]))
    assert np.max(np.abs(tau)) <= best.gearbox.peak_torque and rms <= best.gearbox.rated_torque
    assert np.max(np.abs(tau)) / N <= best.motor.peak_torque and N * np.max(np.abs(load.speed)) <= best.motor.max_speed
    # a gearbox of unknown mass (the RV-20E-81 prints none) is not ranked first as if it weighed nothing
    masses_known = [p.gearbox.mass is not None for p in wrist.ranked]
    assert masses_known == sorted(masses_known, reverse=True)
    assert any(p.gearbox.name == "RV-20E-81" for p in wrist.ranked)


def test_a_drive_naming_the_cycloidal_unit_lives_without_the_figures_it_lacks():
    # no stiffness, inertia or input speed printed: the drive keeps its own stiffness (or none: rigid), the rotor
    # inertia is the motor's alone, the rated speed the motor's over N
    from designer.model.extras import Drive
    from designer.project.catalog_drives import drive_from_items
    cat = load_catalog()
    rv, motor = cat.gearbox("RV-20E-81"), cat.motor("SGMSH-10A")
    d = drive_from_items(Drive(gearbox="RV-20E-81", motor="SGMSH-10A"), rv, motor)
    assert d.stiffness is None and d.gear_ratio == 81
    assert d.motor_inertia == motor.rotor_inertia and d.rated_speed == pytest.approx(motor.rated_speed / 81)
    assert d.rated_torque == min(167, motor.rated_torque * 81) and d.peak_torque == min(412, motor.peak_torque * 81)
    assert drive_from_items(Drive(gearbox="RV-20E-81", stiffness=5e5), rv, None).stiffness == 5e5
    # a strain-wave unit with its single printed K3 gives that figure at its rated torque
    csf = cat.gearbox("CSF-25-50-2UH")
    assert drive_from_items(Drive(gearbox="CSF-25-50-2UH"), csf, None).stiffness == 4.4e4
