"""The terms of the per-object and overall intervals, each against a computation written out here."""

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import optimize, sparse, stats

import predstab
from predstab.stability import _disagreement
from predstab.stability._object_intervals import (
    _bonett_kurtosis,
    _class_object_intervals,
    _least_sum_of_squares,
    _metric_object_intervals,
    _pooled_excess_kurtosis,
    _refit_variances,
    _row_moments,
)


def _jackknife(values):
    values = np.asarray(values, dtype=float)
    n = values.size
    return (n - 1) / n * float(np.sum((values - values.mean()) ** 2))


# --------------------------------------------------------------------------- refit variances

def test_metric_refit_variances_are_the_jackknife_of_the_sample_variance():
    rows = [[0.0, 1.0, 3.0], [2.0, -1.0, 0.5, 4.0], [1.0, 2.0, 2.0, 7.0, -3.0, 0.0, 5.0],
            [1.0, 4.0, np.nan, 2.0, 8.0, np.nan, np.nan], [3.0, 5.0]]
    width = max(len(r) for r in rows)
    x = np.array([r + [np.nan] * (width - len(r)) for r in rows])
    moments = _row_moments(x)
    count = moments[0].astype(np.int64)
    d_o_i = np.array([np.nanvar(r, ddof=1) for r in x])
    got = _refit_variances(d_o_i, count, moments=moments)
    for i, r in enumerate(x):
        r = r[~np.isnan(r)]
        if r.size >= 3:
            loo = [np.var(np.delete(r, j), ddof=1) for j in range(r.size)]
            assert got[i] == pytest.approx(_jackknife(loo), rel=1e-12)
        else:  # two refits: the normal-theory 2 s^4
            assert got[i] == pytest.approx(2 * d_o_i[i] ** 2, rel=1e-12)


def _class_jackknife(counts, delta2):
    """Leave out each vote in turn: the disagreeing ordered pairs over (R - 1)(R - 2)."""
    counts = np.asarray(counts)
    r = int(counts.sum())
    votes = np.repeat(np.arange(counts.size), counts)
    loo = []
    for j in range(r):
        rest = np.delete(votes, j)
        pairs = sum(delta2[a, b] for a, b in itertools.permutations(rest, 2))
        loo.append(pairs / ((r - 1) * (r - 2)))
    return _jackknife(loo)


@pytest.mark.parametrize("ordinal", [False, True])
@pytest.mark.parametrize("as_sparse", [False, True])
def test_class_refit_variances_are_the_jackknife_over_the_votes(ordinal, as_sparse):
    table = np.array([[3, 1, 1], [2, 2, 0], [0, 5, 2], [1, 0, 1], [4, 0, 0]])
    position = np.array([0.0, 1.0, 3.0])
    delta2 = (position[:, None] - position[None, :]) ** 2 if ordinal else None
    d2 = delta2 if ordinal else 1.0 - np.eye(3)
    count = table.sum(axis=1)
    d_o_i = np.array([t @ d2 @ t for t in table]) / (count * (count - 1))
    got = _refit_variances(d_o_i, count, table=sparse.csr_matrix(table) if as_sparse else table,
                           delta2=delta2)
    for i, t in enumerate(table):
        expected = _class_jackknife(t, d2) if count[i] >= 3 else d_o_i[i] ** 2
        assert got[i] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert got[3] == pytest.approx(d_o_i[3] ** 2)  # two votes


# --------------------------------------------------------------------------- pooled kurtosis

def test_pooled_kurtosis_is_the_ratio_of_summed_k4_and_sigma4_over_objects_with_four_refits():
    rows = [[0.0, 1.0, 5.0, 2.0], [3.0, -2.0, 0.0, 9.0, 1.0], [1.0, 2.0, 4.0], [0.0, 0.0, 7.0, 1.0, 1.0, 2.0]]
    width = max(len(r) for r in rows)
    x = np.array([r + [np.nan] * (width - len(r)) for r in rows])
    count, s2, s4 = _row_moments(x)
    k4_sum = sigma4_sum = 0.0
    for r in rows:
        if len(r) >= 4:
            n = len(r)
            k2, k4 = stats.kstat(r, 2), stats.kstat(r, 4)
            k4_sum += k4
            sigma4_sum += (k2 ** 2 - k4 / n) * (n - 1) / (n + 1)
    kappa, used = _pooled_excess_kurtosis(count, s2, s4)
    assert kappa == pytest.approx(k4_sum / sigma4_sum, rel=1e-10)
    assert used == 3
    # with only the four-refit object
    count4, s24, s44 = _row_moments(x[:1, :4])
    r = rows[0]
    k2, k4 = stats.kstat(r, 2), stats.kstat(r, 4)
    assert _pooled_excess_kurtosis(count4, s24, s44)[0] == pytest.approx(k4 / ((k2 ** 2 - k4 / 4) * 3 / 5),
                                                                          rel=1e-10)
    # no object with four refits: no kurtosis
    kappa, used = _pooled_excess_kurtosis(np.array([3.0, 2.0]), np.array([1.0, 2.0]), np.array([1.0, 4.0]))
    assert math.isnan(kappa) and used == 0


def test_pooled_interval_of_an_object_with_two_refits_uses_satterthwaites_df():
    x = np.array([[0.0, 1.0, 5.0, 2.0, 9.0, 1.0], [3.0, -2.0, 0.0, 9.0, 1.0, 0.0],
                  [1.0, 2.0, np.nan, np.nan, np.nan, np.nan]])
    moments = _row_moments(x)
    count = moments[0].astype(np.int64)
    d_o_i = np.array([np.nanvar(r, ddof=1) for r in x])
    kappa = _pooled_excess_kurtosis(*moments)[0]
    assert kappa != 0.0
    low, high, info = _metric_object_intervals(d_o_i, count, 0.9, "pooled", x, moments)
    assert info["kurtosis"] == kappa
    for i, n in enumerate(count):
        df = 2.0 / (2.0 / (n - 1) + kappa / n)
        assert low[i] == pytest.approx(df * d_o_i[i] / stats.chi2.ppf(0.95, df), rel=1e-12)
        assert high[i] == pytest.approx(df * d_o_i[i] / stats.chi2.ppf(0.05, df), rel=1e-12)


# --------------------------------------------------------------------------- Bonett's interval

def _bonett_g4(r):
    n = len(r)
    cut = int(n / (2 * math.sqrt(n - 4)))
    m = np.mean(np.sort(r)[cut:n - cut])
    return n * np.sum((r - m) ** 4) / np.sum((r - np.mean(r)) ** 2) ** 2 * (n + 1) / (n - 1)


def test_bonett_interval_and_its_heavy_tail_flag():
    r = np.array([0.0, 4.0, 4.0, 3.0, 0.0, 3.0, 4.0, 4.0])  # g4 = 6.69: excess 3.69 above 3
    g4 = _bonett_g4(r)
    assert 6.6 < g4 < 6.7
    n, s2 = r.size, np.var(r, ddof=1)
    assert _bonett_kurtosis(r[None, :], np.array([n]), np.array([s2 * (n - 1)]))[0] == pytest.approx(g4)
    low, high, info = _metric_object_intervals(np.array([s2]), np.array([n]), 0.95, "bonett", r[None, :])
    z = stats.norm.ppf(0.975)
    c = n / (n - z)
    se = c * math.sqrt((g4 - (n - 3) / n) / (n - 1))
    assert (low[0], high[0]) == pytest.approx((c * s2 * math.exp(-z * se), c * s2 * math.exp(z * se)),
                                              rel=1e-12)
    assert info["heavy"] == 1
    # the flag is the headline interval's: an object among several does not set it
    light = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    both = np.stack([r, light])
    d_o_i = np.var(both, axis=1, ddof=1)
    assert _metric_object_intervals(d_o_i, np.array([8, 8]), 0.95, "bonett", both)[2]["heavy"] == 0
    # a light-tailed object alone: no flag
    g4_light = _bonett_g4(light)
    assert g4_light - 3 < 3
    assert _metric_object_intervals(d_o_i[1:], np.array([8]), 0.95, "bonett", light[None, :])[2]["heavy"] == 0


# --------------------------------------------------------------------------- class bounds

def _cp_bounds(counts, r, alpha):
    low = np.array([stats.beta.ppf(alpha / 2, k, r - k + 1) if k > 0 else 0.0 for k in counts])
    high = np.array([stats.beta.ppf(1 - alpha / 2, k + 1, r - k) if k < r else 1.0 for k in counts])
    return low, high


def _vertex_minimum_of_gini(low, high):
    """min of 1 - sum p^2 over the box on the simplex: at a vertex (all shares but one at a bound)."""
    k = low.size
    best = np.inf
    for j in range(k):
        others = [c for c in range(k) if c != j]
        for at in itertools.product((0, 1), repeat=k - 1):
            p = np.empty(k)
            p[others] = [high[c] if a else low[c] for c, a in zip(others, at, strict=True)]
            p[j] = 1.0 - p[others].sum()
            if low[j] - 1e-12 <= p[j] <= high[j] + 1e-12:
                best = min(best, 1.0 - np.sum(p * p))
    return best


def _water_filling(low, high):
    """min sum p^2 over the box on the simplex: p = clip(t, low, high) with t a root of the sum."""
    t = optimize.brentq(lambda t: np.clip(t, low, high).sum() - 1.0, 0.0, 1.0, xtol=1e-15, rtol=1e-15)
    p = np.clip(t, low, high)
    return float(np.sum(p * p))


@pytest.mark.parametrize("table", [
    np.array([[4, 3, 2, 1, 0, 0], [10, 0, 0, 0, 0, 0], [2, 2, 2, 2, 1, 1]]),
    np.array([[3, 1, 1], [5, 0, 0]]),
])
def test_class_bounds_up_to_six_categories_are_exact_on_the_simplex(table):
    r = table.sum(axis=1)
    k = table.shape[1]
    low, high = _class_object_intervals(table, r, None, 0.9)
    for i, t in enumerate(table):
        lo, hi = _cp_bounds(t, r[i], 0.1 / k)
        assert low[i] == pytest.approx(_vertex_minimum_of_gini(lo, hi), rel=1e-9, abs=1e-12)
        assert high[i] == pytest.approx(min(1.0 - _water_filling(lo, hi), 1 - 1 / k), rel=1e-9)


def test_least_sum_of_squares_is_water_filling():
    low = np.array([[0.0, 0.05, 0.1, 0.0, 0.0, 0.0, 0.2, 0.0], [0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]])
    high = np.array([[0.4, 0.5, 0.6, 0.1, 0.1, 0.2, 0.7, 0.3], [0.9, 0.1, 0.1, 0.1, 0.05, 0.05, 0.1, 0.1]])
    got = _least_sum_of_squares(low, high)
    for i in range(2):
        assert got[i] == pytest.approx(_water_filling(low[i], high[i]), rel=1e-12)
    assert got[1] == pytest.approx(0.4 ** 2 + 5 * 0.1 ** 2 + 2 * 0.05 ** 2, rel=1e-12)


@pytest.mark.parametrize("ordinal", [False, True])
def test_class_bounds_of_many_categories_are_the_same_from_a_sparse_table(ordinal):
    # more than six categories: sum-of-bounds forms; the upper bound of categories by water filling
    # (a sparse table took U' Delta U, up to the cap, before: a unanimous object's bound was the cap)
    table = np.array([[5, 3, 2, 0, 0, 0, 0, 0], [10, 0, 0, 0, 0, 0, 0, 0], [2, 2, 2, 1, 1, 1, 1, 0]])
    r = table.sum(axis=1)
    position = np.arange(8.0) ** 1.5
    delta2 = (position[:, None] - position[None, :]) ** 2 if ordinal else None
    dense = _class_object_intervals(table, r, delta2, 0.95)
    from_sparse = _class_object_intervals(sparse.csr_matrix(table), r, delta2, 0.95)
    np.testing.assert_allclose(from_sparse, dense, rtol=1e-12, atol=1e-15)
    if not ordinal:
        for i, t in enumerate(table):
            lo, hi = _cp_bounds(t, r[i], 0.05 / 8)
            assert dense[0][i] == pytest.approx(lo.sum() ** 2 - np.sum(lo * lo), abs=1e-15)
            assert dense[1][i] == pytest.approx(min(1 - _water_filling(lo, hi), 7 / 8), rel=1e-9)
        assert dense[1][1] < 0.66  # the unanimous object: well below the cap 7 / 8


def test_psi_per_object_intervals_do_not_depend_on_the_count_tables_storage(monkeypatch):
    rng = np.random.default_rng(3)
    pred = rng.integers(0, 20, size=(12, 4)).astype(str)
    pred[0] = "7"  # a unanimous object
    base = np.arange(20).astype(str)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabDataWarning)
        dense = predstab.psi(pred, base, scale="categorical")
        monkeypatch.setattr(_disagreement, "_DENSE_CELLS", 0)  # 21 codes > 4 x 4 refits: sparse
        from_sparse = predstab.psi(pred, base, scale="categorical")
    np.testing.assert_allclose(from_sparse.per_object_low, dense.per_object_low, rtol=1e-12)
    np.testing.assert_allclose(from_sparse.per_object_high, dense.per_object_high, rtol=1e-12)
    assert from_sparse.value == pytest.approx(dense.value, rel=1e-12)
