"""The elastic model at the load the cycle puts on it (designer/review/evaluate.py cycle_stiffness): a catalog
strain-wave curve is taken at the cycle's peak torque on its gearbox, checked against Harmonic Drive's worked
example of the torsion angle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from designer.project import load_project
from designer.review import review

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
# Harmonic Drive CHA manual (1018854 12/2015), section 4.2, the worked example's curve
CURVE = {"K1_Nm_per_rad": 6.7e4, "T1_Nm": 29, "K2_Nm_per_rad": 1.1e5, "T2_Nm": 108, "K3_Nm_per_rad": 1.2e5}


def manual_angle(T):
    """The manual's equations 68.1-68.3, written out here (not the catalog code)."""
    K1, T1, K2, T2, K3 = (CURVE[k] for k in ("K1_Nm_per_rad", "T1_Nm", "K2_Nm_per_rad", "T2_Nm", "K3_Nm_per_rad"))
    if T <= T1:
        return T / K1
    if T <= T2:
        return T1 / K1 + (T - T1) / K2
    return T1 / K1 + (T2 - T1) / K2 + (T - T2) / K3


def test_the_manual_s_worked_example():
    assert manual_angle(60.0) == pytest.approx(7.15e-4, rel=2e-3)   # the manual: 7.15e-4 rad, 2.5 arcmin


def arm(tmp_path, stiffness=None, cycle=True):
    doc = json.loads((ROBOTS / "tube_arm_requirements.json").read_text())
    drive = doc["links"][1]["drive"]
    del drive["stiffness"]
    drive["motor_inertia"] = 0.0   # the joint torque is then the gearbox's output torque
    if stiffness is None:
        drive["gearbox"] = "TEST-CHA"
    else:
        drive["stiffness"] = stiffness
    if not cycle:
        doc.pop("cycle", None)
        doc["requirements"] = [r for r in doc["requirements"] if r.get("where") != "cycle"]
    doc["requirements"] = [{"metric": "frequency", "bound": ">=", "value": 1.0},
                           *([{"metric": "peak_torque[2]", "bound": "<=", "value": 1e4, "where": "cycle"}]
                             if cycle else [])]
    catalog = {"format": "manipulator-designer catalog", "version": 1,
               "gearboxes": [{"name": "TEST-CHA", "kind": "strain-wave", "ratio": 120, "rated_torque_Nm": 150,
                              "peak_torque_Nm": 300, "stiffness_curve": CURVE}]}
    (tmp_path / "hd.catalog.json").write_text(json.dumps(catalog))
    path = tmp_path / f"arm{stiffness}{cycle}.json"
    path.write_text(json.dumps(doc))
    return load_project(path)


def test_the_frequency_takes_the_curve_at_the_cycle_s_peak_torque(tmp_path):
    from designer.catalog import load_catalog
    model = arm(tmp_path)
    catalog = load_catalog(tmp_path / "x.json")   # the bundled catalogs and the one arm() wrote beside it
    assert "cycle" in json.loads((ROBOTS / "tube_arm_requirements.json").read_text())
    freq, peak = review(model, catalog=catalog)
    T = peak.value
    assert CURVE["T1_Nm"] < T   # the cycle loads the gearbox past its low-load range
    K = T / manual_angle(T)
    # the same arm with that stiffness given as a figure: the same frequency
    given = review(arm(tmp_path, stiffness=K), catalog=catalog)[0]
    assert freq.value == pytest.approx(given.value, rel=1e-9)
    assert "at the cycle's peak load" in freq.note and "TEST-CHA" in freq.note
    # without a cycle the drive keeps the rated-torque figure (docs/catalogs.md), a stiffer gearbox than at T
    rated = 150.0 / manual_angle(150.0)
    without = review(arm(tmp_path, cycle=False), catalog=catalog)[0]
    assert without.value == pytest.approx(review(arm(tmp_path, stiffness=rated, cycle=False), catalog=catalog)[0].value,
                                          rel=1e-9)
    assert (without.value > freq.value) == (rated > K)
