"""validation/maize_report.py on a reduced configuration (few trees, two fits)."""

import json
from pathlib import Path

import pytest

from validation import maize_report

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def small_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("maize") / "report.md"
    assert maize_report.main(["--out", str(out), "--n-trees", "4", "--n-fits", "2", "--n-jobs", "1",
                              "--traits", "yield", "maturityclass"]) == 0
    return out


def test_report_has_r_values_and_recomputes_them(small_report):
    text = small_report.read_text(encoding="utf-8")
    cases = {c["id"]: c for c in json.loads(
        (ROOT / "validation/r-reference/aps/expected/aps_cases.json").read_text(encoding="utf-8"))}
    for case_id, trait, scale, measure in [
        ("maize_yield_phi", "yield", "metric", "phi"),
        ("maize_yield_psi_oob", "yield", "metric", "psi (OOB)"),
        ("maize_maturityclass_cat_phi", "maturityclass", "categorical", "phi"),
        ("maize_maturityclass_ord_psi_kfold", "maturityclass", "ordinal", "psi (5-fold)"),
    ]:
        r_value = cases[case_id]["result"]["prediction_stability"]
        prefix = f"| {trait} | {scale} | {measure} |"
        row = next(line for line in text.splitlines() if line.startswith(prefix))
        cells = [c.strip() for c in row.strip("|").split("|")]
        # R: APS::calculate_phi/psi on ranger's matrices (r-reference/aps/generate.R); the table
        # prints R's value and predstab's recomputation to 4 decimals, so they must print equal
        assert cells[3] == f"{r_value:.4f}" and cells[4] == f"{r_value:.4f}"
        assert float(cells[5]) <= 1  # scikit-learn's own value is a stability
    assert "## The prevalence problem on real data (maturity class)" in text
    assert "leafblight" not in text.split("## Why")[0]  # only the traits asked for


def test_report_refuses_to_overwrite(small_report):
    before = small_report.read_bytes()
    with pytest.raises(SystemExit):
        maize_report.main(["--out", str(small_report), "--n-trees", "2", "--n-fits", "2"])
    assert small_report.read_bytes() == before
    with pytest.raises(FileExistsError, match="--force"):
        maize_report.write_atomic(small_report, "x")
    maize_report.write_atomic(small_report, "replaced\n", force=True)
    assert small_report.read_text() == "replaced\n"
    assert [p.name for p in small_report.parent.iterdir()] == ["report.md"]  # no temp file left


def test_missing_data_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="maize_genotype.csv, maize_phenotype.csv missing"):
        maize_report.load_maize(tmp_path)


def test_committed_report_is_current_config():
    # the committed report was generated with the full configuration, not a reduced one
    text = (ROOT / "validation/MAIZE_REPORT.md").read_text(encoding="utf-8")
    assert 'n_estimators=500' in text and "10 fits (`random_state=1`)" in text
