"""Values and messages of compare/_bootstrap that its first mutation sample (2026-12-07, seed 7)
found unpinned: the paired result's frames, bootstrap_ci's print and note, the single-point
warning, the masked-`b` message, and BCa's acceleration (0 for a constant jackknife; the
one-call-per-value jackknife of a statistic without ``axis``), each against a computation
written here from the result's own bootstrap distribution.
"""

import warnings

import numpy as np
import pytest
from scipy import stats

from predstab import PredstabDegenerateWarning, compare

Y = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 1])
A = np.array([0, 1, 0, 0, 1, 1, 1, 1, 0, 0])
B = np.array([0, 1, 1, 0, 1, 0, 1, 0, 0, 1])


def _accuracy(t, p):
    return float(np.mean(t == p))


def _bca_by_hand(reps, estimate, jackknife, level):
    """Efron's BCa interval, ties at the estimate counted half (as scipy.stats.bootstrap)."""
    z0 = stats.norm.ppf(np.mean(reps < estimate) + 0.5 * np.mean(reps == estimate))
    d = np.mean(jackknife) - jackknife
    acc = np.sum(d ** 3) / (6.0 * np.sum(d ** 2) ** 1.5) if np.any(d != 0) else 0.0
    z = stats.norm.ppf([(1 - level) / 2, (1 + level) / 2])
    return np.quantile(reps, stats.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z))))


def test_paired_frames_name_their_rows_and_columns():
    r = compare.paired_bootstrap(Y, A, B, metric=_accuracy, n_resamples=200, random_state=1)
    frame = r.summary_frame()
    assert frame["quantity"].tolist() == ["A", "B", "B - A"]
    assert frame["estimate"].tolist() == pytest.approx([0.7, 0.9, 0.2])
    assert frame["ci_low"].tolist() == [r.ci_a.low, r.ci_b.low, r.confidence_interval.low]
    one = r.to_frame()
    assert one.columns.tolist() == ["score_a", "score_b", "difference", "standard_error_difference",
                                    "pvalue", "ci_low", "ci_high"]
    assert one.iloc[0].tolist() == pytest.approx([0.7, 0.9, 0.2, r.standard_error_difference, r.pvalue,
                                                  r.confidence_interval.low, r.confidence_interval.high])


def test_bootstrap_ci_prints_its_interval_to_seven_digits_and_its_note():
    x = np.random.default_rng(3).normal(size=12)
    r = compare.bootstrap_ci(x, n_resamples=500, random_state=0)
    lo, hi = np.quantile(r.bootstrap_distribution, [0.025, 0.975])
    lines = str(r).strip("\n").split("\n")
    assert lines[:2] == [" Bootstrap percentile interval (500 resamples)", ""]
    assert lines[3:7] == ["95 percent confidence interval:", f" {lo:.7g} {hi:.7g}", "", "Note: " + r.note]
    assert r.note.startswith("with 12 scores bootstrap intervals are too narrow")


def test_thirty_scores_carry_no_note():
    r = compare.bootstrap_ci(np.arange(30.0), n_resamples=100, random_state=0)
    assert r.note == ""
    assert "Note" not in str(r)


def test_a_single_point_bootstrap_distribution_warns_with_its_value():
    # A predicts every case right: each resample's accuracy of A is 1
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        r = compare.paired_bootstrap(Y, Y, B, metric=_accuracy, n_resamples=100, random_state=0)
    messages = [str(w.message) for w in seen if issubclass(w.category, PredstabDegenerateWarning)]
    assert messages == ["The bootstrap distribution is a single point (1); the interval has no width."]
    assert tuple(r.ci_a) == (1.0, 1.0)


def test_a_masked_b_is_named():
    with pytest.raises(ValueError) as info:
        compare.paired_bootstrap(Y, A, np.ma.masked_array(B, mask=[1] + [0] * 9), metric=_accuracy)
    assert str(info.value).startswith("`b` has 1 masked value(s): a masked value is a missing value")


def test_bca_with_a_constant_jackknife_is_the_bias_corrected_percentile_interval():
    # the median of 7 ones and 4 zeros: every leave-one-out median is 1 (acceleration 0)
    x = np.array([1.0] * 7 + [0.0] * 4)
    r = compare.bootstrap_ci(x, statistic=np.median, n_resamples=400, method="bca", random_state=2)
    want = _bca_by_hand(r.bootstrap_distribution, r.value, np.ones(11), 0.95)
    assert np.isfinite(want).all()
    assert tuple(r.confidence_interval) == pytest.approx(tuple(want), rel=1e-12)


def test_bca_of_a_statistic_without_axis_uses_one_call_per_value():
    x = np.random.default_rng(5).lognormal(size=40)

    def mean_of(v):           # no `axis`: the jackknife calls it once per left-out value
        return float(np.mean(v))

    r = compare.bootstrap_ci(x, statistic=mean_of, n_resamples=300, method="bca", random_state=4)
    jack = (x.sum() - x) / (x.size - 1)
    want = _bca_by_hand(r.bootstrap_distribution, r.value, jack, 0.95)
    assert tuple(r.confidence_interval) == pytest.approx(tuple(want), rel=1e-10)
