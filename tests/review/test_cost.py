"""The review's cost metric (designer/review/evaluate.py cost): catalog items' prices plus the links' material mass
x price per kg, from a user catalog beside the project; a missing price named, never a silent 0."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from designer.catalog import CatalogError, read_catalog
from designer.cli import main
from designer.model.parts import MATERIALS

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

# made-up test items (this is a user's catalog, not datasheet figures)
CATALOG = {"format": "manipulator-designer catalog", "version": 1,
           "gearboxes": [{"name": "TEST-G", "kind": "strain-wave", "ratio": 100, "rated_torque_Nm": 150,
                          "peak_torque_Nm": 300, "price_eur": 1200}],
           "motors": [{"name": "TEST-M", "rated_torque_Nm": 1.5, "peak_torque_Nm": 4.5, "rated_speed_rpm": 3000,
                       "max_speed_rpm": 6000, "rotor_inertia_kgcm2": 0.3, "price_eur": 450}],
           "materials": [{"name": "cast aluminium", "price_eur_per_kg": 6.0},
                         {"name": "aluminium 6061-T6", "price_eur_per_kg": 8.0},
                         {"name": "CFRP", "price_eur_per_kg": 90.0}]}


def project(tmp_path, catalog=CATALOG, bound=20000.0):
    doc = json.loads((ROBOTS / "tube_arm_requirements.json").read_text())
    for link in doc["links"]:
        link["drive"].update(gearbox="TEST-G", motor="TEST-M")
    doc["requirements"] = [{"metric": "cost", "bound": "<=", "value": bound}]
    (tmp_path / "shop.catalog.json").write_text(json.dumps(catalog))
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(doc))
    return path


def tube_mass(D, t, L, material):
    return np.pi / 4 * (D**2 - (D - 2 * t) ** 2) * L * MATERIALS[material].density


def test_cost_sums_the_items_and_the_links_material(tmp_path, capsys):
    path = project(tmp_path)
    assert main(["review", str(path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)["requirements"][0]
    # the tubes' masses from their sections and lengths (d1, L2, L3), at the prices of the catalog
    links = (tube_mass(0.16, 0.008, 0.4, "cast aluminium") * 6.0 + tube_mass(0.09, 0.004, 0.6, "aluminium 6061-T6")
             * 8.0 + tube_mass(0.08, 0.003, 0.5, "CFRP") * 90.0)
    assert out["value"] == pytest.approx(3 * (1200 + 450) + links, rel=1e-9)
    assert out["unit"] == "EUR" and "gearbox TEST-G" in out["note"]
    assert main(["review", str(project(tmp_path, bound=4000.0))]) == 1   # the same cost over a lower bound fails


def test_a_missing_price_is_named_not_taken_as_zero(tmp_path, capsys):
    catalog = json.loads(json.dumps(CATALOG))
    del catalog["motors"][0]["price_eur"]
    catalog["materials"] = catalog["materials"][:2]
    assert main(["review", str(project(tmp_path, catalog))]) == 2
    err = capsys.readouterr().err
    assert "motor TEST-M (joint 1) has no price" in err and "material 'CFRP' (link 3) has no price per kg" in err
    catalog = json.loads(json.dumps(CATALOG))
    catalog["materials"][2] = {"name": "CFRP", "price_usd_per_kg": 95.0}
    assert main(["review", str(project(tmp_path, catalog))]) == 2
    assert "prices in EUR, USD" in capsys.readouterr().err


@pytest.mark.parametrize("change, message", [
    (lambda c: c["motors"][0].update(price_eur="12"), "motors[0].price_eur: must be a number"),
    (lambda c: c["motors"][0].update(price_usd=3), "give one price, not price_eur, price_usd"),
    (lambda c: c["motors"][0].update(price_euro=3), "unknown field(s) price_euro"),
    (lambda c: c["materials"].append({"name": "steel"}), "materials[3]: missing a price per kg"),
    (lambda c: c["materials"].append({"name": "steel", "price_eur_per_kg": -1}), "must be a finite number >= 0"),
])
def test_bad_price_fields_are_named(tmp_path, change, message):
    catalog = json.loads(json.dumps(CATALOG))
    change(catalog)
    path = tmp_path / "bad.catalog.json"
    path.write_text(json.dumps(catalog))
    with pytest.raises(CatalogError) as info:
        read_catalog(path)
    assert message in str(info.value)


def test_the_review_job_reads_the_catalogs_beside_the_project_it_is_told(tmp_path):
    from designer.jobs import run
    from designer.project import load_project
    from designer.review import review_job
    path = project(tmp_path)
    model = load_project(path)
    bundled_only = run(review_job(model))[0]
    assert bundled_only.value is None and "gearbox TEST-G (joint 1) has no price" in bundled_only.error
    beside = run(review_job(model, project=path))[0]
    assert beside.value is not None and beside.unit == "EUR"
