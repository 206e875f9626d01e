"""ttest, the CV-aware t-tests (Nadeau-Bengio, 5x2cv) and wilcoxon: formulas by hand,
one-sided and shifted nulls, the repeated-CV simulation, antisymmetry.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from predstab import PredstabDataWarning, PredstabUndefinedWarning, compare
from tests.compare._examples import A, B


def test_ttest_constant_differences_undefined():
    with pytest.warns(PredstabUndefinedWarning, match="constant"):
        r = compare.ttest([1.0, 2.0, 3.0], [2.0, 3.0, 4.0], paired=True)
    assert np.isnan(r.statistic) and np.isnan(r.pvalue) and r.estimate == 1.0


def test_ttest_mu_and_one_sided_by_hand():
    a, b = np.array(A, float), np.array(B, float)
    # two-sample with mu: t.test(B, A, mu = 5): t of (mean B - mean A - 5), interval of mean B - mean A
    r, shifted = compare.ttest(a, b, mu=5.0), compare.ttest(a, b - 5.0)
    assert r.statistic == pytest.approx(shifted.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(shifted.pvalue, rel=1e-12)
    assert r.confidence_interval == pytest.approx(tuple(np.add(shifted.confidence_interval, 5.0)), rel=1e-12)
    assert r.estimate == pytest.approx(16.9, rel=1e-12)
    # paired with mu, against the one-sample test of the differences
    p = compare.ttest(a, b, paired=True, mu=2.0)
    d = b - a
    t = (d.mean() - 2.0) / (d.std(ddof=1) / np.sqrt(10))
    assert p.statistic == pytest.approx(t, rel=1e-12)
    assert p.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 9), rel=1e-12)
    # one-sided corrected resampled t: half the two-sided p on the side of the estimate
    x = [0.80, 0.82, 0.79, 0.81, 0.80, 0.83, 0.78, 0.80, 0.82, 0.81]
    y = [0.82, 0.83, 0.80, 0.84, 0.80, 0.85, 0.80, 0.81, 0.84, 0.82]
    two = compare.corrected_resampled_ttest(x, y, n_train=900, n_test=100)
    up = compare.corrected_resampled_ttest(x, y, n_train=900, n_test=100, alternative="greater")
    down = compare.corrected_resampled_ttest(x, y, n_train=900, n_test=100, alternative="less")
    assert up.pvalue == pytest.approx(two.pvalue / 2, rel=1e-12)
    assert down.pvalue == pytest.approx(1 - two.pvalue / 2, rel=1e-12)
    assert up.confidence_interval.high == np.inf and down.confidence_interval.low == -np.inf


def test_corrected_resampled_ttest_formula():
    a = np.array([0.80, 0.82, 0.79, 0.81, 0.80, 0.83, 0.78, 0.80, 0.82, 0.81])
    d = np.array([0.02, 0.01, 0.01, 0.03, 0.00, 0.02, 0.02, 0.01, 0.02, 0.01])
    r = compare.corrected_resampled_ttest(a, a + d, n_train=900, n_test=100)
    # by hand: mean 0.015, var 0.0000722..., se = sqrt((1/10 + 100/900) var)
    var = np.sum((d - 0.015) ** 2) / 9
    t = 0.015 / np.sqrt((0.1 + 1 / 9) * var)
    assert r.statistic == pytest.approx(t, rel=1e-9)
    assert r.pvalue == pytest.approx(2 * stats.t.sf(t, 9), rel=1e-9)
    # without the overlap term it is the paired t-test: the correction only widens
    naive = compare.ttest(a, a + d, paired=True)
    tiny = compare.corrected_resampled_ttest(a, a + d, n_train=1e12, n_test=1e-3)
    assert tiny.statistic == pytest.approx(naive.statistic, rel=1e-9)
    assert r.pvalue > naive.pvalue
    # a (repeats x folds) table is the same as its flattened scores
    r2 = compare.corrected_resampled_ttest(a.reshape(2, 5), (a + d).reshape(2, 5), n_train=900, n_test=100)
    assert r2.statistic == r.statistic


def test_cv5x2_tests_by_hand():
    a = np.zeros((5, 2))
    p = np.array([[0.04, 0.02], [0.03, 0.02], [0.01, 0.04], [0.03, 0.03], [0.02, 0.04]])
    # s_i^2 = (p_i1 - mean)^2 + (p_i2 - mean)^2 = (p_i1 - p_i2)^2 / 2
    s2 = np.array([0.0002, 0.00005, 0.00045, 0.0, 0.0002])
    t = compare.cv5x2_ttest(a, p)
    assert t.statistic == pytest.approx(0.04 / np.sqrt(s2.mean()), rel=1e-9)
    assert t.pvalue == pytest.approx(2 * stats.t.sf(t.statistic, 5), rel=1e-9)
    f = compare.cv5x2_ftest(a, p)
    assert f.statistic == pytest.approx(np.sum(p ** 2) / (2 * s2.sum()), rel=1e-9)
    assert f.pvalue == pytest.approx(stats.f.sf(f.statistic, 10, 5), rel=1e-9)
    with pytest.raises(ValueError, match=r"shape \(5, 2\)"):
        compare.cv5x2_ttest(np.zeros((2, 5)), np.zeros((2, 5)))
    with pytest.warns(PredstabUndefinedWarning):
        assert np.isnan(compare.cv5x2_ftest(a, np.ones((5, 2))).pvalue)


def test_wilcoxon_ties_use_normal_approximation_like_r():
    a = np.array([0.80, 0.71, 0.65, 0.90, 0.55, 0.60])
    b = a + np.array([0.02, 0.03, -0.01, 0.05, 0.05, 0.0])
    r = compare.wilcoxon(a, b)
    assert r.method == "Wilcoxon signed rank test with continuity correction"
    # scipy's normal approximation with the same corrections (zeros dropped)
    ref = stats.wilcoxon(b - a, zero_method="wilcox", correction=True, method="approx")
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-6)
    with pytest.warns(PredstabUndefinedWarning):
        assert np.isnan(compare.wilcoxon(a, a).pvalue)


def test_wilcoxon_exact_with_ties_warns_and_uses_the_normal_approximation():
    # R: wilcox.test(y, x, paired = TRUE, exact = TRUE) warns "cannot compute exact p-value with ties"
    a, b = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2.0, 3.0, 5.0, 6.0, 4.0, 9.0]   # |d| = 1, 1, 2, 2, 1, 3
    with pytest.warns(PredstabDataWarning, match="exact"):
        r = compare.wilcoxon(a, b, exact=True)
    assert r == compare.wilcoxon(a, b, exact=False)
    assert r.method == "Wilcoxon signed rank test with continuity correction"


def _repeated_cv_rejections(rng, n_datasets, n_repeats, n=100, k=5):
    """Share of data sets where the naive and the corrected test reject at 0.05, for two
    equally good threshold classifiers (one on each of two equally informative features)."""
    naive = corrected = 0
    for _ in range(n_datasets):
        y = rng.integers(0, 2, n)
        X = y[:, None] + rng.normal(0, 1, (n, 2))
        scores = [[], []]
        for _ in range(n_repeats):
            for fold in np.array_split(rng.permutation(n), k):
                train = np.ones(n, bool)
                train[fold] = False
                for j in (0, 1):
                    cut = (X[train & (y == 1), j].mean() + X[train & (y == 0), j].mean()) / 2
                    scores[j].append(np.mean((X[fold, j] > cut) == y[fold]))
        a, b = np.array(scores[0]), np.array(scores[1])
        naive += compare.ttest(a, b, paired=True).pvalue < 0.05
        nb = compare.corrected_resampled_ttest(a, b, n_train=n * (k - 1) / k, n_test=n / k)
        corrected += nb.pvalue < 0.05
    return naive / n_datasets, corrected / n_datasets


def test_repeated_cv_naive_test_inflates_with_repetitions_corrected_does_not():
    # the claim the docs make: fold scores of repeated CV are correlated, so the naive paired
    # t-test rejects ever more often as repetitions are added although A and B are equally
    # good; the Nadeau-Bengio correction keeps the rejection rate near the nominal 5 %
    rng = np.random.default_rng(0)
    naive_2, corrected_2 = _repeated_cv_rejections(rng, 150, n_repeats=2)
    naive_10, corrected_10 = _repeated_cv_rejections(rng, 150, n_repeats=10)
    assert naive_10 > 0.3 and naive_10 > naive_2 + 0.2
    assert corrected_10 < 0.1 and corrected_2 < 0.1


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
