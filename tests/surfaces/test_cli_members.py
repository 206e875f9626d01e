"""``predstab tune --predictions FILE``: the member curve of a saved objects x members matrix
is the Python API's (TreePool.from_predictions + tune_num_learners), read from pandas' and R's
CSV files alike."""

import json

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from predstab import TreePool, tune_num_learners
from tests.surfaces._cli import assert_one_line_error, run

RNG = np.random.default_rng(7)
MATRIX = RNG.normal(size=(30, 1)) + 0.6 * RNG.normal(size=(30, 40))  # 30 objects, 40 members


def _icc_by_hand(t, n):
    w = t.var(axis=1, ddof=1).mean()
    b = max(t.mean(axis=1).var(ddof=1) - w / t.shape[1], 0.0)
    return b / (b + w / np.asarray(n, dtype=float))


@pytest.fixture(scope="module")
def api():
    """The Python API on the same matrix, with the CLI's seed and resamples."""
    pool = TreePool.from_predictions(MATRIX, random_state=3)
    return tune_num_learners(pool, method="closed_form", n_resamples=20, random_state=3)


def _tune(capsys, tmp_path, path, *extra):
    out = tmp_path / "out"
    code, stdout, err = run(capsys, "tune", "--predictions", path, "--out", out, "--resamples", 20,
                            "--seed", 3, *extra)
    assert code == 0, err
    return json.loads((out / "stability.json").read_text()), stdout, pd.read_csv(out / "stability.csv")


def test_pandas_file_gives_the_api_curve(capsys, tmp_path, api):
    path = tmp_path / "members.csv"
    pd.DataFrame(MATRIX, columns=[f"seed{j}" for j in range(40)]).to_csv(path, index=False)
    summary, stdout, table = _tune(capsys, tmp_path, path)
    assert summary["n_objects"] == 30 and summary["n_members"] == 40
    assert summary["table"]["n_learners"] == [1, 2, 3, 4, 5, 7, 10]  # up to a quarter of 40 members
    assert_allclose(summary["table"]["icc"], api.table["icc"], rtol=0, atol=1e-15)
    assert_allclose(summary["table"]["icc_low"], api.table["icc_low"], rtol=0, atol=1e-15)
    assert_allclose(table["icc"], _icc_by_hand(MATRIX, [1, 2, 3, 4, 5, 7, 10]), rtol=0, atol=1e-12)
    assert summary["n_for_target"] == api.n_for_target
    assert summary["fits"]["icc"]["p1"] == pytest.approx(api.fits["icc"].p1, rel=1e-12)
    assert "30 objects, 40 members (values); seed 3" in stdout
    assert f"{api.n_for_target} members reach icc = 0.95" in stdout  # members, not learners (issue 35)
    assert str(api).splitlines()[0] in stdout
    assert (tmp_path / "out" / "stability.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_r_write_csv_file_is_read_as_the_same_matrix(capsys, tmp_path, api):
    # write.csv(m) in R: a quoted header with "" over the row names, which name the objects
    path = tmp_path / "members_r.csv"
    header = ",".join(['""'] + [f'"V{j + 1}"' for j in range(40)])
    rows = [",".join([f'"obj{i + 1}"'] + [repr(float(v)) for v in MATRIX[i]]) for i in range(30)]
    path.write_text("\n".join([header, *rows]) + "\n")
    summary, _, _ = _tune(capsys, tmp_path, path)
    assert summary["n_members"] == 40
    assert_allclose(summary["table"]["icc"], api.table["icc"], rtol=0, atol=1e-15)


@pytest.mark.filterwarnings("ignore:fleiss. the curve has not flattened")
def test_class_labels_and_a_given_grid(capsys, tmp_path):
    labels = np.where(MATRIX > 0.3, "yes", "no")
    path = tmp_path / "votes.csv"
    pd.DataFrame(labels, columns=[f"m{j}" for j in range(40)]).to_csv(path, index=False)
    summary, _, _ = _tune(capsys, tmp_path, path, "--task", "classification", "--grid", "1,3,5,9")
    pool = TreePool.from_predictions(labels, random_state=3)
    res = tune_num_learners(pool, grid=(1, 3, 5, 9), method="closed_form", n_resamples=20, random_state=3)
    assert summary["table"]["n_learners"] == [1, 3, 5, 9]
    assert_allclose(summary["table"]["fleiss"], res.table["fleiss"], rtol=0, atol=1e-15)
    assert summary["settings"]["voting"] == "hard"


def test_method_pool_uses_disjoint_groups(capsys, tmp_path):
    path = tmp_path / "members.csv"
    pd.DataFrame(MATRIX).to_csv(path, index=False)
    summary, _, _ = _tune(capsys, tmp_path, path, "--method", "pool", "--grid", "2,4,8")
    res = tune_num_learners(TreePool.from_predictions(MATRIX, random_state=3), grid=(2, 4, 8), method="pool",
                            n_resamples=20, random_state=3)
    assert summary["method"] == "pool"
    assert_allclose(summary["table"]["icc"], res.table["icc"], rtol=0, atol=1e-15)
    assert summary["table"]["n_forests"] == [10, 10, 5]


@pytest.mark.parametrize(("extra", "fragments"), [
    (("data.csv",), ("give DATA (with --target) or --predictions, not both",)),
    (("--method", "refit"), ("--method refit fits forests",)),
    (("--task", "ordinal"), ("an ordinal target has no member closed form",)),
    (("--grid", "1,2"), ("--grid must hold at least 3",)),
])
def test_bad_options_are_one_line(capsys, tmp_path, extra, fragments):
    path = tmp_path / "members.csv"
    pd.DataFrame(MATRIX).to_csv(path, index=False)
    code, _, err = run(capsys, "tune", "--predictions", path, "--out", tmp_path / "o", *extra)
    assert_one_line_error(code, err, *fragments)


def test_a_missing_cell_and_no_input_are_one_line(capsys, tmp_path):
    path = tmp_path / "members.csv"
    frame = pd.DataFrame(MATRIX, columns=[f"m{j}" for j in range(40)])
    frame.iloc[4, 2] = np.nan
    frame.to_csv(path, index=False)
    code, _, err = run(capsys, "tune", "--predictions", path, "--out", tmp_path / "o")
    assert_one_line_error(code, err, "--predictions", "line 6")
    code, _, err = run(capsys, "tune", "--out", tmp_path / "o")
    assert_one_line_error(code, err, "tune needs DATA and --target", "--predictions FILE")
    labels = np.where(MATRIX > 0.3, "yes", "no").astype(object)
    labels[1, 1] = None
    pd.DataFrame(labels, columns=[f"m{j}" for j in range(40)]).to_csv(path, index=False)
    code, _, err = run(capsys, "tune", "--predictions", path, "--task", "classification", "--out",
                       tmp_path / "o")
    # the library's message in the command line's words: the file, not the parameter (issue 35)
    assert_one_line_error(code, err, f"--predictions '{path}' has a missing value (NaN / None) at (1, 1)")


# --observed: the training objects' observed responses, phi's baseline
Y_OBSERVED = np.random.default_rng(8).normal(size=25) * 1.3


def test_observed_responses_add_phi(capsys, tmp_path, api):
    # R: write.csv(members, row.names = FALSE); write.csv(data.frame(y = train$y), row.names = FALSE)
    members, observed = tmp_path / "members.csv", tmp_path / "y_train.csv"
    members.write_text("\n".join([",".join(f'"V{j + 1}"' for j in range(40)),
                                  *(",".join(repr(float(v)) for v in row) for row in MATRIX)]) + "\n")
    observed.write_text('"y"\n' + "\n".join(repr(float(v)) for v in Y_OBSERVED) + "\n")
    summary, stdout, table = _tune(capsys, tmp_path, members, "--observed", observed)
    n = np.array([1, 2, 3, 4, 5, 7, 10], dtype=float)
    # disjoint forests of n members: D_o = the members' within-object variance / n; D_e = var(y)
    within = MATRIX.var(axis=1, ddof=1).mean()
    assert_allclose(table["phi"], 1 - within / n / Y_OBSERVED.var(ddof=1), rtol=0, atol=1e-12)
    assert_allclose(summary["table"]["icc"], api.table["icc"], rtol=0, atol=1e-15)  # icc unchanged
    pool = TreePool.from_predictions(MATRIX, y=Y_OBSERVED, random_state=3)
    res = tune_num_learners(pool, method="closed_form", n_resamples=20, random_state=3)
    assert_allclose(summary["table"]["phi_low"], res.table["phi_low"], rtol=0, atol=1e-15)
    assert summary["observed"] == str(observed)
    assert summary["recommendations"]["phi"]["value"] == res.recommendations["phi"].value
    assert "phi" in stdout.split("2PL fits")[1]


def test_observed_column_named_by_target_and_class_labels(capsys, tmp_path):
    labels = np.where(MATRIX > 0.3, "yes", "no")
    observed_labels = np.where(Y_OBSERVED > 0.3, "yes", "no")
    members, observed = tmp_path / "votes.csv", tmp_path / "train.csv"
    pd.DataFrame(labels, columns=[f"m{j}" for j in range(40)]).to_csv(members, index=False)
    pd.DataFrame({"x1": Y_OBSERVED, "class": observed_labels}).to_csv(observed, index=False)
    summary, _, _ = _tune(capsys, tmp_path, members, "--task", "classification", "--grid", "1,3,5,9",
                          "--observed", observed, "--target", "class")
    pool = TreePool.from_predictions(labels, y=observed_labels, random_state=3)
    res = tune_num_learners(pool, grid=(1, 3, 5, 9), method="closed_form", n_resamples=20, random_state=3)
    assert_allclose(summary["table"]["phi"], res.table["phi"], rtol=0, atol=1e-15)
    assert_allclose(summary["table"]["fleiss"], res.table["fleiss"], rtol=0, atol=1e-15)
    # 1 - D_o / D_e at one member: D_o the share of pairs of two members' votes that differ,
    # D_e the chance that two draws from the observed classes differ (APS's phi)
    votes = (labels == "yes").mean(axis=1)
    share = (observed_labels == "yes").mean()
    d_e = 2 * share * (1 - share)
    d_o = np.mean(2 * votes * (1 - votes) * 40 / 39)
    assert summary["table"]["phi"][0] == pytest.approx(1 - d_o / d_e, rel=1e-12)


def test_observed_errors_are_one_line(capsys, tmp_path):
    members, observed = tmp_path / "members.csv", tmp_path / "train.csv"
    pd.DataFrame(MATRIX, columns=[f"m{j}" for j in range(40)]).to_csv(members, index=False)
    pd.DataFrame({"a": Y_OBSERVED, "b": Y_OBSERVED}).to_csv(observed, index=False)
    out = tmp_path / "o"
    code, _, err = run(capsys, "tune", "--predictions", members, "--observed", observed, "--out", out)
    assert_one_line_error(code, err, f"--observed '{observed}' has 2 columns (a, b)", "with --target")
    code, _, err = run(capsys, "tune", "--predictions", members, "--target", "a", "--out", out)
    assert_one_line_error(code, err, "--predictions without --observed has no target")
    code, _, err = run(capsys, "tune", members, "--target", "0", "--observed", observed, "--out", out)
    assert_one_line_error(code, err, "--observed goes with --predictions")
    code, _, err = run(capsys, "tune", "--predictions", members, "--observed", observed, "--target", "c",
                       "--out", out)
    assert_one_line_error(code, err, "--observed", "has no column 'c'")
    observed.write_text('"y"\n"yes"\nNA\n"no"\n')  # R's write.csv of a missing label
    votes = tmp_path / "votes.csv"
    pd.DataFrame(np.where(MATRIX > 0.3, "yes", "no"), columns=[f"m{j}" for j in range(40)]).to_csv(
        votes, index=False)
    code, _, err = run(capsys, "tune", "--predictions", votes, "--observed", observed, "--task",
                       "classification", "--out", out)
    assert_one_line_error(code, err, "--observed", "line 3", "a missing response")
    assert not out.exists()


def test_numbers_given_as_class_labels_are_refused(capsys, tmp_path):
    # a regression's members read as labels would make every cell its own class (1,200 here)
    members, observed, votes = tmp_path / "members.csv", tmp_path / "y.csv", tmp_path / "votes.csv"
    pd.DataFrame(MATRIX, columns=[f"m{j}" for j in range(40)]).to_csv(members, index=False)
    code, _, err = run(capsys, "tune", "--predictions", members, "--task", "classification", "--out",
                       tmp_path / "o")
    assert_one_line_error(code, err, f"--predictions '{members}' looks continuous (1200 distinct numbers "
                          "in 1200 cells, e.g.", "--task classification needs class labels")
    pd.DataFrame(np.where(MATRIX > 0.3, "yes", "no"), columns=[f"m{j}" for j in range(40)]).to_csv(
        votes, index=False)
    pd.DataFrame({"y": Y_OBSERVED}).to_csv(observed, index=False)
    code, _, err = run(capsys, "tune", "--predictions", votes, "--observed", observed, "--task",
                       "classification", "--out", tmp_path / "o")
    assert_one_line_error(code, err, f"--observed '{observed}' looks continuous (25 distinct numbers in 25 "
                          "rows")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("c", [1e-300, 1e300])
def test_predictions_of_extreme_magnitude_give_the_curve_of_the_data_at_scale_one(capsys, tmp_path, api, c):
    # issue 33: values near 1e-300 printed "Recommendation: 1 learners" (the closed form's sums of
    # squares underflowed: ICC = 1 at every n); 1e300 gave a NaN curve
    path = tmp_path / "members.csv"
    pd.DataFrame(MATRIX * c, columns=[f"seed{j}" for j in range(40)]).to_csv(path, index=False)
    summary, stdout, table = _tune(capsys, tmp_path, path)
    assert_allclose(table["icc"], _icc_by_hand(MATRIX, [1, 2, 3, 4, 5, 7, 10]), rtol=1e-9)
    assert summary["n_for_target"] == api.n_for_target > 1
    assert f"{api.n_for_target} members reach icc = 0.95" in stdout


def test_five_members_text_says_nothing_untrue(capsys, tmp_path):
    """5 members that all agree (fleiss 1 at every n): the 2PL fit fails on the flat curve, so no
    line states what "the fitted curve" reaches; and no API-only option (rule=, interval=) is quoted."""
    labels = np.where(np.arange(60) % 3 == 0, "b", "a")
    path = tmp_path / "five.csv"
    pd.DataFrame({f"m{j}": labels for j in range(5)}).to_csv(path, index=False)
    _, stdout, _ = _tune(capsys, tmp_path, path, "--task", "classification")
    assert "fleiss >= 0.95 at every grid value from 1 member on (the 2PL fit failed" in stdout
    assert "on the fitted curve" not in stdout  # the fit failed: nothing is read off it
    assert "rule='optRF'" not in stdout and 'interval="learners+objects"' not in stdout
    assert "optRF's rule is made for trees)" in stdout


def test_member_cli_quotes_no_api_only_option(capsys, tmp_path):
    path = tmp_path / "m.csv"
    pd.DataFrame(MATRIX).to_csv(path, index=False)
    _, stdout, _ = _tune(capsys, tmp_path, path)
    assert "(the bands resample the members only)" in stdout  # the interval paragraph, without interval=
    assert "rule='optRF'" not in stdout and "interval=" not in stdout
