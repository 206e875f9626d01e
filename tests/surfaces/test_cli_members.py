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
    assert f"{api.n_for_target} learners reach icc = 0.95" in stdout
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
    assert_one_line_error(code, err, "--predictions", "`predictions` has a missing value (NaN / None) at "
                          "(1, 1)")
