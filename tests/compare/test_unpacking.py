"""Test results unpack like SciPy's (issue 24, item 7): ``statistic, pvalue = compare.ttest(a, b)``.

Every result of predstab.compare with a ``statistic`` and a ``pvalue`` is a two-item sequence
(SciPy's ``_tuple_bunch``: ``len`` 2, indexing, unpacking) and keeps every attribute; a result
without a p-value does not unpack.
"""

import numpy as np
import pytest
from scipy import stats

from predstab import compare
from tests.compare._examples import A, B

# every public function of predstab.compare whose result is a test: (statistic, p-value)
TESTS = ["corrected_resampled_ttest", "cv5x2_ftest", "cv5x2_ttest", "friedman_nemenyi", "mcnemar",
         "mean_permutation_test", "paired_bootstrap", "paired_ttest_5x2cv", "paired_ttest_kfold_cv",
         "paired_ttest_resampled", "ttest", "wilcoxon", "win_rate_test"]


def test_the_list_is_every_function_whose_result_has_a_statistic_and_a_pvalue(example_results):
    with_both = sorted(name for name, r in example_results.items()
                       if hasattr(r, "statistic") and hasattr(r, "pvalue"))
    assert with_both == TESTS


@pytest.mark.parametrize("name", TESTS)
def test_every_test_result_unpacks_to_statistic_and_pvalue(name, example_results):
    r = example_results[name]
    statistic, pvalue = r
    assert (statistic, pvalue) == (r.statistic, r.pvalue)
    assert len(r) == 2 and r[0] == r.statistic and r[1] == r.pvalue and r[-1] == r.pvalue
    assert list(r) == [r.statistic, r.pvalue] and tuple(r[:1]) == (r.statistic,)
    with pytest.raises(IndexError):
        r[2]  # noqa: B018
    assert 0.0 <= pvalue <= 1.0 and np.isfinite(statistic)
    # every attribute stays: the result is still the dataclass it was, to_frame and all
    assert type(r).__name__.endswith("Result") and r.to_frame().shape[0] == 1
    assert r == r and str(r)


def test_unpacked_values_are_scipys():
    # scipy.stats.ttest_ind(b, a) / ttest_rel(b, a): B minus A, unpacked the same way
    t, p = compare.ttest(A, B)
    assert (t, p) == pytest.approx(tuple(stats.ttest_ind(B, A, equal_var=False)), rel=1e-12)
    t, p = compare.ttest(A, B, paired=True)
    assert (t, p) == pytest.approx(tuple(stats.ttest_rel(B, A)), rel=1e-12)
    # wilcoxon: V is R's statistic (the ranks of the positive B - A: only 420 - 51, the largest
    # |difference|, rank 10), the p-value scipy's normal approximation (|d| = 34 is tied, as in R)
    v, p = compare.wilcoxon(A, B)
    d = np.subtract(B, A, dtype=float)
    assert v == 10.0 == stats.rankdata(np.abs(d))[d > 0].sum()
    assert p == pytest.approx(stats.wilcoxon(d, correction=True, method="approx").pvalue, rel=1e-12)
    # win rate: the observed rate and binom.test's p-value
    rate, p = compare.win_rate_test(60, 100)
    assert rate == 0.6 and p == pytest.approx(stats.binomtest(60, 100).pvalue, rel=1e-12)


@pytest.mark.parametrize("name", ["mean_ci", "bootstrap_ci", "stratified_bootstrap_ci", "variance_components",
                                  "probability_of_improvement", "games_needed", "bonferroni_dunn"])
def test_a_result_without_a_single_pvalue_does_not_unpack(name, example_results):
    with pytest.raises(TypeError):
        iter(example_results[name])
