"""paired_bootstrap and bootstrap_ci: the same resamples for A and B, BCa against scipy,
clusters, percentile / basic / BCa by hand, bad input.
"""

import numpy as np
import pytest
from scipy import stats

from predstab import PredstabUndefinedWarning, compare
from tests.compare._examples import A, accuracy, classifier_predictions


def test_paired_bootstrap_same_indices_and_reproducible():
    y, a, b = classifier_predictions()
    r1 = compare.paired_bootstrap(y, a, b, metric=accuracy, n_resamples=400, random_state=3)
    r2 = compare.paired_bootstrap(y, a, b, metric=accuracy, n_resamples=400, random_state=3)
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    np.testing.assert_allclose(r1.bootstrap_distribution[:, 2],
                               r1.bootstrap_distribution[:, 1] - r1.bootstrap_distribution[:, 0])
    assert r1.difference == pytest.approx(accuracy(y, b) - accuracy(y, a)) == r1.statistic
    assert r1.confidence_interval == r1.ci_difference
    # pairing: the SE of the difference is smaller than the unpaired sqrt(se_a^2 + se_b^2)
    assert r1.standard_error_difference < np.hypot(r1.standard_error_a, r1.standard_error_b)
    assert r1.ci_difference.low > 0 and r1.pvalue < 0.01
    assert "95% CI" in str(r1)
    assert r1.summary_frame().shape == (3, 5)
    row = r1.to_frame()  # the one-row convention: the difference and its interval
    assert row.shape == (1, 7)
    assert row.loc[0, "difference"] == r1.difference and row.loc[0, "ci_low"] == r1.confidence_interval.low


def test_paired_bootstrap_non_mean_metric_and_bca():
    from sklearn.metrics import f1_score, roc_auc_score

    y, a, b = classifier_predictions(80, seed=2)
    rng = np.random.default_rng(1)
    sa = y + rng.normal(0, 0.8, 80)
    sb = y + rng.normal(0, 0.5, 80)
    r = compare.paired_bootstrap(y, sa, sb, metric=roc_auc_score, n_resamples=150, method="bca",
                                 random_state=0)
    assert r.score_b > r.score_a and r.ci_b.low < r.score_b < r.ci_b.high
    r = compare.paired_bootstrap(y, a, b, metric=f1_score, n_resamples=100, random_state=0)
    assert r.score_a == pytest.approx(f1_score(y, a))


def test_paired_bootstrap_bca_agrees_with_scipy_for_the_mean():
    rng = np.random.default_rng(4)
    x = rng.exponential(size=60)
    zeros = np.zeros(60)
    r = compare.paired_bootstrap(zeros, zeros, x, metric=lambda t, p: float(np.mean(p)), n_resamples=4000,
                                 method="bca", random_state=0)
    ref = stats.bootstrap((x,), np.mean, n_resamples=4000, method="BCa", random_state=0).confidence_interval
    width = ref.high - ref.low
    assert r.ci_b.low == pytest.approx(ref.low, abs=0.05 * width)   # Monte Carlo agreement
    assert r.ci_b.high == pytest.approx(ref.high, abs=0.05 * width)


def test_bca_undefined_when_estimate_outside_distribution():
    from predstab.compare._bootstrap import bootstrap_interval

    with pytest.warns(PredstabUndefinedWarning, match="BCa"):
        ci = bootstrap_interval([1.0, 2.0, 3.0], 5.0, 0.95, "bca", jackknife=[1.0, 2.0])
    assert np.isnan(ci.low) and np.isnan(ci.high)
    assert bootstrap_interval([2.0, 2.0], 2.0, 0.95, "bca", jackknife=[2.0, 2.0]) == (2.0, 2.0)


def test_paired_bootstrap_clusters():
    y, a, b = classifier_predictions(120, seed=5)
    groups = np.repeat(np.arange(30), 4)
    r = compare.paired_bootstrap(y, a, b, metric=accuracy, n_resamples=200, groups=groups, random_state=0)
    assert r.n_units == 30
    with pytest.raises(ValueError, match="`groups`"):
        compare.paired_bootstrap(y, a, b, metric=accuracy, groups=groups[:-1])


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(metric="accuracy"), TypeError, "`metric`"),
    (dict(metric=accuracy, method="BCa"), ValueError, "`method`"),   # "bca" is the one spelling
    (dict(metric=accuracy, confidence_level=95), ValueError, "`confidence_level`"),
    (dict(metric=accuracy, n_resamples=200.0), ValueError, "`n_resamples`"),
    (dict(metric=accuracy, n_resamples=1), ValueError, "`n_resamples`"),
])
def test_paired_bootstrap_bad_input(kwargs, exc, match):
    y, a, b = classifier_predictions(20)
    with pytest.raises(exc, match=match):
        compare.paired_bootstrap(y, a, b, **kwargs)


def test_paired_bootstrap_length_mismatch():
    y, a, b = classifier_predictions(20)
    with pytest.raises(ValueError, match="`b`"):
        compare.paired_bootstrap(y, a, b[:-1], metric=accuracy)


def test_bootstrap_ci_percentile_basic_bca_by_hand():
    x = np.array(A, dtype=float)
    per = compare.bootstrap_ci(x, method="percentile", n_resamples=2000, random_state=4)
    bas = compare.bootstrap_ci(x, method="basic", n_resamples=2000, random_state=4)
    # the same resamples (same seed): basic is the percentile interval reflected about the mean
    np.testing.assert_array_equal(per.bootstrap_distribution, bas.bootstrap_distribution)
    p_lo, p_hi = per.confidence_interval
    assert bas.confidence_interval == pytest.approx((2 * x.mean() - p_hi, 2 * x.mean() - p_lo), rel=1e-12)
    # percentile: the 2.5 % and 97.5 % points of the replicates; replicates are means of resamples
    lo, hi = np.percentile(per.bootstrap_distribution, [2.5, 97.5])
    assert per.confidence_interval == pytest.approx((lo, hi), abs=0.05)
    assert per.standard_error == pytest.approx(np.std(per.bootstrap_distribution, ddof=1), rel=1e-12)
    assert per.standard_error == pytest.approx(x.std(ddof=0) / np.sqrt(x.size), rel=0.1)  # bootstrap SE
    bca = compare.bootstrap_ci(x, np.median, method="bca", n_resamples=999, random_state=1)
    ref = stats.bootstrap((x,), np.median, n_resamples=999, method="BCa",
                          random_state=np.random.default_rng(1))
    assert bca.value == 46.5
    assert bca.confidence_interval == pytest.approx(tuple(ref.confidence_interval), rel=1e-12)
    assert compare.bootstrap_ci(x, random_state=3) == compare.bootstrap_ci(x, random_state=3)
    with pytest.warns(PredstabUndefinedWarning, match="constant"):
        assert compare.bootstrap_ci([2.0, 2.0, 2.0]).confidence_interval == (2.0, 2.0)
    with pytest.raises(ValueError, match="`method`"):
        compare.bootstrap_ci(x, method="BCa")
