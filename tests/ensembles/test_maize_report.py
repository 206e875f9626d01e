"""validation/maize_report.py on a reduced configuration (few trees, two fits).

The table's numbers are checked against computations written here, independent of the report's
code: R's column against predstab.phi/psi on the stored ranger matrices (and those against APS's
JSON), scikit-learn's columns against refits made here with the public API.
"""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.model_selection import PredefinedSplit

import predstab
from validation import maize_report

# fits ranger-like forests on the maize data and runs the report: seconds
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
APS = ROOT / "validation/r-reference/aps"
N_TREES, N_FITS, SEED = 4, 2, 1  # the reduced configuration; 1 is the report's default --random-state
TRAITS = ("yield", "maturityclass")
# the rows the report prints for these traits: (trait, scale, measure) -> R record id or None
ROWS = {
    ("yield", "metric", "phi"): "maize_yield_phi",
    ("yield", "metric", "psi (OOB)"): "maize_yield_psi_oob",
    ("yield", "metric", "psi (5-fold)"): "maize_yield_psi_kfold",
    ("maturityclass", "ordinal", "phi"): "maize_maturityclass_ord_phi",
    ("maturityclass", "ordinal", "psi (OOB)"): "maize_maturityclass_ord_psi_oob",
    ("maturityclass", "ordinal", "psi (5-fold)"): "maize_maturityclass_ord_psi_kfold",
    ("maturityclass", "categorical", "phi"): "maize_maturityclass_cat_phi",
    ("maturityclass", "categorical", "psi (OOB)"): "maize_maturityclass_cat_psi_oob",
    ("maturityclass", "categorical", "psi (5-fold)"): None,  # R computed no categorical 5-fold psi
}
MATURITY_LEVELS = ["Very_Early", "Early", "Mid_Early", "Mid_Late", "Late"]  # APS's ordinal_levels


@pytest.fixture(scope="module")
def small_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("maize") / "report.md"
    assert maize_report.main(["--out", str(out), "--n-trees", str(N_TREES), "--n-fits", str(N_FITS),
                              "--n-jobs", "1", "--traits", *TRAITS]) == 0
    return out


def _cells(text, trait, scale, measure):
    prefix = f"| {trait} | {scale} | {measure} |"
    row = next(line for line in text.splitlines() if line.startswith(prefix))
    return [c.strip() for c in row.strip("|").split("|")]


def _read_r_csv(name):
    # R's write.csv: quoted columns are character (class labels), unquoted ones numeric
    path = APS / "cases" / name
    quoted = '"' in path.read_text(encoding="utf-8").splitlines()[1]
    frame = pd.read_csv(path, dtype=str if quoted else None)
    return frame.to_numpy(dtype=object if quoted else np.float64)


def _stability(kind, predictions, baseline, scale, levels):
    fn = predstab.phi if kind == "phi" else predstab.psi
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabDataWarning)  # few fits
        return fn(predictions, baseline, scale=scale, categories=levels).value


def test_r_column_is_aps_on_rangers_matrices(small_report):
    text = small_report.read_text(encoding="utf-8")
    cases = {c["id"]: c for c in json.loads((APS / "expected/aps_cases.json").read_text(encoding="utf-8"))}
    checked = 0
    for (trait, scale, measure), case_id in ROWS.items():
        cells = _cells(text, trait, scale, measure)
        if case_id is None:
            assert cells[3] == cells[4] == "—"
            continue
        case = cases[case_id]
        assert (case["fn"], case["scale"]) == (measure.split()[0], scale)
        predictions = _read_r_csv(case["prediction_matrix"])  # ranger's 50 x 10 test predictions
        baseline = _read_r_csv(case["baseline"])  # training responses, or the OOB / 5-fold space
        if case["baseline_shape"] == "vector":
            baseline = baseline[:, 0]
        assert predictions.shape == (50, 10)
        levels = case["ordinal_levels"] if scale == "ordinal" else None
        if levels is not None:
            assert levels == MATURITY_LEVELS
        mine = _stability(case["fn"], predictions, baseline, scale, levels)
        r_value = case["result"]["prediction_stability"]
        # R: APS::calculate_phi/psi(pred, base, scale, ordinal_levels) on these matrices
        # (r-reference/aps/generate.R); predstab reproduces it to 1e-12 relative
        assert mine == pytest.approx(r_value, rel=1e-12, abs=0), case_id
        # the table prints R's value and predstab's recomputation, 4 decimals each
        assert cells[3] == f"{mine:.4f}", case_id
        assert cells[4] == f"{mine:.4f}", case_id
        checked += 1
    assert checked == 8
    assert "## The prevalence problem on real data (maturity class)" in text
    assert "leafblight" not in text.split("## Why")[0]  # only the traits asked for


def _refit(trait, voting, baseline):
    """predstab.repeated_predictions with the report's settings, written out independently."""
    geno = pd.read_csv(ROOT / "validation/data/maize_genotype.csv")
    pheno = pd.read_csv(ROOT / "validation/data/maize_phenotype.csv")
    X = geno.drop(columns="ID").to_numpy(dtype=np.float64)
    if trait == "yield":
        y = pheno[trait].to_numpy(dtype=np.float64)
        est = RandomForestRegressor(n_estimators=N_TREES, max_features="sqrt", min_samples_leaf=5)
    else:
        y = pheno[trait].astype(str).to_numpy(dtype=object)
        est = RandomForestClassifier(n_estimators=N_TREES, max_features="sqrt", min_samples_leaf=1)
    folds = json.loads((APS / "expected/aps_maize.json").read_text(encoding="utf-8"))["folds"]
    extra = {"cv": PredefinedSplit(np.asarray(folds) - 1)} if baseline == "kfold" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabDataWarning)
        rp = predstab.repeated_predictions(est, X[:200], y[:200], X[200:250], n_repeats=N_FITS,
                                           baseline=baseline, random_state=SEED, n_jobs=1,
                                           voting=voting, **extra)
    return rp, y[:200]


@pytest.fixture(scope="module")
def refits():
    return {(trait, voting, base): _refit(trait, voting, base)
            for trait, votings in (("yield", ("soft",)), ("maturityclass", ("soft", "hard")))
            for voting in votings for base in ("oob", "kfold")}


def test_sklearn_columns_are_recomputed(small_report, refits):
    text = small_report.read_text(encoding="utf-8")
    cases = {c["id"]: c for c in json.loads((APS / "expected/aps_cases.json").read_text(encoding="utf-8"))}
    for (trait, scale, measure), case_id in ROWS.items():
        cells = _cells(text, trait, scale, measure)
        levels = MATURITY_LEVELS if scale == "ordinal" else None
        values = {}
        for voting in ("soft", "hard"):
            if (trait, voting, "oob") not in refits:
                continue
            rp, y_train = refits[(trait, voting, "kfold" if measure == "psi (5-fold)" else "oob")]
            assert rp.test.shape == (50, N_FITS)
            if measure == "phi":
                values[voting] = _stability("phi", rp.test, y_train, scale, levels)
            else:
                values[voting] = _stability("psi", rp.test, rp.space, scale, levels)
        assert cells[5] == f"{values['soft']:.4f}", (trait, scale, measure)
        assert cells[6] == (f"{values['hard']:.4f}" if "hard" in values else "—"), (trait, scale, measure)
        if case_id is None:
            assert cells[7] == "—"
        else:
            r_value = cases[case_id]["result"]["prediction_stability"]
            assert cells[7] == f"{values['soft'] - r_value:+.4f}", (trait, scale, measure)


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
