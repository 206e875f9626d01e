"""Registry-driven bad-input checks and hypothesis invariances for predstab.compare."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predstab import compare

X = [0.80, 0.82, 0.79, 0.81, 0.84]
Y = [0.83, 0.85, 0.80, 0.82, 0.88]

# (call, exception, text that names the parameter)
BAD_INPUT = {
    "ttest level": (lambda: compare.ttest(X, Y, confidence_level=1.5), ValueError, "`confidence_level`"),
    "ttest paired+equal_var": (lambda: compare.ttest(X, Y, paired=True, equal_var=True), ValueError,
                               "`equal_var`"),
    "ttest paired lengths": (lambda: compare.ttest(X, Y[:-1], paired=True), ValueError, "same shape"),
    "ttest nan": (lambda: compare.ttest([1.0, np.nan, 2.0], Y), ValueError, "`a`"),
    "ttest one value": (lambda: compare.ttest([1.0], Y), ValueError, "at least 2"),
    "ttest text": (lambda: compare.ttest(["a", "b"], Y), TypeError, "`a`"),
    "wilcoxon correct": (lambda: compare.wilcoxon(X, Y, correction=1), TypeError, "`correction`"),
    "wilcoxon 2-D": (lambda: compare.wilcoxon([X], [Y]), ValueError, "1-dimensional"),
    "corrected n_train": (lambda: compare.corrected_resampled_ttest(X, Y, n_train=0, n_test=10),
                          ValueError, "`n_train`"),
    "corrected n_test": (lambda: compare.corrected_resampled_ttest(X, Y, n_train=10, n_test=-1),
                         ValueError, "`n_test`"),
    "permutation n": (lambda: compare.mean_permutation_test(X, Y, n_resamples=0), ValueError,
                      "`n_resamples`"),
    "permutation paired lengths": (lambda: compare.mean_permutation_test(X, Y[:3], paired=True), ValueError,
                                   "same length"),
    "permutation rng": (lambda: compare.mean_permutation_test(X, Y, random_state="seed"), TypeError,
                        "`random_state`"),
    "permutation empty": (lambda: compare.mean_permutation_test([], Y), ValueError, "`a`"),
    "mean_ci level": (lambda: compare.mean_ci(X, confidence_level=0), ValueError, "`confidence_level`"),
    "mean_ci short": (lambda: compare.mean_ci([1.0]), ValueError, "`x`"),
    "stratified 1-D": (lambda: compare.stratified_bootstrap_ci(X), ValueError, "`scores`"),
    "stratified statistic": (lambda: compare.stratified_bootstrap_ci([X, Y], statistic="iqm"), TypeError,
                             "`statistic`"),
    "win rate level": (lambda: compare.win_rate_test(5, 10, confidence_level=2), ValueError,
                       "`confidence_level`"),
    "win rate count 3.0": (lambda: compare.win_rate_test(3.0, 10), ValueError, "`wins`"),
    "expected max text": (lambda: compare.expected_max_normal("5"), TypeError, "`k`"),
    "friedman higher": (lambda: compare.friedman_nemenyi([X, Y], higher_is_better="yes"), TypeError,
                        "`higher_is_better`"),
    "bootstrap rng": (lambda: compare.paired_bootstrap(
        [0, 1, 0], [0, 1, 1], [0, 1, 0], metric=lambda t, p: 0.0,
        random_state=np.random.RandomState(0)), TypeError, "`random_state`"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_names_parameter(case):
    call, exc, match = BAD_INPUT[case]
    with pytest.raises(exc, match=match):
        call()


counts = st.integers(min_value=0, max_value=60)


@settings(max_examples=60, deadline=None)
@given(counts, counts, counts, counts)
def test_mcnemar_swap_b_c_symmetry(a, b, c, d):
    # swapping old and new swaps regressions and improvements: same p, opposite change
    if a + b + c + d == 0:
        return
    r = compare.mcnemar([[a, b], [c, d]])
    s = compare.mcnemar([[a, c], [b, d]])
    assert r.pvalue == pytest.approx(s.pvalue, rel=1e-12)
    assert r.delta_pp == pytest.approx(-s.delta_pp, abs=1e-12)
    assert 0 < r.pvalue <= 1
    # concordant cases never change the p-value
    assert compare.mcnemar([[a + 7, b], [c, d + 3]]).pvalue == r.pvalue
    assert compare.mcnemar([[a, b], [c, d]], mid_p=True).pvalue <= r.pvalue + 1e-15


scores = st.lists(st.floats(min_value=-5, max_value=5, allow_nan=False, width=32), min_size=3, max_size=12)


@settings(max_examples=40, deadline=None)
@given(scores, scores)
def test_ttest_antisymmetry_and_shift_invariance(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    # constant samples have no t statistic; so do samples whose spread is lost when shifted
    # (a + 3 rounds [0, 7e-25] to [3, 3])
    if min(np.ptp(a), np.ptp(b), np.ptp(a + 3.0), np.ptp(b + 3.0)) == 0:
        return
    r = compare.ttest(a, b)
    s = compare.ttest(b, a)
    assert r.statistic == pytest.approx(-s.statistic, rel=1e-9, abs=1e-12)
    assert r.pvalue == pytest.approx(s.pvalue, rel=1e-9, abs=1e-12)
    shifted = compare.ttest(a + 3.0, b + 3.0)
    assert shifted.statistic == pytest.approx(r.statistic, rel=1e-6, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=2**31 - 1))
def test_permutation_same_seed_same_p(seed):
    p1 = compare.mean_permutation_test(X, Y, n_resamples=99, random_state=seed).pvalue
    p2 = compare.mean_permutation_test(X, Y, n_resamples=99, random_state=seed).pvalue
    assert p1 == p2
    # swapping the groups only flips the sign of the statistic; with the same seed the
    # two-sided hits are the same
    r = compare.mean_permutation_test(Y, X, n_resamples=99, random_state=seed)
    assert r.statistic == pytest.approx(-compare.mean_permutation_test(X, Y, n_resamples=99,
                                                                  random_state=seed).statistic)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=2, max_value=8), st.integers(min_value=2, max_value=15),
       st.integers(min_value=0, max_value=10_000))
def test_friedman_rank_bounds_and_permutation_invariance(k, n, seed):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 4, size=(n, k)).astype(float)   # many ties on purpose
    r = compare.friedman_nemenyi(s)
    assert r.average_ranks.sum() == pytest.approx(k * (k + 1) / 2)
    assert np.all((1 <= r.average_ranks) & (r.average_ranks <= k))
    assert 0 <= r.pvalue <= 1 and r.statistic >= 0
    perm = rng.permutation(n)
    assert compare.friedman_nemenyi(s[perm]).statistic == pytest.approx(r.statistic, rel=1e-12, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(min_value=-100, max_value=100, allow_nan=False), min_size=1, max_size=40))
def test_iqm_between_min_and_max_and_order_free(x):
    v = compare.iqm(x)
    assert min(x) - 1e-9 <= v <= max(x) + 1e-9
    assert compare.iqm(sorted(x)) == pytest.approx(v, rel=1e-12, abs=1e-12)
