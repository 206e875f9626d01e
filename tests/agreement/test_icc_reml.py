"""predstab.icc_reml against psych::ICC(x, missing = FALSE, lmer = TRUE) (psych 2.2.9, lme4 1.1.31).

R cases (every one made by an R script stored beside it):

- ``validation/r-reference/lmer``: the 8 references of issue 26 (``generate.R``, seed 1), also
  checked by ``python -m validation lmer``;
- ``tests/data/lmer-heldout/seed2``, ``seed3``: 16 held-out cases of the same kind, made by the
  same ``generate.R`` with seeds 2 and 3 (``Rscript validation/r-reference/lmer/generate.R
  tests/data/lmer-heldout/seed2 2``), not used while writing ``_icc_reml``;
- ``tests/data/lmer-boundary``: 4 designs where lme4 puts a variance component at 0
  (``tests/data/lmer-boundary/generate.R``, seed 1), with lme4's REMLcrit and theta.

Each is compared field by field with the rows of ``validation/suites/lmer.py`` (tolerances
written there: 2e-4 relative on the variances, 1e-4 absolute on ICCs and bounds, the optimum's
criterion and gradient from an independent dense REML criterion).
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from predstab import (
    PredstabDataWarning,
    PredstabDegenerateWarning,
    PredstabUndefinedWarning,
    icc_reml,
    icc_table,
)
from predstab.agreement._icc import _mean_squares
from predstab.agreement._icc_reml import TYPES, _psych_table
from validation._table import REFERENCE
from validation.suites.lmer import case_rows, load_cases, read_case, reml_criterion

from .conftest import SHROUT_FLEISS

DATA = Path(__file__).resolve().parent.parent / "data"
FOLDERS = {"reference": REFERENCE / "lmer", "heldout-seed2": DATA / "lmer-heldout" / "seed2",
           "heldout-seed3": DATA / "lmer-heldout" / "seed3", "boundary": DATA / "lmer-boundary"}
CASES = [(label, name) for label, folder in FOLDERS.items() for name, _ in load_cases(folder)]


def _record(label, name):
    return dict(load_cases(FOLDERS[label]))[name]


def _quiet(x, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return icc_reml(x, **kwargs)


def test_there_are_28_r_cases():
    assert len(CASES) == 8 + 16 + 4


@pytest.mark.parametrize("label, name", CASES, ids=[f"{a}-{b}" for a, b in CASES])
def test_matches_psych_icc_lmer(label, name):
    # R: psych::ICC(x, missing = FALSE, lmer = TRUE), x = the case matrix (NA = missing)
    rows = list(case_rows("test", FOLDERS[label], name, _record(label, name)))
    assert len(rows) == 2 + 3 + 6 * 8 + 1 + 4  # sizes, variances, 8 fields x 6 forms, converged, optimum
    failures = [f"{r.quantity}: R={r.r_value} predstab={r.predstab_value} ({r.tolerance})" for r in rows
                if not r.passed]
    assert not failures, failures


def test_boundary_components_are_exactly_zero():
    folder = FOLDERS["boundary"]
    both = _quiet(read_case(folder, "b_25x5_both"))
    assert both.object_variance == 0.0 and both.rater_variance == 0.0
    assert both.at_boundary == ("object", "rater")
    # with both components at 0 every rating is independent: the residual variance is the sample variance
    y = read_case(folder, "b_25x5_both").to_numpy(dtype=float)
    assert both.residual_variance == pytest.approx(np.nanvar(y, ddof=1), rel=1e-8)
    rater = _quiet(read_case(folder, "b_20x2_norater"))
    assert rater.rater_variance == 0.0 and rater.at_boundary == ("rater",) and rater.object_variance > 0
    assert rater.msw == rater.mse == rater.msj == rater.residual_variance  # s2_r = 0 in psych's formulas


@pytest.mark.parametrize("name", ["b_30x4_norater", "b_40x3_noobject", "b_25x5_both", "b_20x2_norater"])
def test_reml_criterion_is_lme4s(name):
    rec = _record("boundary", name)
    res = _quiet(read_case(FOLDERS["boundary"], name))
    # R: lme4::REMLcrit(ICC(x, missing = FALSE, lmer = TRUE)$summary)
    assert res.reml_criterion == pytest.approx(rec["reml_criterion"], rel=1e-9)
    # lme4's theta = relative standard deviations sqrt(s2 / s2_e)
    theta = np.sqrt([res.object_variance / res.residual_variance, res.rater_variance / res.residual_variance])
    assert theta == pytest.approx(list(rec["theta"].values()), abs=2e-4)


def test_the_optimum_is_a_minimum_of_the_independent_criterion():
    x = read_case(FOLDERS["reference"], "l_15x8_sparse").to_numpy(dtype=float)
    res = _quiet(x)
    best = reml_criterion(x, res.object_variance, res.rater_variance, res.residual_variance)
    ratios = np.array([res.object_variance, res.rater_variance]) / res.residual_variance
    for factor in (0.9, 0.99, 1.01, 1.1):  # moving either ratio away raises the criterion
        for i in range(2):
            moved = ratios.copy()
            moved[i] *= factor
            assert reml_criterion(x, *moved) > best


def test_complete_data_give_the_anova_table_of_icc_table():
    # REML equals the ANOVA estimators on a balanced design when they are positive
    res = icc_reml(SHROUT_FLEISS)
    table = icc_table(SHROUT_FLEISS)
    np.testing.assert_allclose(res.table.to_numpy(), table.to_numpy(), rtol=1e-6, atol=1e-7)
    ms = _mean_squares(SHROUT_FLEISS)
    assert res.msb == pytest.approx(ms.msr, rel=1e-7) and res.mse == pytest.approx(ms.mse, rel=1e-7)
    assert res.msj == pytest.approx(ms.msc, rel=1e-6)
    # Shrout & Fleiss (1979), Table 4: ICC(2,1) = .29, ICC(3,1) = .71
    assert round(res.value[1], 2) == 0.29 and round(res.value[2], 2) == 0.71


@pytest.mark.parametrize("seed", range(5))
def test_psych_table_from_anova_mean_squares_is_icc_table(seed):
    """The six forms from mean squares are icc_table's, digit for digit (one formula sheet)."""
    x = np.random.default_rng(seed).normal(size=(12, 3 + seed)) + np.arange(12)[:, None] / 4
    got = _psych_table(_mean_squares(x), 0.9)
    np.testing.assert_allclose(got, icc_table(x, confidence_level=0.9).to_numpy(), rtol=1e-12, atol=1e-14)


def test_permutations_and_affine_maps_change_nothing():
    x = read_case(FOLDERS["reference"], "l_24x6_blocks").to_numpy(dtype=float)
    res = _quiet(x)
    rng = np.random.default_rng(0)
    permuted = _quiet(x[rng.permutation(24)][:, rng.permutation(6)])
    np.testing.assert_allclose(permuted.value, res.value, atol=1e-6)
    scaled = _quiet(3.0 * x - 7.0)
    np.testing.assert_allclose(scaled.value, res.value, atol=1e-6)
    assert scaled.object_variance == pytest.approx(9 * res.object_variance, rel=1e-5)
    assert scaled.residual_variance == pytest.approx(9 * res.residual_variance, rel=1e-5)


def test_confidence_level_is_psychs_alpha():
    x = read_case(FOLDERS["reference"], "l_30x4_miss10")
    wide, narrow = _quiet(x, confidence_level=0.99), _quiet(x, confidence_level=0.8)
    np.testing.assert_array_equal(wide.value, narrow.value)
    assert np.all(wide.ci_low < narrow.ci_low) and np.all(wide.ci_high > narrow.ci_high)
    # ICC1's bounds by hand: F / qf(1 - alpha/2, df1, df2), then (F - 1) / (F + k - 1)
    from scipy import stats

    f = narrow.statistic[0]
    f_low = f / stats.f.ppf(0.9, 29, 90)
    assert narrow.ci_low[0] == pytest.approx((f_low - 1) / (f_low + 3), rel=1e-12)


def test_every_available_rating_is_used_where_listwise_deletion_drops_objects():
    x = read_case(FOLDERS["reference"], "l_30x4_miss10")
    complete = x.dropna()
    assert len(complete) == 19  # 12 missing ratings in 11 of the 30 objects
    with pytest.warns(PredstabDataWarning, match="11 of 30 objects"):
        listwise = icc_table(x)  # irr's na.omit, or psych::ICC(na.omit(x), lmer = FALSE)
    pd.testing.assert_frame_equal(listwise, icc_table(complete))
    assert listwise.loc["ICC1", "df1"] == 18
    res = _quiet(x)
    assert res.n_ratings == 108 and res.df1[0] == 29
    # REML on the complete objects alone is the listwise analysis again (REML = ANOVA there)
    np.testing.assert_allclose(_quiet(complete).value, listwise["ICC"], atol=1e-6)
    # psych's default ICC(x) on incomplete data is lmer = TRUE: the REML answer, not listwise deletion
    rec = _record("reference", "l_30x4_miss10")
    assert res.value[1] == pytest.approx(rec["results"][1]["ICC"], abs=1e-4)
    assert abs(listwise.loc["ICC2", "ICC"] - rec["results"][1]["ICC"]) > 0.04


def test_constant_ratings_follow_the_convention():
    x = np.full((5, 3), 2.0)
    x[0, 1] = np.nan
    with pytest.warns(PredstabDegenerateWarning):
        res = icc_reml(x)
    np.testing.assert_array_equal(res.value, np.ones(6))
    assert res.object_variance == res.rater_variance == res.residual_variance == 0.0


def test_exactly_additive_ratings_are_undefined():
    x = np.add.outer(np.arange(6.0), np.array([0.0, 1.0, 3.0]))
    x[0, 0] = np.nan
    with pytest.warns(PredstabUndefinedWarning, match="fits the ratings exactly"):
        res = icc_reml(x)
    assert np.isnan(res.value).all() and np.isnan(res.residual_variance)
    assert res.df1.tolist() == [5] * 6 and res.df2.tolist() == [12, 10, 10, 12, 10, 10]


def test_objects_without_ratings_count_in_n_as_psych_counts_them():
    x = read_case(FOLDERS["reference"], "l_60x2_pairs").to_numpy(dtype=float)
    padded = np.vstack([x, np.full((2, 2), np.nan)])
    with pytest.warns(PredstabDataWarning, match="2 object"):
        res = icc_reml(padded)
    base = _quiet(x)
    assert res.object_variance == pytest.approx(base.object_variance, rel=1e-8)
    assert res.n_objects == 62 and res.df1[0] == 61 and res.msj == pytest.approx(62 * res.rater_variance
                                                                                  + res.residual_variance)


@pytest.mark.parametrize("bad, match", [
    (np.array([[1.0, np.nan], [np.nan, 2.0], [3.0, np.nan]]), "more ratings than objects"),
    (np.array([[1.0, np.nan], [2.0, np.nan], [3.0, np.nan]]), "at least 2 objects by at least 2 raters"),
    (np.array([[1.0], [2.0]]), "at least 2 replicates"),
    (np.array([["a", "b"], ["c", "d"]]), "must hold numbers"),
])
def test_bad_input_is_refused_with_a_clear_message(bad, match):
    with pytest.raises((ValueError, TypeError), match=match):
        icc_reml(bad)


def test_print_and_frame():
    res = _quiet(read_case(FOLDERS["reference"], "l_30x4_miss10"))
    text = str(res)
    assert text.splitlines()[0].startswith(" Intraclass correlation coefficients")
    # psych prints: ICC3 0.80 17 29 87 3.9e-25 0.69 0.89 (print(ICC(x, lmer = TRUE)));
    # ICC3k 0.94 17 29 87 3.9e-25 0.90 0.97; its lme table: ID 4.5634258 0.77896127
    assert "   ICC3 0.80 17  29  87 3.9e-25      0.69      0.89" in text
    assert "  ICC3k 0.94 17  29  87 3.9e-25      0.90      0.97" in text
    assert "  ID         4.5634   0.779" in text and "Number of subjects = 30" in text
    frame = res.to_frame()
    assert frame.shape[0] == 1 and frame.loc[0, "ICC3k"] == res.value[5]
    assert res.table.loc["ICC2", "F"] == res.statistic[1]


@pytest.mark.slow  # a fresh interpreter importing predstab and statsmodels: a few seconds
def test_statsmodels_is_imported_only_when_fitting():
    code = ("import sys, predstab; predstab.icc_reml; print('statsmodels' in sys.modules); "
            "predstab.icc_reml([[1, 2], [2, 4], [3, 3.5], [4, 4]]); print('statsmodels' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


def test_reference_json_layout():
    with open(REFERENCE / "lmer" / "expected" / "psych_ICC_lmer.json", encoding="utf-8") as fh:
        data = json.load(fh)
    assert [r["type"] for r in data["l_24x6_blocks"]["results"]] == list(TYPES)


@pytest.mark.slow  # 40 REML fits per law: a few seconds each
@pytest.mark.parametrize("law", ["normal", "discrete"])
def test_interval_coverage_by_simulation(law):
    """psych's intervals on 30 x 4 designs with 20 % of the ratings missing at random.

    Variance components 1 (object), 0.5 (rater), 1 (residual): ICC2 = 0.4 and ICC3 = 0.5 in the
    population. *discrete*: integer ratings (object effects and errors +-1, rater effects -1, 0,
    0, 1), the same variances. Nominal 95 %; with missing ratings psych's intervals cover less
    (about 0.90 for normal data in benchmarks/bench_icc_reml.py, which runs more designs), so the
    accepted band is 0.75-1.0: a broken interval (wrong df, wrong mean square) falls far outside.
    """
    rng = np.random.default_rng(2026 if law == "normal" else 2027)
    hits = {1: 0, 2: 0}
    truth = {1: 0.4, 2: 0.5}
    for _ in range(40):
        if law == "normal":
            obj, rat, err = rng.normal(size=30), rng.normal(size=4) * np.sqrt(0.5), rng.normal(size=(30, 4))
        else:
            obj = rng.choice([-1.0, 1.0], size=30)
            rat = rng.choice([-1.0, 0.0, 0.0, 1.0], size=4)
            err = rng.choice([-1.0, 1.0], size=(30, 4))
        x = 10 + obj[:, None] + rat[None, :] + err
        x[rng.random((30, 4)) < 0.2] = np.nan
        res = _quiet(x)
        assert np.all((res.ci_low <= res.value) & (res.value <= res.ci_high))  # each contains its estimate
        for i in hits:
            hits[i] += res.ci_low[i] <= truth[i] <= res.ci_high[i]
    assert 0.75 <= hits[1] / 40 <= 1.0 and 0.75 <= hits[2] / 40 <= 1.0, hits


def test_print_is_psychs_layout_line_by_line():
    # R: print(psych::ICC(x, lmer = TRUE)) on l_30x4_miss10 (psych 2.2.9, lme4 1.1): the rows at 2
    # significant digits, n.obs / n.judge, the lme table (ID 4.5634258 0.778961268, Items 0.1764738
    # 0.030123477, Residual 1.1184479 0.190915255, Total 5.8583475 1) and lme4's REMLcrit 404.6822354
    res = _quiet(read_case(FOLDERS["reference"], "l_30x4_miss10"))
    assert str(res).splitlines() == [
        " Intraclass correlation coefficients (REML variance components, psych::ICC(lmer = TRUE))", "",
        "   type  ICC  F df1 df2       p lower 95% upper 95%",
        "   ICC1 0.78 15  29  90 2.1e-23      0.65      0.87",
        "   ICC2 0.78 17  29  87 3.9e-25      0.65      0.88",
        "   ICC3 0.80 17  29  87 3.9e-25      0.69      0.89",
        "  ICC1k 0.93 15  29  90 2.1e-23      0.88      0.97",
        "  ICC2k 0.93 17  29  87 3.9e-25      0.88      0.97",
        "  ICC3k 0.94 17  29  87 3.9e-25      0.90      0.97", "",
        " Number of subjects = 30     Number of Judges =  4     Number of ratings = 108", "",
        "           variance Percent",
        "  ID         4.5634   0.779",
        "  Items     0.17647  0.0301",
        "  Residual   1.1184   0.191",
        "  Total      5.8583       1", "",
        " REML criterion = 404.68224",
    ]


def test_print_of_degenerate_and_undefined_results():
    # every rating equal: components 0 (both at the boundary), shares undefined (0 / 0 shown NA)
    x = np.full((5, 3), 2.0)
    x[0, 1] = np.nan
    lines = str(_quiet(x)).splitlines()
    assert lines[3] == "   ICC1   1 NA   4  10 NA        NA        NA"
    assert lines[-6:] == ["  ID              0      NA", "  Items           0      NA",
                          "  Residual        0      NA", "  Total           0      NA", "",
                          " REML criterion = NA; at 0: object, rater"]
    # exactly additive: every number NaN, shown NA as R shows NaN in a data frame of doubles
    x = np.add.outer(np.arange(6.0), np.array([0.0, 1.0, 3.0]))
    x[0, 0] = np.nan
    lines = str(_quiet(x)).splitlines()
    assert lines[2:4] == ["   type ICC  F df1 df2  p lower 95% upper 95%",
                          "   ICC1  NA NA   5  12 NA        NA        NA"]
    assert lines[-1] == " REML criterion = NA; NOT CONVERGED"


def test_two_objects_are_enough():
    # R: psych::ICC(y, lmer = TRUE)$results$ICC for y = rbind(c(1, 2, 4, 3), c(5, 5, 6, 9)); lme4
    # stops its optimiser at a relative 1e-7 of the optimum
    res = _quiet(np.array([[1.0, 2.0, 4.0, 3.0], [5.0, 5.0, 6.0, 9.0]]))
    np.testing.assert_allclose(res.value, [0.7083339012, 0.7174893645, 0.8205138021, 0.9066668993,
                                           0.9103842998, 0.9481484758], rtol=1e-5)


def test_the_warning_counts_empty_objects_and_raters():
    # R: psych::ICC(x, lmer = TRUE) with an empty row and an empty column: n.obs 6, n.judge 3,
    # ICC1 0.596737, ICC1k 0.816153 (lme4 leaves the rater variance at 2.3e-5, predstab at its 0)
    x = np.array([[1, 2, np.nan], [2, 4, np.nan], [3, 3.5, np.nan], [np.nan] * 3, [4, 4, np.nan],
                  [2, 1, np.nan]])
    with pytest.warns(PredstabDataWarning, match=r"has 1 object\(s\) and 1 rater\(s\) without any rating"):
        res = icc_reml(x)
    assert (res.n_objects, res.n_raters) == (6, 3)
    np.testing.assert_allclose(res.value[[0, 3]], [0.596737316781, 0.816153477661], rtol=1e-4)
