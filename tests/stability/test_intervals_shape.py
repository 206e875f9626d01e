"""Issue 34, item 4: objects whose refits are far from the pooled shape, and the per-object
intervals of 3 refits in words.

Target: the pooled-kurtosis intervals assume that every object's refits share one shape; the
result flags the objects whose refits are far heavier-tailed than the pooled shape
(``per_object_shape_outlier``, ``n_shape_outliers``, ``interval_note``, a PredstabDataWarning).
Rule: an object's sample kurtosis ``b_2 = n sum d^4 / (sum d^2)^2`` above the ``1 - alpha / M``
quantile of the kurtosis of ``n`` values drawn from the ``M`` checked objects' standardised
refits, scale-mixed up to the pooled kurtosis (plus its two standard errors). The spread of the
per-object coverage of random forests with t2 noise, and how often the check fires, are in
docs/benchmarks/coverage.md.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from predstab import PredstabDataWarning, phi, psi

BASE = np.array([-1.0, 1.0]) * math.sqrt(0.5)  # D_e = 1


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _b2(rows):
    """Pearson's kurtosis (not excess) of each row, as scipy computes it."""
    return stats.kurtosis(rows, axis=-1, fisher=False, bias=True)


def _null_quantile(e, noise, spread, q):
    """The q quantile of the kurtosis of the rows of the scale-mixed draws."""
    v = e * np.exp((math.sqrt(spread) * noise - spread / 2) / 2) if spread > 0 else e
    return np.quantile(_b2(v), q)


def _flags_by_hand(x, alpha=0.05):
    """The rule of the docstring (full matrices), written out with scipy's kurtosis and k-statistics
    and the same random draws."""
    m, n = x.shape
    d = x - x.mean(axis=1, keepdims=True)
    s2 = (d ** 2).sum(axis=1)
    b2 = _b2(x)
    k4 = np.array([stats.kstat(row, 4) for row in x])
    k2 = s2 / (n - 1)
    sigma4 = (k2 * k2 - k4 / n) * (n - 1) / (n + 1)
    draws = max(min(max(2000, 20 * m), 1_000_000 // n), 200)
    rng = np.random.default_rng(0)
    rows = rng.integers(m, size=draws * n)
    cols = rng.integers(n, size=draws * n)
    e = (d[rows, cols] / np.sqrt(s2[rows] / n)).reshape(draws, n)
    noise = rng.standard_normal(e.shape)
    q = 1 - alpha / m
    flags = b2 > _null_quantile(e, noise, 0.0, q)
    candidates = np.flatnonzero(flags)
    if candidates.size == 0:
        return flags
    pool = b2.mean()  # mean e^4 over all cells (equal counts)
    kappa = np.array([(k4.sum() - k4[i]) / (sigma4.sum() - sigma4[i]) + 2 * math.sqrt(24 / (n * (m - 1)))
                      for i in candidates])
    spread = np.log(np.maximum(3 + kappa, pool) / pool)
    grid = np.linspace(0, spread.max(), 9)
    table = [_null_quantile(e, noise, g, q) for g in grid]
    for i, sp in zip(candidates, spread, strict=True):
        flags[i] = b2[i] > np.interp(sp, grid, table)
    return flags


def _spiked(seed, spike=4.0):
    """30 objects of 20 normal refits of different variances, object 3 with one far refit."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(30, 20)) * rng.uniform(0.5, 1.0, size=(30, 1))
    x[3] = rng.normal(size=20) * 0.3
    x[3, 5] = spike
    return x


def test_an_object_with_a_far_refit_is_flagged_by_the_stated_rule():
    x = _spiked(40)
    with pytest.warns(PredstabDataWarning, match="1 object\\(s\\) of `predictions` have refits far heavier"):
        res = phi(x, BASE)
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
    res = _quiet(phi, x, BASE)
    np.testing.assert_array_equal(res.per_object_shape_outlier, _flags_by_hand(x))
    assert res.n_shape_outliers == int(res.per_object_shape_outlier.sum())


def test_the_level_follows_the_confidence_level():
    x = _spiked(40, spike=2.2)
    loose, strict = (_quiet(phi, x, BASE, confidence_level=level) for level in (0.5, 0.999))
    np.testing.assert_array_equal(loose.per_object_shape_outlier, _flags_by_hand(x, alpha=0.5))
    np.testing.assert_array_equal(strict.per_object_shape_outlier, _flags_by_hand(x, alpha=0.001))
    assert loose.n_shape_outliers >= strict.n_shape_outliers


@pytest.mark.slow
def test_objects_that_share_a_shape_are_seldom_flagged():
    # 200 calls of 30 objects x 20 normal refits of different variances: the check fires in about
    # alpha of the calls at most (Bonferroni over the objects)
    rng = np.random.default_rng(44)
    fired = 0
    for _ in range(200):
        x = rng.normal(size=(30, 20)) * rng.uniform(0.2, 1.0, size=(30, 1))
        fired += _quiet(phi, x, BASE).n_shape_outliers > 0
    assert fired / 200 <= 0.08, fired


@pytest.mark.slow
def test_an_object_of_far_heavier_tails_is_flagged_often():
    # one object of t(1.5) refits among 29 normal ones, 20 refits: flagged in a third of the calls
    # (its sample kurtosis of 20 refits is often unremarkable: the flag can say so only when it shows)
    rng = np.random.default_rng(45)
    hits = []
    for _ in range(100):
        x = rng.normal(size=(30, 20)) * rng.uniform(0.5, 1.0, size=(30, 1))
        x[7] = rng.standard_t(1.5, size=20) * 0.5
        res = _quiet(phi, x, BASE)
        hits.append(res.per_object_shape_outlier[7])
    assert np.mean(hits) >= 0.25, np.mean(hits)


def test_no_check_where_the_pooled_shape_is_not_used_or_not_estimable():
    x = _spiked(40)
    for method in ("chi2", "bonett"):
        res = _quiet(phi, x, BASE, object_interval=method)
        assert res.n_shape_outliers == 0 and not res.per_object_shape_outlier.any()
    # two objects of 4 refits and more: no pooled shape to compare with
    few = x[:3].copy()
    few[2, 3:] = np.nan
    res = _quiet(phi, few, BASE)
    assert res.n_shape_outliers == 0
    # classes: no check, an all-False column
    votes = np.array([list("aab"), list("abb")], dtype=object)
    res = _quiet(psi, votes, np.array(list("aabb"), dtype=object))
    assert res.per_object_shape_outlier.tolist() == [False, False]


def test_missing_refits_are_drawn_from_what_is_there():
    x = _spiked(40)
    x[10:20, 15:] = np.nan  # ten objects of 15 refits
    res = _quiet(phi, x, BASE)
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
