"""predstab.cohen_kappa, light_kappa and kappa_sample_size against irr 0.84.1 and psych 2.2.9.

Reference: validation/r-reference/agreement (generate.R there). Tolerance 1e-10 relative; p-values that
R computes as 2 * (1 - pnorm(|z|)) also 1e-12 absolute.
"""


import numpy as np
import pytest

from predstab import (
    PredstabDataWarning,
    PredstabDegenerateWarning,
    PredstabUndefinedWarning,
    cohen_kappa,
    kappa_sample_size,
    light_kappa,
)
from predstab._core._validation import InvalidParameterError
from validation.suites.irr import (
    IRR_WEIGHTS,
    expected,
    fce_variance,
    psych229_var_weighted,
    r_levels,
    r_num,
    read_case,
)

from .conftest import quiet

P_ATOL = 1e-12
K2 = [(c, i) for c, recs in expected("irr_kappa2").items() for i in range(len(recs))]
PSYCH = expected("psych_cohen_kappa")
LIGHT = expected("irr_kappam_light")


@pytest.mark.parametrize(("case", "i"), K2)
def test_matches_irr_kappa2(case, i):
    r = expected("irr_kappa2")[case][i]
    m = read_case(case)
    # R: kappa2(m, weight = r$weight, sort.levels = r$sort.levels); levels_order is the order kappa2 used
    res = quiet(cohen_kappa, m, weights=IRR_WEIGHTS[r["weight"]], categories=r_levels(m, r["levels_order"]))
    assert (res.n_objects, res.n_raters) == (r["subjects"], r["raters"])
    assert res.value == pytest.approx(r["value"], rel=1e-10)
    assert res.statistic == pytest.approx(r["statistic"], rel=1e-10)
    assert res.pvalue == pytest.approx(r["p.value"], rel=1e-10, abs=P_ATOL)
    if m.dtype != object or r["sort.levels"]:  # the default order is the sorted one
        assert quiet(cohen_kappa, m, weights=IRR_WEIGHTS[r["weight"]]).value == pytest.approx(
            r["value"], rel=1e-10
        )


@pytest.mark.parametrize("case", [c for c in PSYCH if "kappa" in PSYCH[c]])
def test_matches_psych_cohen_kappa_two_raters(case):
    r, m = PSYCH[case], read_case(case)
    # R: cohen.kappa(m)  (psych 2.2.9; default quadratic weights, alpha = .05)
    res = quiet(cohen_kappa, m, categories=r_levels(m, r["levels"]))
    assert res.n_objects == r["n.obs"]
    assert res.unweighted_kappa == pytest.approx(r["kappa"], rel=1e-10)
    assert res.weighted_kappa == pytest.approx(r["weighted.kappa"], rel=1e-10)
    assert res.unweighted_variance == pytest.approx(r["var.kappa"], rel=1e-10)
    ci = r["confid"]["unweighted kappa"]
    assert res.unweighted_confidence_interval.low == pytest.approx(ci["lower"], rel=1e-10)
    assert res.unweighted_confidence_interval.high == pytest.approx(ci["upper"], rel=1e-10)
    np.testing.assert_allclose(res.table, np.array(r["agree"]), rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.weight_matrix, np.array(r["weight"]), rtol=0, atol=1e-12)
    # the default levels are psych's here (no category only in incomplete objects)
    assert quiet(cohen_kappa, m).categories == res.categories
    # var.weighted: psych 2.2.9's own formula reproduces R ...
    table = res.table * res.n_objects
    assert psych229_var_weighted(table, res.weight_matrix) == pytest.approx(
        r["var.weighted"], rel=1e-10, abs=0
    )
    # ... predstab's is Fleiss, Cohen & Everitt (1969), which coincides for identity weights
    fce = fce_variance(res.table, res.weight_matrix, res.n_objects)
    assert res.weighted_variance == pytest.approx(fce, rel=1e-10)
    if np.allclose(res.weight_matrix, np.eye(len(r["levels"]))):
        assert res.weighted_variance == pytest.approx(r["var.weighted"], rel=1e-10)
        wci = r["confid"]["weighted kappa"]
        assert res.weighted_confidence_interval.low == pytest.approx(wci["lower"], rel=1e-10)
        assert res.weighted_confidence_interval.high == pytest.approx(wci["upper"], rel=1e-10)


@pytest.mark.parametrize("case", [c for c in PSYCH if "cohen.kappa" in PSYCH[c]])
def test_matches_psych_cohen_kappa_many_raters(case):
    r, m = PSYCH[case], read_case(case)
    # R: cohen.kappa(m): lower triangle unweighted, upper quadratic-weighted, pairwise NA deletion
    res = quiet(cohen_kappa, m)
    ck = np.array(r["cohen.kappa"], dtype=float)
    ours = np.tril(res.pairwise_unweighted, -1) + np.triu(res.pairwise_weighted, 1) + np.eye(len(ck))
    np.testing.assert_allclose(ours, ck, rtol=1e-10)
    assert res.unweighted_kappa == pytest.approx(r["av.kappa"], rel=1e-10)
    assert res.weighted_kappa == pytest.approx(r["av.wt"], rel=1e-10)
    assert res.value == res.unweighted_kappa
    assert quiet(cohen_kappa, m, weights="quadratic").value == pytest.approx(r["av.wt"], rel=1e-10)
    assert np.isnan(res.statistic) and np.isnan(res.variance)


def test_the_negative_psych_229_variance_is_a_real_variance_in_predstab():
    # psych 2.2.9 reports var.weighted = 0 ("bad") on o_25x2_na; FCE 1969 gives a positive variance
    r, m = PSYCH["o_25x2_na"], read_case("o_25x2_na")
    assert r["var.weighted"] == 0 and r["bad"] is True
    res = quiet(cohen_kappa, m, weights="quadratic")
    assert res.variance == pytest.approx(fce_variance(res.table, res.weight_matrix, res.n_objects), rel=1e-10)
    assert res.variance > 1e-4


def test_hand_computed_table():
    # 2 raters, 3 categories: table [[2,1,0],[0,2,0],[1,1,1]] / 8 (rows rater 1)
    ratings = [[1, 1], [1, 2], [2, 2], [3, 3], [3, 2], [1, 1], [2, 2], [3, 1]]
    p = np.array([[2, 1, 0], [0, 2, 0], [1, 1, 1]]) / 8
    rs, cs = p.sum(1), p.sum(0)
    po, pe = np.trace(p), rs @ cs
    res = cohen_kappa(ratings)
    assert res.value == pytest.approx((po - pe) / (1 - pe), rel=1e-14)
    w = 1 - np.abs(np.subtract.outer(range(3), range(3))) / 2
    pow_, pew = np.sum(w * p), rs @ w @ cs
    assert cohen_kappa(ratings, weights="linear").value == pytest.approx((pow_ - pew) / (1 - pew), rel=1e-14)
    assert cohen_kappa(ratings, weights=w).value == cohen_kappa(ratings, weights="linear").value
    # the interval is value -/+ z sqrt(variance) at the requested level
    res90 = cohen_kappa(ratings, confidence_level=0.9)
    assert res90.confidence_interval.high - res90.value == pytest.approx(
        1.6448536269514722 * res90.variance**0.5
    )


def test_text_labels_and_relabelling():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, size=(50, 2))
    x[:, 1] = np.where(rng.random(50) < 0.6, x[:, 0], x[:, 1])
    labels = np.array(["a", "b", "c"], dtype=object)[x]
    assert cohen_kappa(labels).value == pytest.approx(cohen_kappa(x).value, rel=1e-14)
    assert cohen_kappa(labels, weights="quadratic").value == pytest.approx(
        cohen_kappa(x, weights="quadratic").value, rel=1e-14
    )


def test_missing_ratings_are_dropped_pairwise_with_a_warning():
    x = np.array([[1, 1], [2, 2], [1, np.nan], [2, 1], [1, 1]])
    with pytest.warns(PredstabDataWarning, match="missing"):
        res = cohen_kappa(x)
    assert res.value == cohen_kappa(x[[0, 1, 3, 4]]).value and res.n_objects == 4


def test_one_category_follows_the_convention():
    with pytest.warns(PredstabDegenerateWarning):
        assert cohen_kappa([[1, 1], [1, 1], [1, 1]]).value == 1.0  # irr, psych: NaN


def test_result_convention():
    res = cohen_kappa(read_case("o_30x2"), weights="quadratic")
    assert str(res).splitlines()[0] == " Cohen's Kappa for 2 Raters (Weights: quadratic)"
    assert "   Raters = 2" in str(res) and "  p-value = 1.28e-05" in str(res)
    assert len(repr(res)) < 300 and res == cohen_kappa(read_case("o_30x2"), weights="quadratic")
    frame = res.to_frame()
    assert frame.loc[0, "ci_low"] == res.confidence_interval.low and frame.loc[0, "value"] == res.value


@pytest.mark.parametrize("case", sorted(LIGHT))
def test_matches_irr_kappam_light(case):
    r = LIGHT[case]
    res = quiet(light_kappa, read_case(case))  # R: kappam.light(m)
    assert res.n_objects == r["subjects"] and res.n_raters == r["raters"]
    assert res.value == pytest.approx(r["value"], rel=1e-10)
    if r.get("r_warnings"):  # R: 'NaNs produced' (negative variance): matched, with a warning here
        assert np.isnan(r_num(r["statistic"])) and np.isnan(res.statistic) and np.isnan(res.pvalue)
        with pytest.warns(PredstabUndefinedWarning):
            light_kappa(read_case(case))
    else:
        assert res.statistic == pytest.approx(r["statistic"], rel=1e-10)
        assert res.pvalue == pytest.approx(r["p.value"], rel=1e-10, abs=P_ATOL)


def test_light_kappa_is_the_mean_of_pairwise_cohen_kappa():
    m = quiet(read_case, "c_3cat_40x10")
    pairs = [cohen_kappa(m[:, [a, b]]).value for a in range(10) for b in range(a + 1, 10)]
    assert light_kappa(m).value == pytest.approx(np.mean(pairs), rel=1e-14)


@pytest.mark.parametrize("i", range(10))
def test_matches_irr_n_cohen_kappa(i):
    r = expected("irr_N_cohen_kappa")[i]
    # R: N.cohen.kappa(rate1, rate2, k1, k0, alpha, power, twosided)
    res = kappa_sample_size(
        r["k1"],
        r["k0"],
        rate1=r["rate1"],
        rate2=r["rate2"],
        significance=r["alpha"],
        power=r["power"],
        two_sided=r["twosided"],
    )
    assert res.n_objects == r["N"]


@pytest.mark.parametrize("i", range(10))
def test_matches_irr_n2_cohen_kappa(i):
    r = expected("irr_N2_cohen_kappa")[i]
    # R: N2.cohen.kappa(mrg, k1, k0, alpha, power, twosided)
    res = kappa_sample_size(
        r["k1"], r["k0"], marginals=r["mrg"], significance=r["alpha"], power=r["power"],
        two_sided=r["twosided"]
    )
    assert res.n_objects == r["N"]


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: cohen_kappa([[1, 2], [2, 1]], weights="squared"), "weights"),
        (lambda: cohen_kappa([[1, 2], [2, 1]], weights=np.eye(3)), "weights"),
        (lambda: cohen_kappa([[1, 2], [2, 1]], confidence_level=1.5), "confidence_level"),
        (lambda: cohen_kappa([[1, 2], [2, 1]], categories=[1]), "categories"),
        (lambda: cohen_kappa([[1], [2]]), "ratings"),
        (lambda: light_kappa([[1, 2, np.inf], [2, 1, 1]]), "ratings"),
        (lambda: kappa_sample_size(0.5, 0.5, rate1=0.5, rate2=0.5), "kappa1"),
        (lambda: kappa_sample_size(1.5, 0.5, rate1=0.5, rate2=0.5), "kappa1"),
        (lambda: kappa_sample_size(0.6, 0.4, marginals=[0.5, 0.4]), "marginals"),
        (lambda: kappa_sample_size(0.6, 0.4), "rate1"),
        (lambda: kappa_sample_size(0.6, 0.4, rate1=0.5, rate2=0.5, significance=0), "significance"),
        (lambda: kappa_sample_size(0.6, 0.4, rate1=0.5, rate2=0.5, two_sided="yes"), "two_sided"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises((ValueError, TypeError, InvalidParameterError), match=f"`{name}`"):
        call()


_X = np.where(
    np.random.default_rng(3).random((40, 2)) < 0.7, [[1]], np.random.default_rng(4).integers(1, 4, (40, 2))
)
_X[:3] = [[1, 2], [2, 3], [3, 3]]
# invalid values of every declared parameter: tests/test_param_registry.py (one table for all)


def test_swapping_raters_and_permuting_objects_changes_nothing():
    perm = np.random.default_rng(0).permutation(len(_X))
    for weights in (None, "linear", "quadratic"):
        a = cohen_kappa(_X, weights=weights)
        for b in (cohen_kappa(_X[:, ::-1], weights=weights), cohen_kappa(_X[perm], weights=weights)):
            assert b.value == pytest.approx(a.value, rel=1e-12)
            assert b.variance == pytest.approx(a.variance, rel=1e-10)
            assert b.statistic == pytest.approx(a.statistic, rel=1e-10)


@pytest.mark.parametrize("case", ["o_30x2", "o_40x2_gap", "c_3cat_50x2_unused", "o_25x2_na", "c_str_45x2"])
@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_weighted_variances_match_statsmodels(case, weights):
    # an independent implementation of Fleiss, Cohen & Everitt (1969): the variance predstab uses where
    # psych 2.2.9 differs (statsmodels.stats.inter_rater.cohens_kappa on the same table)
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    res = quiet(cohen_kappa, read_case(case), weights=weights)
    ref = inter_rater.cohens_kappa(res.table * res.n_objects, wt=weights)
    assert res.value == pytest.approx(ref.kappa, rel=1e-12)
    assert res.variance == pytest.approx(ref.var_kappa, rel=1e-10)
    assert res.null_variance == pytest.approx(ref.var_kappa0, rel=1e-10)
