"""A drive naming catalog items (format version 4): its figures come from the items, round-trip as names,
unknown names and old versions refused naming the field, the strain-wave stiffness at the cycle's load."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from designer.catalog import load_catalog
from designer.explore.sizing import quintic
from designer.numeric.mechanism import load_dynamics
from designer.optimize.sizing import at_cycle_load, cycle_stiffness
from designer.project.io import ProjectError, dumps_project, load_project

ARCMIN = math.pi / 10800


def _project(tmp_path, drive, version=4, name="arm.json"):
    doc = {"format": "manipulator-designer", "version": version, "name": "two links",
           "gravity": [0, -9.81, 0], "parameters": {},
           "links": [{"joint": "R", "a": 0.5, "alpha": 0, "d": 0, "theta": 0, "mass": 6.0,
                      "com": [-0.25, 0, 0], "inertia": [[0.01, 0, 0], [0, 0.08, 0], [0, 0, 0.08]], "drive": drive},
                     {"joint": "R", "a": 0.4, "alpha": 0, "d": 0, "theta": 0, "mass": 5.0,
                      "com": [-0.2, 0, 0], "inertia": [[0.01, 0, 0], [0, 0.03, 0], [0, 0, 0.03]]}]}
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_a_drive_takes_its_figures_from_the_items(tmp_path):
    path = _project(tmp_path, {"gearbox": "NPT025-MF-5", "motor": "SGMSH-10A", "viscous": 0.5})
    d = load_project(path).links[0].drive
    # by hand from the datasheets' figures: NPT025 MF i = 5 (T2N 50, T2B 100 N m, 9.5 N m/arcmin, 7000 rpm,
    # J1 0.44 kg cm^2) and SGMSH-10A (3.18 / 9.54 N m, 3000 rpm, 1.74 kg cm^2)
    assert d.gear_ratio == 5
    assert d.motor_inertia == pytest.approx((1.74 + 0.44) * 1e-4)
    assert d.rated_torque == pytest.approx(min(50, 3.18 * 5))
    assert d.peak_torque == pytest.approx(min(100, 9.54 * 5))
    assert d.rated_speed == pytest.approx(3000 * math.pi / 30 / 5)
    assert d.stiffness == pytest.approx(9.5 / ARCMIN)
    assert d.viscous == 0.5     # the file's own figure
    # written back as names, with the file's own figures only
    out = json.loads(dumps_project(load_project(path)))
    assert out["version"] == 4
    assert out["links"][0]["drive"] == {"viscous": 0.5, "gearbox": "NPT025-MF-5", "motor": "SGMSH-10A"}
    again = tmp_path / "again.json"
    again.write_text(dumps_project(load_project(path)))
    assert load_project(again).links[0].drive == d


def test_a_figure_in_the_file_stays_the_files(tmp_path):
    d = load_project(_project(tmp_path, {"gearbox": "NPT025-MF-5", "gear_ratio": 7, "stiffness": 1e4})).links[0].drive
    assert d.gear_ratio == 7 and d.stiffness == 1e4 and d.rated_torque == 50
    assert "gear_ratio" not in d.catalog_fields and "rated_torque" in d.catalog_fields


def test_a_catalog_figure_edited_later_is_written_back(tmp_path):
    # the window's drive table edits a field with dataclasses.replace: the edited figure must be saved
    from dataclasses import replace
    model = load_project(_project(tmp_path, {"gearbox": "NPT025-MF-5"}))
    link = model.links[0]
    edited = replace(model, links=(replace(link, drive=replace(link.drive, gear_ratio=6.0)), *model.links[1:]))
    out = json.loads(dumps_project(edited))
    assert out["links"][0]["drive"] == {"gear_ratio": 6.0, "gearbox": "NPT025-MF-5"}
    assert "gear_ratio" not in edited.links[0].drive.catalog_fields


@pytest.mark.parametrize("drive, version, message", [
    ({"gearbox": "NOPE-1"}, 4, "links[1].drive.gearbox: no gearbox named 'NOPE-1'"),
    ({"motor": "SGMSH-99A"}, 4, "links[1].drive.motor: no motor named 'SGMSH-99A' in the catalogs (similar: SGMSH"),
    ({"gearbox": 5}, 4, "links[1].drive.gearbox: must be a catalog item's name"),
    ({"gearbox": "NPT025-MF-5"}, 3, "links[1].drive: field(s) gearbox, motor need format version 4"),
])
def test_bad_names_are_refused_naming_the_field(tmp_path, drive, version, message):
    with pytest.raises(ProjectError) as exc:
        load_project(_project(tmp_path, drive, version))
    assert message in str(exc.value)


def test_a_strain_wave_curve_beside_the_project_at_the_cycles_load(tmp_path):
    # the maker's worked example's curve (Harmonic Drive CHA manual, 4.2) in a user catalog beside the project
    curve = {"K1_Nm_per_rad": 6.7e4, "T1_Nm": 29, "K2_Nm_per_rad": 1.1e5, "T2_Nm": 108, "K3_Nm_per_rad": 1.2e5}
    (tmp_path / "mine.catalog.json").write_text(json.dumps({
        "format": "manipulator-designer catalog", "version": 1,
        "gearboxes": [{"name": "SW-100", "kind": "strain-wave", "ratio": 100, "rated_torque_Nm": 60,
                       "peak_torque_Nm": 120, "stiffness_curve": curve}]}))
    path = _project(tmp_path, {"gearbox": "SW-100", "motor_inertia": 1e-5})
    model = load_project(path)
    d = model.links[0].drive
    # at the rated 60 N m the example's torsion is 7.15e-4 rad: the secant 60 / 7.15e-4
    assert d.stiffness == pytest.approx(60 / 7.15e-4, rel=2e-3)
    dyn = load_dynamics(model)
    assert dyn.n == 3          # the elastic model: two links and the gearbox's motor
    # along a cycle the load sets the stiffness: low-load K1 and the secant at the peak torque
    traj = quintic([0.0, 0.0], [0.3, 0.2], 2.0, steps=201)
    cat = load_catalog(path)
    [s] = cycle_stiffness(model, traj, cat)
    assert s.low_load == 6.7e4
    peak = float(np.max(np.abs(load_dynamics(model, springs=False).tau(traj.q, traj.qd, traj.qdd)[:, 0])))
    assert s.peak_torque == pytest.approx(peak)
    assert 29 < peak <= 108      # the curve's middle region, by hand
    assert s.at_cycle == pytest.approx(peak / (29 / 6.7e4 + (peak - 29) / 1.1e5))
    assert 6.7e4 <= s.at_cycle <= 1.2e5
    assert at_cycle_load(model, traj, cat).links[0].drive.stiffness == s.at_cycle
