"""Values and messages of compare/_cv that its first mutation sample (2026-12-07, seed 7) found
unpinned: the undefined (constant-difference) results in full, the corrected test's two-sided
interval, the fields of scipy-backed and 5x2cv results, the 5x2cv estimate at extreme scales.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from predstab import PredstabUndefinedWarning, compare

A = np.array([0.80, 0.82, 0.79, 0.81, 0.80, 0.83, 0.78, 0.80, 0.82, 0.81])
B = np.array([0.82, 0.83, 0.80, 0.84, 0.80, 0.85, 0.80, 0.81, 0.84, 0.82])
A52 = np.array([[0.80, 0.78], [0.79, 0.81], [0.80, 0.80], [0.77, 0.79], [0.81, 0.80]])
B52 = np.array([[0.84, 0.80], [0.82, 0.83], [0.81, 0.84], [0.80, 0.82], [0.83, 0.84]])


def _undefined_messages(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        r = call()
    return r, [str(w.message) for w in seen if issubclass(w.category, PredstabUndefinedWarning)]


def test_constant_differences_give_a_full_undefined_result():
    a = np.full(10, 0.5)
    r, messages = _undefined_messages(lambda: compare.corrected_resampled_ttest(
        a, a + 0.25, n_train=90, n_test=10, confidence_level=0.9))
    method = "Corrected resampled t-test (Nadeau-Bengio)"
    assert messages == [f"{method}: the scores are constant (standard error 0); the test is undefined "
                        "and its statistic and p-value are NaN."]
    assert math.isnan(r.statistic) and math.isnan(r.pvalue)
    assert r.statistic_name == "t" and r.method == method and r.confidence_level == 0.9
    assert r.df == 9 and r.estimate == 0.25
    assert all(math.isnan(v) for v in r.confidence_interval)


def test_corrected_two_sided_interval_by_hand():
    r = compare.corrected_resampled_ttest(A, B, n_train=900, n_test=100)
    d = B - A
    se = math.sqrt((1 / 10 + 100 / 900) * d.var(ddof=1))
    half = stats.t.isf(0.025, 9) * se
    assert tuple(r.confidence_interval) == pytest.approx((d.mean() - half, d.mean() + half), rel=1e-12)


def test_scipy_backed_results_keep_their_fields():
    r = compare.ttest(A, mu=0.75, confidence_level=0.9)
    assert r.null_value == 0.75 and r.confidence_level == 0.9 and r.statistic_name == "t"
    assert r.method == "One Sample t-test"     # R's t.test(x, mu = 0.75)$method


def test_cv5x2_fields_and_undefined_message():
    for test, name, df, method in ((compare.cv5x2_ttest, "t", 5.0, "5x2cv paired t-test"),
                                   (compare.cv5x2_ftest, "F", None, "combined 5x2cv F-test")):
        r = test(A52, B52)
        assert r.statistic_name == name and r.method == method
        assert r.estimate == pytest.approx(float((B52 - A52).mean()), rel=1e-12)
        if df is not None:
            assert r.df == df
    flat = np.full((5, 2), 0.5)
    r, messages = _undefined_messages(lambda: compare.cv5x2_ttest(flat, flat + 0.25))
    assert len(messages) == 1 and messages[0].endswith(": every repetition has equal fold differences "
                                                       "(variance 0); the test is undefined (NaN).")
    assert math.isnan(r.statistic) and r.statistic_name == "t"


def test_cv5x2_estimate_scales_back_at_tiny_scores():
    r = compare.cv5x2_ttest(A52 * 1e-300, B52 * 1e-300)
    assert r.estimate == pytest.approx(float((B52 - A52).mean()) * 1e-300, rel=1e-9)
