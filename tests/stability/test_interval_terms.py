"""The terms of the per-object and overall intervals, each against a computation written out here."""

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import optimize, sparse, stats

import predstab
from predstab import PredstabDataWarning, phi, psi
from predstab.stability import _disagreement, _object_intervals, _share_box
from predstab.stability._disagreement import _ordinal_delta2
from predstab.stability._object_intervals import (
    _bonett_kurtosis,
    _class_object_intervals,
    _least_sum_of_squares,
    _metric_object_intervals,
    _pooled_excess_kurtosis,
    _refit_variances,
    _row_moments,
)
from tests.stability._intervals import box_simplex_range
from tests.stability.test_intervals_shape import BASE, _flags_by_hand, _quiet, _spiked


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


def _pooled_ends(d, n, kappa, level):
    """The pooled interval of a variance written out: Satterthwaite's df from ``kappa`` for the lower
    end; the upper end from 1.3 ``kappa``, at least the df whose ``df / chi2_{df, a/2}`` lies twice
    the chi-square interval's width (``df = n - 1``) above the lower end, found by brentq."""
    a = 1 - level
    df = 2.0 / (2.0 / (n - 1) + kappa / n) if kappa < math.inf else 0.0
    # below about 0.1 df (a = 0.05) df / chi2_{df, 1-a/2} grows again: the df of its minimum at least
    grid = np.logspace(-3, 1, 241)
    floor = grid[np.argmin(grid / stats.chi2.ppf(1 - a / 2, grid))]
    df = max(df, floor)
    low = df / stats.chi2.ppf(1 - a / 2, df)
    width = (n - 1) * (1 / stats.chi2.ppf(a / 2, n - 1) - 1 / stats.chi2.ppf(1 - a / 2, n - 1))
    # the upper end at most twice the chi-square width above the lower end
    df_min = optimize.brentq(lambda v: v / stats.chi2.ppf(a / 2, v) - 2 * width - low, 0.1, n - 1, xtol=1e-14)
    df_skew = 2.0 / (2.0 / (n - 1) + 1.3 * kappa / n) if kappa < math.inf else 0.0  # 1.3 x the kurtosis
    df_high = max(df_skew, df_min)
    return low * d, df_high * d / stats.chi2.ppf(a / 2, df_high)


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
    # the moments computed when not given
    again = _metric_object_intervals(d_o_i, count, 0.9, "pooled", x)
    np.testing.assert_array_equal(again[0], low)
    np.testing.assert_array_equal(again[1], high)
    used = max(kappa + 2 * math.sqrt(24 / 12), 0.0)  # plus 2 standard errors over the 12 refits pooled
    for i, n in enumerate(count):
        ends = _pooled_ends(d_o_i[i], n, used, 0.9)
        assert low[i] == pytest.approx(ends[0], rel=1e-12)
        assert high[i] == pytest.approx(ends[1], rel=1e-9)
    # issue 34: never wider than twice the chi-square interval
    chi_low, chi_high, _ = _metric_object_intervals(d_o_i, count, 0.9, "chi2", x, moments)
    assert np.all(high - low <= 2 * (chi_high - chi_low) * (1 + 1e-9))


def test_pooled_interval_without_an_object_of_four_refits_assumes_heavy_tails():
    x = np.array([[0.0, 1.0, 5.0], [3.0, -2.0, 0.0], [1.0, 2.0, np.nan]])
    count = np.array([3, 3, 2])
    d_o_i = np.array([np.nanvar(r, ddof=1) for r in x])
    low, high, info = _metric_object_intervals(d_o_i, count, 0.9, "pooled", x)
    assert math.isnan(info["kurtosis"]) and info["heavy"] == 0 and info["assumed"]
    for i, n in enumerate(count):  # an excess kurtosis of 6 assumed (t5, lognormal(0.5)), capped above
        ends = _pooled_ends(d_o_i[i], n, 6.0, 0.9)
        assert low[i] == pytest.approx(ends[0], rel=1e-12)
        assert high[i] == pytest.approx(ends[1], rel=1e-9)


def test_pooled_interval_with_an_unbounded_kurtosis_estimate():
    # one outlier among 20 refits: the unbiased estimate of sigma^4 is negative, the kurtosis unbounded
    x = np.r_[np.zeros(19), 10.0][None, :]
    moments = _row_moments(x)
    count = moments[0].astype(np.int64)
    d = np.array([x.var(ddof=1)])
    low, high, info = _metric_object_intervals(d, count, 0.95, "pooled", x, moments)
    assert info["kurtosis"] == math.inf and info["capped"] and info["heavy"]
    ends = _pooled_ends(d[0], 20, math.inf, 0.95)
    assert low[0] == pytest.approx(ends[0], rel=1e-12) and high[0] == pytest.approx(ends[1], rel=1e-9)
    assert 0 < low[0] < 0.1 * d[0]  # the lowest the lower end goes: 0.088 s^2 at 0.1 df


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
    # the threshold itself (excess 3) does not set it: a variance for which g4 is exactly 6.0
    six = np.array([[0.0, 1.0, 2.0, 3.0, 4.0, 10.0]])
    d = 13.414507072568862
    cut_mean = np.mean([2.0, 3.0])  # int(6 / (2 sqrt 2)) = 2 values cut from each tail
    assert 6 * np.sum((six - cut_mean) ** 4) / (5 * d) ** 2 * 7 / 5 == pytest.approx(6.0, rel=1e-15)
    assert _bonett_kurtosis(six, np.array([6]), np.array([5 * d]))[0] == 6.0
    assert _metric_object_intervals(np.array([d]), np.array([6]), 0.95, "bonett", six)[2]["heavy"] == 0


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
    np.array([[3, 0, 2], [1, 0, 4], [5, 0, 0]]),  # a category no object voted for
    np.array([[100000, 60000, 40000], [150000, 10000, 40000]]),  # too many refits for one int64 key
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
    table = np.array([[5, 3, 2, 0, 0, 0, 0, 0], [10, 0, 0, 0, 0, 0, 0, 0], [2, 2, 2, 1, 1, 1, 1, 0],
                      [500, 499, 1, 0, 0, 0, 0, 0]])  # the single vote's share at its upper bound
    r = table.sum(axis=1)
    position = np.arange(8.0) ** 1.5
    delta2 = (position[:, None] - position[None, :]) ** 2 if ordinal else None
    dense = _class_object_intervals(table, r, delta2, 0.95)
    from_sparse = _class_object_intervals(sparse.csr_matrix(table), r, delta2, 0.95)
    np.testing.assert_allclose(from_sparse, dense, rtol=1e-12, atol=1e-15)
    if not ordinal:
        for i, t in enumerate(table):
            lo, hi = _cp_bounds(t, r[i], 0.05 / 8)
            # issue 34: at least 1 - max sum p_c hi_c over the box on the simplex (a linear programme)
            box = list(zip(lo, hi, strict=True))
            lp = optimize.linprog(-hi, A_eq=np.ones((1, 8)), b_eq=[1.0], bounds=box, method="highs")
            assert dense[0][i] == pytest.approx(max(lo.sum() ** 2 - np.sum(lo * lo), 1 + lp.fun), abs=1e-9)
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


# --------------------------------------------------------------------------- the overall interval

def _gamma(mean, var, alpha):
    """The scaled chi-square (gamma) bounds of a mean with its variance."""
    df = 2 * mean * mean / var
    return df * mean / stats.chi2.ppf(1 - alpha / 2, df), df * mean / stats.chi2.ppf(alpha / 2, df)


def _widened(x, alpha):
    n = len(x)
    return np.var(x, ddof=1) / n * (stats.t.ppf(1 - alpha / 2, n - 1) / stats.norm.ppf(1 - alpha / 2)) ** 2


def _bootstrap_t(x, alpha):
    """999 resamples from default_rng(0), resamples without spread left out."""
    x = np.asarray(x)
    n = x.size
    m, s = x.mean(), x.std(ddof=1)
    idx = np.random.default_rng(0).integers(0, n, size=(999, n))
    t = []
    for row in idx:
        xb = x[row]
        if xb.std(ddof=1) > 0:
            t.append((xb.mean() - m) / xb.std(ddof=1))
    t_low, t_high = np.quantile(t, [alpha / 2, 1 - alpha / 2])
    return max(m - t_high * s, 0.0), m - t_low * s


def _t_widen(nu, alpha=0.05):
    """(t_nu / z)^2: the objects target's jackknife variance is estimated from nu = sum (R_i - 1) refits."""
    return (stats.t.ppf(1 - alpha / 2, nu) / stats.norm.ppf(1 - alpha / 2)) ** 2


def _capped(low, high, mean, var, alpha=0.05):
    """The population interval's upper end cut at low + 3 x the normal-theory width 2 z sqrt(var)."""
    return low, max(min(high, low + 3 * 2 * stats.norm.ppf(1 - alpha / 2) * math.sqrt(var)), mean)


def _overall(d_o_i, count, d_e, scale, level=0.95, target="population", baseline_error=False, notes=None,
             **kw):
    from predstab.stability._overall_interval import _overall_interval, _OverallInputs
    inputs = _OverallInputs(d_o_i=np.asarray(d_o_i, dtype=float), count=np.asarray(count), d_e=d_e,
                            scale=scale, **kw)
    return tuple(_overall_interval(inputs, level, target=target, baseline_error=baseline_error, notes=notes))


def test_objects_target_is_the_gamma_form_of_the_jackknife_variances():
    d_o_i = np.array([0.5, 1.2, np.nan, 0.8, 2.0])
    refit_var = np.array([0.1, 0.3, 9.0, 0.2, 0.5])
    count = np.array([5, 5, 1, 5, 7])
    notes = []
    got = _overall(d_o_i, count, 3.0, "metric", level=0.9, target="objects", refit_var=refit_var, notes=notes)
    # Satterthwaite's df of the sum of the jackknife variances (issue 34, item 6), not sum (R_i - 1) = 18
    v = np.array([0.1, 0.3, 0.2, 0.5])
    nu = v.sum() ** 2 / np.sum(v ** 2 / np.array([4, 4, 4, 6]))
    low, high = _gamma(np.mean([0.5, 1.2, 0.8, 2.0]), 1.1 / 16 * _t_widen(nu, 0.1), 0.1)
    assert got == pytest.approx((1 - high / 3.0, 1 - low / 3.0), rel=1e-12)
    assert notes == []  # within 2 x the normal-theory width: nothing to say


def _objects_reference(d, r, alpha=0.05):
    """Width of the normal-theory interval of the mean of N objects' s^2: Var(s^2) = 2 sigma^4 / (R - 1),
    sigma^4 estimated by s^4 (R - 1) / (R + 1)."""
    return 2 * stats.norm.ppf(1 - alpha / 2) * math.sqrt(np.sum(2 * d * d / (r + 1))) / d.size


def test_objects_target_of_metric_refits_is_at_most_ten_times_the_normal_theory_width():
    # three objects of three refits with a large jackknife variance: the gamma form is far wider
    d = np.array([0.4, 0.9, 0.6])
    r = np.array([3, 3, 3])
    v = np.array([0.8, 3.0, 1.1])
    notes = []
    got = _overall(d, r, 2.0, "metric", target="objects", refit_var=v, notes=notes)
    nu = v.sum() ** 2 / np.sum(v ** 2 / 2)
    low, high = _gamma(d.mean(), v.sum() / 9 * _t_widen(nu), 0.05)
    ref = _objects_reference(d, r)
    assert high - low > 10 * ref  # so it is cut
    assert got == pytest.approx((1 - max(low + 10 * ref, d.mean()) / 2.0, 1 - low / 2.0), rel=1e-12)
    assert len(notes) == 1
    assert "too few or too far from normal for the interval of these 3 objects" in notes[0]
    assert "cut at 10 x that width" in notes[0]
    # between 2 x and 3 x: the note gives the ratio, the interval is kept
    notes = []
    v2 = np.array([0.25, 0.25, 0.25])
    got = _overall(d, r, 2.0, "metric", target="objects", refit_var=v2, notes=notes)
    nu = v2.sum() ** 2 / np.sum(v2 ** 2 / 2)
    low, high = _gamma(d.mean(), v2.sum() / 9 * _t_widen(nu), 0.05)
    assert 2 * ref < high - low < 10 * ref
    assert got == pytest.approx((1 - high / 2.0, 1 - low / 2.0), rel=1e-12)
    assert notes == [f"The objects' refits are too few or too far from normal for the interval of these 3 "
                     f"objects within 2 x the normal-theory interval's width at this level: it is "
                     f"{(high - low) / ref:.2g} x that width."]
    # classes: no normal-theory reference, no cut
    notes = []
    got = _overall(d / 4, r, 0.5, "categorical", target="objects", refit_var=v / 16, notes=notes,
                   n_categories=2)
    nu = v.sum() ** 2 / np.sum(v ** 2 / 2)  # unchanged by the scale of the variances
    low, high = _gamma(d.mean() / 4, v.sum() / 16 / 9 * _t_widen(nu), 0.05)
    assert got == pytest.approx((1 - high / 0.5, 1 - low / 0.5), rel=1e-12) and notes == []


def test_population_target_of_metric_objects_joins_the_gamma_form_and_the_bootstrap_t():
    four = np.array([0.2, 1.5, 0.4, 6.0])
    low, high = _gamma(four.mean(), _widened(four, 0.05), 0.05)
    b_low, b_high = _bootstrap_t(four, 0.05)
    low = min(low, b_low) if b_low > 0 else low
    high = max(high, b_high)
    low, high = _capped(low, high, four.mean(), _widened(four, 0.05))  # issue 34: at most 3 x the t width
    assert high < max(_gamma(four.mean(), _widened(four, 0.05), 0.05)[1], b_high)  # the cap acts here
    assert _overall(four, [6] * 4, 5.0, "metric") == pytest.approx((1 - high / 5.0, 1 - low / 5.0), rel=1e-12)
    # five objects: the upper end at least the gamma form's at alpha / 2
    five = np.array([0.2, 1.5, 0.4, 6.0, 0.3])
    low, high = _gamma(five.mean(), _widened(five, 0.05), 0.05)
    b_low, b_high = _bootstrap_t(five, 0.05)
    low = min(low, b_low) if b_low > 0 else low
    high = max(high, b_high, _gamma(five.mean(), _widened(five, 0.025), 0.025)[1])
    low, high = _capped(low, high, five.mean(), _widened(five, 0.05))
    assert _overall(five, [6] * 5, 5.0, "metric") == pytest.approx((1 - high / 5.0, 1 - low / 5.0), rel=1e-12)


def test_population_target_of_classes_is_the_gamma_form_alone():
    x = np.array([0.2, 0.5, 0.1, 0.45, 0.3, 0.05])
    low, high = _gamma(x.mean(), _widened(x, 0.1), 0.1)
    got = _overall(x, [8] * 6, 0.6, "categorical", level=0.9, n_categories=3)
    assert got == pytest.approx((1 - high / 0.6, 1 - low / 0.6), rel=1e-12)


def _largest(count, k, weight=1.0):
    """The largest disagreement of R votes over K categories: an even split."""
    out = []
    for r in count:
        split = [r // k + (1 if c < r % k else 0) for c in range(k)]
        out.append((r * r - sum(s * s for s in split)) / (r * (r - 1.0)))
    return weight * max(out)


@pytest.mark.parametrize("d_o_i", [[0.0, 0.3, 0.0, 0.5, 0.2, 0.0, 0.0], [0.0, 0.0, 0.4, 0.0]])
def test_population_target_with_objects_that_never_disagree(d_o_i):
    x = np.array(d_o_i)
    n, k = x.size, int(np.sum(x > 0))
    count = np.array([7, 6, 7, 5, 7, 6, 7][:n])
    a = 0.05 / 2
    share_low = stats.beta.ppf(a / 2, k, n - k + 1)
    share_high = stats.beta.ppf(1 - a / 2, k + 1, n - k)
    largest = _largest(count[x > 0], 3)
    if k >= 2:
        nz = x[x > 0]
        m_low, m_high = _gamma(nz.mean(), _widened(nz, a), a)
        m_high = min(m_high, largest)
    else:
        m_low, m_high = x.sum(), largest
    got = _overall(x, count, 0.5, "categorical", n_categories=3)
    assert got == pytest.approx((1 - share_high * m_high / 0.5, 1 - share_low * m_low / 0.5), rel=1e-12)


def test_objects_target_with_objects_that_never_disagree():
    x = np.array([0.0, 0.3, 0.0, 0.5, 0.2])
    count = np.array([7, 6, 5, 8, 6])
    refit_var = np.array([0.0, 0.02, 0.0, 0.05, 0.01])
    object_low = np.array([0.0, 0.01, 0.0, 0.2, 0.05])
    delta2 = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    a = 0.025
    pairs = 7 // 2 + 5 // 2
    q_high = 1 - (a / 2) ** (1 / pairs)
    m_low, m_high = _gamma(np.mean([0.3, 0.5, 0.2]), 0.08 / 9, a)
    m_high = min(m_high, _largest([6, 8, 6], 3, weight=4.0))
    low = min(3 * m_low, 0.01 + 0.2 + 0.05) / 5
    high = (2 * 4.0 * q_high + 3 * m_high) / 5
    got = _overall(x, count, 1.2, "ordinal", target="objects", delta2=delta2, n_categories=3,
                   object_low=object_low, refit_var=refit_var)
    assert got == pytest.approx((1 - high / 1.2, 1 - low / 1.2), rel=1e-12)
    # the objects' own lower bounds above the gamma form's: the gamma form's lower end
    object_low = np.array([0.0, 0.29, 0.0, 0.49, 0.19])
    assert 3 * m_low < 0.97
    got = _overall(x, count, 1.2, "ordinal", target="objects", delta2=delta2, n_categories=3,
                   object_low=object_low, refit_var=refit_var)
    assert got == pytest.approx((1 - high / 1.2, 1 - 3 * m_low / 5 / 1.2), rel=1e-12)


@pytest.mark.parametrize("target", ["population", "objects"])
def test_every_refit_agreeing_gives_the_one_sided_binomial_bound(target):
    count = np.array([6, 7, 5, np.iinfo(np.int64).max])
    d_o_i = np.array([0.0, 0.0, 0.0, np.nan])
    pairs = 3 * (5 // 2) if target == "objects" else 3
    q = 1 - 0.1 ** (1 / pairs)
    got = _overall(d_o_i, count, 0.4, "categorical", level=0.9, target=target, n_categories=2)
    assert got == pytest.approx((1 - q / 0.4, 1.0), rel=1e-12)
    # ordinal: the disagreement is at most the largest squared distance times q
    delta2 = np.array([[0.0, 2.25], [2.25, 0.0]])
    got = _overall(d_o_i, count, 0.9, "ordinal", level=0.9, target=target, delta2=delta2, n_categories=2)
    assert got == pytest.approx((1 - 2.25 * q / 0.9, 1.0), rel=1e-12)


def test_baseline_error_joins_the_two_intervals_by_mover_on_the_log_scale():
    d_o_i = np.array([0.5, 1.2, 0.8, 2.0])
    refit_var = np.array([0.1, 0.3, 0.2, 0.5])
    mean = d_o_i.mean()
    nu = 1.1 ** 2 / np.sum(refit_var ** 2 / 4)  # Satterthwaite's df of the jackknife variances
    low_d, high_d = _gamma(mean, 1.1 / 16 * _t_widen(nu), 0.05)
    e_low, e_high = _gamma(3.0, 0.4, 0.05)
    e_down, e_up = math.log(3.0 / e_low), math.log(e_high / 3.0)
    ratio_high = math.exp(math.log(mean / 3.0) + math.hypot(math.log(high_d / mean), e_down))
    ratio_low = math.exp(math.log(mean / 3.0) - math.hypot(math.log(mean / low_d), e_up))
    got = _overall(d_o_i, [5] * 4, 3.0, "metric", target="objects", baseline_error=True, refit_var=refit_var,
                   base_var_d_e=0.4)
    assert got == pytest.approx((1 - ratio_high, 1 - ratio_low), rel=1e-12)
    # ordinal: z times the standard error of S over D_o / D_e, on both sides
    delta2 = np.array([[0.0, 1.0], [1.0, 0.0]])
    half = stats.norm.ppf(0.975) * math.sqrt(0.01) / (mean / 3.0)
    ratio_high = math.exp(math.log(mean / 3.0) + math.hypot(math.log(high_d / mean), half))
    ratio_low = math.exp(math.log(mean / 3.0) - math.hypot(math.log(mean / low_d), half))
    got = _overall(d_o_i, [5] * 4, 3.0, "ordinal", target="objects", baseline_error=True, refit_var=refit_var,
                   delta2=delta2, n_categories=2, base_var_s=0.01)
    assert got == pytest.approx((1 - ratio_high, 1 - ratio_low), rel=1e-12)
    # a mean disagreement below 1 (D_o / D_e = 0.2)
    x = d_o_i / 10
    low_d, high_d = _gamma(x.mean(), 1.1 / 16 / 100 * _t_widen(nu), 0.05)  # nu: unchanged by the scale
    half = stats.norm.ppf(0.975) * math.sqrt(0.01) / 0.2
    ratio_high = math.exp(math.log(0.2) + math.hypot(math.log(high_d / x.mean()), half))
    ratio_low = math.exp(math.log(0.2) - math.hypot(math.log(x.mean() / low_d), half))
    got = _overall(x, [5] * 4, x.mean() / 0.2, "ordinal", target="objects", baseline_error=True,
                   refit_var=refit_var / 100, delta2=delta2, n_categories=2, base_var_s=0.01)
    assert got == pytest.approx((1 - ratio_high, 1 - ratio_low), rel=1e-12)


def test_baseline_error_with_a_lower_end_at_zero_keeps_the_upper_end_at_one():
    x = np.array([0.0, 0.0, 0.4, 0.0])  # one disagreeing object, its own lower bound 0: D_o's is 0
    got = _overall(x, [6] * 4, 0.5, "categorical", target="objects", baseline_error=True, n_categories=2,
                   base_var_d_e=0.01, object_low=np.zeros(4), refit_var=np.array([0.0, 0.0, 0.01, 0.0]))
    assert got[1] == 1.0
    a = 0.025
    q_high = 1 - (a / 2) ** (1 / 9)
    high_d = (3 * q_high + min(_gamma(0.4, 0.01, a)[1], _largest([6], 2))) / 4
    e_low = _gamma(0.5, 0.01, 0.05)[0]
    ratio_high = math.exp(math.log(0.1 / 0.5) + math.hypot(math.log(high_d / 0.1), math.log(0.5 / e_low)))
    assert got[0] == pytest.approx(1 - ratio_high, rel=1e-12)
    # every refit agreeing: D_e at its lower end; ordinal: D_e scaled by exp(-0)
    q = 1 - 0.05 ** (1 / 4)
    got = _overall(np.zeros(4), [6] * 4, 0.5, "categorical", baseline_error=True, n_categories=2,
                   base_var_d_e=0.01)
    assert got == pytest.approx((1 - q / e_low, 1.0), rel=1e-12)
    got = _overall(np.zeros(4), [6] * 4, 0.5, "ordinal", baseline_error=True, n_categories=2,
                   delta2=np.array([[0.0, 1.0], [1.0, 0.0]]), base_var_s=0.01)
    assert got == pytest.approx((1 - q / 0.5, 1.0), rel=1e-12)


def test_bootstrap_t_is_left_out_for_many_objects_and_no_spread():
    from predstab.stability._overall_interval import _bootstrap_t_mean
    assert _bootstrap_t_mean(np.full(5, 0.7), 0.05) == (0.7, 0.7)
    x = np.linspace(0.1, 3.0, 501)
    assert _bootstrap_t_mean(x, 0.05) == (pytest.approx(x.mean()), pytest.approx(x.mean()))
    assert _bootstrap_t_mean(x[:500], 0.05) == pytest.approx(_bootstrap_t(x[:500], 0.05), rel=1e-12)


def test_unknown_targets_are_refused():
    with pytest.raises(ValueError, match=r"^unknown interval target 'all'$"):
        _overall([0.5, 0.7], [5, 5], 1.0, "metric", target="all")
    with pytest.raises(ValueError, match=r"^unknown interval target 'all'$"):
        _overall([0.0, 0.7], [5, 5], 1.0, "categorical", target="all", n_categories=2)


# --------------------------------------------------------------------------- shape check (issue 34, item 4)


def test_an_object_with_a_far_refit_is_flagged_by_the_stated_rule():
    x = _spiked(40)
    with pytest.warns(PredstabDataWarning, match="1 object\\(s\\) of `predictions` have refits far heavier"):
        res = phi(x, BASE, object_interval="checked")
    expected = _flags_by_hand(x)
    assert expected[3] and expected.sum() == 1  # the rule, computed independently, flags object 3 alone
    np.testing.assert_array_equal(res.per_object_shape_outlier, expected)
    assert res.n_shape_outliers == 1
    assert "1 object(s) (0-based rows 3; `per_object_shape_outlier`)" in res.interval_note
    assert "1 - 0.05 / 30 quantile" in res.interval_note
    frame = res.per_object_frame(sort=False)
    assert frame["shape_outlier"].tolist() == expected.tolist()
    assert "n_shape_outliers=1" in repr(res) or "..." in repr(res)


@pytest.mark.parametrize("seed", [41, 42, 43])
def test_the_flags_are_those_of_the_rule(seed):
    # normal objects and one of t2 refits: whatever the draw, the result's flags are the rule's
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(12, 10)) * rng.uniform(0.5, 1.0, size=(12, 1))
    x[0] = rng.standard_t(2, size=10)
    res = _quiet(phi, x, BASE, object_interval="checked")
    np.testing.assert_array_equal(res.per_object_shape_outlier, _flags_by_hand(x))
    assert res.n_shape_outliers == int(res.per_object_shape_outlier.sum())


def test_the_level_follows_the_confidence_level():
    x = _spiked(40, spike=2.2)
    loose, strict = (_quiet(phi, x, BASE, confidence_level=level, object_interval="checked")
                     for level in (0.5, 0.999))
    np.testing.assert_array_equal(loose.per_object_shape_outlier, _flags_by_hand(x, alpha=0.5))
    np.testing.assert_array_equal(strict.per_object_shape_outlier, _flags_by_hand(x, alpha=0.001))
    assert loose.n_shape_outliers >= strict.n_shape_outliers


def test_no_check_where_the_pooled_shape_is_not_used_or_not_estimable():
    x = _spiked(40)
    for method in ("chi2", "bonett", "auto", "pooled"):  # not asked for ("checked"): None, NA
        res = _quiet(phi, x, BASE, object_interval=method)
        assert res.n_shape_outliers is None and res.per_object_shape_outlier is None
        assert "shape_outlier" not in res.per_object_frame(sort=False).columns
    # the check changes no interval: "checked" is "pooled" plus the flags
    checked, pooled = (_quiet(phi, x, BASE, object_interval=m) for m in ("checked", "pooled"))
    np.testing.assert_array_equal(checked.per_object_low, pooled.per_object_low)
    np.testing.assert_array_equal(checked.per_object_high, pooled.per_object_high)
    assert checked.interval_method == pooled.interval_method == "pooled-kurtosis chi-square"
    # two objects of 4 refits and more: no pooled shape to compare with
    few = x[:3].copy()
    few[2, 3:] = np.nan
    res = _quiet(phi, few, BASE, object_interval="checked")
    assert res.n_shape_outliers == 0
    # classes: no check, an all-False column
    votes = np.array([list("aab"), list("abb")], dtype=object)
    res = _quiet(psi, votes, np.array(list("aabb"), dtype=object), object_interval="checked")
    assert res.per_object_shape_outlier is None and res.n_shape_outliers is None


def test_missing_refits_are_drawn_from_what_is_there():
    x = _spiked(40)
    x[10:20, 15:] = np.nan  # ten objects of 15 refits
    res = _quiet(phi, x, BASE, object_interval="checked")
    assert res.per_object_shape_outlier[3] and res.n_shape_outliers >= 1
    assert np.isfinite(res.per_object_low).all()


# ----------------------------------------------------------------- 3 refits in words


def test_three_refits_say_how_wide_normal_theory_is():
    # psi with 3 refits: per-object intervals far below 0 are what 3 refits support, and the
    # result says so with the chi-square interval's factors
    rng = np.random.default_rng(46)
    pred = rng.normal(size=(20, 3)) * 0.5
    base = rng.normal(size=200) * 0.6
    res = _quiet(psi, pred, base)
    low, high = 2 / stats.chi2.ppf([0.975, 0.025], 2)
    assert f"known only within {low:.2g} to {high:.3g} x its estimate" in res.interval_note
    assert "0.27 to 39.5" in res.interval_note
    # and the width rule of item 2 holds: at most twice the chi-square interval's width
    chi = _quiet(psi, pred, base, object_interval="chi2")
    ratio = (res.per_object_high - res.per_object_low) / (chi.per_object_high - chi.per_object_low)
    assert ratio.max() <= 2.0 + 1e-9
    assert res.per_object_low.min() < -1.0  # far below 0, as said


# --- issue 33 item 7: ordinal ranges by the midpoints, each distinct vote table once -------------
# (here, among the tests mutation_scores.py runs for _object_intervals; the memory tests are in
# test_interval_cost.py)


def _boxes(counts):
    r = counts.sum(axis=1)
    return _object_intervals._share_bounds(counts, r[:, None], 0.05 / counts.shape[1])



def _ordinal_boxes(seed, k, n_rows=400):
    rng = np.random.default_rng(seed)
    refits = int(rng.integers(2, 120))
    truth = rng.integers(0, k, size=(n_rows, 1))
    agree = rng.choice([0.0, 0.5, 0.8, 0.97])
    votes = np.where(rng.random((n_rows, refits)) < agree, truth, rng.integers(0, k, size=(n_rows, refits)))
    counts = np.stack([(votes == c).sum(axis=1) for c in range(k)], axis=1)
    base = rng.integers(0, 40, size=k).astype(float)
    if seed % 3 == 0:
        base[rng.integers(k)] = 0.0  # a level the baseline never shows: two positions tie
    low, high = _boxes(counts)
    return low, high, _ordinal_delta2(base)


@pytest.mark.parametrize("seed", range(12))
def test_the_ordinal_range_by_midpoints_equals_the_face_enumeration(seed):
    # 60 % of ordinal phi on uniform random codes was the 3^K faces (a hundred passes over the rows
    # each); on a line, 2 Var = 2 min_m sum p (t - m)^2 gives both ends from K(K-1)/2 + 1 greedy orders
    k = 3 + seed % 4
    low, high, delta2 = _ordinal_boxes(seed, k)
    positions = _object_intervals._line_positions(delta2)
    np.testing.assert_array_equal((positions[:, None] - positions[None, :]) ** 2, delta2)
    got_low, got_high = _object_intervals._line_range(low, high, positions)
    ref_low, ref_high = _object_intervals._simplex_faces(low, high, delta2)
    scale = delta2.max()
    assert np.max(np.abs(got_low - ref_low)) <= 1e-12 * scale
    assert np.max(np.abs(got_high - ref_high)) <= 1e-12 * scale
    for i in range(3):  # and an independent solver (LPs and SLSQP) on a few rows
        lo, hi = low[i * 50], high[i * 50]
        ref_min, ref_max = box_simplex_range(lo, hi, delta2)
        assert got_low[i * 50] == pytest.approx(ref_min, rel=1e-9, abs=1e-9 * scale)
        slack = 1e-12 * scale
        assert ref_max * (1 - 1e-12) - slack <= got_high[i * 50] <= ref_max * (1 + 1e-6) + slack


def test_only_squared_distances_on_a_line_take_the_midpoints(monkeypatch):
    gini = np.ones((4, 4)) - np.eye(4)
    assert _object_intervals._line_positions(gini) is None          # not a line: the faces
    assert _object_intervals._line_positions(_ordinal_delta2(np.ones(2))) is None  # two levels
    bent = _ordinal_delta2(np.array([3.0, 1.0, 4.0, 1.0]))
    bent[0, 3] = bent[3, 0] = bent[0, 3] + 1.0                       # not squared distances
    assert _object_intervals._line_positions(bent) is None
    positions = _object_intervals._line_positions(_ordinal_delta2(np.array([2.0, 4.0, 2.0])))
    np.testing.assert_array_equal(positions, [0.0, 3.0, 6.0])
    # ordinal phi no longer enumerates the faces
    monkeypatch.setattr(_share_box, "_simplex_faces", lambda *a: pytest.fail("faces enumerated"))
    votes = np.random.default_rng(7).integers(0, 5, size=(300, 40))
    res = predstab.phi(votes, np.arange(50) % 5, scale="ordinal", categories=list(range(5)))
    assert np.all(res.per_object_low <= res.per_object) and np.all(res.per_object <= res.per_object_high)


def test_each_distinct_vote_table_is_computed_once(monkeypatch):
    # uniform random votes of 1e6 objects (100 refits, 5 classes) hold 111,734 distinct tables: the
    # per-object intervals and the refit variances are computed once per table, found once
    rng = np.random.default_rng(8)
    votes = rng.integers(0, 3, size=(3000, 6))
    table = np.stack([(votes == c).sum(axis=1) for c in range(3)], axis=1)
    n_distinct = len(np.unique(table, axis=0))
    seen = []
    inner = _object_intervals._class_refit_variances
    monkeypatch.setattr(_object_intervals, "_class_refit_variances",
                        lambda d, c, t, d2: seen.append(len(c)) or inner(d, c, t, d2))
    for scale in ("categorical", "ordinal"):
        kwargs = {"categories": [0, 1, 2]} if scale == "ordinal" else {}
        res = predstab.phi(votes, np.arange(30) % 3, scale=scale, interval_target="objects", **kwargs)
        assert seen.pop() == n_distinct < 3000 / 10
        # the same variances as row by row (what the overall interval sums)
        d2 = None if scale == "categorical" else _ordinal_delta2(np.full(3, 10.0))
        first, inverse = _object_intervals._first_of_each(table)
        np.testing.assert_array_equal(table[first][inverse], table)
        d_o = res.per_object_observed
        np.testing.assert_array_equal(
            _object_intervals._refit_variances(d_o, table.sum(axis=1), table=table, delta2=d2,
                                               distinct=(first, inverse)),
            inner(d_o, table.sum(axis=1), table, d2))
    assert _object_intervals._first_of_each(np.arange(12).reshape(6, 2)) is None  # all distinct
    assert _object_intervals._first_of_each(np.full((1, 3), 2)) is None


def test_class_phi_equals_its_row_by_row_values():
    # the distinct tables and the Fortran-ordered counts change no number: the refit variances and
    # the intervals of these objects, against the formulas of _refit_variances row by row
    rng = np.random.default_rng(9)
    votes = np.where(rng.random((2000, 12)) < 0.8, rng.integers(0, 4, size=(2000, 1)),
                     rng.integers(0, 4, size=(2000, 12)))
    table = np.stack([(votes == c).sum(axis=1) for c in range(4)], axis=1)
    r = table.sum(axis=1)
    res = predstab.phi(votes, np.arange(40) % 4, scale="categorical", interval_target="objects")
    d_o = (r * r - np.einsum("ij,ij->i", table, table)) / (r * (r - 1.0))
    np.testing.assert_array_equal(res.per_object_observed, d_o)
    i = rng.choice(2000, 5, replace=False)
    for j in i:
        loo = []
        for c in range(4):
            if table[j, c]:
                t = table[j].copy()
                t[c] -= 1
                loo += [(11 * 11 - t @ t) / (11 * 10.0)] * table[j, c]
        loo = np.array(loo)
        v = 11 / 12 * np.sum((loo - loo.mean()) ** 2)
        got = _object_intervals._refit_variances(d_o[j:j + 1], r[j:j + 1], table=table[j:j + 1])
        assert got[0] == pytest.approx(v, rel=1e-12)


# --------------------------------------------------------------------------- the share boxes' bookkeeping


def test_distinct_float_rows_by_their_bits(monkeypatch):
    # _unique_rows hashes every column of the rows: rows that differ in the first column only, or
    # in the last only, are told apart without the sorting fallback; a collision of the hashes
    # (every row one code here) is caught and the rows sorted instead: the same unique rows
    rng = np.random.default_rng(4)
    base = rng.random((6, 4))
    rows = np.concatenate([base, base, base + np.eye(4)[0] * 0.5, base + np.eye(4)[3] * 0.25])
    same_row = (rows[:, None, :] == rows[None, :, :]).all(axis=2)  # by hand: 18 distinct rows

    def by_hand(unique, inverse):
        np.testing.assert_array_equal(unique[inverse], rows)
        assert len(unique) == 18
        np.testing.assert_array_equal(inverse[:, None] == inverse[None, :], same_row)

    with monkeypatch.context() as m:
        m.setattr(np, "unique", lambda *a, **k: 1 / 0)  # the fallback is not needed
        unique, inverse = _share_box._unique_rows(rows)
    by_hand(unique, inverse)
    monkeypatch.setattr(_share_box.pd, "factorize", lambda codes: (np.zeros(len(codes), dtype=np.intp), None))
    unique, inverse = _share_box._unique_rows(rows)  # one code for all: sorted instead
    by_hand(unique, inverse)
    np.testing.assert_array_equal(unique, np.unique(rows, axis=0))


@pytest.mark.parametrize("k", [2, 3])
def test_gini_boxes_of_two_or_more_categories_are_solved_once_per_sorted_box(k, monkeypatch):
    rng = np.random.default_rng(k)
    counts = rng.multinomial(9, np.full(k, 1.0 / k), size=60)
    r = counts.sum(axis=1)
    low, high = _object_intervals._share_bounds(counts, r[:, None], 0.05 / k)
    gini = np.ones((k, k)) - np.eye(k)
    solved = []
    faces = _share_box._simplex_faces
    monkeypatch.setattr(_share_box, "_simplex_faces",
                        lambda lo, hi, d2: solved.append(len(lo)) or faces(lo, hi, d2))
    got = _share_box._simplex_range(low, high, gini)
    assert solved == [len(np.unique(np.sort(counts, axis=1), axis=0))]
    want = faces(low, high, gini)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    if k == 2:  # theta = 2 p (1 - p): its range over the box of p, by hand
        p_low, p_high = low[:, 0], high[:, 0]
        ends = np.stack([2 * p_low * (1 - p_low), 2 * p_high * (1 - p_high)])
        np.testing.assert_allclose(got[0], ends.min(axis=0), rtol=1e-12)
        half = (p_low <= 0.5) & (p_high >= 0.5)
        np.testing.assert_allclose(got[1], np.where(half, 0.5, ends.max(axis=0)), rtol=1e-12)
