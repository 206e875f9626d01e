"""Analytic confidence intervals of phi/psi, psi with categories absent from the baseline,
and the result convention of StabilityResult.

Every interval endpoint is pinned against an independent computation written here (t
quantile of the mean, scaled chi-square of the variance, Clopper-Pearson via the beta
quantiles); the coverage tests are simulations with fixed seeds.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import predstab
from predstab import phi, psi
from predstab._core._results import Result
from predstab._core._validation import InvalidParameterError
from tests.stability._intervals import bonferroni_box, box_simplex_range
from validation.aps import case_inputs, load_cases


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ----------------------------------------------------------------- psi: absent from baseline


def test_psi_counts_a_category_absent_from_the_baseline_with_share_zero():
    # the rare class "b" is predicted by the test forests but never by the out-of-bag baseline
    pred = [["a", "a", "b", "a", "a"], ["a", "a", "a", "a", "a"], ["b", "a", "b", "c", "a"]]
    base = ["a"] * 9 + ["c"]
    res = psi(pred, base)
    # independent: D_o,i = share of disagreeing ordered pairs; D_e = 1 - sum p^2 over the baseline
    d_o_i = []
    for row in pred:
        r = len(row)
        d_o_i.append(sum(x != y for x in row for y in row) / (r * (r - 1)))
    d_e = 1 - (0.9 ** 2 + 0.1 ** 2)
    assert res.expected == pytest.approx(d_e, rel=1e-15)
    assert res.observed == pytest.approx(np.mean(d_o_i), rel=1e-15)
    assert res.value == pytest.approx(1 - np.mean(d_o_i) / d_e, rel=1e-14)
    assert res.categories == ("a", "b", "c") and res.absent_from_baseline == ("b",)
    # phi keeps APS's behaviour: a prediction absent from the training data is an error
    with pytest.raises(ValueError, match="Some prediction values do not occur in the training data"):
        phi(pred, base)


def test_psi_on_the_aps_error_record_computes_where_aps_raises():
    # APS 1.0.1: calculate_phi(pm, base, "categorical") on cat_unknown_pred_error raises "Some
    # prediction values do not occur in the training data." (r-reference/aps/expected/aps_cases.json);
    # calculate_psi raises the same in APS. predstab keeps the error for phi and computes psi.
    case = next(c for c in load_cases() if c["id"] == "cat_unknown_pred_error")
    pm, base = case_inputs(case)
    with pytest.raises(ValueError, match="Some prediction values do not occur in the training data"):
        _quiet(predstab.calculate_phi, pm, base, "categorical")
    res = _quiet(predstab.calculate_psi, pm, base, "categorical")
    values = base.dropna().tolist()
    share = pd.Series(values).value_counts(normalize=True)
    d_e = 1 - float((share ** 2).sum())
    rows = [[v for v in row if not pd.isna(v)] for row in pm.to_numpy(dtype=object).tolist()]
    d_o = np.mean([sum(x != y for x in r for y in r) / (len(r) * (len(r) - 1)) for r in rows])
    assert res.expected == pytest.approx(d_e, rel=1e-14)
    assert res.value == pytest.approx(1 - d_o / d_e, rel=1e-14)
    assert res.absent_from_baseline and set(res.absent_from_baseline).isdisjoint(values)


def test_psi_ordinal_level_absent_from_the_baseline():
    levels = ["L1", "L2", "L3"]
    pred = [["L1", "L3", "L3", "L1", "L1"], ["L2", "L2", "L3", "L2", "L2"]]
    base = ["L1", "L1", "L3", "L3", "L3"]  # L2 never in the baseline: count 0
    res = psi(pred, base, categories=levels)
    m = np.array([2.0, 0.0, 3.0])
    pos = np.cumsum(m) - m / 2  # Krippendorff's ordinal positions from the counts
    d2 = (pos[:, None] - pos[None, :]) ** 2
    p = m / m.sum()
    d_e = p @ d2 @ p
    idx = {v: k for k, v in enumerate(levels)}
    d_o = np.mean([sum(d2[idx[x], idx[y]] for x in r for y in r) / 20 for r in pred])
    assert res.value == pytest.approx(1 - d_o / d_e, rel=1e-14)
    with pytest.raises(ValueError, match="Some prediction values do not occur in the training data"):
        phi(pred, base, categories=levels)
    with pytest.raises(ValueError, match="do not occur in 'categories'"):
        psi([["L1", "L9", "L1", "L1", "L1"]], base, categories=levels)


# ----------------------------------------------------------------- interval endpoints


def test_interval_over_objects_pinned_to_the_gamma_interval_with_fixed_expected():
    rng = np.random.default_rng(1)
    pred = rng.normal(size=(25, 8)) * rng.uniform(0.5, 2, size=(25, 1)) + rng.normal(size=(25, 1)) * 4
    base = rng.normal(size=120) * 4
    res = phi(pred, base, confidence_level=0.9, object_interval="chi2")
    assert res.interval_method == "chi-square" and res.interval_target == "population"
    assert phi(pred, base, confidence_level=0.9).confidence_interval == res.confidence_interval
    d_o_i = pred.var(axis=1, ddof=1)
    d_e = base.var(ddof=1)  # APS's D_e: the sample variance of the training responses
    # population target: the mean of the D_o,i as a scaled chi-square (gamma) with the mean and
    # the variance s^2 / N widened by (t_{N-1} / z)^2
    var = d_o_i.var(ddof=1) / 25 * (stats.t.ppf(0.95, 24) / stats.norm.ppf(0.95)) ** 2
    df = 2 * d_o_i.mean() ** 2 / var
    low = df * d_o_i.mean() / stats.chi2.ppf(0.95, df)
    # its upper end (the lower end of S) from the same form at alpha / 4 (>= 5 objects): t and
    # chi-square quantiles at 0.975 for a 90 % interval
    var = d_o_i.var(ddof=1) / 25 * (stats.t.ppf(0.975, 24) / stats.norm.ppf(0.975)) ** 2
    df = 2 * d_o_i.mean() ** 2 / var
    high = df * d_o_i.mean() / stats.chi2.ppf(0.025, df)
    assert res.confidence_interval.low == pytest.approx(1 - high / d_e, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(1 - low / d_e, rel=1e-12)
    assert res.confidence_level == 0.9
    # per object: (R - 1) s^2 / sigma^2 ~ chi^2_{R-1}
    low = 1 - 7 * d_o_i / stats.chi2.ppf(0.05, 7) / d_e
    high = 1 - 7 * d_o_i / stats.chi2.ppf(0.95, 7) / d_e
    np.testing.assert_allclose(res.per_object_low, low, rtol=1e-12)
    np.testing.assert_allclose(res.per_object_high, high, rtol=1e-12)
    frame = res.per_object_frame(sort=False)
    np.testing.assert_allclose(frame["ci_low"], low, rtol=1e-12)


def test_single_object_metric_interval_is_the_chi_square_interval():
    row = np.array([[1.0, 1.4, 0.7, 1.2, 0.9, 1.1]])
    base = [0.0, 2.0, 4.0, 1.0, 3.0]
    res = phi(row, base, object_interval="chi2")
    s2, d_e = row.var(ddof=1), np.var(base, ddof=1)
    assert res.confidence_interval.low == pytest.approx(1 - 5 * s2 / stats.chi2.ppf(0.025, 5) / d_e,
                                                        rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(1 - 5 * s2 / stats.chi2.ppf(0.975, 5) / d_e,
                                                         rel=1e-12)


def test_two_class_interval_is_clopper_pearson_mapped_to_the_disagreement():
    pred = [["a"] * 7 + ["b"] * 3, ["a"] * 10, ["b"] * 5 + ["a"] * 5]
    base = ["a"] * 6 + ["b"] * 4
    res = psi(pred, base)
    d_e = 1 - (0.6 ** 2 + 0.4 ** 2)
    for i, k in enumerate([7, 10, 5]):
        lo = stats.beta.ppf(0.025, k, 10 - k + 1) if k > 0 else 0.0
        hi = stats.beta.ppf(0.975, k + 1, 10 - k) if k < 10 else 1.0
        g = [2 * lo * (1 - lo), 2 * hi * (1 - hi)]
        theta_high = 0.5 if lo <= 0.5 <= hi else max(g)
        d_o = 2 * k * (10 - k) / 90  # the unbiased disagreement: 5/5 gives 0.556 > 0.5
        assert res.per_object_low[i] == pytest.approx(1 - max(theta_high, d_o) / d_e, rel=1e-12), i
        assert res.per_object_high[i] == pytest.approx(1 - min(g) / d_e, rel=1e-12), i
    one = psi([pred[0]], base)
    assert one.confidence_interval == (one.per_object_low[0], one.per_object_high[0])


def test_undefined_expected_gives_nan_interval():
    res = _quiet(phi, [[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 1.5, 2.0, 2.0, 2.0]], [2.0, 2.0])
    assert math.isnan(res.confidence_interval.low) and math.isnan(res.confidence_interval.high)
    assert np.isnan(res.per_object_low).all()


# ----------------------------------------------------------------- coverage (simulation)


@pytest.mark.parametrize("n_refits", [5, 10, 20])
def test_metric_single_object_coverage(n_refits):
    rng = np.random.default_rng(100 + n_refits)
    n = 4000
    sigma2 = rng.uniform(0.05, 1.0, size=n)
    pred = rng.normal(size=(n, 1)) * 3 + rng.normal(size=(n, n_refits)) * np.sqrt(sigma2)[:, None]
    base = rng.normal(size=500) * 3
    res = phi(pred, base)
    truth = 1 - sigma2 / res.expected
    covered = (res.per_object_low <= truth) & (truth <= res.per_object_high)
    assert covered.mean() >= 0.93, covered.mean()
    # the bootstrap over repetitions it replaces covers far less (issue 15: 67-85 %)
    if n_refits == 5:
        boot = [phi(pred[[i]], base).bootstrap_interval(n_resamples=200, random_state=i) for i in range(150)]
        boot_cover = np.mean([lo <= t <= hi for (lo, hi), t in zip(boot, truth[:150], strict=True)])
        assert boot_cover < 0.85, boot_cover


@pytest.mark.parametrize("n_refits", [5, 10, 20])
def test_two_class_single_object_coverage(n_refits):
    rng = np.random.default_rng(200 + n_refits)
    n = 4000
    p = rng.beta(0.6, 0.6, size=n)
    votes = rng.random((n, n_refits)) < p[:, None]
    pred = np.where(votes, "x", "y").astype(object)
    base = np.array(["x"] * 70 + ["y"] * 30, dtype=object)
    res = _quiet(psi, pred, base)
    truth = 1 - 2 * p * (1 - p) / res.expected
    covered = (res.per_object_low <= truth + 1e-12) & (truth <= res.per_object_high + 1e-12)
    assert covered.mean() >= 0.93, covered.mean()


@pytest.mark.parametrize("n_refits", [5, 10])
def test_three_class_single_object_coverage_is_conservative(n_refits):
    rng = np.random.default_rng(300 + n_refits)
    n = 3000
    p = rng.dirichlet([0.5, 0.5, 0.5], size=n)
    cum = p.cumsum(axis=1)
    u = rng.random((n, n_refits))
    codes = (u[:, :, None] > cum[:, None, :]).sum(axis=2)
    pred = np.array(["a", "b", "c"], dtype=object)[np.minimum(codes, 2)]
    base = np.array(["a"] * 40 + ["b"] * 30 + ["c"] * 30, dtype=object)
    res = _quiet(psi, pred, base)
    truth = 1 - (1 - (p ** 2).sum(axis=1)) / res.expected
    covered = (res.per_object_low <= truth + 1e-12) & (truth <= res.per_object_high + 1e-12)
    assert covered.mean() >= 0.95, covered.mean()


def test_mean_interval_coverage_over_objects():
    rng = np.random.default_rng(7)
    base = rng.normal(size=300) * 3
    d_e = base.var(ddof=1)
    hits = []
    for _ in range(400):
        sigma2 = rng.uniform(0.2, 1.0, size=20)
        pred = rng.normal(size=(20, 10)) * np.sqrt(sigma2)[:, None]
        res = phi(pred, base)
        truth = 1 - 0.6 / d_e  # mean of U(0.2, 1)
        hits.append(res.confidence_interval.low <= truth <= res.confidence_interval.high)
    assert np.mean(hits) >= 0.93, np.mean(hits)


# ----------------------------------------------------------------- result convention


def test_stability_result_follows_the_result_convention():
    rng = np.random.default_rng(3)
    pred = rng.normal(size=(30, 6))
    base = rng.normal(size=50)
    a, b = phi(pred, base), phi(pred.copy(), base.copy())
    assert isinstance(a, Result)
    assert a == b and not (a != b)
    assert a != phi(pred[:-1], base)
    assert (a == 3) is False
    text = repr(a)
    assert len(text) < 300 and "array" not in text and text.startswith("StabilityResult(value=")
    frame = a.to_frame()
    assert frame.shape[0] == 1
    assert frame.loc[0, "ci_low"] == a.confidence_interval.low
    assert frame.loc[0, "ci_high"] == a.confidence_interval.high
    assert str(a).split("\n")[3] == f"Prediction stability: {a.value:6.5g} "


@pytest.mark.parametrize("fn", [phi, psi, predstab.calculate_phi, predstab.calculate_psi])
@pytest.mark.parametrize("bad", [0, 1, 1.5, "0.95", True])
def test_confidence_level_is_validated(fn, bad):
    with pytest.raises(InvalidParameterError, match="`confidence_level`"):
        fn([[1.0, 2.0, 3.0, 4.0, 5.0]], [1.0, 3.0], confidence_level=bad)


def test_bootstrap_interval_names_its_parameters():
    res = phi([[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 2.0, 2.0, 5.0]], [0.0, 4.0, 9.0])
    with pytest.raises(InvalidParameterError, match="`n_resamples`"):
        res.bootstrap_interval(n_resamples=0)
    with pytest.raises(InvalidParameterError, match="`by`"):
        res.bootstrap_interval(by="replicates")


def test_three_class_interval_endpoints_against_an_independent_optimisation():
    pred = [["a", "a", "a", "b", "c", "a", "b"]]
    base = ["a"] * 5 + ["b"] * 3 + ["c"] * 2
    res = psi(pred, base)
    low, high = bonferroni_box([4, 2, 1])  # Bonferroni over the 3 categories
    theta_low, theta_high = box_simplex_range(low, high, np.ones((3, 3)) - np.eye(3))
    theta_high = min(theta_high, 2 / 3)
    d_e = 1 - (0.5 ** 2 + 0.3 ** 2 + 0.2 ** 2)
    assert res.confidence_interval.low == pytest.approx(1 - theta_high / d_e, rel=1e-7)
    assert res.confidence_interval.high == pytest.approx(1 - theta_low / d_e, rel=1e-9)
    # the old bound over the box alone (sum of the lower bounds < 1) was far lower
    assert theta_low > 3 * (low.sum() ** 2 - low @ low)


def test_bootstrap_interval_pinned_to_scipy_with_the_same_generator():
    rng = np.random.default_rng(4)
    pred = rng.normal(size=(40, 6)) * rng.uniform(0.5, 1.5, size=(40, 1))
    base = rng.normal(size=80) * 2
    res = phi(pred, base)
    d_o_i, d_e = pred.var(axis=1, ddof=1), base.var(ddof=1)
    ref = stats.bootstrap((d_o_i,), lambda x, axis=-1: 1 - np.mean(x, axis=axis) / d_e, vectorized=True,
                          n_resamples=300, confidence_level=0.9, method="percentile",
                          rng=np.random.default_rng(8))
    got = res.bootstrap_interval(0.9, n_resamples=300, random_state=8)
    assert got.low == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert got.high == pytest.approx(ref.confidence_interval.high, rel=1e-12)


def test_intervals_with_varying_repetition_counts_and_many_repetitions():
    rng = np.random.default_rng(9)
    pred = rng.normal(size=(30, 3000))
    pred[::3, 1500:] = np.nan  # every third object has half its repetitions missing
    base = rng.normal(size=50) * 2
    res = _quiet(phi, pred, base, object_interval="chi2")
    count = np.where(np.arange(30) % 3 == 0, 1500, 3000)
    s2 = np.nanvar(pred, axis=1, ddof=1)
    low = 1 - (count - 1) * s2 / stats.chi2.ppf(0.025, count - 1) / base.var(ddof=1)
    np.testing.assert_allclose(res.per_object_low, low, rtol=1e-10)
    votes = (rng.random((20, 5000)) < 0.3).astype(int)
    votes_res = _quiet(psi, votes, [0, 1, 1, 0], scale="categorical")
    k = (votes == 0).sum(axis=1)
    hi = stats.beta.ppf(0.975, k + 1, 5000 - k)
    lo = stats.beta.ppf(0.025, k, 5000 - k + 1)
    theta_high = np.maximum(2 * lo * (1 - lo), 2 * hi * (1 - hi))
    np.testing.assert_allclose(votes_res.per_object_low, 1 - theta_high / 0.5, rtol=1e-10)


# ----------------------------------------------------------------- issue 21 follow-up


def _bootstrap_t(x, level):
    """The studentized bootstrap of the mean, written out: 999 resamples of the objects, seed 0."""
    boot = x[np.random.default_rng(0).integers(0, x.size, size=(999, x.size))]
    spread = boot.std(axis=1, ddof=1)
    t = (boot.mean(axis=1)[spread > 0] - x.mean()) / spread[spread > 0]
    s, alpha = x.std(ddof=1), 1 - level
    return max(x.mean() - np.quantile(t, 1 - alpha / 2) * s, 0.0), x.mean() - np.quantile(t, alpha / 2) * s


def test_population_interval_of_skewed_objects_unites_gamma_and_bootstrap_t():
    # objects' variances lognormal(1): the gamma form alone covered the population 0.88-0.91 at
    # N = 10-30 (docs/benchmarks/coverage.md); the union with the bootstrap-t is wider upwards
    rng = np.random.default_rng(2)
    theta = 0.3 * np.exp(rng.normal(size=15))
    pred = rng.normal(size=(15, 10)) * np.sqrt(theta)[:, None]
    base = rng.normal(size=100) * 2
    res = phi(pred, base, object_interval="chi2")
    d_o_i, d_e = pred.var(axis=1, ddof=1), base.var(ddof=1)
    var = d_o_i.var(ddof=1) / 15 * (stats.t.ppf(0.975, 14) / stats.norm.ppf(0.975)) ** 2
    df = 2 * d_o_i.mean() ** 2 / var
    gamma = (df * d_o_i.mean() / stats.chi2.ppf(0.975, df), df * d_o_i.mean() / stats.chi2.ppf(0.025, df))
    boot = _bootstrap_t(d_o_i, 0.95)
    # this sample: the bootstrap-t reaches beyond the gamma at both ends
    assert boot[1] > gamma[1] and 0 < boot[0] < gamma[0]
    assert res.confidence_interval.low == pytest.approx(1 - boot[1] / d_e, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(1 - boot[0] / d_e, rel=1e-12)


def test_population_interval_with_never_disagreeing_objects_is_zero_inflated():
    # 10 objects of 5 votes: 8 unanimous, one 4-1 (D_o,i = 8/20) and one 3-2 (12/20) split.
    # The mean is the share of disagreeing objects (2 of 10: Clopper-Pearson at alpha / 2) times
    # their mean (gamma form at alpha / 2, capped at the 3-2 split's 0.6, the most 5 votes of two
    # classes can disagree)
    pred = np.array([["a"] * 5] * 8 + [["a", "a", "a", "a", "b"], ["a", "a", "a", "b", "b"]], dtype=object)
    base = np.array(["a"] * 6 + ["b"] * 4, dtype=object)
    res = phi(pred, base, scale="categorical")
    d_e = 1 - 0.6 ** 2 - 0.4 ** 2
    a = 0.025
    share = (stats.beta.ppf(a / 2, 2, 9), stats.beta.ppf(1 - a / 2, 3, 8))
    nz = np.array([0.4, 0.6])
    var = nz.var(ddof=1) / 2 * (stats.t.ppf(1 - a / 2, 1) / stats.norm.ppf(1 - a / 2)) ** 2
    df = 2 * nz.mean() ** 2 / var
    m_low = df * nz.mean() / stats.chi2.ppf(1 - a / 2, df)
    m_high = min(df * nz.mean() / stats.chi2.ppf(a / 2, df), 0.6)
    assert m_high == 0.6  # two objects: the gamma's upper end is beyond the possible
    assert res.confidence_interval.low == pytest.approx(1 - share[1] * m_high / d_e, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(1 - share[0] * m_low / d_e, rel=1e-12)


@pytest.mark.parametrize("target", ["population", "objects"])
def test_overall_interval_covers_with_rare_instability(target):
    # minority share 0.01, 10 objects x 5 votes: most calls see no or one or two disagreeing
    # objects; the gamma form of all D_o,i covered 0.90-0.91 here (the one-sided bound of the
    # all-agreeing calls included); every object has the same share, so both targets agree
    rng = np.random.default_rng(21)
    labels = np.array(["a", "b"], dtype=object)
    base = np.array(["a"] * 60 + ["b"] * 40, dtype=object)
    truth = 1 - 2 * 0.01 * 0.99 / 0.48
    hits = []
    for _ in range(400):
        pred = labels[(rng.random((10, 5)) < 0.01).astype(int)]
        ci = _quiet(psi, pred, base, interval_target=target).confidence_interval
        hits.append(ci.low <= truth <= ci.high)
    # 400 calls: binomial SE 0.011 at 0.95
    assert np.mean(hits) >= 0.95, np.mean(hits)


@pytest.mark.parametrize("by", ["objects", "replicates"])
@pytest.mark.parametrize("factor", [1e-300, 1e-170, 1e160, 1e300])
def test_bootstrap_interval_is_scale_invariant(by, factor):
    # D_o and D_e over- or underflow at these magnitudes (1e160 squared is inf); the bootstrap
    # works on the data rescaled by the same exact power of two as the estimate
    rng = np.random.default_rng(3)
    pred = rng.normal(size=(30, 1)) * 3 + rng.normal(size=(30, 10))
    base = rng.normal(size=200) * 3
    rows = pred if by == "objects" else pred[:1]
    expected = phi(rows, base).bootstrap_interval(n_resamples=499, by=by, random_state=1)
    got = _quiet(phi, rows * factor, base * factor).bootstrap_interval(n_resamples=499, by=by, random_state=1)
    assert got.low == pytest.approx(expected.low, rel=1e-12)
    assert got.high == pytest.approx(expected.high, rel=1e-12)
