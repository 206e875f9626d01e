"""McNemar's test: the issue's figures, statsmodels and enumeration, per-case judgments,
records and tables, missing judgments, bad input and the b <-> c symmetry.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from predstab import PredstabDataWarning, PredstabUndefinedWarning, compare


@pytest.mark.parametrize("table, p, delta", [
    ((146, 4, 14, 36), 0.030884, 5.0),   # issue figures, p printed to 6 decimals
    ((110, 40, 50, 0), 0.342833, 5.0),
    ((8, 0, 0, 2), 1.0, 0.0),
])
def test_mcnemar_issue_figures(table, p, delta):
    a, b, c, d = table
    r = compare.mcnemar([[a, b], [c, d]])
    assert r.pvalue == pytest.approx(p, abs=5e-7)
    assert r.delta_pp == pytest.approx(delta, abs=1e-12)
    assert r.table == table and r.n == sum(table) and r.discordant == b + c
    assert (r.regressions, r.improvements) == (b, c)


def test_mcnemar_empty_is_undefined_not_one():
    with pytest.warns(PredstabUndefinedWarning, match="no cases"):
        r = compare.mcnemar([[0, 0], [0, 0]])
    assert np.isnan(r.pvalue) and r.n == 0
    with pytest.warns(PredstabUndefinedWarning):
        assert np.isnan(compare.mcnemar([], []).pvalue)


@pytest.mark.parametrize("table", [(146, 4, 14, 36), (110, 40, 50, 0), (3, 7, 1, 9), (5, 0, 3, 1)])
def test_mcnemar_equals_statsmodels_exact(table):
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    a, b, c, d = table
    ref = sm_mcnemar(np.array([[a, b], [c, d]]), exact=True)
    r = compare.mcnemar([[a, b], [c, d]])
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.statistic == ref.statistic


def test_mcnemar_mid_p():
    # mid-p = exact p - P[X = min(b, c)], X ~ Binomial(b + c, 1/2) (Fagerland et al. 2013)
    r = compare.mcnemar([[146, 4], [14, 36]], mid_p=True)
    assert r.pvalue == pytest.approx(0.0308837890625 - stats.binom.pmf(4, 18, 0.5), rel=1e-12)
    # b = c: the exact p is 1 and the mid-p value 1 - P[X = b] / 2, not 1 (Fagerland et al. 2013)
    assert compare.mcnemar([[1, 5], [5, 1]], mid_p=True).pvalue == pytest.approx(
        1 - stats.binom.pmf(5, 10, 0.5) / 2, rel=1e-12)
    assert compare.mcnemar([[1, 5], [5, 1]], method="mid-p") == compare.mcnemar([[1, 5], [5, 1]], mid_p=True)
    # mid-p as P(|X - m/2| > |b - m/2|) + P(|X - m/2| = |b - m/2|) / 2, by enumeration
    for b, c in ((4, 14), (5, 5), (0, 3), (7, 6)):
        m = b + c
        x = np.arange(m + 1)
        pmf = stats.binom.pmf(x, m, 0.5)
        dist, obs = np.abs(x - m / 2), abs(b - m / 2)
        want = pmf[dist > obs + 1e-9].sum() + 0.5 * pmf[np.abs(dist - obs) < 1e-9].sum()
        assert compare.mcnemar([[3, b], [c, 2]], method="mid-p").pvalue == pytest.approx(want, rel=1e-12)


def test_mcnemar_from_arrays_and_records_agree_with_table():
    rng = np.random.default_rng(3)
    old = rng.integers(0, 2, 300)
    new = np.where(rng.random(300) < 0.8, old, 1 - old)
    r = compare.mcnemar(old, new, ids=np.arange(300))
    a = int(np.sum((old == 1) & (new == 1)))
    b = int(np.sum((old == 1) & (new == 0)))
    c = int(np.sum((old == 0) & (new == 1)))
    assert r.table == (a, b, c, 300 - a - b - c)
    assert r.pvalue == compare.mcnemar([[a, b], [c, 300 - a - b - c]]).pvalue
    records = [(f"case{i}", bool(o), bool(n)) for i, (o, n) in enumerate(zip(old, new, strict=True))]
    ids, o, n = zip(*records, strict=True)
    assert compare.mcnemar(o, n, ids=ids).table == r.table
    assert compare.mcnemar(records).table == r.table
    frame = pd.DataFrame(records, columns=["id", "old", "new"])
    assert compare.mcnemar(frame).table == r.table
    with pytest.raises(ValueError, match="`ids` must be unique"):
        compare.mcnemar(records + records[:1])
    # shuffling the cases changes nothing
    perm = rng.permutation(300)
    assert compare.mcnemar(old[perm], new[perm]).table == r.table


def test_mcnemar_missing_judgment_dropped_not_failure():
    with pytest.warns(PredstabDataWarning, match="missing"):
        r = compare.mcnemar([1, 1, 0, None, 1], [1, 0, 1, 1, np.nan])
    assert r.table == (1, 1, 1, 0) and r.n == 3
    old = pd.array([1, 1, 0, pd.NA], dtype="Int64")
    new = pd.array([True, False, True, True], dtype="boolean")
    with pytest.warns(PredstabDataWarning, match="1 case"):
        assert compare.mcnemar(old, new).table == (1, 1, 1, 0)
    # the warning points at the caller, also for records
    with pytest.warns(PredstabDataWarning) as caught:
        compare.mcnemar([("a", 1, 1), ("b", None, 0), ("c", 0, 1)])
    assert caught[0].filename == __file__


@pytest.mark.parametrize("args, kwargs, match", [
    (([1, 0, 1], [1, 1, 0]), dict(ids=["a", "b", "a"]), "`ids` must be unique"),
    (([1, 2], [1, 0]), {}, "`a` must contain only 0/1"),
    (([1, 0], [1, "yes"]), {}, "`b` must contain only 0/1"),
    (([1, 0], [1]), {}, "same length"),
    (([1, 0], [1, 0]), dict(ids=[1]), "`ids` must have one entry"),
])
def test_mcnemar_rejects_bad_records(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        compare.mcnemar(*args, **kwargs)


def test_mcnemar_bad_table():
    with pytest.raises(ValueError, match="`a` must be a square"):
        compare.mcnemar([1, 2, 3, 4])
    with pytest.raises(ValueError, match="`a` must be a 2 x 2"):
        compare.mcnemar(np.ones((4, 4), dtype=int))
    with pytest.raises(ValueError, match="`method`"):
        compare.mcnemar([[1, 2], [3, 4]], method="chisq")
    with pytest.raises(ValueError, match="non-negative whole"):
        compare.mcnemar([[1, -2], [3, 4]])
    with pytest.raises(TypeError, match="not both"):       # a table carries no case ids
        compare.mcnemar([[1, 2], [3, 4]], ids=[1, 2])
    with pytest.raises(ValueError, match="`a` must be one-dimensional"):   # a table and judgments
        compare.mcnemar([[1, 2], [3, 4]], [1, 0])
    with pytest.raises(TypeError, match="`mid_p`"):
        compare.mcnemar([[1, 2], [3, 4]], mid_p="yes")


def test_mcnemar_to_frame():
    f = compare.mcnemar([[146, 4], [14, 36]]).to_frame()
    assert f.shape[0] == 1 and f["pvalue"].iloc[0] == pytest.approx(0.0308837890625)


def test_mcnemar_asymptotic_degenerate_and_records_vs_table():
    # no discordant cases: p = 1 (R divides 0 by 0)
    r = compare.mcnemar([[5, 0], [0, 7]], method="asymptotic")
    assert (r.statistic, r.pvalue, r.df) == (0.0, 1.0, 1)
    # a 3 x 3 array is a table of counts for the asymptotic method, records otherwise
    t = [[3, 1, 0], [2, 4, 1], [0, 3, 5]]
    assert compare.mcnemar(t, method="asymptotic").table == tuple(map(tuple, t))
    assert compare.mcnemar([[1, 1, 0], [2, 0, 1], [3, 1, 1]]).table == (1, 1, 1, 0)
    # Bowker's statistic on 2 x 2 without correction is McNemar's
    two = compare.mcnemar([[10, 3], [9, 4]], method="asymptotic", correction=False)
    assert two.statistic == pytest.approx((3 - 9) ** 2 / 12, rel=1e-14)
    with pytest.raises(ValueError, match="`mid_p=True`"):
        compare.mcnemar([[10, 3], [9, 4]], method="asymptotic", mid_p=True)


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
