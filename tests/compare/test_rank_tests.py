"""friedman_nemenyi: the issue's figures, invariances, ties, names and bad input.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predstab import compare
from tests.compare._examples import RANKS


def test_friedman_nemenyi_issue_figures():
    r = compare.friedman_nemenyi(4 - RANKS)
    np.testing.assert_allclose(r.average_ranks, [22 / 12, 19 / 12, 31 / 12], rtol=1e-12)
    assert r.statistic == pytest.approx(6.50, abs=5e-3)      # issue: chi2_F = 6.50
    assert r.pvalue == pytest.approx(0.0388, abs=5e-5)       # issue: p = 0.0388
    assert r.critical_difference == pytest.approx(0.96, abs=5e-3)
    assert r.q_alpha == pytest.approx(2.3437, abs=5e-5)      # q_0.05 for k = 3
    # only the 1.00 gap exceeds the CD
    assert r.significant == (("method 2", "method 3"),)
    assert r.cliques() == [("method 2", "method 1"), ("method 1", "method 3")]
    # Demsar's formula (no ties)
    n, k = RANKS.shape
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(r.average_ranks ** 2) - k * (k + 1) ** 2 / 4)
    assert r.statistic == pytest.approx(chi2, rel=1e-12)
    ff = r.ranks_frame()
    assert ff["method"].tolist() == ["method 2", "method 1", "method 3"]


def test_friedman_invariances():
    rng = np.random.default_rng(5)
    s = rng.random((15, 4))
    r = compare.friedman_nemenyi(s)
    r_rows = compare.friedman_nemenyi(s[rng.permutation(15)])
    assert r_rows.statistic == pytest.approx(r.statistic, rel=1e-12)
    perm = np.array([2, 0, 3, 1])
    r_cols = compare.friedman_nemenyi(s[:, perm])
    np.testing.assert_allclose(r_cols.average_ranks, r.average_ranks[perm], rtol=1e-12)
    # ranking the negated scores the other way round is the same
    r_neg = compare.friedman_nemenyi(-s, higher_is_better=False)
    np.testing.assert_array_equal(r_neg.average_ranks, r.average_ranks)
    # monotone transformation changes nothing
    assert compare.friedman_nemenyi(np.exp(s)).statistic == pytest.approx(r.statistic, rel=1e-12)


def test_friedman_dataframe_names_and_ties():
    df = pd.DataFrame({"rf": [0.9, 0.8, 0.7, 0.8], "gbm": [0.9, 0.85, 0.75, 0.82], "lr": [0.7] * 4})
    r = compare.friedman_nemenyi(df)
    assert r.names == ("rf", "gbm", "lr")
    assert r.average_ranks.tolist() == [2.0, 1.125, 2.875]   # ties averaged within rows
    # identical columns: no difference, statistic 0 and p 1
    z = compare.friedman_nemenyi(np.ones((5, 3)))
    assert z.statistic == 0.0 and z.pvalue == 1.0 and z.significant == ()


@pytest.mark.parametrize("scores, exc, match", [
    (np.ones(5), ValueError, "2-dimensional"),
    (np.ones((1, 3)), ValueError, "at least 2 data sets"),
    (np.array([[1.0, np.nan], [1.0, 2.0]]), ValueError, "NaN"),
])
def test_friedman_bad_input(scores, exc, match):
    with pytest.raises(exc, match=match):
        compare.friedman_nemenyi(scores)


def test_friedman_bad_alpha():
    with pytest.raises(ValueError, match="`significance`"):
        compare.friedman_nemenyi(np.ones((3, 3)), significance=5)


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
