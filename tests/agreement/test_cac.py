"""irrCAC's coefficients: percent_agreement, gwet_ac1, brennan_prediger, conger_kappa and the
weighted fleiss_kappa / krippendorff_alpha, from raw ratings and count tables; the weights."""

import warnings

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab import (
    PredstabDataWarning,
    PredstabDegenerateWarning,
    PredstabUndefinedWarning,
    brennan_prediger,
    conger_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
)
from predstab._core._validation import InvalidParameterError
from predstab.agreement import _weights as W
from predstab.agreement._cac_tables import given_categories, read_count_table
from validation.suites.cac import FUNCTIONS, r_round_text, r_text, read_case, records, run

RECORDS = [(key, case, rec) for key in FUNCTIONS for case, rec in records(key)]
IDS = [f"{FUNCTIONS[k][0]}-{c}-{r['weights']}" for k, c, r in RECORDS]
RTOL = 1e-10


# --------------------------------------------------------------------------- R records
@pytest.mark.parametrize(("key", "case", "rec"), RECORDS, ids=IDS)
def test_every_irrcac_record(key, case, rec):
    # R: irrCAC::<fn>.raw(x, weights = w)$est (irrCAC 1.0); *.exact: same code with round() the identity
    res = run(key, case, rec)
    assert res.value == pytest.approx(rec["coeff"], rel=RTOL)
    assert res.pa == pytest.approx(rec["pa"], rel=RTOL)  # .observed for all but alpha (D_o there)
    assert res.pe == pytest.approx(rec["pe"], rel=RTOL, abs=1e-15)
    assert res.standard_error == pytest.approx(rec["coeff.se.exact"], rel=RTOL)
    assert res.confidence_interval.low == pytest.approx(rec["conf.int.exact"][0], rel=RTOL)
    assert res.confidence_interval.high == pytest.approx(rec["conf.int.exact"][1], rel=RTOL)
    assert res.pvalue == pytest.approx(rec["p.value"], abs=1e-12)  # R: 2 * (1 - pt(|t|, df))
    # the rounded fields, after rounding as irrCAC does
    if "coeff.val" in rec["rounded"]:
        assert round(res.value, 5) == pytest.approx(rec["coeff.val"], abs=1e-12)
    else:  # pa.coeff.raw returns pa unrounded
        assert res.value == pytest.approx(rec["coeff.val"], rel=RTOL)
    assert round(res.standard_error, 5) == pytest.approx(rec["coeff.se"], abs=1e-12)
    ci = res.confidence_interval
    assert f"({r_round_text(ci.low)},{r_round_text(ci.high)})" == rec["conf.int"]
    assert res.coefficient == rec["coeff.name"]
    assert res.weights == rec["w.name"]
    assert [r_text(c).upper() for c in res.categories] == rec["categories"]
    np.testing.assert_allclose(res.weight_matrix, np.asarray(rec["weights.matrix"], float), rtol=0,
                               atol=1e-15)


# --------------------------------------------------------------------------- count tables
def count_table(x, categories):
    """Objects x categories counts built independently of predstab (pandas)."""
    long = x.reset_index().melt(id_vars="index").dropna()
    return pd.crosstab(long["index"], long["value"]).reindex(columns=categories, fill_value=0).to_numpy()


COUNT_KEYS = [k for k in FUNCTIONS if k != "conger_kappa"]
COUNT_CASES = sorted({(k, c, r["weights"]) for k, c, r in RECORDS if k in COUNT_KEYS})


@pytest.mark.parametrize(("key", "case", "weights"), COUNT_CASES)
def test_count_table_of_the_raw_ratings_gives_the_same_numbers(key, case, weights):
    raw = run(key, case, {"weights": weights})
    cats = list(raw.categories)
    table = count_table(read_case(case), cats)
    if key == "fleiss_kappa":
        res = fleiss_kappa(table, counts=True, weights=weights)
    elif key == "krippen_alpha":
        res = krippendorff_alpha(table, counts=True, weights=weights, categories=cats)
    else:
        func = {"pa_coeff": percent_agreement, "gwet_ac1": gwet_ac1, "bp_coeff": brennan_prediger}[key]
        res = func(table, counts=True, weights=weights, categories=cats)
    # irrCAC's krippen.alpha.dist linearises alpha's variance otherwise than krippen.alpha.raw (its
    # standard error, interval and p-value: tests/agreement/test_cac_dist.py, against R); the
    # coefficient itself is the same
    inference = key != "krippen_alpha"
    fields = ("value", "observed", "expected") + (("standard_error", "pvalue") if inference else ())
    for field in fields:
        assert getattr(res, field) == pytest.approx(getattr(raw, field), rel=1e-12, abs=1e-15), field
    if inference:
        np.testing.assert_allclose(res.confidence_interval, raw.confidence_interval, rtol=1e-12)


def test_statsmodels_aggregate_raters_layout():
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    x = read_case("c_3cat_40x10").to_numpy()
    table, cats = inter_rater.aggregate_raters(x)
    for func in (gwet_ac1, brennan_prediger, percent_agreement):
        assert func(table, counts=True).value == pytest.approx(func(x).value, rel=1e-12)
    assert fleiss_kappa(table, counts=True).value == pytest.approx(fleiss_kappa(x).value, rel=1e-12)
    # statsmodels' own Fleiss' kappa on its table: the same number (complete data)
    assert fleiss_kappa(table, counts=True).value == pytest.approx(inter_rater.fleiss_kappa(table), rel=1e-12)


# Fleiss (1971): 6 psychiatrists, 15 patients, 5 diagnoses; irrCAC's distrib.6raters. Expected values
# from irrCAC's README (gwet.ac1.dist(distrib.6raters) etc.). Its p-values are one-sided: irrCAC
# switched to 1 - pt(t, n - 1) in November 2021, after 1.0 (two-sided, as predstab).
DISTRIB_6RATERS = np.array([
    [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0], [2, 0, 4, 0, 0],
    [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6], [1, 0, 0, 5, 0], [1, 1, 0, 4, 0],
    [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1]])


@pytest.mark.parametrize(("func", "coeff", "se", "ci", "p_one_sided", "pe"), [
    (gwet_ac1, 0.4448007, 0.08418757, (0.264, 0.625), 5.779637e-05, 0.1914815),
    (lambda t, **k: fleiss_kappa(t, **k), 0.4139265, 0.08119291, (0.24, 0.588), 8.113618e-05, 0.2340741),
    (brennan_prediger, 0.4388889, 0.08312142, (0.261, 0.617), 5.814998e-05, 0.2),
], ids=["gwet.ac1.dist", "fleiss.kappa.dist", "bp.coeff.dist"])
def test_published_count_table_example(func, coeff, se, ci, p_one_sided, pe):
    res = func(DISTRIB_6RATERS, counts=True)
    assert res.value == pytest.approx(coeff, abs=5e-8)  # printed to 7 significant digits
    assert res.standard_error == pytest.approx(se, abs=5e-9)
    assert res.observed == pytest.approx(0.5511111, abs=5e-8)
    assert res.expected == pytest.approx(pe, abs=5e-8)
    assert tuple(round(v, 3) for v in res.confidence_interval) == ci
    assert res.pvalue / 2 == pytest.approx(p_one_sided, rel=1e-6)


def test_published_krippendorff_count_table_value():
    # krippen.alpha.dist(distrib.6raters): 0.4204384, pa 0.5560988, pe 0.2340741. Its standard error
    # (0.08243228) comes from a variance formula of its own that differs from krippen.alpha.raw's; predstab
    # uses the .raw formulas for both inputs, so that a count table gives what its raw ratings give.
    res = krippendorff_alpha(DISTRIB_6RATERS, counts=True)
    expected = (0.4204384, 0.5560988, 0.2340741)
    assert (res.value, res.pa, res.pe) == pytest.approx(expected, abs=5e-8)


# Gwet's Handbook, 4th ed.: irrCAC's cac.raw4raters (12 subjects, 4 raters, missing ratings)
NAN = np.nan
RAW4RATERS = np.array([[1, 1, NAN, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
                       [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [NAN, 5, 5, 5], [NAN, NAN, 1, 1],
                       [NAN, NAN, 3, NAN]])


@pytest.mark.parametrize(("func", "coeff", "se", "pe"), [
    (percent_agreement, 0.8181818, 0.12561, 0.0),
    (gwet_ac1, 0.77544, 0.14295, 0.1903212),
    (lambda x: fleiss_kappa(x, weights="unweighted"), 0.76117, 0.15302, 0.2387153),
], ids=["pa.coeff.raw", "gwet.ac1.raw", "fleiss.kappa.raw"])
def test_published_raw_example(func, coeff, se, pe):
    # irrCAC README: pa.coeff.raw(cac.raw4raters) etc.; coeff.val and coeff.se rounded to 5 decimals
    res = func(RAW4RATERS)
    assert res.value == pytest.approx(coeff, abs=5e-6)
    assert res.standard_error == pytest.approx(se, abs=5e-6)
    assert res.expected == pytest.approx(pe, abs=5e-8)
    assert res.observed == pytest.approx(0.8181818, abs=5e-8)
    assert res.confidence_interval.high == 1.0  # capped at 1, as irrCAC's "(0.461,1)"


def test_irrcac_krippendorff_equals_the_canonical_nominal_alpha():
    # Gwet's formulation of alpha, with identity weights, is Krippendorff's alpha (missing data included)
    for x in (RAW4RATERS, read_case("c_4cat_30x6_na"), read_case("o_25x6_na")):
        assert krippendorff_alpha(x, weights="unweighted").value == pytest.approx(krippendorff_alpha(x).value,
                                                                                  rel=1e-12)
    assert krippendorff_alpha(RAW4RATERS, weights="unweighted").value == pytest.approx(0.74342, abs=5e-6)


def test_irrcac_fleiss_equals_irr_fleiss_on_complete_data():
    x = read_case("c_3cat_40x10")
    assert fleiss_kappa(x, weights="unweighted").value == pytest.approx(fleiss_kappa(x).value, rel=1e-12)


# --------------------------------------------------------------------------- weights
CATS = [1.0, 2.0, 4.0]


def test_weight_families_by_hand():
    x = np.array(CATS)
    d = x[:, None] - x[None, :]
    s = x[:, None] + x[None, :]
    np.testing.assert_allclose(W.linear_weights(CATS), 1 - np.abs(d) / 3)
    np.testing.assert_allclose(W.quadratic_weights(CATS), 1 - d**2 / 9)
    np.testing.assert_allclose(W.radical_weights(CATS), 1 - np.sqrt(np.abs(d)) / np.sqrt(3))
    np.testing.assert_allclose(W.ratio_weights(CATS), 1 - (d / s) ** 2 / (3 / 5) ** 2)
    circ = np.sin(np.pi * d / 4) ** 2
    np.testing.assert_allclose(W.circular_weights(CATS), 1 - circ / circ.max())
    with np.errstate(invalid="ignore"):  # 0/0 on the diagonal (1,1) and (4,4): set to 0 below
        bip = d**2 / ((s - 2) * (8 - s))
    np.fill_diagonal(bip, 0)
    np.testing.assert_allclose(W.bipolar_weights(CATS), 1 - bip / bip.max())
    # ordinal: positions only, n_kl = |k - l| + 1, o = n(n-1)/2 = 0, 1, 3
    np.testing.assert_allclose(W.ordinal_weights(CATS), 1 - np.array([[0, 1, 3], [1, 0, 1], [3, 1, 0]]) / 3)
    np.testing.assert_array_equal(W.identity_weights(CATS), np.eye(3))


def test_text_categories_use_positions_and_numbers_are_sorted():
    np.testing.assert_allclose(W.linear_weights(["lo", "mid", "hi"]), W.linear_weights([1, 2, 3]))
    np.testing.assert_allclose(W.quadratic_weights([4, 1, 2]), W.quadratic_weights([1, 2, 4]))


def test_user_matrix_equals_the_family_it_spells():
    x = read_case("o_40x4")
    lin = gwet_ac1(x, weights="linear")
    assert gwet_ac1(x, weights=lin.weight_matrix.tolist()).value == pytest.approx(lin.value, rel=1e-15)
    assert gwet_ac1(x, weights=lin.weight_matrix).weights == "custom"


@pytest.mark.parametrize("family", ["radical", "ratio", "circular", "bipolar", "ordinal"])
def test_every_family_runs_through_every_coefficient(family):
    # the coefficients depend on the weights only through W: a user matrix gives the same numbers
    x = read_case("o_25x6_na")
    for func in (gwet_ac1, brennan_prediger, conger_kappa, percent_agreement):
        a, b = func(x, weights=family), func(x, weights=W.WEIGHT_FAMILIES[family]([1, 2, 3, 4, 5]))
        assert (a.value, a.standard_error) == pytest.approx((b.value, b.standard_error), rel=1e-15)


def test_ordered_categorical_orders_the_weights():
    x = read_case("o_40x4").to_numpy().astype(int)
    names = np.array(["none", "low", "mid", "high", "max"])
    dtype = pd.CategoricalDtype(list(names), ordered=True)
    frame = pd.DataFrame(names[x - 1]).astype(dtype)
    expected = gwet_ac1(x, weights="quadratic").value
    assert gwet_ac1(frame, weights="quadratic").value == pytest.approx(expected, rel=1e-14)
    assert gwet_ac1(names[x - 1], weights="quadratic", categories=list(names)).value == pytest.approx(
        expected, rel=1e-14)


def test_unused_categories_count_in_chance_agreement():
    # irrCAC's categ.labels: a category nobody used raises q, hence AC1's and BP's pe
    x = read_case("c_bin_40x2").to_numpy()
    res = brennan_prediger(x, categories=[0, 1, 2])
    assert res.expected == pytest.approx(1 / 3)
    table = np.column_stack([count_table(pd.DataFrame(x), [0, 1]), np.zeros(len(x), int)])
    assert res.value == pytest.approx(brennan_prediger(table, counts=True).value, rel=1e-14)


# --------------------------------------------------------------------------- data conventions
def test_objects_without_any_rating_are_left_out_with_a_warning():
    x = RAW4RATERS
    with_empty = np.vstack([x, [NAN] * 4])
    with pytest.warns(PredstabDataWarning, match="no rating"):
        res = gwet_ac1(with_empty)
    assert res == gwet_ac1(x)


def test_text_labels_and_missing_values():
    x = read_case("c_str_45x2")
    res = gwet_ac1(x)
    assert res.categories == ("cat", "dog", "fox", "owl")
    codes = x.replace({"cat": 1, "dog": 2, "fox": 3, "owl": 4}).astype(float)
    assert res.value == pytest.approx(gwet_ac1(codes).value, rel=1e-14)


@pytest.mark.parametrize("weights", [None, "linear", "ordinal", "circular"])
def test_one_category_is_perfect_agreement_with_a_warning(weights):
    # irrCAC: pe = 1e-15 and, for weighted forms, 0/0 weights (NaN); predstab's convention: 1
    with pytest.warns(PredstabDegenerateWarning):
        res = gwet_ac1(np.ones((5, 3)), weights=weights)
    assert res.value == 1.0
    assert np.isnan(res.standard_error)
    assert np.isnan(res.confidence_interval.low) and np.isnan(res.confidence_interval.high)
    np.testing.assert_array_equal(res.weight_matrix, [[1.0]])
    assert (res.n_objects, res.df, res.n_raters, res.n_ratings) == (5, 4, 3, 15)
    pa = percent_agreement(np.ones((5, 3)), weights=weights)  # pa = 1: no degenerate ratio
    assert (pa.value, pa.expected, pa.n_objects, pa.df) == (1.0, 0.0, 5, 4) and np.isnan(pa.standard_error)


def test_perfect_agreement_has_zero_standard_error():
    x = np.repeat(np.arange(6) % 3, 3).reshape(6, 3)
    res = conger_kappa(x)
    assert (res.value, res.standard_error, res.pvalue) == (1.0, 0.0, 0.0)  # R: t = Inf, p = 0


def test_confidence_level():
    x = read_case("o_60x3")
    a, b = gwet_ac1(x), gwet_ac1(x, confidence_level=0.9)
    from scipy import stats
    half = b.standard_error * stats.t.ppf(0.95, b.df)
    assert b.confidence_interval.low == pytest.approx(a.value - half, rel=1e-14)
    assert b.confidence_level == 0.9


# --------------------------------------------------------------------------- result convention
def test_result_convention():
    res = gwet_ac1(read_case("c_4cat_30x6_na"), weights="linear")
    text = str(res)
    assert text.splitlines()[0] == " AC2 for 6 raters (irrCAC::gwet.ac1.raw)"
    assert "p-value = 1.997e-07" in text
    assert len(repr(res)) < 300
    frame = res.to_frame()
    assert frame.loc[0, "ci_low"] == res.confidence_interval.low
    assert (res.pa, res.pe) == (res.observed, res.expected)
    assert res == gwet_ac1(read_case("c_4cat_30x6_na"), weights="linear")
    assert res != gwet_ac1(read_case("c_4cat_30x6_na"))


def test_irr_fleiss_kappa_unchanged_without_weights():
    # one result type for both R definitions; irr's fields without weights, irrCAC's added with them
    x = read_case("c_3cat_40x10")
    irr, cac = fleiss_kappa(x), fleiss_kappa(x, weights="unweighted")
    assert type(irr).__name__ == type(cac).__name__ == "FleissKappaResult"
    assert type(fleiss_kappa(x, weights="linear")).__name__ == "FleissKappaResult"
    assert irr.standard_error is None and irr.weights is None and irr.confidence_interval is None
    assert cac.standard_error > 0 and cac.weights == "unweighted" and cac.df == x.shape[0] - 1
    # complete ratings: irr's kappam.fleiss and irrCAC's fleiss.kappa.raw are the same kappa
    assert not np.isnan(x.to_numpy(dtype=float)).any()
    assert cac.value == pytest.approx(irr.value, rel=1e-12)
    assert (cac.pa, cac.pe) == pytest.approx((irr.observed, irr.expected), rel=1e-12)
    assert cac.statistic == pytest.approx(cac.value / cac.standard_error, rel=1e-15)


def test_krippendorff_alpha_one_result_type_and_one_engine():
    # irrCAC's krippen.alpha.raw is alpha with delta = 1 - w: unweighted it is nominal alpha, and with
    # quadratic weights over the values used, interval alpha (the difference functions are proportional)
    x = read_case("c_3cat_40x10").to_numpy(dtype=float)
    x[::7, 3] = np.nan
    nominal, unweighted = krippendorff_alpha(x), krippendorff_alpha(x, weights="unweighted")
    interval, quadratic = krippendorff_alpha(x, scale="interval"), krippendorff_alpha(x, weights="quadratic")
    types = {type(r).__name__ for r in (nominal, unweighted, interval, quadratic)}
    assert types == {"KrippendorffAlphaResult"}
    assert unweighted.value == pytest.approx(nominal.value, rel=1e-12)
    assert (unweighted.observed, unweighted.expected) == pytest.approx((nominal.observed, nominal.expected),
                                                                        rel=1e-12)
    assert quadratic.value == pytest.approx(interval.value, rel=1e-12)
    # irrCAC's pa and pe are 1 - (1 - 1/n) D_o and 1 - (1 - 1/n) D_e over the n pairable values
    n = unweighted.n_values
    assert unweighted.pa == pytest.approx(1 - (1 - 1 / n) * unweighted.observed, rel=1e-12)
    assert unweighted.pe == pytest.approx(1 - (1 - 1 / n) * unweighted.expected, rel=1e-12)
    assert nominal.standard_error is None and unweighted.standard_error > 0


# --------------------------------------------------------------------------- bad input
X = [[1, 2], [2, 2], [1, 1]]


@pytest.mark.parametrize("func", [percent_agreement, gwet_ac1, brennan_prediger, conger_kappa])
@pytest.mark.parametrize(("kwargs", "name"), [
    ({"weights": "cubic"}, "weights"), ({"weights": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "weights"),
    ({"confidence_level": 1.5}, "confidence_level"), ({"counts": "yes"}, "counts"),
    ({"categories": [1]}, "categories"), ({"categories": "12"}, "categories"),
])
def test_bad_parameters_name_the_parameter(func, kwargs, name):
    with pytest.raises((ValueError, TypeError), match=f"`{name}`"):
        func(X, **kwargs)


def test_bad_ratings_name_the_parameter():
    with pytest.raises(ValueError, match="`ratings`"):
        gwet_ac1([1, 2, 3])
    with pytest.raises(ValueError, match="`ratings`"):
        gwet_ac1([[1, -1], [2, 0]], counts=True)
    with pytest.raises(ValueError, match="`ratings`"):
        gwet_ac1([[np.nan, np.nan], [np.nan, np.nan]])
    with pytest.raises(ValueError, match="`counts`"):
        conger_kappa([[1, 2], [3, 0]], counts=True)
    with pytest.raises(ValueError, match="`categories`"):
        gwet_ac1([[1, 2], [3, 0]], counts=True, categories=[1, 2, 3])


def test_fleiss_and_krippendorff_options_that_do_not_mix():
    with pytest.raises(ValueError, match="`exact`"):
        fleiss_kappa(X, weights="linear", exact=True)
    with pytest.raises(ValueError, match="`scale`"):
        krippendorff_alpha(X, weights="linear", scale="ordinal")
    with pytest.raises(InvalidParameterError, match="`weights`"):
        fleiss_kappa(X, weights="cubic")


def test_no_warning_on_ordinary_data():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gwet_ac1(read_case("o_40x4"), weights="quadratic")


@pytest.mark.parametrize("missing", [False, True])
def test_many_categories_count_by_scatter_as_by_comparison(missing):
    # raters x categories > 256: the count table is built with np.bincount instead of comparisons
    rng = np.random.default_rng(5)
    x = rng.integers(0, 40, size=(200, 10)).astype(float)
    x[:, 1] = x[:, 0]  # some agreement
    if missing:
        x[rng.random(x.shape) < 0.1] = np.nan
    cats = np.unique(x[~np.isnan(x)])
    table = count_table(pd.DataFrame(x), list(cats))
    for weights in (None, "quadratic"):
        raw = gwet_ac1(x, weights=weights)
        res = gwet_ac1(table, counts=True, weights=weights, categories=cats)
        assert (raw.value, raw.standard_error) == pytest.approx((res.value, res.standard_error), rel=1e-12)
        # Conger's chance agreement from each rater's category proportions, by hand (Conger 1980)
        conger = conger_kappa(x, weights=weights)
        p = np.array([[np.mean(x[~np.isnan(x[:, g]), g] == c) for c in cats] for g in range(x.shape[1])])
        w = conger.weight_matrix
        s2 = np.cov(p, rowvar=False)  # between-rater covariance of the proportions (n - 1)
        pe = np.sum(w * (np.outer(p.mean(0), p.mean(0)) - s2 / x.shape[1]))
        assert conger.expected == pytest.approx(pe, rel=1e-12)


def _irrcac_ac1_by_hand(x):
    """Gwet's AC1 and its variance for complete ratings (Gwet 2008, eqs. 17-19; irrCAC's gwet.ac1.raw)."""
    x = np.asarray(x)
    n, r = x.shape
    cats = np.unique(x)
    q = len(cats)
    n_ik = np.stack([(x == c).sum(axis=1) for c in cats], axis=1)
    pa_i = (n_ik * (n_ik - 1)).sum(axis=1) / (r * (r - 1))
    pi = n_ik.mean(axis=0) / r
    pe = np.sum(pi * (1 - pi)) / (q - 1)
    pa = pa_i.mean()
    ac1 = (pa - pe) / (1 - pe)
    pe_i = (n_ik * (1 - pi)).sum(axis=1) / (r * (q - 1))
    x_i = (pa_i - pe) / (1 - pe) - 2 * (1 - ac1) * (pe_i - pe) / (1 - pe)
    return ac1, np.sum((x_i - ac1) ** 2) / (n * (n - 1)) if n > 1 else np.nan


@pytest.mark.parametrize(("n_raters", "span", "offset"), [(2, 5, 0), (10, 5, -3), (127, 2, 10**12),
                                                          (128, 2, 0), (200, 1, 7), (256, 1, 0)])
def test_integer_ratings_counted_by_comparison_as_labels_are(n_raters, span, offset):
    # integer ratings in a small range take the comparison count (int8 table below 128 raters, int16
    # from 128); the same ratings as text labels are factorised and counted by the general path
    rng = np.random.default_rng(n_raters)
    truth = rng.integers(0, span, size=(60, 1))
    x = offset + np.where(rng.random((60, n_raters)) < 0.6, truth, rng.integers(0, span, size=(60, n_raters)))
    x[0] = x[0, 0]  # a unanimous object: a count of n_raters
    labels = x.astype(str).astype(object)
    cats = np.unique(x)
    for func in (percent_agreement, gwet_ac1, brennan_prediger, conger_kappa):
        for weights in (None, "quadratic"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PredstabDegenerateWarning)
                fast = func(x, weights=weights)
                general = func(labels, weights=weights, categories=cats.astype(str))
            assert fast.categories == tuple(cats.tolist())
            assert fast.n_ratings == general.n_ratings == x.size
            for field in ("value", "standard_error", "observed", "expected"):
                assert getattr(fast, field) == pytest.approx(getattr(general, field), rel=1e-12, abs=1e-14,
                                                             nan_ok=True)
    if span >= 2:
        ac1, var = _irrcac_ac1_by_hand(x)
        res = gwet_ac1(x)
        assert (res.value, res.standard_error) == pytest.approx((ac1, np.sqrt(var)), rel=1e-13)


def test_boolean_ratings_counted_by_comparison():
    x = np.array([[True, True, False], [False, False, False], [True, True, True], [True, False, True]])
    res = gwet_ac1(x)
    assert res.categories == (False, True) and all(type(c) is bool for c in res.categories)
    assert all(type(c) is int for c in gwet_ac1(x.astype(np.int16)).categories)  # not floats
    assert res.value == pytest.approx(gwet_ac1(x.astype(int)).value, rel=1e-15)


def test_two_objects_and_one_object():
    # the smallest samples: with 2 objects the t distribution has 1 degree of freedom; with 1 there
    # is no variance, interval or p-value (irrCAC: NaN)
    from scipy import stats

    two = np.array([[1, 1, 2], [2, 2, 2]])
    ac1, var = _irrcac_ac1_by_hand(two)
    res = gwet_ac1(two)
    assert (res.value, res.standard_error) == pytest.approx((ac1, np.sqrt(var)), rel=1e-13)
    half = np.sqrt(var) * stats.t.ppf(0.975, 1)
    assert tuple(res.confidence_interval) == pytest.approx((ac1 - half, min(1.0, ac1 + half)), rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(ac1) / np.sqrt(var), 1), rel=1e-12)
    assert (res.n_objects, res.df) == (2, 1)
    pa = percent_agreement(two)
    assert pa.standard_error == pytest.approx(np.sqrt(np.var([1 / 3, 1.0], ddof=1) / 2), rel=1e-13)
    one = gwet_ac1(np.array([[1, 1, 2]]))
    assert one.value == pytest.approx(_irrcac_ac1_by_hand([[1, 1, 2]])[0], rel=1e-14)
    assert np.isnan(one.standard_error) and np.isnan(one.pvalue) and (one.n_objects, one.df) == (1, 0)
    assert isinstance(one.confidence_interval, tuple) and np.isnan(one.confidence_interval).all()
    assert np.isnan(percent_agreement(np.array([[1, 1, 2]])).standard_error)


def test_ac1_by_hand_with_more_objects():
    rng = np.random.default_rng(8)
    x = np.where(rng.random((30, 4)) < 0.5, 2, rng.integers(1, 4, size=(30, 4)))
    ac1, var = _irrcac_ac1_by_hand(x)
    res = gwet_ac1(x)
    assert (res.value, res.standard_error) == pytest.approx((ac1, np.sqrt(var)), rel=1e-13)


def test_conger_leaves_out_an_unrated_object_with_its_codes():
    x = np.array([[1, 2, 2], [2, 2, 3], [1, 1, 1], [3, 3, 2], [1, 2, 1]], dtype=float)
    with_empty = np.insert(x, 1, np.nan, axis=0)  # an object nobody rated, before others
    with pytest.warns(PredstabDataWarning, match="1 of 6 objects have no rating"):
        res = conger_kappa(with_empty, weights="linear")
    assert res == conger_kappa(x, weights="linear")


@pytest.mark.parametrize("counts", [False, True])
def test_result_fields_and_print_with_r_numbers(counts):
    # irrCAC's gwet.ac1.raw / .dist summary, with R's numbers (an irrCAC 1.0 record):
    # signif 5 for pa, pe, the coefficient and its se, 4 for the interval and the p-value
    key = "gwet_ac1"
    # the first record whose pa, interval and p-value all have more digits than printed
    case, rec = next((c, r) for c, r in records(key) if r["weights"] == "unweighted" and all(
        f"{v:.6g}" != f"{v:.5g}" for v in (r["pa"], r["pe"], r["p.value"], *r["conf.int.exact"])))
    x = read_case(case)
    ratings = count_table(x, list(run(key, case, rec).categories)) if counts else x
    res = gwet_ac1(ratings, counts=counts) if counts else run(key, case, rec)
    present = x.notna().to_numpy()
    n = int(present.any(axis=1).sum())
    r = int(present.sum(axis=1).max()) if counts else x.shape[1]  # a count table: the largest row total
    assert (res.n_objects, res.n_raters, res.n_ratings, res.df) == (n, r, int(present.sum()), n - 1)
    assert (res.coefficient, res.weights) == (rec["coeff.name"], rec["w.name"])
    low, high = rec["conf.int.exact"]
    function = "irrCAC::gwet.ac1." + ("dist" if counts else "raw")
    expected = [f" AC1 for {r} raters ({function})", ""] + [
        f" {label:>22} = {value}" for label, value in [
            ("Subjects", n), ("Raters", r), ("Weights", "unweighted"),
            ("Percent agreement (pa)", f"{rec['pa']:.5g}"), ("Chance agreement (pe)", f"{rec['pe']:.5g}"),
            ("AC1", f"{rec['coeff']:.5g}"), ("Standard error", f"{rec['coeff.se.exact']:.5g}"),
            ("95% CI", f"({low:.4g}, {high:.4g})"), ("p-value", f"{rec['p.value']:.4g}")]]
    assert str(res).splitlines() == expected


def test_ac2_is_named_by_its_weights():
    # irrCAC: AC1 when the weights sum to q (identity; quadratic weights on two categories are), else AC2
    x = np.array([[1, 2], [2, 2], [1, 1], [2, 1], [2, 2]])
    assert gwet_ac1(x, weights="quadratic").coefficient == "AC1"
    custom = gwet_ac1(x, weights=np.array([[1.0, 0.5], [0.5, 1.0]]))
    assert (custom.weights, custom.coefficient) == ("custom", "AC2")
    x[0, 0] = 3
    assert gwet_ac1(x).coefficient == "AC1" and gwet_ac1(x, weights="quadratic").coefficient == "AC2"
    assert gwet_ac1(x, weights="quadratic").weights == "quadratic"


def test_count_table_errors_say_what_was_seen():
    with pytest.raises(ValueError, match=r"must not hold missing values; got 1\."):
        gwet_ac1([[1, np.nan], [2, 0]], counts=True)
    with pytest.raises(ValueError, match="must hold finite non-negative counts"):
        gwet_ac1([[1, -0.5], [2, 0]], counts=True)
    with pytest.raises(ValueError, match="must be increasing when they are numbers"):
        gwet_ac1([[1, 2], [3, 0]], counts=True, categories=[2, 1])
    with pytest.raises(ValueError, match="which a count table does not keep"):
        conger_kappa([[1, 2], [3, 0]], counts=True)
    with pytest.raises(ValueError, match=r"must not hold infinite values; got 2\."):
        gwet_ac1([[1.0, np.inf], [2.0, -np.inf]])
    with pytest.raises(ValueError, match=r"holds 1 value\(s\) not in `categories`, e.g. 3\.$"):
        gwet_ac1([[1, 2], [3, 1]], categories=[1, 2])
    with pytest.raises(ValueError, match="must not repeat a category; got 3 entries, 2 distinct"):
        gwet_ac1([[1, 2], [2, 1]], categories=[1, 2, 1])
    with pytest.raises(ValueError, match="every value is missing"):
        gwet_ac1([[np.nan, np.nan], [np.nan, np.nan]])
    frame = pd.DataFrame([[1, 2], [2, 0]], columns=["low", "high"])  # the columns name the categories
    assert gwet_ac1(frame, counts=True).categories == ("low", "high")


def test_given_categories_keep_missing_ratings_missing():
    x = np.array([[1, 2, np.nan], [2, 2, 3], [np.nan, 1, 1], [3, 3, 2], [1, np.nan, 1]])
    for func in (gwet_ac1, conger_kappa, percent_agreement):
        res = func(x, categories=[1, 2, 3, 4], weights="linear")
        assert res.n_ratings == 12 and res.categories == (1, 2, 3, 4)
    # a category nobody used changes only the chance agreement's weights, not the counts
    assert percent_agreement(x, categories=[1, 2, 3]).observed == percent_agreement(x).observed


def test_numeric_categorical_categories_are_sorted():
    # irrCAC's weights sort numeric categories; a Categorical's own order of numbers is not used
    x = pd.DataFrame({"a": [3, 1, 2, 2], "b": [3, 1, 1, 2]}).astype(pd.CategoricalDtype([3, 2, 1]))
    res = gwet_ac1(x, weights="linear")
    assert res.categories == (1, 2, 3)
    assert res == gwet_ac1(np.array([[3, 3], [1, 1], [2, 1], [2, 2]]), weights="linear")


def test_nullable_integer_columns_with_missing_ratings():
    # pandas' Int64 columns come as objects holding pd.NA: read as missing ratings, like NaN in floats
    # (the comparison count would need numpy integers; predstab 028ef01 raised "boolean value of NA")
    frame = pd.DataFrame({"a": [1, 2, 2, 1, 3], "b": [1, 2, 1, 1, 3], "c": [2, 2, 1, 1, 3]}).astype("Int64")
    frame.iloc[0, 0] = pd.NA
    floats = frame.astype(float)
    for func in (gwet_ac1, conger_kappa, brennan_prediger):
        res = func(frame, weights="linear")
        assert res.n_ratings == 14 and res.categories == (1, 2, 3)
        assert res == func(floats, weights="linear")
    # complete Int64 columns (objects, the general path) and int64 ones (the comparison count)
    complete, ints = gwet_ac1(frame.fillna(2)), gwet_ac1(frame.fillna(2).astype(np.int64))
    assert (complete.value, complete.standard_error) == pytest.approx((ints.value, ints.standard_error),
                                                                      rel=1e-14)
    assert complete.categories == ints.categories == (1, 2, 3)


@pytest.mark.parametrize("func", [percent_agreement, gwet_ac1, brennan_prediger, conger_kappa])
def test_no_object_rated_twice_is_undefined_with_one_warning(func):
    # found by the hypothesis test of permutations with missing values: percent_agreement divided
    # by the zero count of objects with two ratings (ZeroDivisionError); every irrCAC coefficient
    # is NaN there, with the convention's PredstabUndefinedWarning
    x = np.array([[1, np.nan], [np.nan, 2], [1, np.nan]])
    with pytest.warns(PredstabUndefinedWarning, match="No object has two or more ratings") as record:
        res = func(x)
    assert len(record) == 1
    assert np.isnan(res.value) and np.isnan(res.standard_error)


@pytest.mark.parametrize("func", [percent_agreement, gwet_ac1, brennan_prediger, conger_kappa])
def test_stack_errors_name_the_item_and_the_argument(func):
    with pytest.raises(ValueError) as info:
        func(np.zeros((3, 0, 2)))
    assert str(info.value) == "item (0,) of `ratings`: `ratings` must not be empty; got shape (0, 2)."


def test_weighted_alpha_prints_irrcacs_summary():
    # krippen.alpha.raw's layout (irrCAC's summary): title naming the R function, the objects
    # rated at least twice as subjects, the weights, then pa / pe / alpha / se / CI / p
    x = np.array([[1, 1, 2], [2, 2, 2], [1, 2, 3], [3, 3, 3], [1, 1, 1]])
    res = krippendorff_alpha(x, weights="linear")
    lines = str(res).splitlines()
    assert lines[0] == " Krippendorff's Alpha for 3 raters (irrCAC::krippen.alpha.raw)"
    assert lines[2:5] == ["               Subjects = 5", "                 Raters = 3",
                          "                Weights = linear"]
    assert [line.split(" = ")[0].strip() for line in lines[5:]] == [
        "Percent agreement (pa)", "Chance agreement (pe)", "Krippendorff's Alpha", "Standard error", "95% CI",
        "p-value"]
    assert lines[5].endswith(f"= {res.pa:.5g}") and lines[6].endswith(f"= {res.pe:.5g}")


# ----------------------------------------------------------------------------- mutation survivors (issue 24)
def test_integer_ratings_with_an_unused_value_in_their_range():
    # 1 and 3 rated, 2 never: the comparison count keeps the rows of the used values only
    x = np.array([[1, 3, 3], [3, 3, 3], [1, 1, 3], [1, 1, 1]])
    table = read_count_table(x, counts=False, categories=None, weights=None)
    np.testing.assert_array_equal(table.table, [[1, 0, 2, 3], [2, 3, 1, 0]])
    assert table.categories == (1, 3) and table.r_i == 3 and table.table.dtype == np.int8
    for weights in (None, "quadratic"):
        fast, general = gwet_ac1(x, weights=weights), gwet_ac1(x.astype(float), weights=weights)
        assert (fast.value, fast.standard_error) == pytest.approx((general.value, general.standard_error),
                                                                  rel=1e-13)
    # the same counts as irrCAC's count table (columns 1 and 3)
    assert gwet_ac1(x).value == pytest.approx(gwet_ac1(table.table.T, counts=True).value, rel=1e-14)


def test_integer_ratings_of_a_wide_range_are_counted_as_labels():
    # values 300 apart: beyond the int8 shift of the comparison count, the general path counts them
    x = np.array([[0, 300], [300, 300], [0, 0], [5, 300], [5, 5]])
    table = read_count_table(x, counts=False, categories=None, weights=None)
    np.testing.assert_array_equal(table.table, [[1, 0, 2, 0, 0], [0, 0, 0, 1, 2], [1, 2, 0, 1, 0]])
    assert table.categories == (0, 5, 300)
    general = gwet_ac1(x.astype(str).astype(object), categories=["0", "5", "300"])
    assert gwet_ac1(x).value == pytest.approx(general.value, rel=1e-14)


def test_integer_tables_and_codes_of_the_comparison_count():
    # int8 counts below 128 raters, int16 from 128; codes are int64 with -1 for missing
    rng = np.random.default_rng(5)
    few, many = rng.integers(0, 2, size=(6, 4)), rng.integers(0, 2, size=(6, 128))
    small = read_count_table(few, counts=False, categories=None, weights=None, need_codes=True)
    assert small.table.dtype == np.int8 and small.codes.dtype == np.int64
    np.testing.assert_array_equal(small.codes, few)
    np.testing.assert_array_equal(small.table, [(few == 0).sum(axis=1), (few == 1).sum(axis=1)])
    large = read_count_table(many, counts=False, categories=None, weights=None)
    assert large.table.dtype == np.int16 and large.r_i == 128
    np.testing.assert_array_equal(large.table[1], many.sum(axis=1))
    # an integer DataFrame takes the same path: one number of ratings for every object
    frame = read_count_table(pd.DataFrame(few), counts=False, categories=None, weights=None)
    assert isinstance(frame.r_i, int) and frame.r_i == 4
    np.testing.assert_array_equal(frame.table, small.table)


def test_categorical_ratings_with_many_raters_and_missing_values():
    # 20 raters x 15 categories (> 256 cells: counted by scatter); missing ratings are code -1
    rng = np.random.default_rng(2)
    values = rng.integers(0, 15, size=(12, 20)).astype(float)
    values[0, 3] = values[5, 0] = np.nan
    names = [f"c{k:02d}" for k in range(15)]
    frame = pd.DataFrame({j: pd.Categorical([None if v != v else names[int(v)] for v in values[:, j]],
                                            categories=names) for j in range(20)})
    table = read_count_table(frame, counts=False, categories=None, weights=None, need_codes=True)
    used = np.unique(values[~np.isnan(values)]).astype(int)
    assert table.categories == tuple(names[k] for k in used)
    expected_codes = np.where(np.isnan(values), -1, np.searchsorted(used, np.nan_to_num(values)))
    np.testing.assert_array_equal(table.codes, expected_codes)
    assert table.codes.dtype == np.int64
    np.testing.assert_array_equal(table.table, [(values == k).sum(axis=1) for k in used])
    labels = np.where(np.isnan(values), None, values.astype(object))
    assert gwet_ac1(frame).value == pytest.approx(gwet_ac1(labels).value, rel=1e-14)


def test_count_tables_with_an_unrated_object_and_one_category():
    table = np.array([[2, 1, 0], [0, 0, 0], [1, 1, 1], [3, 0, 0]])
    with pytest.warns(PredstabDataWarning, match="1 of 4 objects have no rating"):
        res = gwet_ac1(table, counts=True)
    assert res.value == pytest.approx(gwet_ac1(table[[0, 2, 3]], counts=True).value, rel=1e-15)
    assert res.n_objects == 3
    # one category (one column): every rating agrees
    with pytest.warns(PredstabDegenerateWarning):
        one = gwet_ac1([[3], [2], [4]], counts=True)
    assert one.value == 1.0 and one.categories == (1,)


def test_count_table_weights_use_positions_unless_numbers_are_given():
    # irrCAC's *.dist functions weight the columns by position 1..q; a DataFrame's numeric column
    # labels name the categories but do not space them (given `categories` do)
    table = np.array([[2, 1, 0], [0, 2, 1], [1, 1, 1], [0, 0, 3], [2, 0, 1]])
    positions = gwet_ac1(table, counts=True, weights="quadratic")
    labelled = gwet_ac1(pd.DataFrame(table, columns=[1, 2, 10]), counts=True, weights="quadratic")
    spaced = gwet_ac1(table, counts=True, weights="quadratic", categories=[1, 2, 10])
    assert labelled.categories == (1, 2, 10)
    assert labelled.value == pytest.approx(positions.value, rel=1e-15)
    w = 1 - (np.subtract.outer([1, 2, 10], [1, 2, 10]) / 9.0) ** 2
    np.testing.assert_allclose(read_count_table(table, counts=True, categories=[1, 2, 10],
                                                weights="quadratic").weight_matrix, w, rtol=1e-15)
    assert spaced.value != pytest.approx(positions.value, rel=1e-3)


def test_table_errors_in_full():
    with pytest.raises(ValueError, match=r"^`ratings` \(a count table with counts=True\) must hold finite "
                                         r"non-negative counts \(weighted counts need not be whole "
                                         r"numbers\)\.$"):
        gwet_ac1([[1, -1], [2, 0]], counts=True)
    with pytest.raises(ValueError, match=r"^`categories` of a count table must be increasing when they are "
                                         r"numbers \(the weights sort numeric categories\)\.$"):
        gwet_ac1([[1, 2], [3, 0]], counts=True, categories=[2, 1])
    with pytest.raises(ValueError, match=r"^`ratings` must hold at least one rating; every value is "
                                         r"missing\.$"):
        gwet_ac1([[np.nan, np.nan], [np.nan, np.nan]])
    with pytest.raises(ValueError, match=r"^`categories` must be a non-empty one-dimensional sequence; got "
                                         r"shape \(0,\)\.$"):
        gwet_ac1([[1, 2], [2, 1]], categories=[])
    with pytest.raises(ValueError, match=r"^`categories` must not repeat a category; got 3 entries, 2 "
                                         r"distinct\.$"):
        given_categories([1, 2, 1])


def test_one_rated_object_left_and_none():
    message = r"^1 of 2 objects have no rating and were left out \(irrCAC asks to exclude them; it returns "
    with pytest.warns(PredstabDataWarning, match=message + r"NaN otherwise\)\.$"):
        one = gwet_ac1([[2, 1], [0, 0]], counts=True)
    assert one.n_objects == 1
    assert one.value == pytest.approx(_irrcac_ac1_by_hand([[1, 1, 2]])[0], rel=1e-14)
    labels = np.array([["a", "a", "b"], [None, None, None]], dtype=object)
    with pytest.warns(PredstabDataWarning, match="1 of 2 objects"):
        assert gwet_ac1(labels).value == pytest.approx(one.value, rel=1e-14)
    with pytest.warns(PredstabDataWarning, match="2 of 2 objects"), \
            pytest.raises(ValueError, match=r"^`ratings` must have at least one rated object; got none\.$"):
        gwet_ac1([[0, 0], [0, 0]], counts=True)


def test_identity_weights_are_named_unweighted():
    x = np.array([[1, 2], [2, 2], [1, 1], [2, 1]])
    res = gwet_ac1(x, weights="identity")
    assert res.weights == "unweighted"
    assert res.value == gwet_ac1(x).value


# --- issue 35, item 12: an asymmetric weight matrix, as irrCAC accepts it -----------------------

def _irrcac_raw(ratings, w, kind):
    """irrCAC 1.0's gwet.ac1.raw / fleiss.kappa.raw / bp.coeff.raw / pa.coeff.raw, transcribed line by
    line from its R source with the weight matrix used as given (complete integer ratings)."""
    cats = np.unique(ratings)
    n, q = len(ratings), len(cats)
    agree = np.stack([(ratings == c).sum(axis=1) for c in cats], axis=1).astype(float)  # n x q
    agree_w = (w @ agree.T).T
    r_i = agree.sum(axis=1)
    sum_q = (agree * (agree_w - 1)).sum(axis=1)
    pa = np.mean(sum_q / (r_i * (r_i - 1)))
    pi = (agree / r_i[:, None]).mean(axis=0)
    pe = {"ac1": w.sum() * np.sum(pi * (1 - pi)) / (q * (q - 1)), "fleiss": np.sum(w * np.outer(pi, pi)),
          "bp": w.sum() / q**2, "pa": 0.0}[kind]
    coef = (pa - pe) / (1 - pe)
    c_i = (sum_q / (r_i * (r_i - 1)) - pe) / (1 - pe)
    if kind == "ac1":
        pe_i = w.sum() / (q * (q - 1)) * (agree @ (1 - pi)) / r_i
    elif kind == "fleiss":
        pe_i = agree @ ((w @ pi + w.T @ pi) / 2) / r_i
    else:
        pe_i = np.full(n, pe)
    x_i = c_i - 2 * (1 - coef) * (pe_i - pe) / (1 - pe) if kind in ("ac1", "fleiss") else c_i
    return coef, np.sqrt(np.sum((x_i - coef) ** 2) / (n * (n - 1)))


_ASYMMETRIC = np.array([[1.0, 0.9, 0.2, 0.0],
                        [0.3, 1.0, 0.6, 0.1],
                        [0.0, 0.8, 1.0, 0.5],
                        [0.4, 0.0, 0.2, 1.0]])


@pytest.mark.parametrize("kind, function", [
    ("ac1", lambda x, w: predstab.gwet_ac1(x, weights=w)),
    ("fleiss", lambda x, w: predstab.fleiss_kappa(x, weights=w)),
    ("bp", lambda x, w: predstab.brennan_prediger(x, weights=w)),
    ("pa", lambda x, w: predstab.percent_agreement(x, weights=w)),
])
def test_asymmetric_weights_are_accepted_as_irrcac_does(kind, function):
    # irrCAC accepts any matrix; these coefficients count unordered pairs of ratings, so its value and
    # standard error are those of the symmetric part (W + W')/2; predstab refused W until issue 35
    rng = np.random.default_rng(35)
    x = rng.integers(1, 5, size=(40, 4))
    value, se = _irrcac_raw(x, _ASYMMETRIC, kind)
    got = function(x, _ASYMMETRIC)
    assert got.value == pytest.approx(value, rel=1e-12)
    if kind != "pa":
        standard_error = got.value / got.statistic if kind == "fleiss" else got.standard_error
        assert standard_error == pytest.approx(se, rel=1e-10)
    symmetric = function(x, (_ASYMMETRIC + _ASYMMETRIC.T) / 2)
    assert got.value == pytest.approx(symmetric.value, rel=1e-14)
    assert np.array_equal(got.weight_matrix, (_ASYMMETRIC + _ASYMMETRIC.T) / 2)
    # and the matrix changes the value: the weights are not ignored
    assert abs(got.value - function(x, None).value) > 1e-3


def test_asymmetric_weights_give_krippendorffs_alpha_of_the_symmetric_part():
    x = np.random.default_rng(36).integers(1, 5, size=(30, 3)).astype(float)
    x[0, 1] = np.nan
    got = predstab.krippendorff_alpha(x, weights=_ASYMMETRIC)
    assert got.value == pytest.approx(
        predstab.krippendorff_alpha(x, weights=(_ASYMMETRIC + _ASYMMETRIC.T) / 2).value, rel=1e-14)
    assert got.value != pytest.approx(predstab.krippendorff_alpha(x, weights="identity").value)


# The external suites' asymmetric matrix (a circulant: 0.75 above the diagonal, 0 below it), on
# irrCAC's cac.raw4raters. R 4.2.2, irrCAC 1.0 (coeff.val and coeff.se rounded to 5 decimals there):
#   W <- matrix(c(1, .75, .5, .25, 0,  0, 1, .75, .5, .25,  .25, 0, 1, .75, .5,
#                 .5, .25, 0, 1, .75,  .75, .5, .25, 0, 1), 5, 5, byrow = TRUE)
#   gwet.ac1.raw(cac.raw4raters, weights = W)$est   # pa 0.886363636363636, pe 0.475802951388889,
#                                                   # 0.78322, se 0.13826, (0.479,1), p 0.000145569
#   fleiss.kappa.raw(...), bp.coeff.raw(...), krippen.alpha.raw(...), pa.coeff.raw(...) likewise
# and the Python port (afergadis/irrCAC, test/unit/irrCAC/raw/test_gwet.py,
# test_gwet_raw4raters_custom_weights, digits=3): pa 0.886, pe 0.476, 0.783, se 0.138, CI (0.479, 1).
_CIRCULANT = np.array([[1.00, 0.75, 0.50, 0.25, 0.00],
                       [0.00, 1.00, 0.75, 0.50, 0.25],
                       [0.25, 0.00, 1.00, 0.75, 0.50],
                       [0.50, 0.25, 0.00, 1.00, 0.75],
                       [0.75, 0.50, 0.25, 0.00, 1.00]])


_PA = 0.886363636363636  # pa of every coefficient but alpha


@pytest.mark.parametrize(("function", "pe", "coeff", "se", "low", "port"), [
    (predstab.gwet_ac1, 0.475802951388889, 0.78322, 0.13826, 0.479, (0.886, 0.476, 0.783, 0.138)),
    (predstab.fleiss_kappa, 0.524197048611111, 0.76117, 0.15302, 0.424, (0.886, 0.524, 0.761, 0.153)),
    (predstab.brennan_prediger, 0.5, 0.77273, 0.14472, 0.454, (0.886, 0.500, 0.773, 0.145)),
    (predstab.percent_agreement, 0.0, _PA, 0.10244, 0.661, None),
], ids=["gwet.ac1.raw", "fleiss.kappa.raw", "bp.coeff.raw", "pa.coeff.raw"])
def test_the_external_suites_asymmetric_weights_give_irrcacs_values(function, pe, coeff, se, low, port):
    # issue 35, item 12: gwet_ac1(ratings, weights=W) raised "`weights` must be symmetric"
    res = function(RAW4RATERS, weights=_CIRCULANT)
    assert res.observed == pytest.approx(_PA, abs=5e-15) and res.expected == pytest.approx(pe, abs=5e-15)
    assert res.value == pytest.approx(coeff, abs=5e-6) and res.standard_error == pytest.approx(se, abs=5e-6)
    assert res.confidence_interval.low == pytest.approx(low, abs=5e-4) and res.confidence_interval.high == 1.0
    if port is not None:  # the Python port's four values, to its 3 digits
        four = (res.observed, res.expected, res.value, res.standard_error)
        assert [round(v, 3) for v in four] == list(port)


def test_the_external_suites_asymmetric_weights_give_irrcacs_alpha():
    # krippen.alpha.raw(cac.raw4raters, weights = W)$est: 0.74342, se 0.14557, (0.419,1), p 0.000459426
    # (irrCAC's pa 0.878125 and pe 0.525 are Gwet's agreement form of alpha; predstab reports
    # disagreements); the Python port's test_krippendorff_kappa_raw4raters_custom_weights: 0.743, 0.146
    res = predstab.krippendorff_alpha(RAW4RATERS, weights=_CIRCULANT)
    assert res.value == pytest.approx(0.74342, abs=5e-6)
    assert res.standard_error == pytest.approx(0.14557, abs=5e-6)


def test_conger_refuses_the_external_suites_matrix_whose_asymmetry_irrcac_honours():
    # conger.kappa.raw(cac.raw4raters, weights = W)$est: se 0.14911; with (W + t(W)) / 2: se 0.14917 --
    # irrCAC's variance of Conger's kappa uses W as given (the value, 0.76282, is the same)
    with pytest.raises(ValueError, match=r"`weights` must be symmetric.*0.75 at \[0, 1\] and 0 at \[1, "):
        predstab.conger_kappa(RAW4RATERS, weights=_CIRCULANT)
    symmetric = predstab.conger_kappa(RAW4RATERS, weights=(_CIRCULANT + _CIRCULANT.T) / 2)
    assert symmetric.value == pytest.approx(0.76282, abs=5e-6)
    assert symmetric.standard_error == pytest.approx(0.14917, abs=5e-6)


@pytest.mark.parametrize("function", [lambda x, w: predstab.conger_kappa(x, weights=w),
                                      lambda x, w: predstab.cohen_kappa(x[:, :2], weights=w)])
def test_asymmetric_weights_are_refused_where_the_asymmetry_would_count(function):
    x = np.random.default_rng(35).integers(1, 5, size=(40, 4))
    with pytest.raises(ValueError, match=r"`weights` must be symmetric.*0.9 at \[0, 1\] and 0.3 at \[1, 0\]"):
        function(x, _ASYMMETRIC)


def test_the_count_table_of_few_raters_and_categories_is_small_integers():
    # counts by comparing codes (raters x categories <= 256) are int16, a quarter of int64's memory
    # (the counts of each object are at most its raters); with missing ratings, the objects' r_i
    x = np.array([[1.0, 2.0, 2.0], [np.nan, 1.0, 1.0], [3.0, 3.0, 3.0], [2.0, np.nan, np.nan]])
    read = read_count_table(x, counts=False, categories=None, weights="unweighted")
    assert read.table.dtype == np.int16
    np.testing.assert_array_equal(read.table, [[1, 2, 0, 0], [2, 0, 0, 1], [0, 0, 3, 0]])
    np.testing.assert_array_equal(read.r_i, [3, 2, 3, 1])
