"""Input that is accepted but means something else: issue 13, items 5-9 (transposed matrices,
ignored options, label columns, column lists, a continuous target given to a class task).

The commands run in this process (``predstab.cli.main``, tests/surfaces/_cli.py's
``predstab_main``); the first, a transposed file's warning, runs the installed command too
(what a user's terminal shows: the warning on stderr of the real process)."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab._core import _gate, _reading
from predstab.compare import friedman_nemenyi
from tests.surfaces._cli import one_line_error, predstab_cli, predstab_main


@pytest.fixture
def refits_in_rows(tmp_path):
    # 171 objects, 10 refits of a metric model; written the wrong way round (refits in rows)
    rng = np.random.default_rng(5)
    truth = rng.normal(size=171)
    pred = truth[:, None] + rng.normal(scale=0.2, size=(171, 10))
    pd.DataFrame(pred.T, columns=[f"obj{i}" for i in range(171)]).to_csv(tmp_path / "wide.csv", index=False)
    pd.DataFrame(pred, columns=[f"r{j}" for j in range(10)]).to_csv(tmp_path / "tall.csv", index=False)
    pd.DataFrame({"y": rng.normal(size=300)}).to_csv(tmp_path / "y.csv", index=False)
    return tmp_path, pred


# --------------------------------------------------------------------------- item 5
@pytest.mark.slow
def test_transposed_matrix_warns_and_transpose_fixes_it(refits_in_rows):
    folder, pred = refits_in_rows
    y = pd.read_csv(folder / "y.csv")["y"].to_numpy()
    args = ["--training-observations", folder / "y.csv", "--scale", "metric"]
    wrong = predstab_cli("stability", folder / "wide.csv", *args)
    assert wrong.returncode == 0
    assert "10 rows and 171 columns" in wrong.stderr and "looks transposed" in wrong.stderr
    assert "Objects belong in rows" in wrong.stderr and "--transpose" in wrong.stderr
    fixed = predstab_main("stability", folder / "wide.csv", *args, "--transpose")
    assert fixed.returncode == 0 and fixed.stderr == ""
    assert str(predstab.phi(pred, y, scale="metric")) in fixed.stdout
    right = predstab_main("stability", folder / "tall.csv", *args)
    assert right.stdout == fixed.stdout and right.stderr == ""


@pytest.mark.slow
def test_transposed_ratings_warn_in_agree(refits_in_rows):
    folder, pred = refits_in_rows
    proc = predstab_main("agree", folder / "wide.csv", "--measure", "icc")
    assert "looks transposed" in proc.stderr and "--transpose" in proc.stderr
    proc = predstab_main("agree", folder / "wide.csv", "--measure", "icc", "--transpose")
    assert proc.returncode == 0 and proc.stderr == ""
    printed = io.StringIO()
    print(predstab.icc(pred), file=printed)  # what agree prints for the right orientation
    assert proc.stdout == printed.getvalue()


def test_check_orientation_on_categories():
    rng = np.random.default_rng(1)
    objects = rng.choice(["a", "b", "c"], size=60)
    flips = rng.random((60, 8)) < 0.1
    pred = np.where(flips, "b", objects[:, None]).astype(object)
    with pytest.warns(predstab.PredstabDataWarning, match="8 rows and 60 columns"):
        assert _gate.check_orientation(pred.T)
    assert not _gate.check_orientation(pred)
    # no structure at all, or few objects with many refits (a legitimate wide matrix): no warning
    noise = rng.choice(["a", "b"], size=(10, 5000)).astype(object)
    few_objects = np.where(rng.random((4, 40)) < 0.1, "b", np.array(["a", "c", "a", "c"])[:, None])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not _gate.check_orientation(noise)
        assert not _gate.check_orientation(few_objects.astype(object))
        assert not _gate.check_orientation(rng.normal(size=(3, 400)))
        assert not _gate.check_orientation(rng.normal(size=(4, 1))[:, [0] * 40]
                                              + rng.normal(0, 0.1, (4, 40)))


# --------------------------------------------------------------------------- item 6
@pytest.mark.slow
def test_ignored_options_say_so(tmp_path):
    rng = np.random.default_rng(2)
    pd.DataFrame(rng.normal(size=(20, 3)), columns=["a", "b", "c"]).to_csv(tmp_path / "r.csv", index=False)
    proc = predstab_main("agree", tmp_path / "r.csv", "--measure", "icc", "--exact")
    assert proc.returncode == 0
    assert ("warning: --exact is only used with --measure fleiss; it is ignored with --measure icc"
            in proc.stderr)
    proc = predstab_main("agree", tmp_path / "r.csv", "--measure", "alpha", "--scale", "interval",
                        "--model", "twoway")
    assert "--model is only used with --measure icc" in proc.stderr
    proc = predstab_main("compare", tmp_path / "r.csv", "--test", "wilcoxon", "--a", "a", "--b", "b",
                        "--resamples", "10")
    assert proc.returncode == 0 and "--resamples is only used with --test bootstrap" in proc.stderr
    quiet = predstab_main("agree", tmp_path / "r.csv", "--measure", "icc", "--model", "twoway")
    assert quiet.stderr == ""


@pytest.mark.slow
def test_several_training_observation_columns_are_pooled_with_a_warning(tmp_path):
    rng = np.random.default_rng(3)
    pred = rng.integers(0, 2, size=(30, 6))
    train = rng.integers(0, 2, size=(40, 10))
    pd.DataFrame(pred).to_csv(tmp_path / "p.csv", index=False)
    pd.DataFrame(train).to_csv(tmp_path / "t.csv", index=False)
    proc = predstab_main("stability", tmp_path / "p.csv", "--training-observations", tmp_path / "t.csv",
                        "--scale", "categorical")
    assert proc.returncode == 0
    assert "has 10 columns" in proc.stderr and "pooled" in proc.stderr and "--column" in proc.stderr
    assert str(predstab.phi(pred, train.ravel(), scale="categorical")) in proc.stdout


# --------------------------------------------------------------------------- item 7
@pytest.mark.slow
def test_friedman_takes_a_label_column(tmp_path):
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(12, 3)) + [0.0, 0.5, 1.0]
    frame = pd.DataFrame(scores, columns=["A", "B", "C"])
    frame.insert(0, "dataset", [f"d{i}" for i in range(12)])
    frame.to_csv(tmp_path / "scores.csv", index=False)
    proc = predstab_main("compare", tmp_path / "scores.csv", "--test", "friedman")
    one_line_error(proc, "expected a number, got 'd0'", "--id COL")
    proc = predstab_main("compare", tmp_path / "scores.csv", "--test", "friedman", "--id", "dataset")
    assert proc.returncode == 0, proc.stderr
    # the result's own block names the methods by column: "  A: 2.5" (R's 4 significant digits)
    ranks = {line.strip().split(": ")[0]: float(line.split(": ")[1]) for line in proc.stdout.splitlines()
             if line.startswith("  ") and line.strip().split(": ")[0] in ("A", "B", "C")}
    expected = np.asarray(friedman_nemenyi(scores).average_ranks, dtype=float)
    assert ranks == pytest.approx(dict(zip("ABC", expected, strict=True)), abs=5e-4)


# --------------------------------------------------------------------------- item 8
@pytest.mark.slow
def test_missing_column_lists_every_column_closest_first(tmp_path):
    names = [f"feature_{i:02d}" for i in range(20)] + ["yield_t_ha"]
    pd.DataFrame([range(21)], columns=names).to_csv(tmp_path / "c.csv", index=False)
    proc = predstab_main("compare", tmp_path / "c.csv", "--test", "wilcoxon", "--a", "yeild_t_ha",
                        "--b", "feature_00")
    one_line_error(proc, "no column 'yeild_t_ha'", "closest: 'yield_t_ha'", "all 21 columns: yield_t_ha, ")
    listed = proc.stderr.split("all 21 columns: ")[1].strip().split(", ")
    assert sorted(listed) == sorted(names)


# --------------------------------------------------------------------------- item 9
def test_check_target_kind_speaks_the_users_language():
    rng = np.random.default_rng(4)
    continuous = rng.normal(size=50).round(3)
    with pytest.raises(_reading.InputError, match=r"looks continuous .* use --task regression"):
        _gate.check_target_kind(continuous, "classification", name="yield")
    with pytest.raises(_reading.InputError, match="the target 'yield'"):
        _gate.check_target_kind(continuous, "ordinal", name="yield")
    with pytest.raises(_reading.InputError, match=r"holds text \('low'.* use --task classification"):
        _gate.check_target_kind(np.array(["low", "high"] * 10, dtype=object), "regression")
    _gate.check_target_kind(rng.integers(0, 3, 50), "classification")  # class labels as numbers
    _gate.check_target_kind(np.array(["a", "b"] * 5, dtype=object), "classification")
    _gate.check_target_kind(continuous, "regression")
    with pytest.raises(_reading.InputError, match="--task"):
        _gate.check_target_kind(continuous, "clustering")


# --------------------------------------------------------------------------- item 10
@pytest.mark.slow
def test_per_object_numbers_objects_as_per_object_frame(tmp_path):
    rng = np.random.default_rng(6)
    pred = rng.normal(size=(8, 5)) * np.array([0.1, 0.1, 3, 0.1, 0.1, 0.1, 2, 0.1])[:, None]
    y = rng.normal(scale=2, size=60)
    pd.DataFrame(pred).to_csv(tmp_path / "p.csv", index=False)
    pd.DataFrame({"y": y}).to_csv(tmp_path / "y.csv", index=False)
    args = ["--training-observations", tmp_path / "y.csv", "--scale", "metric", "--per-object"]
    proc = predstab_main("stability", tmp_path / "p.csv", *args, "--out", tmp_path / "per.csv")
    assert proc.returncode == 0, proc.stderr
    frame = predstab.phi(pred, y, scale="metric").per_object_frame()
    table = pd.read_csv(tmp_path / "per.csv")
    assert list(table["object"][:2]) == list(frame.index[:2]) == [2, 6]  # 0-based row positions
    assert "object = 0-based row position" in proc.stdout
    # R's write.csv with row names: the objects keep them
    pd.DataFrame(pred, index=[f"plot{i}" for i in range(8)]).to_csv(tmp_path / "named.csv")
    proc = predstab_main("stability", tmp_path / "named.csv", *args)
    assert "object = row name" in proc.stdout
    labelled = predstab.phi(pd.DataFrame(pred, index=[f"plot{i}" for i in range(8)]), y).per_object_frame()
    first = proc.stdout.split("least stable first")[1].splitlines()[2].split()[0]
    assert first == labelled.index[0] == "plot2"
