"""Issue 34, item 4: objects whose refits are far from the pooled shape, and the per-object
intervals of 3 refits in words.

Target: the pooled-kurtosis intervals assume that every object's refits share one shape; the
result flags the objects whose refits are far heavier-tailed than the pooled shape
(``per_object_shape_outlier``, ``n_shape_outliers``, ``interval_note``, a PredstabDataWarning).
Rule: an object's sample kurtosis ``b_2 = n sum d^4 / (sum d^2)^2`` above the ``1 - alpha / M``
quantile of the kurtosis of ``n`` values drawn from the ``M`` checked objects' standardised
refits, scale-mixed up to the pooled kurtosis (plus its two standard errors). The spread of the
per-object coverage of random forests with t2 noise, and how often the check fires, are in
docs/benchmarks/coverage.md. The flags pinned against the rule written out here
(:func:`_flags_by_hand`) are tested in test_interval_terms.py (the file the mutation score runs).
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from predstab import phi

BASE = np.array([-1.0, 1.0]) * math.sqrt(0.5)  # D_e = 1


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _b2(rows):
    """Pearson's kurtosis (not excess) of each row, as scipy computes it."""
    return stats.kurtosis(rows, axis=-1, fisher=False, bias=True)


def _null_quantile(e, noise, spread, q):
    """The q quantile of the kurtosis of the rows of the scale-mixed draws; where there are fewer
    than 0.5 / (1 - q) rows, at least the quantile of a Pareto tail fitted above their 0.95
    quantile u (the mean of log(b2 / u) as its scale)."""
    v = e * np.exp((math.sqrt(spread) * noise - spread / 2) / 2) if spread > 0 else e
    b2 = _b2(v)
    plain = np.quantile(b2, q)
    if len(b2) * (1 - q) >= 0.5:
        return plain
    u = np.quantile(b2, 0.95)
    return max(plain, u * math.exp(np.mean(np.log(b2[b2 > u] / u)) * math.log(0.05 / (1 - q))))


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
    draws = max(min(max(2000, 20 * m), 200_000 // n), 200)
    rng = np.random.default_rng(0)
    rows = rng.integers(m, size=draws * n)
    cols = rng.integers(n, size=draws * n)
    e = (d[rows, cols] / np.sqrt(s2[rows] / n)).reshape(draws, n)
    noise = rng.standard_normal(e.shape)
    q = 1 - alpha / m
    pool = b2.mean()  # mean e^4 over all cells (equal counts)
    kappa = np.array([(k4.sum() - k4[i]) / (sigma4.sum() - sigma4[i]) + 2 * math.sqrt(24 / (n * (m - 1)))
                      for i in range(m)])
    spread = np.log(np.maximum(3 + kappa, pool) / pool)
    flags = b2 > _null_quantile(e, noise, spread.min(), q)
    candidates = np.flatnonzero(flags)
    if candidates.size == 0:
        return flags
    grid = np.linspace(spread.min(), spread[candidates].max(), 4)
    table = [_null_quantile(e, noise, g, q) for g in grid]
    for i in candidates:
        flags[i] = b2[i] > np.interp(spread[i], grid, table)
    return flags


def _spiked(seed, spike=4.0):
    """30 objects of 20 normal refits of different variances, object 3 with one far refit."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(30, 20)) * rng.uniform(0.5, 1.0, size=(30, 1))
    x[3] = rng.normal(size=20) * 0.3
    x[3, 5] = spike
    return x


@pytest.mark.slow
def test_objects_that_share_a_shape_are_seldom_flagged():
    # 200 calls of 30 objects x 20 normal refits of different variances: the check fires in about
    # alpha of the calls at most (Bonferroni over the objects)
    rng = np.random.default_rng(44)
    fired = 0
    for _ in range(200):
        x = rng.normal(size=(30, 20)) * rng.uniform(0.2, 1.0, size=(30, 1))
        fired += _quiet(phi, x, BASE, object_interval="checked").n_shape_outliers > 0
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
        res = _quiet(phi, x, BASE, object_interval="checked")
        hits.append(res.per_object_shape_outlier[7])
    assert np.mean(hits) >= 0.25, np.mean(hits)
