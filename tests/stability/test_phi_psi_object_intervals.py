"""The per-object intervals of phi and psi and the result's bootstrap interval, against
independent computations: Clopper-Pearson bounds from beta quantiles, the least sum of squares
over a box by scipy's SLSQP and the box on the simplex enumerated (tests/stability/_intervals.py), the
chi-square interval with one degree of freedom, and scipy's bootstrap.
"""

import math
import warnings

import numpy as np
import pytest

from predstab import (
    PredstabDataWarning,
    PredstabUndefinedWarning,
    phi,
    psi,
)
from tests.stability._intervals import bonferroni_box, box_simplex_range
from tests.stability._phi_psi import (
    _box_min_sum_of_squares,
    _cp,
    _quiet,
    _random_case,
    ordinal_reference,
    pair_disagreement,
)


def test_objects_with_exactly_two_predictions_have_a_chi_square_interval_with_one_df():
    from scipy import stats

    pred = np.array([[1.0, 3.0, np.nan, np.nan, np.nan], [1.0, np.nan, np.nan, np.nan, np.nan],
                     [0.5, 1.0, 2.0, 1.0, 0.0]])
    base = np.array([0.0, 2.0, 4.0, 1.0, 3.0])
    with pytest.warns(PredstabDataWarning):
        res = phi(pred, base, object_interval="chi2")
    d_e = np.var(base, ddof=1)
    s2 = np.var([1.0, 3.0], ddof=1)
    assert res.per_object_observed[0] == s2 and res.per_object_count[0] == 2
    assert np.isnan(res.per_object_observed[1])
    low = 1 - (1 * s2 / stats.chi2.ppf(0.025, 1)) / d_e
    high = 1 - (1 * s2 / stats.chi2.ppf(0.975, 1)) / d_e
    assert res.per_object_low[0] == pytest.approx(low, rel=1e-12)
    assert res.per_object_high[0] == pytest.approx(high, rel=1e-12)
    s2_5 = np.var(pred[2], ddof=1)
    assert res.per_object_low[2] == pytest.approx(1 - (4 * s2_5 / stats.chi2.ppf(0.025, 4)) / d_e, rel=1e-12)


@pytest.mark.parametrize("n_first", [2, 19])
def test_single_object_two_class_interval_is_clopper_pearson(n_first):
    # the share of the first class (0): 2 of 20, and 19 of 20 (upper bound beta(20, 1))
    res = phi(np.array([[0] * n_first + [1] * (20 - n_first)]), np.array([0, 1, 1, 0]), scale="categorical")
    low, high = _cp(n_first, 20, 0.05)
    f = [2 * low * (1 - low), 2 * high * (1 - high)]
    assert not low <= 0.5 <= high
    assert res.per_object_low[0] == pytest.approx(1 - max(f) / 0.5, rel=1e-12)
    assert res.per_object_high[0] == pytest.approx(1 - min(f) / 0.5, rel=1e-12)


def test_two_level_ordinal_object_interval_uses_the_ordinal_distance():
    # one object, 9 refits 6 "lo" / 3 "hi"; baseline 3 lo, 1 hi: delta^2 = ((3 + 1) / 2)^2 = 4
    res = phi(np.array([["lo"] * 6 + ["hi"] * 3]), np.array(["lo", "lo", "lo", "hi"]), scale="ordinal",
              categories=["lo", "hi"])
    d2 = 4.0
    d_e = 2 * d2 * 0.75 * 0.25
    low, high = _cp(6, 9, 0.05)
    thetas = [2 * d2 * low * (1 - low), 2 * d2 * high * (1 - high)]
    theta_high = 2 * d2 / 4 if low <= 0.5 <= high else max(thetas)
    assert res.expected == pytest.approx(d_e, rel=1e-12)
    assert res.per_object_low[0] == pytest.approx(1 - theta_high / d_e, rel=1e-12)
    assert res.per_object_high[0] == pytest.approx(1 - min(thetas) / d_e, rel=1e-12)
    assert res.confidence_interval == (res.per_object_low[0], res.per_object_high[0])


def test_three_level_ordinal_bounds_are_taken_on_the_simplex():
    # few refits: U' Delta U exceeds the largest possible disagreement delta_max^2 / 2, but the
    # box on the simplex (shares summing to one) bounds the disagreement below the cap
    levels = ["a", "b", "c"]
    base = ["a", "a", "b", "c", "c", "c"]
    pred = np.array([["a", "b", "c", "b", "a"]], dtype=object)
    res = phi(pred, np.array(base, dtype=object), scale="ordinal", categories=levels)
    m = np.array([2.0, 1.0, 3.0])
    pos = np.cumsum(m) - m / 2
    delta2 = (pos[:, None] - pos[None, :]) ** 2
    d_o, d_e = ordinal_reference(pred.tolist(), base, levels)
    cap = delta2.max() / 2
    lo, hi = bonferroni_box([2, 2, 1])
    assert hi @ delta2 @ hi > cap
    theta_low, theta_high = box_simplex_range(lo, hi, delta2)
    assert res.per_object_low[0] == pytest.approx(1 - min(theta_high, cap) / d_e, rel=1e-7)
    assert res.per_object_high[0] == pytest.approx(1 - theta_low / d_e, rel=1e-9)
    assert theta_low > lo @ delta2 @ lo


def test_many_repetitions_class_bounds_below_the_cap():
    # 300 refits split 240 / 45 / 15: the simultaneous Clopper-Pearson box is narrow, so the
    # upper disagreement is the box's least sum of squares, well below the cap 2/3
    from scipy import stats

    counts = np.array([240, 45, 15])
    row = np.repeat(["a", "b", "c"], counts)
    res = phi(row[None, :], np.array(["a", "b", "c", "a"]), scale="categorical")
    alpha = 0.05 / 3
    lo = stats.beta.ppf(alpha / 2, counts, 300 - counts + 1)
    hi = stats.beta.ppf(1 - alpha / 2, counts + 1, 300 - counts)
    theta_high = 1 - _box_min_sum_of_squares(lo, hi)
    theta_low, _ = box_simplex_range(lo, hi, np.ones((3, 3)) - np.eye(3))  # on the simplex
    assert theta_high < 0.6
    d_e = 1 - (0.5 ** 2 + 0.25 ** 2 + 0.25 ** 2)
    assert res.per_object_low[0] == pytest.approx(1 - theta_high / d_e, abs=1e-7)
    assert res.per_object_high[0] == pytest.approx(1 - theta_low / d_e, rel=1e-9)
    assert res.confidence_interval == (res.per_object_low[0], res.per_object_high[0])


def test_class_bounds_with_a_zero_count_and_an_almost_unanimous_class():
    # counts (299, 1, 0) and (150, 100, 50) of 300 refits: zero counts have lower bound 0 and a
    # count of R - 1 the upper bound beta(R, 1)
    rows = np.array([np.repeat([0, 1, 2], [299, 1, 0]), np.repeat([0, 1, 2], [150, 100, 50])])
    res = phi(rows, np.array([0, 1, 2, 0]), scale="categorical")
    alpha = 0.05 / 3
    d_e = 1 - (0.25 + 0.0625 + 0.0625)
    for i, counts in enumerate([(299, 1, 0), (150, 100, 50)]):
        bounds = np.array([_cp(k, 300, alpha) for k in counts])
        lo, hi = bounds[:, 0], bounds[:, 1]
        theta_low, _ = box_simplex_range(lo, hi, np.ones((3, 3)) - np.eye(3))
        theta_high = min(1 - _box_min_sum_of_squares(lo, hi), 2 / 3)
        assert res.per_object_high[i] == pytest.approx(1 - theta_low / d_e, rel=1e-9)
        assert res.per_object_low[i] == pytest.approx(1 - theta_high / d_e, abs=1e-7)


def test_sparse_table_bounds_with_few_used_codes_and_many_refits():
    # integers 0..799 read as direct codes, 1,400 objects x 200 refits: a sparse count table,
    # but only the codes 0, 400 and 799 occur, so K = 3 and the upper bound is below the cap
    rng = np.random.default_rng(8)
    codes = np.array([0, 400, 799])
    share = np.array([0.95, 0.04, 0.01])
    pred = codes[rng.choice(3, size=(1400, 200), p=share)]
    pred[:, 0] = 799
    pred[1] = np.r_[799, np.zeros(195, dtype=int), [799] * 4]  # code 400 absent from this row
    pred[2] = np.r_[799, [400] * 9, np.zeros(190, dtype=int)]  # code 799 once only
    res = phi(pred, codes, scale="categorical")
    alpha = 0.05 / 3
    for i in (0, 1, 2, 1399):
        counts = [(pred[i] == c).sum() for c in codes]
        bounds = np.array([_cp(k, 200, alpha) for k in counts])
        lo, hi = bounds[:, 0], bounds[:, 1]
        theta_low, theta_high = box_simplex_range(lo, hi, np.ones((3, 3)) - np.eye(3))
        theta_high = max(theta_high, res.per_object_observed[i])  # the interval holds its estimate
        assert theta_high < 2 / 3
        assert res.per_object_high[i] == pytest.approx(1 - theta_low / (2 / 3), rel=1e-9)
        assert res.per_object_low[i] == pytest.approx(1 - theta_high / (2 / 3), rel=1e-7)
        assert res.per_object_observed[i] == pytest.approx(pair_disagreement(pred[i].tolist()), rel=1e-12)


def test_one_object_left_gives_its_own_interval():
    pred = np.array([[np.nan, 1.0, np.nan, np.nan, np.nan], [1.0, 2.0, 4.0, 2.0, 1.0]])
    with pytest.warns(PredstabDataWarning):
        res = phi(pred, np.array([0.0, 2.0, 4.0, 6.0]), object_interval="chi2")
    assert res.confidence_interval == (res.per_object_low[1], res.per_object_high[1])
    from scipy import stats

    s2, d_e = np.var(pred[1], ddof=1), np.var([0.0, 2.0, 4.0, 6.0], ddof=1)
    expected_low = 1 - 4 * s2 / stats.chi2.ppf(0.025, 4) / d_e
    assert res.confidence_interval.low == pytest.approx(expected_low, rel=1e-12)
    assert np.isnan(res.per_object_low[0]) and np.isnan(res.per_object[0])


def test_interval_over_objects_with_mostly_unanimous_objects():
    # most objects are unanimous: the t interval's mean - half-width of D_o was negative and cut
    # at 0 (upper bound exactly 1); the gamma form of the mean stays positive, below 1, united
    # (metric data) with the bootstrap-t over objects: 999 resamples of the 12 objects, seed 0,
    # and the gamma form at alpha / 4 for the upper end of D_o
    from scipy import stats

    pred = np.zeros((12, 5))
    pred[0] = [0.0, 1.0, 0.0, 1.0, 0.0]
    res = phi(pred, np.array([0.0, 1.0, 2.0]))  # D_e = 1
    d_o = np.r_[np.var(pred[0], ddof=1), np.zeros(11)]
    var = d_o.var(ddof=1) / 12 * (stats.t.ppf(0.975, 11) / stats.norm.ppf(0.975)) ** 2
    df = 2 * d_o.mean() ** 2 / var
    gamma = (df * d_o.mean() / stats.chi2.ppf(0.975, df), df * d_o.mean() / stats.chi2.ppf(0.025, df))
    boot = d_o[np.random.default_rng(0).integers(0, 12, size=(999, 12))]
    spread = boot.std(axis=1, ddof=1)
    t = (boot.mean(axis=1)[spread > 0] - d_o.mean()) / spread[spread > 0]
    s = d_o.std(ddof=1)
    boot_t = (max(d_o.mean() - np.quantile(t, 0.975) * s, 0.0), d_o.mean() - np.quantile(t, 0.025) * s)
    # at least 5 objects: the upper end of D_o at least the gamma form's at alpha / 4 (level 0.975,
    # its variance widened by t_{11} at 0.9875)
    var4 = d_o.var(ddof=1) / 12 * (stats.t.ppf(0.9875, 11) / stats.norm.ppf(0.9875)) ** 2
    df4 = 2 * d_o.mean() ** 2 / var4
    gamma4 = df4 * d_o.mean() / stats.chi2.ppf(0.0125, df4)
    # one non-zero D_o,i: the bootstrap-t's lower bound is cut at 0 and left out
    assert boot_t[0] == 0.0
    assert res.confidence_interval.high == pytest.approx(1 - gamma[0], rel=1e-12)
    assert gamma4 > max(gamma[1], boot_t[1])
    # issue 34: the upper end of D_o at most 3 x the normal-theory width 2 z sqrt(var) above the
    # lower end (var at least the refits' own noise: the jackknife of the one object's s^2 over N^2)
    row = pred[0]
    loo = np.array([np.var(np.delete(row, j), ddof=1) for j in range(5)])
    floor = 4 / 5 * np.sum((loo - loo.mean()) ** 2) / 144
    cap = gamma[0] + 3 * 2 * stats.norm.ppf(0.975) * np.sqrt(max(var, floor))
    assert cap < gamma4
    assert res.confidence_interval.low == pytest.approx(1 - cap, rel=1e-12)
    assert "too few or too skewed" in res.interval_note
    assert res.confidence_interval.high < 1.0
    # a constant baseline: no interval at all, per object neither
    with pytest.warns(Warning):
        flat = phi(pred, np.array([2.0, 2.0, 2.0]))
    assert np.isnan(flat.confidence_interval.low) and np.isnan(flat.confidence_interval.high)
    assert np.isnan(flat.per_object_low).all() and np.isnan(flat.per_object_high).all()


def test_confidence_interval_over_objects():
    rng = np.random.default_rng(11)
    pred = rng.normal(size=(200, 10)) + rng.normal(size=(200, 1)) * 5
    res = phi(pred, rng.normal(size=100) * 5)
    ci = res.bootstrap_interval(random_state=0, n_resamples=500)
    assert ci.low < res.value < ci.high
    assert ci == res.bootstrap_interval(random_state=0, n_resamples=500)  # reproducible
    wider = res.bootstrap_interval(0.99, random_state=0, n_resamples=500)
    assert wider.low <= ci.low and wider.high >= ci.high


@pytest.mark.parametrize("scale", ["metric", "categorical", "ordinal"])
def test_confidence_interval_single_object_resamples_repetitions(scale):
    rng = np.random.default_rng(12)
    pred, base, levels = _random_case(rng, scale, n=1, r=40)
    res = phi(pred, base, scale=scale, categories=levels)
    ci = res.bootstrap_interval(random_state=1, n_resamples=300)
    assert ci.low <= ci.high
    assert ci.low - 0.5 < res.value < ci.high + 0.5


def test_confidence_interval_errors_and_undefined():
    res = phi([[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 2.0, 2.0, 5.0]], [0.0, 4.0, 9.0])
    for kwargs, match in [(dict(confidence_level=1.5), "`confidence_level`"),
                          (dict(n_resamples=0), "`n_resamples`"),
                          (dict(method="bcx"), "`method`"), (dict(by="rows"), "`by`"),
                          (dict(by="replicates"), "`by`='replicates'")]:
        with pytest.raises(ValueError, match=match):
            res.bootstrap_interval(**kwargs)
    undefined = _quiet(phi, [[1.0, 2.0, 3.0, 4.0, 5.0]], [2.0, 2.0])
    with pytest.warns(PredstabUndefinedWarning):
        ci = undefined.bootstrap_interval(random_state=0)
    assert math.isnan(ci.low) and math.isnan(ci.high)


def test_bootstrap_by_auto_resamples_objects_from_two_objects_on():
    rng = np.random.default_rng(6)
    two = rng.normal(size=(2, 8)) + np.array([[0.0], [3.0]])
    res = phi(two, rng.normal(size=50) * 2)
    auto = res.bootstrap_interval(n_resamples=200, random_state=3)
    objects = res.bootstrap_interval(n_resamples=200, by="objects", random_state=3)
    assert auto == objects
    one = phi(two[:1], rng.normal(size=50) * 2)
    auto1 = one.bootstrap_interval(n_resamples=200, random_state=3)
    assert auto1 == one.bootstrap_interval(n_resamples=200, by="replicates", random_state=3)
    with pytest.raises(ValueError,
                       match=r"`by`='objects' needs at least two objects with predictions; got 1"):
        one.bootstrap_interval(by="objects")
    with pytest.raises(ValueError, match=r"`by`='replicates' resamples the repetitions of a single object; "
                                         r"the result has 2 objects \(2 with at least two predictions\)\. "
                                         r"Use by='objects'\.$"):
        res.bootstrap_interval(by="replicates")
    # one of two objects left: neither objects nor its repetitions can be resampled here
    with pytest.warns(PredstabDataWarning):
        left = phi(np.vstack([two[:1], np.full(8, np.nan)]), rng.normal(size=50) * 2)
    with pytest.raises(ValueError, match=r"has 2 objects \(1 with at least two predictions\)\. With one "
                                         r"object left, pass that object's row alone"):
        left.bootstrap_interval()


def test_bootstrap_over_one_objects_refits_matches_scipy():
    from scipy import stats

    row = np.array([1.0, np.nan, 2.5, 0.5, 3.0, 1.5, 2.0])
    base = np.array([0.0, 1.0, 3.0, 5.0])
    with pytest.warns(PredstabDataWarning):
        res = phi(row[None, :], base)
    got = res.bootstrap_interval(n_resamples=500, by="replicates", random_state=11)
    d_e = np.var(base, ddof=1)
    ref = stats.bootstrap((row[~np.isnan(row)],), lambda x, axis=-1: 1 - np.var(x, axis=axis, ddof=1) / d_e,
                          n_resamples=500, rng=np.random.default_rng(11), vectorized=True,
                          method="percentile")
    assert got.low == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert got.high == pytest.approx(ref.confidence_interval.high, rel=1e-12)
    # classes (psi with a class the space lacks): the refits as codes in the order of res.categories
    labels = np.array(["b", "c", "b", "a", "b", "c", "b", "b"], dtype=object)
    res_c = psi(labels[None, :], np.array(["a", "b", "b", "a"], dtype=object), scale="categorical")
    assert res_c.categories == ("a", "b", "c")
    codes = np.sort(np.searchsorted(["a", "b", "c"], labels.astype(str)))
    d_e_c = 0.5

    def gini_stat(x, axis=-1):
        x = np.moveaxis(x, axis, -1)
        r = x.shape[-1]
        n = (x[..., None] == np.arange(3)).sum(axis=-2)
        return 1 - ((r * r - (n * n).sum(axis=-1)) / (r * (r - 1))) / d_e_c
    got_c = res_c.bootstrap_interval(n_resamples=400, by="replicates", random_state=5)
    ref_c = stats.bootstrap((codes,), gini_stat, n_resamples=400, rng=np.random.default_rng(5),
                            vectorized=True, method="percentile")
    assert got_c.low == pytest.approx(ref_c.confidence_interval.low, rel=1e-12)
    assert got_c.high == pytest.approx(ref_c.confidence_interval.high, rel=1e-12)


def test_the_quantile_functions_are_scipys_bit_for_bit():
    # phi / psi call chi2, t and norm quantiles by scipy's own formulas without scipy's generic
    # argument handling (most of a small call's time): the same bits, NaN for df <= 0 as scipy,
    # np.float64 for scalars, arrays for arrays
    from scipy import stats

    from predstab.stability._object_intervals import _chi2_ppf, _norm_ppf, _t_ppf

    rng = np.random.default_rng(0)
    dfs = np.concatenate([[np.nan, -1.0, 0.0, 1e-300, 1e-3, 0.1, 0.5, 1, 2, 3, 1e6, np.inf],
                          np.exp(rng.uniform(-8, 8, 500)), np.arange(1, 60)])
    for q in [0.025, 0.975, 0.005, 0.995, 0.5, 1e-12, *rng.uniform(0, 1, 4)]:
        np.testing.assert_array_equal(_chi2_ppf(q, dfs), stats.chi2.ppf(q, dfs))
        np.testing.assert_array_equal(_t_ppf(q, dfs), stats.t.ppf(q, dfs))
        assert _norm_ppf(q) == stats.norm.ppf(q) and type(_norm_ppf(q)) is np.float64
        for df in (4, 0.5, np.float64(7.0)):
            assert _chi2_ppf(q, df) == stats.chi2.ppf(q, df) and type(_chi2_ppf(q, df)) is np.float64
            assert _t_ppf(q, df) == stats.t.ppf(q, df) and type(_t_ppf(q, df)) is np.float64
    assert np.isnan(_chi2_ppf(0.5, 0)) and np.isnan(_t_ppf(0.5, -2.0))
    np.testing.assert_array_equal(_chi2_ppf(np.array([0.975, 0.025]), 4), stats.chi2.ppf([0.975, 0.025], 4))


@pytest.mark.parametrize("object_interval", ["auto", "checked", "chi2", "bonett", "pooled"])
def test_degenerate_rows_leak_no_numpy_warning(object_interval):
    # constant refits, one or two refits left, a row of missing values only and a tiny one: every
    # method gives its intervals without a numpy RuntimeWarning ("checked" leaked numpy's "Mean of
    # empty slice" for the row of missing values, and "bonett" relies on its errstate), and the
    # objects with two or more refits get the interval of the rows alone
    rng = np.random.default_rng(0)
    pred = rng.normal(size=(12, 6))
    pred[0] = 3.0
    pred[1, 1:] = np.nan
    pred[2, 2:] = np.nan
    pred[3] = [1, 1, 1, 1, 1, 2]
    pred[4] = np.nan
    pred[5] = [1e-300, 0, 0, 0, 0, 0]
    y = rng.normal(size=50)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", PredstabDataWarning)  # the missing values, named
        res = phi(pred, y, scale="metric", object_interval=object_interval)
    assert np.isnan(res.per_object[4]) and np.isnan(res.per_object_low[4])
    assert res.per_object[0] == 1.0 and res.per_object_high[0] == 1.0  # no disagreement
    d_e = 2 * np.var(y, ddof=1)  # the training responses' expected disagreement
    assert res.per_object[2] == pytest.approx(1 - (pred[2, 0] - pred[2, 1]) ** 2 / d_e, rel=1e-12)
