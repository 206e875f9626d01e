"""The ``predstab`` command line, end to end: every command, its outputs and its error paths."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab._core import _reading, _writing
from predstab._core._progress import ProgressBar
from predstab._core._results import r_signif
from predstab._core._writing import dumps
from predstab.cli import build_parser
from tests.surfaces._cli import assert_one_line_error, run

ROOT = Path(__file__).resolve().parents[2]
APS = ROOT / "validation" / "r-reference" / "aps"
R_TESTS = ROOT / "validation" / "r-reference" / "compare" / "expected" / "r_tests.json"
CLASSIC = ROOT / "validation" / "r-reference" / "classic"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def diabetes_csv(tmp_path):
    from sklearn.datasets import load_diabetes

    data = load_diabetes(as_frame=True).frame.iloc[:120]
    path = tmp_path / "train.csv"
    data.to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------- help and usage
@pytest.mark.parametrize("command", ["demo", "tune", "stability", "agree", "compare", "power"])
def test_help_of_every_command_has_a_worked_example(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    assert "example:" in out
    assert f"predstab {command}" in out.split("example:")[1]


def test_no_command_prints_help(capsys):
    code, out, _ = run(capsys)
    assert code == 0 and "COMMAND" in out


def test_bad_option_is_one_line_exit_2(capsys):
    code, _, err = run(capsys, "tune", "x.csv", "--target", "y", "--method", "magic")
    assert_one_line_error(code, err, "--method", "magic")


def test_unknown_command_is_one_line_exit_2(capsys):
    code, _, err = run(capsys, "frobnicate")
    assert_one_line_error(code, err, "frobnicate")


# --------------------------------------------------------------------------- demo
def _without_timing(summary):
    """stability.json / TuningResult.to_dict() without what depends on the clock (and the job's
    own keys, the test objects' names among them)."""
    job = ("data", "task", "n_train", "n_test", "seed", "runtime", "test_objects", "test_objects_are")
    out = {k: v for k, v in summary.items() if k not in job}
    out["table"] = {k: v for k, v in out["table"].items() if k != "seconds"}
    return out


def _same_table(path, res):
    table = pd.read_csv(path, keep_default_na=False, na_values=[""])
    expected = res.table
    assert list(table.columns) == list(expected.columns)
    for col in expected.columns:
        if col == "seconds":
            continue
        if expected[col].dtype.kind == "f":
            np.testing.assert_allclose(table[col].to_numpy(float), expected[col].to_numpy(float), rtol=1e-12)
        else:
            assert table[col].fillna("").astype(str).tolist() == expected[col].astype(str).tolist(), col


@pytest.mark.slow
def test_demo_writes_what_tune_num_learners_returns_and_never_overwrites(tmp_path, capsys):
    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.model_selection import train_test_split

    out_dir = tmp_path / "predstab-demo"
    code, out, err = run(capsys, "demo", "--quick", "--quiet", "--out", out_dir)
    assert code == 0, err
    # the same call, written out: the demo is tune_num_learners on the diabetes data
    X, y = load_diabetes(return_X_y=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    res = predstab.tune_num_learners(
        RandomForestRegressor(max_features="sqrt", min_samples_leaf=5), X_train, y_train, X_test,
        grid=[2, 5, 10, 25, 50], n_repeats=5, measures=("icc", "phi", "psi"), method="pool",
        random_state=0, n_jobs=-1)
    _same_table(out_dir / "stability.csv", res)
    summary = json.loads((out_dir / "stability.json").read_text())
    assert _without_timing(summary) == _without_timing(json.loads(dumps(res.to_dict())))
    assert "Data-based prediction stability (phi)" in out and "Model-based prediction stability (psi)" in out
    assert f"Recommendation: {res.recommendation} learners" in out
    assert str(res).splitlines()[0] in out
    for name in ("stability.csv", "stability.json", "stability.png", "per_object.png", "report.html"):
        assert (out_dir / name).is_file()
    assert (out_dir / "stability.png").read_bytes()[:8] == PNG_MAGIC
    first = (out_dir / "stability.csv").read_bytes()

    # one rule for tune and demo: a folder holding files is refused before anything is fitted,
    # naming a free folder; nothing is touched
    code, out, err = run(capsys, "demo", "--quick", "--quiet", "--out", out_dir)
    assert code == 2 and f"--out {out_dir}-2" in err and "already holds files" in err
    assert out == "" and not Path(f"{out_dir}-2").exists()
    assert (out_dir / "stability.csv").read_bytes() == first
    # an existing empty folder is used as it is, not renamed
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = run(capsys, "demo", "--quick", "--quiet", "--out", empty)
    assert code == 0, err
    _same_table(empty / "stability.csv", res)  # the same numbers (seconds aside)
    # --force writes into the folder
    code, out, _ = run(capsys, "demo", "--quick", "--quiet", "--out", out_dir, "--force")
    assert code == 0 and not Path(f"{out_dir}-2").exists()


@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["wine", "ordinal"])
def test_demo_on_class_data(tmp_path, capsys, dataset):
    code, out, err = run(capsys, "demo", "--quick", "--quiet", "--dataset", dataset, "--out", tmp_path / "d")
    assert code == 0, err
    summary = json.loads((tmp_path / "d" / "stability.json").read_text())
    assert summary["primary"] == "fleiss" and summary["settings"]["scale"] == (
        "ordinal" if dataset == "ordinal" else "categorical")
    assert "Recommendation:" in out and "fleiss" in out


def test_tune_already_flat_curve_says_the_smallest_grid_value_is_enough(tmp_path, capsys):
    # two far-apart blobs: kappa is 1 at every grid value and the 2PL fit fails on the flat curve
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(np.vstack([rng.normal(0, 1, (60, 3)), rng.normal(12, 1, (60, 3))]),
                         columns=list("abc"))
    frame["target"] = np.repeat(["x", "y"], 60)
    frame.to_csv(tmp_path / "flat.csv", index=False)
    code, out, err = run(capsys, "tune", tmp_path / "flat.csv", "--target", "target", "--task",
                         "classification", "--grid", "5,10,20,40", "--repeats", "4", "--resamples", "0",
                         "--quiet", "--out", tmp_path / "o")
    assert code == 0, err
    summary = json.loads((tmp_path / "o" / "stability.json").read_text())
    assert summary["table"]["fleiss"] == [1.0, 1.0, 1.0, 1.0]
    assert summary["recommendations"]["fleiss"]["rule"] == "already stable" and summary["recommendation"] == 5
    assert "Recommendation: 5 learners" in out and "no larger grid is needed" in out
    assert "would resolve" not in out and "warning" not in err


# --------------------------------------------------------------------------- tune
@pytest.mark.parametrize("test_file", [False, True])
def test_tune_names_test_objects_by_the_files_row_names(tmp_path, capsys, test_file):
    # an R user's write.csv(d) file: the least stable objects are named by its row names (of
    # DATA's held-out rows, or of --test-data), not by their position in the random hold-out
    from sklearn.datasets import load_diabetes
    from sklearn.model_selection import train_test_split

    data = load_diabetes(as_frame=True).frame.iloc[:100]
    data.index = [f"plot{i + 1}" for i in range(100)]
    args = ["--target", "target", "--grid", "5,10,20", "--repeats", "3", "--resamples", "0", "--quiet",
            "--out", tmp_path / "o"]
    if test_file:
        data.iloc[:70].to_csv(tmp_path / "train.csv")
        data.iloc[70:].reset_index(drop=True).to_csv(tmp_path / "test.csv", index=False)  # no row names
        code, out, err = run(capsys, "tune", tmp_path / "train.csv", "--test-data", tmp_path / "test.csv",
                             *args)
        names, how = [str(i) for i in range(30)], "0-based row of --test-data"
    else:
        data.to_csv(tmp_path / "data.csv")  # R's layout: "" then the row names in the first column
        code, out, err = run(capsys, "tune", tmp_path / "data.csv", *args)
        names = list(train_test_split(data.index.to_numpy(), test_size=0.2, random_state=0)[1])
        how = "row name in DATA"
    assert code == 0, err
    summary = json.loads((tmp_path / "o" / "stability.json").read_text())
    assert summary["test_objects"] == names and summary["test_objects_are"] == how
    per = np.asarray(summary["largest_forest"]["psi"]["per_object"], dtype=float)
    worst = ", ".join(f"{names[i]} (psi {per[i]:.3f})" for i in np.argsort(per, kind="stable")[:5])
    assert f"least stable test objects (red in per_object.png), by {how}: {worst}" in out


@pytest.mark.slow
@pytest.mark.parametrize("method", ["pool", "refit", "closed-form"])
def test_tune_writes_what_tune_num_learners_returns(tmp_path, capsys, diabetes_csv, method):
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.model_selection import train_test_split

    out_dir = tmp_path / "tuned"
    args = ["tune", diabetes_csv, "--target", "target", "--grid", "5,10,20", "--repeats", "3", "--seed", "4",
            "--method", method, "--resamples", "20", "--max-features", "0.5", "--min-samples-leaf", "3",
            "--sample-fraction", "0.8", "--round-to", "hundred", "--rec-thresh", "1e-5",
            "--target-stability", "0.9", "--quiet", "--out", out_dir]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    frame = pd.read_csv(diabetes_csv)
    X, X_test, y, _ = train_test_split(frame.drop(columns="target").to_numpy(), frame["target"].to_numpy(),
                                       test_size=0.2, random_state=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabWarning)
        res = predstab.tune_num_learners(
            RandomForestRegressor(max_features=0.5, min_samples_leaf=3, max_samples=0.8), X, y, X_test,
            grid=[5, 10, 20], n_repeats=3, measures=("icc", "phi", "psi"), method=method.replace("-", "_"),
            n_resamples=20, round_to="hundred", rec_thresh=1e-5,
            target=0.9, random_state=4)
    _same_table(out_dir / "stability.csv", res)
    summary = json.loads((out_dir / "stability.json").read_text())
    assert _without_timing(summary) == _without_timing(json.loads(dumps(res.to_dict())))
    # the settings used are printed
    assert "RandomForestRegressor(max_features=0.5, min_samples_leaf=3, max_samples=0.8" in out
    assert "rounded to the nearest hundred" in out and "rec_thresh = 1e-05" in out
    assert "icc = 0.9 " in out or res.n_for_target is None
    before = (out_dir / "stability.json").read_bytes()
    code, _, err = run(capsys, *args)
    assert_one_line_error(code, err, "already holds files", "--force")
    assert (out_dir / "stability.json").read_bytes() == before


def test_tune_help_shows_forest_and_rule_options(capsys):
    code, out, _ = run(capsys, "tune", "--help")
    assert code == 0
    for option in ("--max-features", "--min-samples-leaf", "--sample-fraction", "--round-to", "--rec-thresh",
                   "--target-stability"):
        assert option in out
    code, _, err = run(capsys, "tune", "x.csv", "--target", "y", "--sample-fraction", "1.5")
    assert_one_line_error(code, err, "--sample-fraction", "1.5")
    code, _, err = run(capsys, "tune", "x.csv", "--target", "y", "--max-features", "many")
    assert_one_line_error(code, err, "--max-features", "many")


def test_tune_pool_for_classes_gives_the_numbers_of_tune_num_learners(tmp_path, capsys):
    from sklearn.datasets import load_wine
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import train_test_split

    frame = load_wine(as_frame=True).frame
    frame["target"] = np.array(["a", "b", "c"])[frame["target"]]
    frame.to_csv(tmp_path / "wine.csv", index=False)
    code, out, err = run(capsys, "tune", tmp_path / "wine.csv", "--target", "target", "--task",
                         "classification", "--grid", "2,4,8", "--repeats", "3", "--seed", "2", "--quiet",
                         "--resamples", "0", "--out", tmp_path / "o")
    assert code == 0, err
    y = frame["target"].to_numpy(dtype=object)
    X, X_test, y, _ = train_test_split(frame.drop(columns="target").to_numpy(), y, test_size=0.2,
                                       random_state=2, stratify=y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a 3-point grid fits poorly; only the table is compared
        res = predstab.tune_num_learners(RandomForestClassifier(max_features="sqrt", min_samples_leaf=1), X,
                                         y, X_test, grid=(2, 4, 8), n_repeats=3,
                                         measures=("fleiss", "phi", "psi"), method="pool",
                                         n_resamples=0, random_state=2)
    _same_table(tmp_path / "o" / "stability.csv", res)
    assert "hard voting" in out


def test_tune_with_separate_test_file_and_classes(tmp_path, capsys):
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame
    frame["target"] = np.array(["a", "b", "c"])[frame["target"]]
    frame.iloc[:140].to_csv(tmp_path / "train.csv", index=False)
    frame.iloc[140:].to_csv(tmp_path / "test.csv", index=False)
    code, out, err = run(capsys, "tune", tmp_path / "train.csv", "--target", "target", "--test-data",
                         tmp_path / "test.csv", "--task", "classification", "--grid", "5,10,20",
                         "--repeats", "3", "--quiet", "--out", tmp_path / "o")
    assert code == 0, err
    assert "38 test objects" in out and "fleiss" in out


def test_parquet_input(tmp_path):
    pytest.importorskip("pyarrow")  # Parquet needs pyarrow, which is not a runtime dependency
    frame = pd.DataFrame({"V1": [1.0, None], "V2": [2.0, 3.0]})
    frame.to_parquet(tmp_path / "m.parquet")
    matrix = _reading.numeric_matrix(_reading.read_table(tmp_path / "m.parquet"))
    assert np.isnan(matrix[1, 0]) and matrix[1, 1] == 3.0


def test_parquet_without_pyarrow_is_one_line(tmp_path, capsys, monkeypatch):
    def no_engine(*args, **kwargs):
        raise ImportError("Unable to find a usable engine")

    monkeypatch.setattr(pd, "read_parquet", no_engine)
    (tmp_path / "p.parquet").write_bytes(b"PAR1")
    code, _, err = run(capsys, "agree", tmp_path / "p.parquet", "--measure", "icc")
    assert_one_line_error(code, err, "pyarrow")


def test_tune_errors(tmp_path, capsys, diabetes_csv):
    code, _, err = run(capsys, "tune", tmp_path / "nope.csv", "--target", "y")
    assert_one_line_error(code, err, "nope.csv", "does not exist")

    code, _, err = run(capsys, "tune", diabetes_csv, "--target", "yield")
    assert_one_line_error(code, err, "no column 'yield'", "columns: age")

    frame = pd.read_csv(diabetes_csv)
    frame["bmi"] = frame["bmi"].astype(object)
    frame.loc[6, "bmi"] = "abc"
    bad = tmp_path / "bad.csv"
    frame.to_csv(bad, index=False)
    code, _, err = run(capsys, "tune", bad, "--target", "target")
    assert_one_line_error(code, err, "line 8", "column 'bmi'", "'abc'")

    frame = pd.read_csv(diabetes_csv)
    frame.loc[3, "s1"] = np.nan
    frame.to_csv(bad, index=False)
    code, _, err = run(capsys, "tune", bad, "--target", "target")
    assert_one_line_error(code, err, "line 5", "column 's1'", "missing")

    code, _, err = run(capsys, "tune", diabetes_csv, "--target", "target", "--grid", "10,abc,30")
    assert_one_line_error(code, err, "--grid", "10,abc,30")

    code, _, err = run(capsys, "tune", diabetes_csv, "--target", "target", "--grid", "10,20")
    assert_one_line_error(code, err, "--grid", "at least 3")

    code, _, err = run(capsys, "tune", diabetes_csv, "--target", "target", "--task", "ordinal")
    assert_one_line_error(code, err, "--categories")

    frame = pd.read_csv(diabetes_csv)
    frame["target"] = frame["target"] + 0.5
    frame.to_csv(bad, index=False)
    code, _, err = run(capsys, "tune", bad, "--target", "target", "--task", "classification")
    assert_one_line_error(code, err, "looks continuous", "--task regression")

    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b,target\n1,2,3\n4,5,6,7\n")
    code, _, err = run(capsys, "tune", ragged, "--target", "target")
    assert_one_line_error(code, err, "line 3")


# --------------------------------------------------------------------------- stability
def _aps_cases():
    cases = json.loads((APS / "expected" / "aps_cases.json").read_text())
    return [pytest.param(c, id=c["id"]) for c in cases]


# Deliberate differences from APS 1.0.1 (validation/README.md, stability section): APS's print
# fails on an undefined result (predstab prints NA), and predstab drops missing predictions and
# missing ordinal baseline values where APS raises.
_DIFFERENCES = {"metric_constant_base_nonzero_obs", "cat_na_pred_phi", "ord_na_pred_phi",
                "ord_na_pred_na_base_phi"}


@pytest.mark.parametrize("case", _aps_cases())
def test_stability_prints_aps_layout_for_every_reference_case(capsys, case):
    # R: print(APS::calculate_phi(pred, base, scale, ordinal_levels)) (or calculate_psi), files
    # written by write.csv; the CLI must print exactly R's lines (5 significant digits).
    if case["id"] in _DIFFERENCES:
        pytest.skip("a deliberate difference from APS 1.0.1 (validation/README.md, stability section), "
                    "checked by tests/stability/; nothing to do")
    flag = "--training-observations" if case["fn"] == "phi" else "--prediction-space"
    args = ["stability", APS / "cases" / case["prediction_matrix"], flag, APS / "cases" / case["baseline"],
            "--scale", case["scale"]]
    if case["ordinal_levels"]:
        args += ["--categories", ",".join(map(str, case["ordinal_levels"]))]
    code, out, err = run(capsys, *args)
    if case["result"] is None:  # APS raises: the CLI reports one line, exit code 2
        assert_one_line_error(code, err)
        return
    assert code == 0, err
    assert out.strip("\n") == "\n".join(case["result"]["printed"]).strip("\n")


def test_stability_per_object_least_stable_first_and_out_file(tmp_path, capsys):
    pred = APS / "cases" / "cat_50x10_phi_pred.csv"
    base = APS / "cases" / "cat_50x10_phi_base.csv"
    code, out, _ = run(capsys, "stability", pred, "--training-observations", base, "--scale", "categorical",
                       "--per-object", "--out", tmp_path / "per.csv")
    assert code == 0
    table = pd.read_csv(tmp_path / "per.csv")
    matrix = pd.read_csv(pred).to_numpy(dtype=object)
    expected = predstab.phi(matrix, pd.read_csv(base).iloc[:, 0].to_numpy(dtype=object),
                            scale="categorical").per_object
    assert len(table) == 50
    assert np.all(np.diff(table["stability"]) >= 0)  # least stable first
    got = dict(zip(table["object"], table["stability"], strict=True))
    np.testing.assert_allclose([got[i] for i in range(50)], expected, rtol=1e-12)  # 0-based objects
    assert "least stable first" in out and "0-based row position" in out
    code, _, err = run(capsys, "stability", pred, "--training-observations", base, "--scale", "categorical",
                       "--out", tmp_path / "per.csv")
    assert_one_line_error(code, err, "already exists", "--force")


def test_stability_errors(tmp_path, capsys):
    pred = APS / "cases" / "ord_50x10_phi_pred.csv"
    base = APS / "cases" / "ord_50x10_phi_base.csv"
    code, _, err = run(capsys, "stability", pred, "--training-observations", base, "--scale", "ordinal")
    assert_one_line_error(code, err, "--categories")
    code, _, err = run(capsys, "stability", pred, "--training-observations", base, "--scale", "metric")
    assert_one_line_error(code, err, "line 2", "column 'V1'", "expected a number")
    code, _, err = run(capsys, "stability", pred, "--scale", "metric")
    assert_one_line_error(code, err, "--training-observations")
    code, _, err = run(capsys, "stability", pred, "--training-observations", base, "--scale", "categorical",
                       "--column", "nope")
    assert_one_line_error(code, err, "no column 'nope'")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    code, _, err = run(capsys, "stability", empty, "--training-observations", base, "--scale", "categorical")
    assert_one_line_error(code, err, "empty")


# --------------------------------------------------------------------------- agree
def test_agree_icc_matches_irr(capsys):
    # R: irr::icc(m_20x3, model = "twoway", type = "consistency", unit = "single")
    expected = next(r for r in json.loads((CLASSIC / "expected" / "irr_icc.json").read_text())["m_20x3"]
                    if (r["model"], r["type"], r["unit"]) == ("twoway", "consistency", "single"))
    code, out, err = run(capsys, "agree", CLASSIC / "cases" / "m_20x3.csv", "--measure", "icc",
                         "--model", "twoway", "--type", "consistency")
    assert code == 0, err
    ratings = pd.read_csv(CLASSIC / "cases" / "m_20x3.csv").to_numpy(dtype=float)
    result = predstab.icc(ratings, model="twoway", type="consistency")
    assert result.value == pytest.approx(expected["value"], rel=1e-10)
    assert out == printed(result)  # R's layout, whatever the result prints
    # irr's print.icclist: " F(19,38) = 28.9 , p = 5.8e-17" (signif(., 3)), not a field dump
    p_shown = f"{expected['p.value']:.2g}"  # 5.8e-17, as R's signif(p, 3)
    assert f"F(19,38) = 28.9 , p = {p_shown}" in out and "pvalue" not in out


def printed(result):
    buffer = io.StringIO()
    print(result, file=buffer)
    return buffer.getvalue()


def test_agree_table_fleiss_alpha(capsys):
    cases = CLASSIC / "cases"
    code, out, _ = run(capsys, "agree", cases / "m_20x3.csv", "--measure", "icc", "--table")
    assert code == 0 and "ICC3k" in out
    code, out, err = run(capsys, "agree", cases / "c_30x6_4cat.csv", "--measure", "fleiss", "--detail")
    assert code == 0, err
    ratings = pd.read_csv(cases / "c_30x6_4cat.csv").to_numpy(dtype=object)
    # the R-style block holds irr's per-category table; nothing is printed a second time
    assert out == printed(predstab.fleiss_kappa(ratings, detail=True))
    assert out.count("p.value") == 1
    code, out, err = run(capsys, "agree", cases / "m_30x4_na.csv", "--measure", "alpha",
                         "--scale", "interval")
    assert code == 0, err
    matrix = pd.read_csv(cases / "m_30x4_na.csv").to_numpy(dtype=float)
    assert out == printed(predstab.krippendorff_alpha(matrix, scale="interval"))
    code, _, err = run(capsys, "agree", cases / "c_30x6_4cat.csv", "--measure", "icc")
    assert_one_line_error(code, err, "expected a number")


# --------------------------------------------------------------------------- compare
def test_compare_friedman(tmp_path, capsys):
    from predstab import compare

    rng = np.random.default_rng(0)
    scores = pd.DataFrame(rng.normal(size=(12, 3)) + [0.0, 0.5, 1.0], columns=["A", "B", "C"])
    scores.to_csv(tmp_path / "scores.csv", index=False)
    code, out, err = run(capsys, "compare", tmp_path / "scores.csv", "--test", "friedman",
                         "--plot", tmp_path / "cd.png")
    assert code == 0, err
    direct = compare.friedman_nemenyi(scores)  # a DataFrame: the methods keep their names
    assert str(direct) in out  # base R's print.htest layout
    assert f"Friedman chi-squared = {r_signif(direct.statistic, 5)}" in out  # print.htest: 5 digits
    assert f"p-value = {r_signif(direct.pvalue)}" in out
    assert (tmp_path / "cd.png").read_bytes()[:8] == PNG_MAGIC

    def ranks(text):  # the result's "  name: rank" lines, after "average ranks (1 = best):"
        block = text.split("average ranks (1 = best):\n", 1)[1]
        rows = [line.strip().split(": ") for line in block.splitlines() if line.startswith("  ")]
        return {name: float(rank) for name, rank in rows}

    higher = ranks(out)
    code, out, _ = run(capsys, "compare", tmp_path / "scores.csv", "--test", "friedman", "--lower-is-better")
    lower = ranks(out)
    assert set(higher) == {"A", "B", "C"}
    for name in higher:  # reversing the direction mirrors the average ranks: r -> k + 1 - r
        assert lower[name] == pytest.approx(4 - higher[name], abs=1e-4)


def test_compare_mcnemar_and_permutation(tmp_path, capsys):
    compare = pytest.importorskip("predstab.compare")
    # the seeds' figure: (a, b, c, d) = (146, 4, 14, 36) -> exact p 0.030884, +5.0 points
    old = [1] * 150 + [0] * 50
    new = [1] * 146 + [0] * 4 + [1] * 14 + [0] * 36
    pd.DataFrame({"id": range(200), "old": old, "new": new}).to_csv(tmp_path / "c.csv", index=False)
    code, out, err = run(capsys, "compare", tmp_path / "c.csv", "--test", "mcnemar", "--a", "old",
                         "--b", "new", "--id", "id", "--out", tmp_path / "m.csv")
    assert code == 0, err
    printed = pd.read_csv(tmp_path / "m.csv").iloc[0]
    assert float(printed["pvalue"]) == pytest.approx(0.030884, abs=5e-7)
    assert float(printed["delta_pp"]) == pytest.approx(5.0)
    direct = compare.mcnemar(old, new, ids=list(range(200)))
    assert out == (f"{direct}\nwrote {tmp_path / 'm.csv'}\n"  # the result's block, as Python prints it
                   f"wrote {tmp_path / 'm.report.html'}\n")  # and its page beside it
    a = [40, 42, 44, 45, 46, 47, 48, 49, 50, 51]
    b = [5, 8, 10, 12, 30, 33, 35, 38, 40, 420]
    pd.DataFrame({"A": a, "B": b}).to_csv(tmp_path / "r.csv", index=False)
    code, out, err = run(capsys, "compare", tmp_path / "r.csv", "--test", "permutation",
                         "--a", "A", "--b", "B")
    assert code == 0, err
    direct = compare.mean_permutation_test(np.array(a, float), np.array(b, float), random_state=0)
    # the Python block, its data line naming the columns as R names its variables (issue 35)
    assert out == str(direct).replace("data:  b and a", "data:  B and A") + "\n"
    assert f"p-value = {r_signif(direct.pvalue)}" in out


def test_compare_bad_column_is_one_line(tmp_path, capsys):
    pd.DataFrame({"old": [1, 0], "new": [1, 1]}).to_csv(tmp_path / "c.csv", index=False)
    code, _, err = run(capsys, "compare", tmp_path / "c.csv", "--test", "mcnemar", "--a", "before",
                       "--b", "new")
    assert_one_line_error(code, err, "no column 'before'")


@pytest.fixture
def class_predictions(tmp_path):
    rng = np.random.default_rng(5)
    y = rng.choice(["cat", "dog", "eel"], 120)
    a = np.where(rng.random(120) < 0.7, y, "cat")
    b = np.where(rng.random(120) < 0.8, y, "dog")
    path = tmp_path / "preds.csv"
    pd.DataFrame({"truth": y, "old": a, "new": b}).to_csv(path, index=False)
    return path, y.astype(object), a.astype(object), b.astype(object)


def test_compare_bootstrap_accuracy_equals_paired_bootstrap(tmp_path, capsys, class_predictions):
    from sklearn.metrics import accuracy_score

    from predstab import compare

    path, y, a, b = class_predictions
    out_csv = tmp_path / "boot.csv"
    args = ["compare", path, "--test", "bootstrap", "--a", "old", "--b", "new", "--resamples", "300",
            "--confidence-level", "0.9", "--seed", "3", "--out", out_csv]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    # the CLI's own accuracy against scikit-learn's, through the library function
    direct = compare.paired_bootstrap(y, a, b, metric=accuracy_score, n_resamples=300, confidence_level=0.9,
                                      random_state=3)
    table = pd.read_csv(out_csv)
    assert list(table["quantity"]) == ["A", "B", "B - A"]
    expected = direct.summary_frame()
    for col in ("estimate", "standard_error", "ci_low", "ci_high"):
        np.testing.assert_allclose(table[col], expected[col], rtol=1e-12, atol=1e-15)
    assert table["pvalue"].iloc[2] == pytest.approx(direct.pvalue, rel=1e-12)
    printed = next(line.split()[-4:] for line in out.splitlines() if line.strip().startswith("B - A"))
    np.testing.assert_allclose([float(v) for v in printed],  # 6 significant digits printed
                               [direct.difference, direct.standard_error_difference, *direct.ci_difference],
                               rtol=1e-5)
    assert "90% percentile intervals" in out and "300 resamples of 120 cases" in out
    # never overwritten without --force; with it, the same numbers again (same seed)
    before = out_csv.read_bytes()
    code, _, err = run(capsys, *args)
    assert_one_line_error(code, err, "already exists", "--force")
    assert out_csv.read_bytes() == before
    code, _, err = run(capsys, *args, "--force")
    assert code == 0, err
    assert out_csv.read_bytes() == before


@pytest.mark.parametrize("metric, interval", [("mse", "percentile"), ("mae", "bca")])
def test_compare_bootstrap_numbers_equal_paired_bootstrap(tmp_path, capsys, metric, interval):
    from sklearn.metrics import mean_absolute_error, mean_squared_error

    from predstab import compare

    rng = np.random.default_rng(1)
    y = rng.normal(size=80)
    a, b = y + rng.normal(size=80), y + 0.7 * rng.normal(size=80)
    pd.DataFrame({"y": y, "A": a, "B": b}).to_csv(tmp_path / "reg.csv", index=False)
    code, _, err = run(capsys, "compare", tmp_path / "reg.csv", "--test", "bootstrap", "--truth", "y",
                       "--a", "A", "--b", "B", "--metric", metric, "--interval", interval,
                       "--resamples", "200", "--seed", "7", "--out", tmp_path / "b.csv")
    assert code == 0, err
    func = {"mse": mean_squared_error, "mae": mean_absolute_error}[metric]
    # the CSV round-trips the inputs exactly (repr floats), so only summation order may differ
    direct = compare.paired_bootstrap(pd.read_csv(tmp_path / "reg.csv")["y"].to_numpy(), a, b, metric=func,
                                      n_resamples=200, method=interval, random_state=7)
    table = pd.read_csv(tmp_path / "b.csv")
    for col in ("estimate", "standard_error", "ci_low", "ci_high"):
        np.testing.assert_allclose(table[col], direct.summary_frame()[col], rtol=1e-10)


def test_compare_corrected_t_and_wilcoxon_equal_the_library_and_r(tmp_path, capsys):
    from predstab import compare

    a = [0.80, 0.82, 0.79, 0.81, 0.80, 0.83, 0.78, 0.80, 0.82, 0.81]
    b = [0.82, 0.83, 0.80, 0.84, 0.80, 0.85, 0.80, 0.81, 0.84, 0.82]
    pd.DataFrame({"A": a, "B": b}).to_csv(tmp_path / "cv.csv", index=False)
    code, out, err = run(capsys, "compare", tmp_path / "cv.csv", "--test", "corrected-t", "--a", "A",
                         "--b", "B", "--n-train", "900", "--n-test", "100", "--confidence-level", "0.9",
                         "--out", tmp_path / "t.csv")
    assert code == 0, err
    direct = compare.corrected_resampled_ttest(a, b, n_train=900, n_test=100, confidence_level=0.9)
    # print.htest, as Python prints it, its data line naming the columns (R's variables; issue 35)
    assert out == (str(direct).replace("data:  b and a", "data:  B and A") + "\n"
                   + f"wrote {tmp_path / 't.csv'}\nwrote {tmp_path / 't.report.html'}\n")
    row = pd.read_csv(tmp_path / "t.csv").iloc[0]
    low, high = direct.confidence_interval
    for name, value in (("df", direct.df), ("estimate", direct.estimate), ("ci_low", low), ("ci_high", high)):
        assert row[name] == pytest.approx(value, rel=1e-12)
    assert row["statistic"] == pytest.approx(direct.statistic, rel=1e-12)
    assert row["pvalue"] == pytest.approx(direct.pvalue, rel=1e-12)
    assert "Nadeau-Bengio" in row["method"] and "df None" not in out

    # R: wilcox.test(y, x, paired = TRUE) on the reference records (V and exact p to 1e-10)
    records = [r for r in json.loads(R_TESTS.read_text()) if r["test"] == "wilcoxon_paired"]
    assert records
    for k, rec in enumerate(records):
        csv = tmp_path / f"w{k}.csv"
        pd.DataFrame({"x": rec["x"], "y": rec["y"]}).to_csv(csv, index=False)
        code, out, err = run(capsys, "compare", csv, "--test", "wilcoxon", "--a", "x", "--b", "y",
                             "--out", tmp_path / f"w{k}_out.csv")
        assert code == 0, err
        got = pd.read_csv(tmp_path / f"w{k}_out.csv").iloc[0]
        assert got["statistic"] == rec["statistic"]
        assert got["pvalue"] == pytest.approx(rec["pvalue"], rel=1e-10)
        assert got["method"] == rec["method"]
        assert f"V = {r_signif(rec['statistic'])}, p-value = {r_signif(rec['pvalue'], 4)}" in out


def test_compare_new_tests_errors(tmp_path, capsys, class_predictions):
    path = class_predictions[0]
    pd.DataFrame({"A": [1.0, 2.0, 3.0], "B": [1.5, 2.5, 2.0], "y": [1.0, 2.0, 2.5]}).to_csv(
        tmp_path / "n.csv", index=False)
    cases = [
        (["compare", tmp_path / "n.csv", "--test", "corrected-t", "--a", "A", "--b", "B"], ["--n-train"]),
        (["compare", tmp_path / "n.csv", "--test", "corrected-t", "--a", "A", "--b", "B", "--n-train", "-5",
          "--n-test", "1"], ["--n-train"]),
        (["compare", tmp_path / "n.csv", "--test", "wilcoxon", "--a", "A"], ["needs --b"]),
        (["compare", tmp_path / "n.csv", "--test", "bootstrap", "--truth", "y", "--a", "A", "--b", "B"],
         ["holds numbers", "--metric"]),
        (["compare", path, "--test", "bootstrap", "--a", "old", "--b", "new", "--metric", "mse"],
         ["line 2", "column 'truth'", "expected a number"]),
        (["compare", path, "--test", "bootstrap", "--a", "old", "--b", "nope"], ["no column 'nope'"]),
        (["compare", path, "--test", "bootstrap", "--a", "old", "--b", "new", "--resamples", "0"],
         ["--resamples"]),
        (["compare", path, "--test", "bootstrap", "--a", "old", "--b", "new", "--metric", "f1"],
         ["--metric"]),
    ]
    for args, fragments in cases:
        code, _, err = run(capsys, *args)
        assert_one_line_error(code, err, *fragments)
    frame = pd.read_csv(path)
    frame.loc[4, "new"] = None
    frame.to_csv(tmp_path / "na.csv", index=False)
    code, _, err = run(capsys, "compare", tmp_path / "na.csv", "--test", "bootstrap", "--a", "old",
                       "--b", "new")
    assert_one_line_error(code, err, "line 6", "column 'new'", "missing")


# --------------------------------------------------------------------------- power
def _power_table(capsys, tmp_path, *args):
    out_csv = tmp_path / f"power{len(list(tmp_path.iterdir()))}.csv"
    code, out, err = run(capsys, "power", *args, "--out", out_csv)
    assert code == 0, err
    return out, pd.read_csv(out_csv)


def test_power_seeds_effect_games_equal_the_library_and_issue_7(tmp_path, capsys):
    from predstab import compare

    # issue 7's figures: seeds per arm (power at that n) for d = 0.2 ... 3.0
    out, table = _power_table(capsys, tmp_path, "seeds", "--effect", "0.2,0.5,1,1.5,2,3")
    assert list(table["n_per_arm"]) == [394, 64, 17, 9, 6, 4]
    np.testing.assert_allclose(table["power"], [0.8006, 0.8015, 0.8070, 0.8476, 0.8764, 0.9389],
                               atol=5e-5)  # the issue gives 4 decimals
    for d, n, power in table.itertuples(index=False):
        assert n == compare.seeds_needed(d)
        assert power == pytest.approx(compare.power_ttest(d, n), rel=1e-12)
    assert " 64 " in out and "0.80146" in out  # printed to 6 significant digits

    out, table = _power_table(capsys, tmp_path, "effect", "--n", "3,5,10,20,30,64,100")
    np.testing.assert_allclose(table["d"], [3.07, 2.02, 1.32, 0.91, 0.74, 0.50, 0.40], atol=5e-3)
    for n, d in table[["n_per_arm", "d"]].itertuples(index=False):
        assert d == pytest.approx(compare.detectable_effect(n), rel=1e-12)

    out, table = _power_table(capsys, tmp_path, "games", "--win-rate", "0.55")
    row = table.iloc[0]
    g = compare.games_needed(0.55)
    assert (row["n_games"], row["power"], row["n_normal"]) == (g.n, pytest.approx(g.power, rel=1e-12),
                                                               pytest.approx(g.n_normal, rel=1e-12))
    assert row["n_games"] == 786 and round(row["power"], 4) == 0.8013 and round(row["n_normal"], 2) == 782.53
    assert "786" in out and "782.526" in out


@pytest.mark.parametrize("strict", [True, False])
def test_power_at_n_matches_r_power_t_test(tmp_path, capsys, strict):
    # R: power.t.test(n = n, delta = 0.5, sd = 1, sig.level = 0.05, strict = strict)$power
    records = [r for r in json.loads(R_TESTS.read_text()) if r["test"] == "power_t_power"
               and r["strict"] == strict]
    assert len(records) >= 5
    ns = ",".join(str(r["n"]) for r in records)
    args = ["power", "--effect", "0.5", "--n", ns] + ([] if strict else ["--r-default"])
    out, table = _power_table(capsys, tmp_path, *args)
    assert {r["d"] for r in records} == {0.5}
    np.testing.assert_allclose(table["power"], [r["power"] for r in records], rtol=1e-10)  # R to 1e-10
    assert ("far tail only" in out) is not strict


def test_power_errors(tmp_path, capsys):
    cases = [
        (["power", "seeds"], ["needs --effect"]),
        (["power", "seeds", "--effect", "0.5", "--n", "10"], ["--n is not used"]),
        (["power", "power", "--effect", "0.5"], ["needs --n"]),
        (["power", "effect", "--n", "1"], ["--n", "at least 2"]),
        (["power", "seeds", "--effect", "0.5,abc"], ["--effect", "0.5,abc"]),
        (["power", "seeds", "--effect", "0"], ["--effect", "positive"]),
        (["power", "games", "--win-rate", "0.5"], ["--win-rate", "other than 0.5"]),
        (["power", "games"], ["needs --win-rate"]),
        (["power", "seeds", "--effect", "0.5", "--win-rate", "0.6"], ["--win-rate"]),
        (["power", "seeds", "--effect", "0.5", "--significance", "2"], ["--significance"]),
        (["power", "odds"], ["odds"]),
    ]
    for args, fragments in cases:
        code, _, err = run(capsys, *args)
        assert_one_line_error(code, err, *fragments)
    target = tmp_path / "s.csv"
    assert run(capsys, "power", "seeds", "--effect", "1", "--out", target)[0] == 0
    before = target.read_bytes()
    code, _, err = run(capsys, "power", "seeds", "--effect", "2", "--out", target)
    assert_one_line_error(code, err, "already exists", "--force")
    assert target.read_bytes() == before


# --------------------------------------------------------------------------- files, progress, interrupts
def test_atomic_write_leaves_nothing_when_interrupted(tmp_path):
    target = tmp_path / "out.csv"

    def write(tmp):
        tmp.write_text("half a tab")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _writing.atomic_write(target, write)
    assert list(tmp_path.iterdir()) == []


def test_interrupt_during_a_run_exits_130_without_output(tmp_path, capsys, monkeypatch, diabetes_csv):
    from predstab import _demo

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_demo, "compute", interrupted)
    code, _, err = run(capsys, "tune", diabetes_csv, "--target", "target", "--quiet", "--out", tmp_path / "o")
    assert code == 130 and "interrupted" in err
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_write_refuses_existing_file_without_force(tmp_path):
    target = tmp_path / "a.txt"
    _writing.write_text(target, "one")
    with pytest.raises(_reading.InputError, match="already exists"):
        _writing.write_text(target, "two")
    _writing.write_text(target, "two", force=True)
    assert target.read_text() == "two"


def test_fresh_directory_picks_a_new_name(tmp_path):
    first, renamed = _writing.fresh_directory(tmp_path / "out")
    assert not renamed
    (first / "stability.csv").write_text("x")  # an empty folder would be used as it is
    second, renamed = _writing.fresh_directory(tmp_path / "out")
    assert renamed and second == tmp_path / "out-2"


def test_read_table_r_row_names(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text('"","V1","V2"\n"1",1.5,NA\n"2",2.5,3\n')
    frame = _reading.read_table(path)
    assert list(frame.columns) == ["V1", "V2"]
    matrix = _reading.numeric_matrix(frame)
    assert np.isnan(matrix[0, 1]) and matrix[1, 0] == 2.5


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal():
    tty, pipe = _Terminal(), io.StringIO()
    for stream in (tty, pipe):
        bar = ProgressBar("fitting", stream=stream)
        for done in range(1, 5):
            bar(done, 4)
        bar.close()
    assert "fitting [" in tty.getvalue() and "4/4" in tty.getvalue() and tty.getvalue().endswith("\n")
    assert pipe.getvalue() == ""
    quiet = _Terminal()
    bar = ProgressBar(stream=quiet, enabled=False)
    bar(1, 2)
    assert quiet.getvalue() == ""


@pytest.mark.slow
def test_console_script_error_has_no_traceback(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, "-m", "predstab", "stability", str(tmp_path / "missing.csv"),
                           "--training-observations", "y.csv", "--scale", "metric"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr
    assert "missing.csv" in proc.stderr


def test_parser_builds_every_command():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == {"demo", "tune", "stability", "agree", "compare", "power"}


@pytest.mark.parametrize("command", ["tune", "stability", "agree", "compare"])
def test_help_names_the_separator_and_decimal_mark_in_words(capsys, command):
    # argparse showed the choices as "{,,;,tab,space}" and "{.,,}", which reads as noise
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    out = " ".join(out.split())  # argparse wraps the help text
    assert "{,,;" not in out and "{.,,}" not in out
    assert "--sep SEP" in out and "--dec DEC" in out
    assert "',', ';', tab or space" in out and "'.' or ','" in out
